/* b64.c — base64 through gnutls_base64_encode2/decode2; the URL-safe
 * form maps its two letters and the padding around them. */
#include "common/b64.h"

#include "common/xalloc.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <stdlib.h>
#include <string.h>

char *sl_b64_encode(const void *data, size_t len)
{
    if (len == 0)
        return sl_xstrdup("");
    gnutls_datum_t in = {(unsigned char *)data, (unsigned)len}, out = {NULL, 0};
    if (len > 0x7fffffffu || gnutls_base64_encode2(&in, &out) < 0)
        return NULL;
    char *r = sl_xstrndup((const char *)out.data, out.size);
    gnutls_free(out.data);
    return r;
}

char *sl_b64_decode(const char *s, size_t n, size_t *len)
{
    if (len)
        *len = 0;
    if (n == 0)
        return sl_xstrdup("");
    gnutls_datum_t in = {(unsigned char *)s, (unsigned)n}, out = {NULL, 0};
    if (n > 0x7fffffffu || gnutls_base64_decode2(&in, &out) < 0) {
        errno = EINVAL;
        return NULL;
    }
    char *r = sl_xmalloc((size_t)out.size + 1);
    memcpy(r, out.data, out.size);
    r[out.size] = '\0';
    if (len)
        *len = out.size;
    gnutls_free(out.data);
    return r;
}

char *sl_b64url_encode(const void *data, size_t len)
{
    char *r = sl_b64_encode(data, len);
    if (!r)
        return NULL;
    char *p = r;
    for (; *p && *p != '='; p++)
        *p = *p == '+' ? '-' : *p == '/' ? '_' : *p;
    *p = '\0';
    return r;
}

char *sl_b64url_decode(const char *s, size_t *len)
{
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '=')
        n--;
    if (n % 4 == 1 || memchr(s, '=', n)) {
        errno = EINVAL;
        if (len)
            *len = 0;
        return NULL;
    }
    char *std = sl_xmalloc(n + 4);
    for (size_t i = 0; i < n; i++)
        std[i] = s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i];
    size_t m = n;
    while (m % 4)
        std[m++] = '=';
    char *r = sl_b64_decode(std, m, len);
    free(std);
    return r;
}
