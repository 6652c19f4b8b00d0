#include "quote.h"
#include "buf.h"

#include <string.h>

static int is_bare(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_@%+=:,./-", c) != NULL;
}

char *sl_shell_quote(const char *s)
{
    sl_buf_t b = SL_BUF_INIT;
    const unsigned char *p;
    int bare = *s != '\0';

    for (p = (const unsigned char *)s; *p; p++)
        if (!is_bare(*p)) {
            bare = 0;
            break;
        }
    /* a leading '=' or '%' is harmless in sh, but '~' is not bare anyway */
    if (bare) {
        sl_buf_puts(&b, s);
        return sl_buf_steal(&b);
    }
    sl_buf_putc(&b, '\'');
    for (p = (const unsigned char *)s; *p; p++) {
        if (*p == '\'')
            sl_buf_puts(&b, "'\\''");
        else
            sl_buf_putc(&b, (char)*p);
    }
    sl_buf_putc(&b, '\'');
    return sl_buf_steal(&b);
}

/* ---- Go's strconv.Quote ---- */

/* Length of a valid UTF-8 sequence at p (2..4), or 0 if invalid. */
static int utf8_len(const unsigned char *p)
{
    if (p[0] >= 0xc2 && p[0] <= 0xdf && (p[1] & 0xc0) == 0x80)
        return 2;
    if (p[0] >= 0xe0 && p[0] <= 0xef && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
        if (p[0] == 0xe0 && p[1] < 0xa0)
            return 0; /* overlong */
        if (p[0] == 0xed && p[1] >= 0xa0)
            return 0; /* surrogate */
        return 3;
    }
    if (p[0] >= 0xf0 && p[0] <= 0xf4 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
        (p[3] & 0xc0) == 0x80) {
        if (p[0] == 0xf0 && p[1] < 0x90)
            return 0;
        if (p[0] == 0xf4 && p[1] >= 0x90)
            return 0;
        return 4;
    }
    return 0;
}

char *sl_go_quote(const char *s)
{
    sl_buf_t b = SL_BUF_INIT;
    const unsigned char *p = (const unsigned char *)s;
    sl_buf_putc(&b, '"');
    while (*p) {
        unsigned char c = *p;
        int n;
        switch (c) {
        case '"':
            sl_buf_puts(&b, "\\\"");
            p++;
            continue;
        case '\\':
            sl_buf_puts(&b, "\\\\");
            p++;
            continue;
        case '\a':
            sl_buf_puts(&b, "\\a");
            p++;
            continue;
        case '\b':
            sl_buf_puts(&b, "\\b");
            p++;
            continue;
        case '\f':
            sl_buf_puts(&b, "\\f");
            p++;
            continue;
        case '\n':
            sl_buf_puts(&b, "\\n");
            p++;
            continue;
        case '\r':
            sl_buf_puts(&b, "\\r");
            p++;
            continue;
        case '\t':
            sl_buf_puts(&b, "\\t");
            p++;
            continue;
        case '\v':
            sl_buf_puts(&b, "\\v");
            p++;
            continue;
        default: break;
        }
        if (c >= 0x20 && c < 0x7f) {
            sl_buf_putc(&b, (char)c);
            p++;
        } else if (c < 0x80) {
            sl_buf_printf(&b, "\\x%02x", c);
            p++;
        } else if ((n = utf8_len(p)) > 0) {
            /* C1 controls (U+0080..U+009F) are not printable; Go writes \u00XX */
            if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)
                sl_buf_printf(&b, "\\u%04x", p[1]);
            else
                sl_buf_append(&b, p, (size_t)n);
            p += n;
        } else {
            sl_buf_printf(&b, "\\x%02x", c);
            p++;
        }
    }
    sl_buf_putc(&b, '"');
    return sl_buf_steal(&b);
}
