/* flags.c — slurm-job.vk.io/flags: split like sh, parse like sbatch's
 * getopt, keep what the allow-list permits. */
#include "translate/flags.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "slurmif/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the options and who may use them are slurmif's table (slurmif/options.h) */
typedef sl_slurm_opt_t flagdef_t;
#define NOARG SL_OPTARG_NONE
#define REQARG SL_OPTARG_REQUIRED

static const char *refusal(const flagdef_t *d)
{
    return sl_slurm_opt_who(d) == SL_OPT_POD ? NULL : sl_slurm_opt_refusal(d);
}

int sl_flags_split(const char *s, sl_argv_t *words, sl_error_t *err)
{
    sl_buf_t w = SL_BUF_INIT;
    sl_argv_t out = SL_ARGV_INIT;
    int inword = 0;
    const char *p = s;
    while (*p) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\n') {
            if (inword) {
                sl_argv_add(&out, w.data ? w.data : "");
                sl_buf_reset(&w);
                inword = 0;
            }
            p++;
            continue;
        }
        inword = 1;
        if (c == '\\') {
            if (!p[1])
                goto trailing;
            if (p[1] != '\n') /* backslash-newline is a line continuation */
                sl_buf_putc(&w, p[1]);
            p += 2;
        } else if (c == '\'') {
            const char *e = strchr(p + 1, '\'');
            if (!e)
                goto unterminated;
            sl_buf_append(&w, p + 1, (size_t)(e - p - 1));
            if (e == p + 1)
                sl_buf_puts(&w, ""); /* '' is an empty word */
            p = e + 1;
        } else if (c == '"') {
            p++;
            while (*p && *p != '"') {
                if (*p == '\\' && p[1] && strchr("$`\"\\\n", p[1])) {
                    if (p[1] != '\n')
                        sl_buf_putc(&w, p[1]);
                    p += 2;
                } else {
                    sl_buf_putc(&w, *p++);
                }
            }
            if (!*p)
                goto unterminated;
            if (!w.data)
                sl_buf_puts(&w, "");
            p++;
        } else {
            sl_buf_putc(&w, c);
            p++;
        }
    }
    if (inword)
        sl_argv_add(&out, w.data ? w.data : "");
    sl_buf_free(&w);
    for (size_t i = 0; i < out.n; i++)
        sl_argv_add(words, out.v[i]);
    sl_argv_free(&out);
    return 0;
unterminated:
    sl_buf_free(&w);
    sl_argv_free(&out);
    errno = EINVAL;
    return sl_errprintf(err, "unterminated quote");
trailing:
    sl_buf_free(&w);
    sl_argv_free(&out);
    errno = EINVAL;
    return sl_errprintf(err, "trailing backslash");
}

static const flagdef_t *by_short(char c)
{
    const flagdef_t *d;
    for (size_t i = 0; (d = sl_slurm_opt_at(i)); i++)
        if (sl_slurm_opt_short(d) == c)
            return d;
    return NULL;
}

/* exact long name, else a unique prefix (getopt_long's rule) */
static const flagdef_t *by_long(const char *name, size_t n, int *ambiguous)
{
    const flagdef_t *hit = NULL, *d;
    *ambiguous = 0;
    for (size_t i = 0; (d = sl_slurm_opt_at(i)); i++) {
        if (strncmp(sl_slurm_opt_name(d), name, n))
            continue;
        if (strlen(sl_slurm_opt_name(d)) == n)
            return d;
        if (hit)
            *ambiguous = 1;
        hit = d;
    }
    return *ambiguous ? NULL : hit;
}

static int add(sl_flags_t *f, const flagdef_t *d, const char *value, const char *as,
               sl_error_t *err)
{
    if (refusal(d)) {
        errno = EPERM;
        return sl_errprintf(err, "%s is not allowed: %s", as, refusal(d));
    }
    if (value && strpbrk(value, "\n\r")) {
        errno = EINVAL;
        return sl_errprintf(err, "%s: value contains a newline", as);
    }
    if (sl_slurm_opt_arg(d) == REQARG && value && !*value) {
        errno = EINVAL;
        return sl_errprintf(err, "%s needs a value", as);
    }
    f->v = sl_xrealloc(f->v, (f->n + 1) * sizeof(sl_flag_t));
    f->v[f->n].name = sl_slurm_opt_name(d);
    f->v[f->n].value = value ? sl_xstrdup(value) : NULL;
    f->n++;
    return 0;
}

static int parse_words(char **w, size_t nw, sl_flags_t *f, sl_error_t *err)
{
    for (size_t i = 0; i < nw; i++) {
        const char *a = w[i];
        if (a[0] != '-' || !a[1] || !strcmp(a, "--")) {
            errno = EINVAL;
            return sl_errprintf(err, "unexpected word '%s': only sbatch options are accepted", a);
        }
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t n = eq ? (size_t)(eq - name) : strlen(name);
            int amb;
            const flagdef_t *d = by_long(name, n, &amb);
            char as[80];
            snprintf(as, sizeof(as), "--%.*s", (int)(n > 60 ? 60 : n), name);
            if (!d) {
                errno = EINVAL;
                return amb ? sl_errprintf(err, "ambiguous sbatch option %s", as)
                           : sl_errprintf(err, "unknown sbatch option %s", as);
            }
            snprintf(as, sizeof(as), "--%s", sl_slurm_opt_name(d));
            const char *val = NULL;
            if (sl_slurm_opt_arg(d) == NOARG && eq) {
                errno = EINVAL;
                return sl_errprintf(err, "%s takes no value", as);
            }
            if (eq) {
                val = eq + 1;
            } else if (sl_slurm_opt_arg(d) == REQARG) {
                if (i + 1 >= nw && !refusal(d)) {
                    errno = EINVAL;
                    return sl_errprintf(err, "%s needs a value", as);
                }
                val = i + 1 < nw ? w[++i] : "";
            }
            if (add(f, d, val, as, err) < 0)
                return -1;
            continue;
        }
        /* short options, possibly bundled */
        for (const char *p = a + 1; *p; p++) {
            const flagdef_t *d = by_short(*p);
            char as[64];
            snprintf(as, sizeof(as), "-%c", *p);
            if (!d) {
                errno = EINVAL;
                return sl_errprintf(err, "unknown sbatch option %s", as);
            }
            snprintf(as, sizeof(as), "-%c (--%s)", *p, sl_slurm_opt_name(d));
            if (sl_slurm_opt_arg(d) == NOARG) {
                if (add(f, d, NULL, as, err) < 0)
                    return -1;
                continue;
            }
            const char *val = NULL;
            if (p[1]) {
                val = p + 1;
            } else if (sl_slurm_opt_arg(d) == REQARG) {
                if (i + 1 >= nw && !refusal(d)) {
                    errno = EINVAL;
                    return sl_errprintf(err, "%s needs a value", as);
                }
                val = i + 1 < nw ? w[++i] : "";
            }
            if (add(f, d, val, as, err) < 0)
                return -1;
            break; /* the rest of the word was the value */
        }
    }
    return 0;
}

int sl_flags_parse(const char *s, sl_flags_t *out, sl_error_t *err)
{
    sl_argv_t w = SL_ARGV_INIT;
    sl_flags_t f = SL_FLAGS_INIT;
    if (sl_flags_split(s, &w, err) < 0)
        return -1;
    int r = parse_words(w.v, w.n, &f, err);
    sl_argv_free(&w);
    if (r < 0) {
        sl_flags_free(&f);
        return -1;
    }
    for (size_t i = 0; i < f.n; i++) {
        out->v = sl_xrealloc(out->v, (out->n + 1) * sizeof(sl_flag_t));
        out->v[out->n++] = f.v[i];
    }
    free(f.v);
    return 0;
}

void sl_flags_free(sl_flags_t *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->v[i].value);
    free(f->v);
    f->v = NULL;
    f->n = 0;
}

int sl_flags_has(const sl_flags_t *f, const char *name)
{
    for (size_t i = 0; f && i < f->n; i++)
        if (!strcmp(f->v[i].name, name))
            return 1;
    return 0;
}

char *sl_flag_option(const sl_flag_t *f)
{
    return f->value ? sl_xasprintf("--%s=%s", f->name, f->value) : sl_xasprintf("--%s", f->name);
}

char *sl_flag_directive(const sl_flag_t *f)
{
    if (!f->value)
        return sl_xasprintf("#SBATCH --%s", f->name);
    char *q = sl_shell_quote(f->value);
    char *s = sl_xasprintf("#SBATCH --%s=%s", f->name, q);
    free(q);
    return s;
}

const char *const *sl_flags_allowed(void)
{
    static const char *list[256];
    if (!list[0]) {
        size_t n = 0;
        const flagdef_t *d;
        for (size_t i = 0; (d = sl_slurm_opt_at(i)) && n + 1 < sizeof(list) / sizeof(list[0]); i++)
            if (!refusal(d))
                list[n++] = sl_slurm_opt_name(d);
        list[n] = NULL;
    }
    return list;
}
