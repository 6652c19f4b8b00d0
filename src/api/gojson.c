/* gojson.c — JSON syntax errors worded exactly like Go's encoding/json
 * scanner, because kube-apiserver embeds them in its 400 BadRequest
 * messages ("... json parse error: invalid character '}' looking for
 * beginning of object key string") and clients and tests compare them.
 * This only checks syntax; jansson does the real parsing. */
#include "api/gojson.h"
#include "common/xalloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct scan {
    const unsigned char *s;
    size_t n, i;
    int depth;
    char *err;
} scan_t;

#define MAX_DEPTH 10000 /* encoding/json's maxNestingDepth */

/* Go's quoteChar: 'x', '\'' , '"', '\n', '\x01' */
static void quote_char(unsigned char c, char *out, size_t len)
{
    if (c == '\'')
        snprintf(out, len, "'\\''");
    else if (c == '"')
        snprintf(out, len, "'\"'");
    else if (c == '\a')
        snprintf(out, len, "'\\a'");
    else if (c == '\b')
        snprintf(out, len, "'\\b'");
    else if (c == '\f')
        snprintf(out, len, "'\\f'");
    else if (c == '\n')
        snprintf(out, len, "'\\n'");
    else if (c == '\r')
        snprintf(out, len, "'\\r'");
    else if (c == '\t')
        snprintf(out, len, "'\\t'");
    else if (c == '\v')
        snprintf(out, len, "'\\v'");
    else if (c == '\\')
        snprintf(out, len, "'\\\\'");
    else if (c < 0x20 || c == 0x7f)
        snprintf(out, len, "'\\x%02x'", c);
    else if (c >= 0x80) /* string(byte) is U+00XX: printable Latin-1 */
        snprintf(out, len, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
    else
        snprintf(out, len, "'%c'", c);
}

static int fail(scan_t *sc, const char *context)
{
    if (sc->err)
        return -1;
    if (sc->i >= sc->n) {
        sc->err = sl_xstrdup("unexpected end of JSON input");
        return -1;
    }
    char q[16];
    quote_char(sc->s[sc->i], q, sizeof(q));
    sc->err = sl_xasprintf("invalid character %s %s", q, context);
    return -1;
}

static void ws(scan_t *sc)
{
    while (sc->i < sc->n && (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\t' ||
                             sc->s[sc->i] == '\r' || sc->s[sc->i] == '\n'))
        sc->i++;
}

static int peek(scan_t *sc)
{
    return sc->i < sc->n ? sc->s[sc->i] : -1;
}

static bool is_hex(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int string_lit(scan_t *sc)
{
    sc->i++; /* opening quote */
    for (;;) {
        int c = peek(sc);
        if (c < 0)
            return fail(sc, "");
        if (c == '"') {
            sc->i++;
            return 0;
        }
        if (c < 0x20)
            return fail(sc, "in string literal");
        if (c == '\\') {
            sc->i++;
            c = peek(sc);
            if (c < 0)
                return fail(sc, "");
            if (c == 'u') {
                sc->i++;
                for (int k = 0; k < 4; k++) {
                    if (!is_hex(peek(sc)))
                        return fail(sc, "in \\u hexadecimal character escape");
                    sc->i++;
                }
                continue;
            }
            if (!strchr("\"\\/bfnrt", c))
                return fail(sc, "in string escape code");
        }
        sc->i++;
    }
}

static bool digit(int c)
{
    return c >= '0' && c <= '9';
}

static int number(scan_t *sc)
{
    if (peek(sc) == '-') {
        sc->i++;
        if (!digit(peek(sc)))
            return fail(sc, "in numeric literal");
    }
    if (peek(sc) == '0')
        sc->i++;
    else
        while (digit(peek(sc)))
            sc->i++;
    if (peek(sc) == '.') {
        sc->i++;
        if (!digit(peek(sc)))
            return fail(sc, "after decimal point in numeric literal");
        while (digit(peek(sc)))
            sc->i++;
    }
    if (peek(sc) == 'e' || peek(sc) == 'E') {
        sc->i++;
        if (peek(sc) == '+' || peek(sc) == '-')
            sc->i++;
        if (!digit(peek(sc)))
            return fail(sc, "in exponent of numeric literal");
        while (digit(peek(sc)))
            sc->i++;
    }
    return 0;
}

static int literal(scan_t *sc, const char *word)
{
    sc->i++;
    for (const char *w = word + 1; *w; w++) {
        if (peek(sc) != *w) {
            char ctx[64];
            snprintf(ctx, sizeof(ctx), "in literal %s (expecting '%c')", word, *w);
            return fail(sc, ctx);
        }
        sc->i++;
    }
    return 0;
}

static int value(scan_t *sc);

static int object(scan_t *sc)
{
    sc->i++;
    ws(sc);
    if (peek(sc) == '}') {
        sc->i++;
        return 0;
    }
    for (;;) {
        if (peek(sc) != '"')
            return fail(sc, "looking for beginning of object key string");
        if (string_lit(sc) < 0)
            return -1;
        ws(sc);
        if (peek(sc) != ':')
            return fail(sc, "after object key");
        sc->i++;
        if (value(sc) < 0)
            return -1;
        ws(sc);
        if (peek(sc) == ',') {
            sc->i++;
            ws(sc);
            continue;
        }
        if (peek(sc) == '}') {
            sc->i++;
            return 0;
        }
        return fail(sc, "after object key:value pair");
    }
}

static int array(scan_t *sc)
{
    sc->i++;
    ws(sc);
    if (peek(sc) == ']') {
        sc->i++;
        return 0;
    }
    for (;;) {
        if (value(sc) < 0)
            return -1;
        ws(sc);
        if (peek(sc) == ',') {
            sc->i++;
            continue;
        }
        if (peek(sc) == ']') {
            sc->i++;
            return 0;
        }
        return fail(sc, "after array element");
    }
}

static int value(scan_t *sc)
{
    ws(sc);
    int c = peek(sc);
    int r;
    if (++sc->depth > MAX_DEPTH) {
        sc->err = sl_xstrdup("exceeded max depth");
        return -1;
    }
    switch (c) {
    case '{': r = object(sc); break;
    case '[': r = array(sc); break;
    case '"': r = string_lit(sc); break;
    case 't': r = literal(sc, "true"); break;
    case 'f': r = literal(sc, "false"); break;
    case 'n': r = literal(sc, "null"); break;
    default:
        if (c == '-' || digit(c))
            r = number(sc);
        else
            r = fail(sc, "looking for beginning of value");
    }
    sc->depth--;
    return r;
}

char *api_gojson_error(const char *data, size_t len)
{
    scan_t sc = {(const unsigned char *)data, len, 0, 0, NULL};
    if (value(&sc) == 0) {
        ws(&sc);
        if (sc.i < sc.n)
            fail(&sc, "after top-level value");
    }
    return sc.err;
}
