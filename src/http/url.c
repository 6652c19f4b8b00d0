/* url.c — the unescaping of request paths and query parts. */
#include "http/url.h"

#include <ctype.h>
#include <stdlib.h>

/* Query strings from Go clients encode spaces as '+' (url.Values); MHD only
 * decodes %XX. Object names never contain '+', so decoding it in paths too
 * is harmless. */
size_t http_unescape(char *s)
{
    char *w = s;
    for (char *p = s; *p; p++) {
        if (*p == '+') {
            *w++ = ' ';
        } else if (*p == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
            char hex[3] = {p[1], p[2], 0};
            *w++ = (char)strtol(hex, NULL, 16);
            p += 2;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}
