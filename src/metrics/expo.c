/* expo.c — metric families, their series, and the text exposition. */
#include "metrics/expo.h"
#include "common/buf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LABELS 8

typedef enum { K_COUNTER, K_GAUGE, K_HISTOGRAM } kind_t;

typedef struct series {
    char **values;         /* nlabels strings */
    double value;          /* counter, gauge; a histogram's sum */
    unsigned long long n;  /* histogram: observations */
    unsigned long long *b; /* histogram: per-bucket (not cumulative) counts, nb */
} series_t;

struct sl_expo_family {
    sl_expo_t *x;
    kind_t kind;
    char *name, *help;
    char *labels[MAX_LABELS];
    size_t nlabels;
    double *bounds;
    size_t nb;
    series_t *s;
    size_t ns, cap;
};

struct sl_expo {
    pthread_mutex_t mu;
    sl_expo_family_t **f;
    size_t nf;
};

sl_expo_t *sl_expo_create(void)
{
    sl_expo_t *x = sl_xcalloc(1, sizeof(*x));
    pthread_mutex_init(&x->mu, NULL);
    return x;
}

static void series_free(sl_expo_family_t *f, series_t *s)
{
    for (size_t i = 0; i < f->nlabels; i++)
        free(s->values[i]);
    free(s->values);
    free(s->b);
}

void sl_expo_destroy(sl_expo_t *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nf; i++) {
        sl_expo_family_t *f = x->f[i];
        for (size_t j = 0; j < f->ns; j++)
            series_free(f, &f->s[j]);
        for (size_t j = 0; j < f->nlabels; j++)
            free(f->labels[j]);
        free(f->s);
        free(f->bounds);
        free(f->name);
        free(f->help);
        free(f);
    }
    free(x->f);
    pthread_mutex_destroy(&x->mu);
    free(x);
}

/* ---- names ---------------------------------------------------------------- */

static int name_ok(const char *s, int colon)
{
    if (!s || !*s)
        return 0;
    for (const char *p = s; *p; p++) {
        char c = *p;
        int alpha =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
        if (!alpha && !(p > s && c >= '0' && c <= '9'))
            return 0;
    }
    return 1;
}

static int labels_ok(kind_t k, const char *const *labels, size_t *n, sl_error_t *err)
{
    *n = 0;
    for (size_t i = 0; labels && labels[i]; i++, (*n)++) {
        const char *l = labels[i];
        errno = EINVAL;
        if (i == MAX_LABELS)
            return sl_errprintf(err, "more than %d labels", MAX_LABELS);
        if (!name_ok(l, 0) || !strncmp(l, "__", 2))
            return sl_errprintf(err, "label name \"%s\" is invalid", l);
        if (k == K_HISTOGRAM && !strcmp(l, "le"))
            return sl_errprintf(err, "a histogram may not have a label \"le\"");
        for (size_t j = 0; j < i; j++)
            if (!strcmp(labels[j], l))
                return sl_errprintf(err, "label name \"%s\" is repeated", l);
    }
    return 0;
}

static series_t *series_add(sl_expo_family_t *f, const char *const *values);

static sl_expo_family_t *family(sl_expo_t *x, kind_t k, const char *name, const char *help,
                                const char *const *labels, const double *bounds, size_t nb,
                                sl_error_t *err)
{
    size_t nl;
    if (!name_ok(name, 1)) {
        errno = EINVAL;
        sl_errprintf(err, "metric name \"%s\" is invalid", name ? name : "");
        return NULL;
    }
    if (labels_ok(k, labels, &nl, err) < 0)
        return NULL;
    for (size_t i = 0; i < nb; i++)
        if (!isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
            errno = EINVAL;
            sl_errprintf(err, "%s: bucket bounds must be finite and increasing", name);
            return NULL;
        }
    pthread_mutex_lock(&x->mu);
    for (size_t i = 0; i < x->nf; i++)
        if (!strcmp(x->f[i]->name, name)) {
            pthread_mutex_unlock(&x->mu);
            errno = EEXIST;
            sl_errprintf(err, "metric \"%s\" exists", name);
            return NULL;
        }
    sl_expo_family_t *f = sl_xcalloc(1, sizeof(*f));
    f->x = x;
    f->kind = k;
    f->name = sl_xstrdup(name);
    f->help = sl_xstrdup(help ? help : "");
    f->nlabels = nl;
    for (size_t i = 0; i < nl; i++)
        f->labels[i] = sl_xstrdup(labels[i]);
    if (nb) {
        f->bounds = sl_xmalloc(nb * sizeof(double));
        memcpy(f->bounds, bounds, nb * sizeof(double));
    }
    f->nb = nb;
    if (nl == 0)
        series_add(f, NULL);
    x->f = sl_xrealloc(x->f, (x->nf + 1) * sizeof(*x->f));
    x->f[x->nf++] = f;
    pthread_mutex_unlock(&x->mu);
    return f;
}

sl_expo_family_t *sl_expo_counter(sl_expo_t *x, const char *name, const char *help,
                                  const char *const *labels, sl_error_t *err)
{
    return family(x, K_COUNTER, name, help, labels, NULL, 0, err);
}

sl_expo_family_t *sl_expo_gauge(sl_expo_t *x, const char *name, const char *help,
                                const char *const *labels, sl_error_t *err)
{
    return family(x, K_GAUGE, name, help, labels, NULL, 0, err);
}

sl_expo_family_t *sl_expo_histogram(sl_expo_t *x, const char *name, const char *help,
                                    const char *const *labels, const double *bounds, size_t nb,
                                    sl_error_t *err)
{
    return family(x, K_HISTOGRAM, name, help, labels, bounds, nb, err);
}

/* ---- series (x->mu held) -------------------------------------------------- */

static int values_count(const sl_expo_family_t *f, const char *const *values)
{
    size_t n = 0;
    while (values && values[n])
        n++;
    /* a NULL list for a family with labels is an error; "" values are fine */
    return n == f->nlabels ? 0 : -1;
}

static series_t *series_find(sl_expo_family_t *f, const char *const *values)
{
    for (size_t i = 0; i < f->ns; i++) {
        size_t j = 0;
        while (j < f->nlabels && !strcmp(f->s[i].values[j], values[j]))
            j++;
        if (j == f->nlabels)
            return &f->s[i];
    }
    return NULL;
}

static series_t *series_add(sl_expo_family_t *f, const char *const *values)
{
    if (f->ns == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 4;
        f->s = sl_xrealloc(f->s, f->cap * sizeof(series_t));
    }
    series_t *s = &f->s[f->ns++];
    memset(s, 0, sizeof(*s));
    s->values = sl_xcalloc(f->nlabels ? f->nlabels : 1, sizeof(char *));
    for (size_t i = 0; i < f->nlabels; i++)
        s->values[i] = sl_xstrdup(values[i]);
    if (f->kind == K_HISTOGRAM)
        s->b = sl_xcalloc(f->nb + 1, sizeof(*s->b));
    return s;
}

/* the series of values, made when missing; NULL with errno */
static series_t *series_get(sl_expo_family_t *f, const char *const *values)
{
    if (values_count(f, values) < 0) {
        errno = EINVAL;
        return NULL;
    }
    series_t *s = series_find(f, values);
    if (s)
        return s;
    if (f->ns >= SL_EXPO_MAX_SERIES) {
        errno = ENOSPC;
        return NULL;
    }
    return series_add(f, values);
}

static int update(sl_expo_family_t *f, const char *const *values, double v, int op)
{
    if (!f || isnan(v) || (op == 'o') != (f->kind == K_HISTOGRAM) ||
        (op == 's' && f->kind != K_GAUGE) || (f->kind == K_COUNTER && v < 0)) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&f->x->mu);
    series_t *s = series_get(f, values);
    if (s && op == 'a')
        s->value += v;
    else if (s && op == 's')
        s->value = v;
    else if (s) {
        size_t i = 0;
        while (i < f->nb && v > f->bounds[i])
            i++;
        s->b[i]++;
        s->n++;
        s->value += v;
    }
    pthread_mutex_unlock(&f->x->mu);
    return s ? 0 : -1;
}

int sl_expo_add(sl_expo_family_t *f, const char *const *values, double v)
{
    return update(f, values, v, 'a');
}

int sl_expo_set(sl_expo_family_t *f, const char *const *values, double v)
{
    return update(f, values, v, 's');
}

int sl_expo_observe(sl_expo_family_t *f, const char *const *values, double v)
{
    return update(f, values, v, 'o');
}

void sl_expo_reset(sl_expo_family_t *f)
{
    pthread_mutex_lock(&f->x->mu);
    if (f->nlabels == 0) {
        f->s[0].value = 0;
        f->s[0].n = 0;
        if (f->s[0].b)
            memset(f->s[0].b, 0, (f->nb + 1) * sizeof(*f->s[0].b));
    } else {
        for (size_t i = 0; i < f->ns; i++)
            series_free(f, &f->s[i]);
        f->ns = 0;
    }
    pthread_mutex_unlock(&f->x->mu);
}

double sl_expo_value(sl_expo_family_t *f, const char *const *values)
{
    double v = 0;
    pthread_mutex_lock(&f->x->mu);
    series_t *s = values_count(f, values) == 0 ? series_find(f, values) : NULL;
    if (s)
        v = f->kind == K_HISTOGRAM ? (double)s->n : s->value;
    pthread_mutex_unlock(&f->x->mu);
    return v;
}

/* ---- exposition ----------------------------------------------------------- */

/* Go's strconv.FormatFloat(v, 'g', -1, 64) as Prometheus clients write it:
 * the shortest text that reads back as v; +Inf, -Inf, NaN. */
static void put_float(sl_buf_t *b, double v)
{
    if (isnan(v)) {
        sl_buf_puts(b, "NaN");
        return;
    }
    if (isinf(v)) {
        sl_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    /* the fewest significant digits that read back as v */
    char t[48];
    int digits = 1;
    for (;; digits++) { /* 17 always reads back */
        snprintf(t, sizeof(t), "%.*e", digits - 1, v);
        if (digits == 17 || strtod(t, NULL) == v)
            break;
    }
    int exp = atoi(strchr(t, 'e') + 1);
    /* Go's rule for the shortest form: an exponent below -4 or from 6 on
     * is written as one, any other as a plain decimal with those digits */
    if (exp >= -4 && exp < 6)
        snprintf(t, sizeof(t), "%.*f", digits - 1 - exp > 0 ? digits - 1 - exp : 0, v);
    sl_buf_puts(b, t);
}

/* HELP: \ and newline escaped; label values: also " */
static void put_escaped(sl_buf_t *b, const char *s, int quote)
{
    for (; *s; s++) {
        if (*s == '\\')
            sl_buf_puts(b, "\\\\");
        else if (*s == '\n')
            sl_buf_puts(b, "\\n");
        else if (quote && *s == '"')
            sl_buf_puts(b, "\\\"");
        else
            sl_buf_putc(b, *s);
    }
}

/* name{l1="v1",...[,le="bound"]} value */
static void put_sample(sl_buf_t *b, const sl_expo_family_t *f, const series_t *s,
                       const char *suffix, const char *le, double v)
{
    sl_buf_puts(b, f->name);
    sl_buf_puts(b, suffix);
    if (f->nlabels || le) {
        sl_buf_putc(b, '{');
        for (size_t i = 0; i < f->nlabels; i++) {
            sl_buf_printf(b, "%s%s=\"", i ? "," : "", f->labels[i]);
            put_escaped(b, s->values[i], 1);
            sl_buf_putc(b, '"');
        }
        if (le)
            sl_buf_printf(b, "%sle=\"%s\"", f->nlabels ? "," : "", le);
        sl_buf_putc(b, '}');
    }
    sl_buf_putc(b, ' ');
    put_float(b, v);
    sl_buf_putc(b, '\n');
}

static void put_histogram(sl_buf_t *b, const sl_expo_family_t *f, const series_t *s)
{
    unsigned long long cum = 0;
    for (size_t i = 0; i <= f->nb; i++) {
        cum += s->b[i];
        sl_buf_t le = SL_BUF_INIT;
        if (i < f->nb)
            put_float(&le, f->bounds[i]);
        else
            sl_buf_puts(&le, "+Inf");
        put_sample(b, f, s, "_bucket", le.data, (double)cum);
        sl_buf_free(&le);
    }
    put_sample(b, f, s, "_sum", NULL, s->value);
    put_sample(b, f, s, "_count", NULL, (double)s->n);
}

static void put_family(sl_buf_t *b, const sl_expo_family_t *f)
{
    static const char *const type[] = {"counter", "gauge", "histogram"};
    sl_buf_printf(b, "# HELP %s ", f->name);
    put_escaped(b, f->help, 0);
    sl_buf_printf(b, "\n# TYPE %s %s\n", f->name, type[f->kind]);
    for (size_t i = 0; i < f->ns; i++) {
        if (f->kind == K_HISTOGRAM)
            put_histogram(b, f, &f->s[i]);
        else
            put_sample(b, f, &f->s[i], "", NULL, f->s[i].value);
    }
}

char *sl_expo_render(sl_expo_t *x, size_t *len)
{
    sl_buf_t b = SL_BUF_INIT;
    pthread_mutex_lock(&x->mu);
    for (size_t i = 0; i < x->nf; i++)
        put_family(&b, x->f[i]);
    pthread_mutex_unlock(&x->mu);
    if (!b.data)
        sl_buf_append(&b, "", 0);
    if (len)
        *len = b.len;
    return sl_buf_steal(&b);
}
