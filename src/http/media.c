/* media.c — parsing the Accept header the way clients use it here:
 * ordered media ranges with the Kubernetes parameters as=, g=, v=
 * (kubectl: "application/json;as=Table;v=v1;g=meta.k8s.io,...,application/json").
 * q-values are ignored: Kubernetes clients list their preference in order. */
#include "http/media.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static void copy_trim(char *dst, size_t cap, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        dst[i] = (char)tolower((unsigned char)s[i]);
    dst[n] = '\0';
}

/* Copy, truncating (over-long values then simply match nothing). */
static void set_value(char *dst, size_t cap, const char *v)
{
    size_t n = strlen(v);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

int http_accept_parse(const char *h, http_media_t *out, int max)
{
    if (!h || !*h) {
        memset(&out[0], 0, sizeof(out[0]));
        strcpy(out[0].type, "*/*");
        return 1;
    }
    int n = 0;
    const char *p = h;
    while (*p && n < max) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        http_media_t *m = &out[n];
        memset(m, 0, sizeof(*m));
        /* type;param;param */
        const char *q = p, *stop = p + len;
        const char *semi = memchr(q, ';', len);
        copy_trim(m->type, sizeof(m->type), q, semi ? (size_t)(semi - q) : len);
        while (semi && semi < stop) {
            q = semi + 1;
            semi = memchr(q, ';', (size_t)(stop - q));
            size_t plen = semi ? (size_t)(semi - q) : (size_t)(stop - q);
            char param[160];
            size_t pn = plen < sizeof(param) - 1 ? plen : sizeof(param) - 1;
            memcpy(param, q, pn);
            param[pn] = '\0';
            char *eq = strchr(param, '=');
            if (!eq)
                continue;
            *eq = '\0';
            char key[16], val[96];
            copy_trim(key, sizeof(key), param, strlen(param)); /* keys are case-insensitive */
            const char *v = eq + 1;
            while (isspace((unsigned char)*v))
                v++;
            snprintf(val, sizeof(val), "%s", v); /* values keep their case: Table, v1 */
            for (size_t k = strlen(val); k && isspace((unsigned char)val[k - 1]); k--)
                val[k - 1] = '\0';
            if (!strcmp(key, "as"))
                set_value(m->as, sizeof(m->as), val);
            else if (!strcmp(key, "g"))
                set_value(m->g, sizeof(m->g), val);
            else if (!strcmp(key, "v"))
                set_value(m->v, sizeof(m->v), val);
        }
        if (m->type[0])
            n++;
        if (!end)
            break;
        p = end + 1;
    }
    if (n == 0) {
        memset(&out[0], 0, sizeof(out[0]));
        strcpy(out[0].type, "*/*");
        n = 1;
    }
    return n;
}

bool http_media_json(const http_media_t *m)
{
    return !strcmp(m->type, "application/json") || !strcmp(m->type, "application/*") ||
           !strcmp(m->type, "*/*");
}
