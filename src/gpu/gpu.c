/* gpu.c — the product → GRES type policy table and GRES strings. */
#include "gpu/gpu.h"

#include "common/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *table_or_default(const char *table)
{
    return table && *table ? table : SL_GPU_DEFAULT_TYPES;
}

static int name_ok(const char *s, size_t len, size_t max)
{
    if (!len || len > max)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
            return 0;
    return 1;
}

int sl_gpu_type_ok(const char *s) { return s && name_ok(s, strlen(s), 63); }

/* the next row of *p: product and type spans; 0 at the end, -1 malformed */
static int next_row(const char **p, const char **prod, size_t *plen, const char **type,
                    size_t *tlen)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t row = strcspn(s, ",");
    const char *eq = memchr(s, '=', row);
    *p = s[row] ? s + row + 1 : s + row;
    if (!eq)
        return -1;
    *prod = s;
    *plen = (size_t)(eq - s);
    *type = eq + 1;
    *tlen = row - *plen - 1;
    return name_ok(*prod, *plen, 63) && name_ok(*type, *tlen, 63) ? 1 : -1;
}

int sl_gpu_types_check(const char *table, sl_error_t *err)
{
    const char *p = table_or_default(table), *prod, *type;
    size_t pl, tl;
    int r;
    while ((r = next_row(&p, &prod, &pl, &type, &tl)) > 0)
        ;
    if (r < 0)
        return sl_errprintf(err,
                            "gpus.types must be PRODUCT=TYPE rows joined by commas (a "
                            "nvidia.com/gpu.product label value and a GRES type: letters, "
                            "digits, '.', '_', '-'), not '%s'",
                            table);
    return 0;
}

char *sl_gpu_type_for_product(const char *table, const char *product)
{
    const char *p = table_or_default(table), *prod, *type;
    size_t pl, tl;
    while (product && next_row(&p, &prod, &pl, &type, &tl) > 0)
        if (pl == strlen(product) && !strncmp(prod, product, pl))
            return sl_xstrndup(type, tl);
    return sl_gpu_type_ok(product) ? sl_xstrdup(product) : NULL;
}

char *sl_gpu_product_for_type(const char *table, const char *type)
{
    const char *p = table_or_default(table), *prod, *t;
    size_t pl, tl;
    while (next_row(&p, &prod, &pl, &t, &tl) > 0)
        if (tl == strlen(type) && !strncmp(t, type, tl))
            return sl_xstrndup(prod, pl);
    return sl_xstrdup(type);
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    return p;
}

/* `LHS == "VALUE"` at *p: the value (caller frees), *p past it; NULL if not */
static char *equals_literal(const char **p, const char *lhs)
{
    const char *s = skip_ws(*p);
    size_t n = strlen(lhs);
    if (strncmp(s, lhs, n))
        return NULL;
    s = skip_ws(s + n);
    if (strncmp(s, "==", 2))
        return NULL;
    s = skip_ws(s + 2);
    if (*s != '"')
        return NULL;
    const char *end = strpbrk(s + 1, "\"\\");
    if (!end || *end != '"')
        return NULL;
    *p = skip_ws(end + 1);
    return sl_xstrndup(s + 1, (size_t)(end - s - 1));
}

int sl_gpu_cel(const char *expr, char **product, const char **why)
{
    *product = NULL;
    const char *p = expr ? expr : "";
    for (;;) {
        char *v;
        if ((v = equals_literal(&p, "device.driver"))) {
            int ok = !strcmp(v, SL_GPU_DRA_DRIVER);
            free(v);
            if (!ok)
                break;
        } else if ((v = equals_literal(&p, "device.attributes[\"" SL_GPU_DRA_DRIVER
                                           "\"].productName"))) {
            free(*product);
            *product = v;
        } else {
            break;
        }
        if (!*p)
            return 0;
        if (strncmp(p, "&&", 2))
            break;
        p += 2;
    }
    free(*product);
    *product = NULL;
    *why = SL_GPU_CEL_SUBSET;
    return -1;
}

char *sl_gpu_type_for_dra_product(const char *table, const char *product)
{
    char *dashed = sl_xstrdup(product);
    for (char *c = dashed; *c; c++)
        if (*c == ' ')
            *c = '-';
    const char *p = table_or_default(table), *prod, *type;
    size_t pl, tl;
    while (next_row(&p, &prod, &pl, &type, &tl) > 0)
        if (pl == strlen(dashed) && !strncasecmp(prod, dashed, pl)) {
            free(dashed);
            return sl_xstrndup(type, tl);
        }
    for (char *c = dashed; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    if (sl_gpu_type_ok(dashed))
        return dashed;
    free(dashed);
    return NULL;
}

/* "(IDX:0-1)" or "(S:0)" after an entry: the index list into e->index */
static const char *paren(const char *q, sl_gpu_gres_t *e)
{
    const char *end = strchr(q, ')');
    if (!end)
        return q + strlen(q);
    if (!strncmp(q, "(IDX:", 5)) {
        size_t n = (size_t)(end - q - 5);
        if (n >= sizeof(e->index))
            n = sizeof(e->index) - 1;
        memcpy(e->index, q + 5, n);
        e->index[n] = '\0';
    }
    return end + 1;
}

/* one "name[:type][:count][(...)]" entry of s, up to its comma */
static const char *one_entry(const char *s, sl_gpu_gres_t *e)
{
    memset(e, 0, sizeof(*e));
    const char *f[3];
    size_t fl[3];
    int nf = 0;
    const char *q = s;
    while (*q && *q != ',' && *q != '(' && nf < 3) {
        size_t n = strcspn(q, ":,(");
        f[nf] = q;
        fl[nf++] = n;
        q += n;
        if (*q == ':')
            q++;
    }
    if (nf && fl[0] < sizeof(e->name))
        memcpy(e->name, f[0], fl[0]);
    e->count = 1;
    if (nf >= 2 && isdigit((unsigned char)*f[nf - 1]))
        e->count = strtol(f[nf - 1], NULL, 10);
    if (nf == 3 || (nf == 2 && !isdigit((unsigned char)*f[1])))
        if (fl[1] < sizeof(e->type))
            memcpy(e->type, f[1], fl[1]);
    if (*q == '(')
        q = paren(q, e);
    while (*q && *q != ',')
        q++;
    return *q ? q + 1 : q;
}

char *sl_gpu_gres_merge(const char *gres)
{
    sl_gpu_gres_t v[32];
    size_t n = sl_gpu_gres_parse(gres, v, 32);
    for (size_t i = 0; i < n; i++) {
        if (*v[i].type)
            continue;
        for (size_t j = 0; j < n; j++) /* an untyped count joins the first typed entry */
            if (j != i && *v[j].type && v[j].count >= 0 && !strcmp(v[j].name, v[i].name)) {
                v[j].count += v[i].count;
                v[i].count = -1;
                break;
            }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && v[i].count >= 0; j++)
            if (v[j].count >= 0 && !strcmp(v[j].name, v[i].name) && !strcmp(v[j].type, v[i].type)) {
                v[i].count += v[j].count;
                v[j].count = -1;
            }
    char *out = sl_xstrdup("");
    for (size_t i = 0; i < n; i++) {
        if (v[i].count < 0)
            continue;
        char *s = sl_xasprintf("%s%s%s:%s%s%ld", out, *out ? "," : "", v[i].name, v[i].type,
                               *v[i].type ? ":" : "", v[i].count);
        free(out);
        out = s;
    }
    return out;
}

size_t sl_gpu_gres_parse(const char *gres, sl_gpu_gres_t *v, size_t max)
{
    size_t n = 0;
    const char *p = gres ? gres : "";
    while (*p && n < max) {
        p = one_entry(p, &v[n]);
        if (v[n].name[0])
            n++;
    }
    return n;
}
