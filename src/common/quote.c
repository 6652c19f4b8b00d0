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
