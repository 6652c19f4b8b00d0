/* jobindex.c — interval strings of Job indexes (jobindex.h). */
#include "kinds/job/jobindex.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *ctl_index_intervals(const unsigned char *set, size_t n)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "");
    for (size_t i = 0; i < n; i++) {
        if (!set[i])
            continue;
        size_t j = i;
        while (j + 1 < n && set[j + 1])
            j++;
        if (b.len)
            sl_buf_putc(&b, ',');
        if (j > i)
            sl_buf_printf(&b, "%zu-%zu", i, j);
        else
            sl_buf_printf(&b, "%zu", i);
        i = j;
    }
    return sl_buf_steal(&b);
}

static int number(const char **p, size_t *out)
{
    if (**p < '0' || **p > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno)
        return -1;
    *p = end;
    *out = (size_t)v;
    return 0;
}

int ctl_index_parse(const char *s, unsigned char *set, size_t n)
{
    memset(set, 0, n);
    const char *p = s ? s : "";
    while (*p) {
        size_t a, b;
        if (number(&p, &a) < 0)
            return -1;
        b = a;
        if (*p == '-') {
            p++;
            if (number(&p, &b) < 0 || b < a)
                return -1;
        }
        if (b >= n)
            return -1;
        memset(set + a, 1, b - a + 1);
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return -1;
    }
    return 0;
}

char *ctl_index_array_spec(const unsigned char *set, size_t n, unsigned throttle)
{
    char *iv = ctl_index_intervals(set, n);
    if (!throttle)
        return iv;
    char *s = sl_xasprintf("%s%%%u", iv, throttle);
    free(iv);
    return s;
}

int ctl_index_success_rule(json_t *rules, const unsigned char *done, size_t n)
{
    size_t k, total = 0;
    json_t *r;
    for (size_t i = 0; i < n; i++)
        total += done[i] != 0;
    if (!total)
        return -1;
    unsigned char *req = calloc(n ? n : 1, 1);
    int found = -1;
    json_array_foreach(rules, k, r)
    {
        const char *ix = json_string_value(json_object_get(r, "succeededIndexes"));
        json_t *cnt = json_object_get(r, "succeededCount");
        if (ix) {
            if (!req || ctl_index_parse(ix, req, n) < 0)
                continue;
            size_t want = 0, got = 0;
            for (size_t i = 0; i < n; i++) {
                want += req[i] != 0;
                got += req[i] && done[i];
            }
            if (!want ||
                (json_is_integer(cnt) ? (json_int_t)got < json_integer_value(cnt) : got < want))
                continue;
        } else if (!json_is_integer(cnt) || (json_int_t)total < json_integer_value(cnt)) {
            continue;
        }
        found = (int)k;
        break;
    }
    free(req);
    return found;
}
