/* flags.c — slurm-job.vk.io/flags: split like sh, parse like sbatch's
 * getopt, keep what the allow-list permits. */
#include "translate/flags.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NOARG, REQARG, OPTARG_ };

typedef struct flagdef {
    const char *name;
    char shortopt;
    int arg;
    const char *refuse; /* NULL: allowed; else why not */
} flagdef_t;

#define USER_R "the job runs as the pod's user"
#define SCRIPT_R "slurmlink writes the batch script"
#define OUT_R "output goes to the pod folder (kubectl logs reads it there)"
#define DIR_R "the job runs in the pod folder"
#define ENV_R "the environment comes from the pod spec"
#define OURS_R "slurmlink sets it"
#define CLI_R "it only changes how the sbatch command itself behaves"
#define INPROC_R "slurmlinkd's in-process submission cannot express it yet"

/* sbatch's options (Slurm 22.05–24.x), allowed or refused with a reason. */
static const flagdef_t defs[] = {
    /* resources */
    {"nodes", 'N', REQARG, NULL},
    {"ntasks", 'n', REQARG, NULL},
    {"ntasks-per-node", 0, REQARG, NULL},
    {"ntasks-per-socket", 0, REQARG, NULL},
    {"ntasks-per-core", 0, REQARG, NULL},
    {"ntasks-per-gpu", 0, REQARG, NULL},
    {"cpus-per-task", 'c', REQARG, NULL},
    {"cpus-per-gpu", 0, REQARG, NULL},
    {"mincpus", 0, REQARG, NULL},
    {"mem", 0, REQARG, NULL},
    {"mem-per-cpu", 0, REQARG, NULL},
    {"mem-per-gpu", 0, REQARG, NULL},
    {"mem-bind", 0, REQARG, INPROC_R},
    {"tmp", 0, REQARG, NULL},
    {"gres", 0, REQARG, NULL},
    {"gres-flags", 0, REQARG, INPROC_R},
    {"gpus", 'G', REQARG, NULL},
    {"gpus-per-node", 0, REQARG, NULL},
    {"gpus-per-task", 0, REQARG, NULL},
    {"gpus-per-socket", 0, REQARG, NULL},
    {"gpu-bind", 0, REQARG, NULL},
    {"gpu-freq", 0, REQARG, NULL},
    {"tres-per-task", 0, REQARG, NULL},
    {"sockets-per-node", 0, REQARG, NULL},
    {"cores-per-socket", 0, REQARG, NULL},
    {"threads-per-core", 0, REQARG, NULL},
    {"extra-node-info", 'B', REQARG, NULL},
    {"hint", 0, REQARG, INPROC_R},
    {"distribution", 'm', REQARG, INPROC_R},
    {"core-spec", 'S', REQARG, NULL},
    {"thread-spec", 0, REQARG, NULL},
    {"cpu-freq", 0, REQARG, INPROC_R},
    {"licenses", 'L', REQARG, NULL},
    {"constraint", 'C', REQARG, NULL},
    {"cluster-constraint", 0, REQARG, NULL},
    {"prefer", 0, REQARG, NULL},
    {"contiguous", 0, NOARG, NULL},
    {"switches", 0, REQARG, NULL},
    {"network", 0, REQARG, NULL},
    {"nodelist", 'w', REQARG, NULL},
    {"exclude", 'x', REQARG, NULL},
    {"use-min-nodes", 0, NOARG, NULL},
    {"spread-job", 0, NOARG, NULL},
    {"exclusive", 0, OPTARG_, NULL},
    {"oversubscribe", 's', NOARG, NULL},
    /* policy */
    {"partition", 'p', REQARG, NULL},
    {"account", 'A', REQARG, NULL},
    {"qos", 'q', REQARG, NULL},
    {"reservation", 0, REQARG, NULL},
    {"time", 't', REQARG, NULL},
    {"time-min", 0, REQARG, NULL},
    {"begin", 'b', REQARG, NULL},
    {"deadline", 0, REQARG, NULL},
    {"nice", 0, OPTARG_, NULL},
    /* slurmctld lets only operators raise priority; a user's request is refused there */
    {"priority", 0, REQARG, NULL},
    {"signal", 0, REQARG, NULL},
    {"mail-type", 0, REQARG, NULL},
    {"mail-user", 0, REQARG, NULL},
    {"requeue", 0, NOARG, NULL},
    {"no-requeue", 0, NOARG, NULL},
    {"no-kill", 'k', OPTARG_, NULL},
    {"wckey", 0, REQARG, NULL},
    {"mcs-label", 0, REQARG, NULL},
    {"acctg-freq", 0, REQARG, NULL},
    {"profile", 0, REQARG, INPROC_R},
    {"power", 0, REQARG, INPROC_R},
    {"delay-boot", 0, REQARG, NULL},
    {"kill-on-invalid-dep", 0, REQARG, NULL},
    /* refused */
    {"uid", 0, REQARG, USER_R},
    {"gid", 0, REQARG, USER_R},
    {"get-user-env", 0, OPTARG_, ENV_R},
    {"export", 0, REQARG, ENV_R},
    {"export-file", 0, REQARG, ENV_R},
    {"propagate", 0, OPTARG_, ENV_R},
    {"wrap", 0, REQARG, SCRIPT_R},
    {"container", 0, REQARG, "containers are started by the pod's runtime"},
    {"container-id", 0, REQARG, "containers are started by the pod's runtime"},
    {"output", 'o', REQARG, OUT_R},
    {"error", 'e', REQARG, OUT_R},
    {"input", 'i', REQARG, OUT_R},
    {"open-mode", 0, REQARG, OUT_R},
    {"chdir", 'D', REQARG, DIR_R},
    {"job-name", 'J', REQARG, OURS_R " to NAMESPACE/NAME"},
    {"comment", 0, REQARG, OURS_R " to the pod UID"},
    {"array", 'a', REQARG, "one pod is one job (a Kubernetes Job becomes an array)"},
    {"dependency", 'd', REQARG, "pods do not know Slurm job ids; use init containers"},
    {"hold", 'H', NOARG, "a held job would leave the pod Pending forever"},
    {"clusters", 'M', REQARG, "slurmlinkd tracks jobs on its own cluster"},
    {"batch", 0, REQARG, SCRIPT_R},
    {"burst-buffer", 0, REQARG, "burst buffer scripts run with the site's privileges"},
    {"bbf", 0, REQARG, "burst buffer scripts run with the site's privileges"},
    {"reboot", 0, NOARG, "node reboots are for administrators"},
    {"x11", 0, OPTARG_, "there is no display"},
    {"parsable", 0, NOARG, CLI_R},
    {"wait", 'W', NOARG, CLI_R},
    {"wait-all-nodes", 0, REQARG, CLI_R},
    {"test-only", 0, NOARG, CLI_R},
    {"quiet", 'Q', NOARG, CLI_R},
    {"verbose", 'v', NOARG, CLI_R},
    {"help", 'h', NOARG, CLI_R},
    {"usage", 0, NOARG, CLI_R},
    {"version", 'V', NOARG, CLI_R},
    {"ignore-pbs", 0, NOARG, CLI_R},
    {NULL, 0, 0, NULL},
};

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
    for (const flagdef_t *d = defs; d->name; d++)
        if (d->shortopt == c)
            return d;
    return NULL;
}

/* exact long name, else a unique prefix (getopt_long's rule) */
static const flagdef_t *by_long(const char *name, size_t n, int *ambiguous)
{
    const flagdef_t *hit = NULL;
    *ambiguous = 0;
    for (const flagdef_t *d = defs; d->name; d++) {
        if (strncmp(d->name, name, n))
            continue;
        if (strlen(d->name) == n)
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
    if (d->refuse) {
        errno = EPERM;
        return sl_errprintf(err, "%s is not allowed: %s", as, d->refuse);
    }
    if (value && strpbrk(value, "\n\r")) {
        errno = EINVAL;
        return sl_errprintf(err, "%s: value contains a newline", as);
    }
    if (d->arg == REQARG && value && !*value) {
        errno = EINVAL;
        return sl_errprintf(err, "%s needs a value", as);
    }
    f->v = sl_xrealloc(f->v, (f->n + 1) * sizeof(sl_flag_t));
    f->v[f->n].name = d->name;
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
            snprintf(as, sizeof(as), "--%s", d->name);
            const char *val = NULL;
            if (d->arg == NOARG && eq) {
                errno = EINVAL;
                return sl_errprintf(err, "%s takes no value", as);
            }
            if (eq) {
                val = eq + 1;
            } else if (d->arg == REQARG) {
                if (i + 1 >= nw && !d->refuse) {
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
            snprintf(as, sizeof(as), "-%c (--%s)", *p, d->name);
            if (d->arg == NOARG) {
                if (add(f, d, NULL, as, err) < 0)
                    return -1;
                continue;
            }
            const char *val = NULL;
            if (p[1]) {
                val = p + 1;
            } else if (d->arg == REQARG) {
                if (i + 1 >= nw && !d->refuse) {
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
    static const char *list[sizeof(defs) / sizeof(defs[0])];
    if (!list[0]) {
        size_t n = 0;
        for (const flagdef_t *d = defs; d->name; d++)
            if (!d->refuse)
                list[n++] = d->name;
        list[n] = NULL;
    }
    return list;
}
