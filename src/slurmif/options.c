/* options.c — sbatch's long options → job_desc fields, from one table. */
#include "slurmif/options.h"
#include "slurmif/internal.h"
#include "slurmif/slurmif.h"

#include "common/buf.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurmif/compat.h"

typedef int parse_fn(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err);

struct sl_slurm_opt {
    const char *name;
    char shortopt;
    sl_optarg_t arg;
    sl_optwho_t who;
    const char *refuse;   /* why the flags may not carry it (who != SL_OPT_POD) */
    parse_fn *parse;      /* NULL: in-process submission cannot express it */
    size_t field;         /* the job_desc field parse sets (offsetof) */
    unsigned long max;    /* an integer's upper bound */
    unsigned long long k; /* a flag bit the parser sets, or the value a switch stores */
    const char *sample, *bad;
};

#define FIELD(d, o, T) ((T *)((char *)(d) + (o)->field))

/* ---- Slurm's value formats ------------------------------------------- */

long sl_slurm_time_minutes(const char *s)
{
    if (!s || !*s)
        return -1;
    if (!strcasecmp(s, "UNLIMITED") || !strcasecmp(s, "INFINITE"))
        return -2;
    long d = 0, f[3] = {0, 0, 0};
    int nf = 0;
    const char *p = s;
    const char *dash = strchr(s, '-');
    if (dash) {
        char *end;
        d = strtol(s, &end, 10);
        if (end != dash || d < 0 || !isdigit((unsigned char)s[0]))
            return -1;
        p = dash + 1;
    }
    while (*p) {
        if (!isdigit((unsigned char)*p) || nf == 3)
            return -1;
        char *end;
        long v = strtol(p, &end, 10);
        if (v < 0 || v > 1000000000L)
            return -1;
        f[nf++] = v;
        p = end;
        if (*p == ':')
            p++;
        else if (*p)
            return -1;
    }
    long secs;
    if (dash) { /* D-HH, D-HH:MM, D-HH:MM:SS */
        if (nf == 0)
            return -1;
        secs = d * 86400 + f[0] * 3600 + (nf > 1 ? f[1] * 60 : 0) + (nf > 2 ? f[2] : 0);
    } else if (nf == 1) { /* MM */
        secs = f[0] * 60;
    } else if (nf == 2) { /* MM:SS */
        secs = f[0] * 60 + f[1];
    } else if (nf == 3) { /* HH:MM:SS */
        secs = f[0] * 3600 + f[1] * 60 + f[2];
    } else {
        return -1;
    }
    return (secs + 59) / 60;
}

/* "4G", "500", "512M", "1T" → MB; -1 if invalid */
static long long size_mb(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    long long mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': v = (v + 1023) / 1024; break;
        case 'M': break;
        case 'G': mul = 1024; break;
        case 'T': mul = 1024 * 1024; break;
        default: return -1;
        }
        if (end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]))
            return -1;
    }
    if (v > LLONG_MAX / mul)
        return -1;
    return v * mul;
}

static int uint_val(const char *opt, const char *v, unsigned long max, unsigned long *out,
                    sl_error_t *err)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (errno || !*v || *end || x > max || v[0] == '-') {
        errno = EINVAL;
        return sl_errprintf(err, "%s: invalid value \"%s\": must be an integer 0..%lu", opt, v,
                            max);
    }
    *out = x;
    return 0;
}

static int invalid(sl_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int invalid(sl_error_t *err, const char *fmt, ...)
{
    char text[sizeof(err->text)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return sl_errprintf(err, "%s", text);
}

/* "gpu:1,foo:2" → "gres:gpu:1,gres:foo:2" (sbatch's own conversion) */
static char *gres_prepend(const char *list)
{
    sl_buf_t b = SL_BUF_INIT;
    char *copy = sl_xstrdup(list);
    char *save = NULL;
    int first = 1;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!first)
            sl_buf_putc(&b, ',');
        first = 0;
        if (strncmp(t, "gres:", 5) && strncmp(t, "gres/", 5))
            sl_buf_puts(&b, "gres:");
        sl_buf_puts(&b, t);
    }
    free(copy);
    return sl_buf_steal(&b);
}

void sl_slurm_set_str(char **field, const char *v)
{
    free(*field);
    *field = sl_xstrdup(v);
}

static void take_str(char **field, char *v)
{
    free(*field);
    *field = v;
}

/* ---- parsers: one per kind of value; o says which field ---------------- */

static int p_str(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    if (!*v)
        return invalid(err, "option --%s needs a value", o->name);
    sl_slurm_set_str(FIELD(d, o, char *), v);
    return 0;
}

static int p_gres(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    if (!*v || !strcspn(v, ","))
        return invalid(err, "--%s: invalid value \"%s\": want NAME[:TYPE]:COUNT[,...]", o->name, v);
    take_str(FIELD(d, o, char *), gres_prepend(v));
    return 0;
}

/* --gpus*: [TYPE:]COUNT */
static int p_gpus(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    const char *colon = strrchr(v, ':');
    const char *count = colon ? colon + 1 : v;
    unsigned long n;
    sl_error_t why;
    if ((colon && colon == v) || uint_val(o->name, count, 1000000, &n, &why) < 0)
        return invalid(err, "--%s: invalid value \"%s\": want [TYPE:]COUNT", o->name, v);
    take_str(FIELD(d, o, char *), sl_xasprintf("gres:gpu:%s", v));
    return 0;
}

/* --gpu-bind, --gpu-freq: "gpu:" and the value */
static int p_gpu_str(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    if (!*v)
        return invalid(err, "option --%s needs a value", o->name);
    take_str(FIELD(d, o, char *), sl_xasprintf("gpu:%s", v));
    return 0;
}

static int p_u16(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    char as[64];
    unsigned long u;
    snprintf(as, sizeof(as), "--%s", o->name);
    if (uint_val(as, v, o->max, &u, err) < 0)
        return -1;
    if (o->k && u == 0) /* a count of at least one */
        return invalid(err, "--%s: must be at least 1", o->name);
    *FIELD(d, o, uint16_t) = (uint16_t)u;
    return 0;
}

static int p_u32(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    char as[64];
    unsigned long u;
    snprintf(as, sizeof(as), "--%s", o->name);
    if (uint_val(as, v, o->max, &u, err) < 0)
        return -1;
    *FIELD(d, o, uint32_t) = (uint32_t)u;
    return 0;
}

/* --thread-spec: a core_spec count with the thread bit */
static int p_thread_spec(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    if (p_u16(o, d, v, err) < 0)
        return -1;
    d->core_spec |= CORE_SPEC_THREAD;
    return 0;
}

static int p_time(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    long m = sl_slurm_time_minutes(v);
    if (m == -1)
        return invalid(err, "--%s: invalid time \"%s\"", o->name, v);
    *FIELD(d, o, uint32_t) = m == -2 ? INFINITE : (uint32_t)m;
    return 0;
}

/* --delay-boot: a Slurm time, stored in seconds */
static int p_time_secs(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    long m = sl_slurm_time_minutes(v);
    if (m < 0)
        return invalid(err, "--%s: invalid time \"%s\"", o->name, v);
    *FIELD(d, o, uint32_t) = (uint32_t)(m * 60);
    return 0;
}

static int p_date(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    time_t t = slurm_parse_time((char *)v, 0);
    if (!t)
        return invalid(err, "--%s: invalid time \"%s\"", o->name, v);
    *FIELD(d, o, time_t) = t;
    return 0;
}

/* --mem, --mem-per-cpu (k: MEM_PER_CPU) */
static int p_mem(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    long long mb = size_mb(v);
    if (mb < 0)
        return invalid(err, "--%s: invalid size \"%s\"", o->name, v);
    *FIELD(d, o, uint64_t) = (uint64_t)mb | o->k;
    return 0;
}

static int p_tmp(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    long long mb = size_mb(v);
    if (mb < 0 || mb > UINT32_MAX)
        return invalid(err, "--%s: invalid size \"%s\"", o->name, v);
    *FIELD(d, o, uint32_t) = (uint32_t)mb;
    return 0;
}

static int p_cpus_per_gpu(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v,
                          sl_error_t *err)
{
    unsigned long u;
    if (uint_val("--cpus-per-gpu", v, o->max, &u, err) < 0)
        return -1;
    take_str(FIELD(d, o, char *), sl_xasprintf("gres:gpu:%lu", u));
    return 0;
}

static int p_mem_per_gpu(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    long long mb = size_mb(v);
    if (mb < 0)
        return invalid(err, "--%s: invalid size \"%s\"", o->name, v);
    take_str(FIELD(d, o, char *), sl_xasprintf("gres:gpu:%lld", mb));
    return 0;
}

/* a switch: the uint16 field takes k */
static int p_set16(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    *FIELD(d, o, uint16_t) = (uint16_t)o->k;
    return 0;
}

static int p_set32(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    *FIELD(d, o, uint32_t) = (uint32_t)o->k;
    return 0;
}

/* a switch: bit k of the uint64 field */
static int p_bit(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    *FIELD(d, o, uint64_t) |= o->k;
    return 0;
}

/* ---- parsers of one option each ------------------------------------------ */

/* N or MIN-MAX */
static int p_nodes(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    const char *dash = strchr(v, '-');
    char lo[32];
    snprintf(lo, sizeof(lo), "%.*s", dash ? (int)(dash - v) : 31, v);
    unsigned long a, b;
    if (uint_val("--nodes", lo, 100000, &a, err) < 0)
        return -1;
    b = a;
    if (dash && uint_val("--nodes", dash + 1, 100000, &b, err) < 0)
        return -1;
    if (a == 0 || b < a)
        return invalid(err, "--nodes: invalid node count \"%s\"", v);
    d->min_nodes = (uint32_t)a;
    d->max_nodes = (uint32_t)b;
    return 0;
}

static int p_exclusive(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    if (v && strcmp(v, "user") && strcmp(v, "mcs"))
        return invalid(err, "--exclusive: invalid value \"%s\"", v);
    d->shared = !v ? JOB_SHARED_NONE : !strcmp(v, "user") ? JOB_SHARED_USER : JOB_SHARED_MCS;
    return 0;
}

/* sbatch's range; whether a negative one is allowed is slurmctld's call */
static int p_nice(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    const long lim = (long)NICE_OFFSET - 3;
    long n = 100;
    char *end = NULL;
    errno = 0;
    if (v)
        n = strtol(v, &end, 10);
    if (v && (errno || !*v || *end || n < -lim || n > lim))
        return invalid(err, "--nice: invalid value \"%s\": must be an integer %ld..%ld", v, -lim,
                       lim);
    d->nice = (uint32_t)((long)NICE_OFFSET + n);
    return 0;
}

static int p_open_mode(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    if (!strcmp(v, "append"))
        d->open_mode = OPEN_MODE_APPEND;
    else if (!strcmp(v, "truncate"))
        d->open_mode = OPEN_MODE_TRUNCATE;
    else
        return invalid(err, "--open-mode: invalid value \"%s\"", v);
    return 0;
}

/* S[:C[:T]], S at least 1 */
static int p_extra_node_info(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v,
                             sl_error_t *err)
{
    unsigned long f[3] = {0, 0, 0};
    int n = 0;
    char *copy = sl_xstrdup(v), *save = NULL, *t = copy;
    int bad = !*v || v[strlen(v) - 1] == ':';
    for (t = strtok_r(copy, ":", &save); t && !bad; t = strtok_r(NULL, ":", &save)) {
        sl_error_t why;
        bad = n == 3 || uint_val("", t, 65533, &f[n], &why) < 0;
        n++;
    }
    free(copy);
    if (bad || strstr(v, "::") || f[0] == 0)
        return invalid(err, "--extra-node-info: invalid value \"%s\": want S[:C[:T]]", v);
    d->sockets_per_node = (uint16_t)f[0];
    if (n > 1)
        d->cores_per_socket = (uint16_t)f[1];
    if (n > 2)
        d->threads_per_core = (uint16_t)f[2];
    return 0;
}

static int p_no_kill(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    if (v && strcmp(v, "off") && strcmp(v, "on"))
        return invalid(err, "--no-kill: invalid value \"%s\"", v);
    d->kill_on_node_fail = v && !strcmp(v, "off") ? 1 : 0;
    return 0;
}

static int p_kill_inv_dep(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v,
                          sl_error_t *err)
{
    if (!strcmp(v, "yes"))
        d->bitflags |= KILL_INV_DEP;
    else if (!strcmp(v, "no"))
        d->bitflags |= NO_KILL_INV_DEP;
    else
        return invalid(err, "--kill-on-invalid-dep: invalid value \"%s\": yes or no", v);
    return 0;
}

/* COUNT[@MAX-WAIT-TIME] */
static int p_switches(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", v);
    char *at = strchr(buf, '@');
    unsigned long u;
    if (at)
        *at++ = '\0';
    if (uint_val("--switches", buf, 100000, &u, err) < 0)
        return -1;
    d->req_switch = (uint32_t)u;
    if (at) {
        long m = sl_slurm_time_minutes(at);
        if (m < 0)
            return invalid(err, "--switches: invalid time \"%s\"", at);
        d->wait4switch = (uint32_t)(m * 60);
    }
    return 0;
}

static int signal_number(const char *sig)
{
    static const struct {
        const char *n;
        int s;
    } sigs[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"KILL", SIGKILL},
                {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"TERM", SIGTERM}, {"CONT", SIGCONT},
                {"STOP", SIGSTOP}, {"ALRM", SIGALRM}, {"URG", SIGURG}};
    char *end;
    long nsig = strtol(sig, &end, 10);
    if (*sig && !*end)
        return nsig > 0 && nsig <= 64 ? (int)nsig : 0;
    const char *nm = !strncasecmp(sig, "SIG", 3) ? sig + 3 : sig;
    for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
        if (!strcasecmp(nm, sigs[k].n))
            return sigs[k].s;
    return 0;
}

/* [{R|B}:]<sig_num>[@sig_time] */
static int p_signal(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    const char *x = v;
    uint16_t flags = 0;
    while (x[0] && x[1] == ':' && strchr("RB", x[0])) {
        flags |= x[0] == 'B' ? KILL_JOB_BATCH : KILL_JOB_RESV;
        x += 2;
    }
    char sig[32];
    snprintf(sig, sizeof(sig), "%s", x);
    char *at = strchr(sig, '@');
    unsigned long when = 60;
    if (at) {
        *at++ = '\0';
        if (uint_val("--signal", at, 65535, &when, err) < 0)
            return -1;
    }
    int signo = signal_number(sig);
    if (signo <= 0)
        return invalid(err, "--signal: invalid signal \"%s\"", v);
    d->warn_signal = (uint16_t)signo;
    d->warn_time = (uint16_t)when;
    d->warn_flags = flags;
    return 0;
}

static int p_mail_type(const sl_slurm_opt_t *o, job_desc_msg_t *d, const char *v, sl_error_t *err)
{
    static const struct {
        const char *n;
        uint16_t bits;
    } mt[] = {{"NONE", 0},
              {"BEGIN", MAIL_JOB_BEGIN},
              {"END", MAIL_JOB_END},
              {"FAIL", MAIL_JOB_FAIL},
              {"REQUEUE", MAIL_JOB_REQUEUE},
              {"ALL", MAIL_JOB_BEGIN | MAIL_JOB_END | MAIL_JOB_FAIL | MAIL_JOB_REQUEUE |
                          MAIL_JOB_STAGE_OUT | MAIL_INVALID_DEPEND},
              {"INVALID_DEPEND", MAIL_INVALID_DEPEND},
              {"STAGE_OUT", MAIL_JOB_STAGE_OUT},
              {"TIME_LIMIT", MAIL_JOB_TIME100},
              {"TIME_LIMIT_90", MAIL_JOB_TIME90},
              {"TIME_LIMIT_80", MAIL_JOB_TIME80},
              {"TIME_LIMIT_50", MAIL_JOB_TIME50},
              {"ARRAY_TASKS", MAIL_ARRAY_TASKS}};
    char *copy = sl_xstrdup(v), *save = NULL;
    uint16_t bits = 0;
    int n = 0;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
        size_t k, nk = sizeof(mt) / sizeof(mt[0]);
        for (k = 0; k < nk && strcasecmp(t, mt[k].n); k++)
            ;
        if (k == nk) {
            invalid(err, "--mail-type: invalid mail type \"%s\"", t);
            free(copy);
            return -1;
        }
        bits |= mt[k].bits;
    }
    free(copy);
    if (n == 0)
        return invalid(err, "--mail-type: invalid value \"%s\": want TYPE[,TYPE...]", v);
    d->mail_type = bits;
    return 0;
}

/* ---- the table --------------------------------------------------------- */

#define USER_R "the job runs as the pod's user"
#define SCRIPT_R "slurmlink writes the batch script"
#define OUT_R "output goes to the pod folder (kubectl logs reads it there)"
#define DIR_R "the job runs in the pod folder"
#define ENV_R "the environment comes from the pod spec"
#define OURS_R "slurmlink sets it"
#define CLI_R "it only changes how the sbatch command itself behaves"
#define INPROC_R "slurmlinkd's in-process submission cannot express it yet"
#define CONT_R "containers are started by the pod's runtime"
#define BB_R "burst buffer scripts run with the site's privileges"

#define NO SL_OPTARG_NONE
#define RQ SL_OPTARG_REQUIRED
#define OP SL_OPTARG_OPTIONAL
#define F(f) offsetof(job_desc_msg_t, f)

/* a pod may use it: name, short form, argument, parser, field, max, k, sample, bad */
#define POD(n, s, a, p, f, m, k, ok, bad)                                                          \
    {                                                                                              \
        n, s, a, SL_OPT_POD, NULL, p, F(f), m, k, ok, bad                                          \
    }
/* slurmlinkd sets it; the flags are refused it for reason r */
#define OWN(n, s, a, r, p, f, ok, bad)                                                             \
    {                                                                                              \
        n, s, a, SL_OPT_DAEMON, r, p, F(f), 0, 0, ok, bad                                          \
    }
/* refused for reason r; in-process submission has no parser for it */
#define NOT(n, s, a, r)                                                                            \
    {                                                                                              \
        n, s, a, SL_OPT_NONE, r, NULL, 0, 0, 0, NULL, NULL                                         \
    }

/* sbatch's options (Slurm 22.05–24.x) */
// clang-format off
static const sl_slurm_opt_t opts[] = {
    /* resources */
    POD("nodes", 'N', RQ, p_nodes, min_nodes, 0, 0, "1-2", "2-1"),
    POD("ntasks", 'n', RQ, p_u32, num_tasks, 1000000, 0, "2", "-1"),
    POD("ntasks-per-node", 0, RQ, p_u16, ntasks_per_node, 65533, 0, "1", "65534"),
    POD("ntasks-per-socket", 0, RQ, p_u16, ntasks_per_socket, 65533, 0, "1", "x"),
    POD("ntasks-per-core", 0, RQ, p_u16, ntasks_per_core, 65533, 0, "1", "1.5"),
    POD("ntasks-per-gpu", 0, RQ, p_u16, ntasks_per_tres, 65533, 0, "1", ""),
    POD("cpus-per-task", 'c', RQ, p_u16, cpus_per_task, 65533, 1, "4", "0"),
    POD("cpus-per-gpu", 0, RQ, p_cpus_per_gpu, cpus_per_tres, 65533, 0, "2", "two"),
    POD("mincpus", 0, RQ, p_u16, pn_min_cpus, 65533, 0, "1", "1+"),
    POD("mem", 0, RQ, p_mem, pn_min_memory, 0, 0, "1G", "lots"),
    POD("mem-per-cpu", 0, RQ, p_mem, pn_min_memory, 0, MEM_PER_CPU, "500M", "1Q"),
    POD("mem-per-gpu", 0, RQ, p_mem_per_gpu, mem_per_tres, 0, 0, "2G", "2GiB"),
    NOT("mem-bind", 0, RQ, INPROC_R),
    POD("tmp", 0, RQ, p_tmp, pn_min_tmp_disk, 0, 0, "1G", "5000T"),
    POD("gres", 0, RQ, p_gres, tres_per_node, 0, 0, "gpu:1", ","),
    NOT("gres-flags", 0, RQ, INPROC_R),
    POD("gpus", 'G', RQ, p_gpus, tres_per_job, 0, 0, "1", "abc"),
    POD("gpus-per-node", 0, RQ, p_gpus, tres_per_node, 0, 0, "a100:1", "a100:"),
    POD("gpus-per-task", 0, RQ, p_gpus, tres_per_task, 0, 0, "1", ":1"),
    POD("gpus-per-socket", 0, RQ, p_gpus, tres_per_socket, 0, 0, "1", "-1"),
    POD("gpu-bind", 0, RQ, p_gpu_str, tres_bind, 0, 0, "closest", ""),
    POD("gpu-freq", 0, RQ, p_gpu_str, tres_freq, 0, 0, "high", ""),
    POD("tres-per-task", 0, RQ, p_gres, tres_per_task, 0, 0, "gpu:1", ""),
    POD("sockets-per-node", 0, RQ, p_u16, sockets_per_node, 65533, 0, "1", "65535"),
    POD("cores-per-socket", 0, RQ, p_u16, cores_per_socket, 65533, 0, "1", "1x"),
    POD("threads-per-core", 0, RQ, p_u16, threads_per_core, 65533, 0, "1", "1 "),
    POD("extra-node-info", 'B', RQ, p_extra_node_info, sockets_per_node, 0, 0, "1:2:1", "2x"),
    NOT("hint", 0, RQ, INPROC_R),
    NOT("distribution", 'm', RQ, INPROC_R),
    POD("core-spec", 'S', RQ, p_u16, core_spec, 65533, 0, "1", "-1"),
    POD("thread-spec", 0, RQ, p_thread_spec, core_spec, 65533, 0, "1", "many"),
    NOT("cpu-freq", 0, RQ, INPROC_R),
    POD("licenses", 'L', RQ, p_str, licenses, 0, 0, "fluent:1", ""),
    POD("constraint", 'C', RQ, p_str, features, 0, 0, "a100&ib", ""),
    POD("cluster-constraint", 0, RQ, p_str, cluster_features, 0, 0, "c1", ""),
    POD("prefer", 0, RQ, p_str, prefer, 0, 0, "a100", ""),
    POD("contiguous", 0, NO, p_set16, contiguous, 0, 1, NULL, "x"),
    POD("switches", 0, RQ, p_switches, req_switch, 0, 0, "1@10", "1@soon"),
    POD("network", 0, RQ, p_str, network, 0, 0, "ib", ""),
    POD("nodelist", 'w', RQ, p_str, req_nodes, 0, 0, "node1", ""),
    POD("exclude", 'x', RQ, p_str, exc_nodes, 0, 0, "node2", ""),
    POD("use-min-nodes", 0, NO, p_bit, bitflags, 0, USE_MIN_NODES, NULL, "x"),
    POD("spread-job", 0, NO, p_bit, bitflags, 0, SPREAD_JOB, NULL, "x"),
    POD("exclusive", 0, OP, p_exclusive, shared, 0, 0, "user", "topo"),
    POD("oversubscribe", 's', NO, p_set16, shared, 0, JOB_SHARED_OK, NULL, "x"),
    /* policy */
    POD("partition", 'p', RQ, p_str, partition, 0, 0, "gpu", ""),
    POD("account", 'A', RQ, p_str, account, 0, 0, "ai", ""),
    POD("qos", 'q', RQ, p_str, qos, 0, 0, "normal", ""),
    POD("reservation", 0, RQ, p_str, reservation, 0, 0, "r1", ""),
    POD("time", 't', RQ, p_time, time_limit, 0, 0, "1:00:00", "soon"),
    POD("time-min", 0, RQ, p_time, time_min, 0, 0, "30", "1h"),
    POD("begin", 'b', RQ, p_date, begin_time, 0, 0, "now+1hour", "someday"),
    POD("deadline", 0, RQ, p_date, deadline, 0, 0, "now+2hours", "never"),
    POD("nice", 0, OP, p_nice, nice, 0, 0, "10", "abc"),
    /* slurmctld lets only operators raise priority; a user's request is refused there */
    POD("priority", 0, RQ, p_u32, priority, 0xfffffffe, 0, "10", "4294967295"),
    POD("signal", 0, RQ, p_signal, warn_signal, 0, 0, "B:USR1@60", "USR9"),
    POD("mail-type", 0, RQ, p_mail_type, mail_type, 0, 0, "END,FAIL", "SOMETIMES"),
    POD("mail-user", 0, RQ, p_str, mail_user, 0, 0, "ai@example.org", ""),
    POD("requeue", 0, NO, p_set16, requeue, 0, 1, NULL, "x"),
    POD("no-requeue", 0, NO, p_set16, requeue, 0, 0, NULL, "x"),
    POD("no-kill", 'k', OP, p_no_kill, kill_on_node_fail, 0, 0, "off", "maybe"),
    POD("wckey", 0, RQ, p_str, wckey, 0, 0, "w1", ""),
    POD("mcs-label", 0, RQ, p_str, mcs_label, 0, 0, "m1", ""),
    POD("acctg-freq", 0, RQ, p_str, acctg_freq, 0, 0, "task=30", ""),
    NOT("profile", 0, RQ, INPROC_R),
    NOT("power", 0, RQ, INPROC_R),
    POD("delay-boot", 0, RQ, p_time_secs, delay_boot, 0, 0, "5", "UNLIMITED"),
    POD("kill-on-invalid-dep", 0, RQ, p_kill_inv_dep, bitflags, 0, 0, "yes", "true"),
    /* slurmlinkd's own */
    OWN("job-name", 'J', RQ, OURS_R " to NAMESPACE/NAME", p_str, name, "default/p1", ""),
    OWN("comment", 0, RQ, OURS_R " to the pod UID", p_str, comment, "slurmlink:uid=u", ""),
    OWN("output", 'o', RQ, OUT_R, p_str, std_out, "out.log", ""),
    OWN("error", 'e', RQ, OUT_R, p_str, std_err, "err.log", ""),
    OWN("open-mode", 0, RQ, OUT_R, p_open_mode, open_mode, "append", "sometimes"),
    OWN("chdir", 'D', RQ, DIR_R, p_str, work_dir, "/tmp", ""),
    OWN("hold", 'H', NO, "a held job would leave the pod Pending forever", p_set32, priority,
        NULL, "x"),
    /* refused */
    NOT("uid", 0, RQ, USER_R),
    NOT("gid", 0, RQ, USER_R),
    NOT("get-user-env", 0, OP, ENV_R),
    NOT("export", 0, RQ, ENV_R),
    NOT("export-file", 0, RQ, ENV_R),
    NOT("propagate", 0, OP, ENV_R),
    NOT("wrap", 0, RQ, SCRIPT_R),
    NOT("container", 0, RQ, CONT_R),
    NOT("container-id", 0, RQ, CONT_R),
    NOT("input", 'i', RQ, OUT_R),
    NOT("array", 'a', RQ, "one pod is one job (a Kubernetes Job becomes an array)"),
    NOT("dependency", 'd', RQ, "pods do not know Slurm job ids; use init containers"),
    NOT("clusters", 'M', RQ, "slurmlinkd tracks jobs on its own cluster"),
    NOT("batch", 0, RQ, SCRIPT_R),
    NOT("burst-buffer", 0, RQ, BB_R),
    NOT("bbf", 0, RQ, BB_R),
    NOT("reboot", 0, NO, "node reboots are for administrators"),
    NOT("x11", 0, OP, "there is no display"),
    NOT("parsable", 0, NO, CLI_R),
    NOT("wait", 'W', NO, CLI_R),
    NOT("wait-all-nodes", 0, RQ, CLI_R),
    NOT("test-only", 0, NO, CLI_R),
    NOT("quiet", 'Q', NO, CLI_R),
    NOT("verbose", 'v', NO, CLI_R),
    NOT("help", 'h', NO, CLI_R),
    NOT("usage", 0, NO, CLI_R),
    NOT("version", 'V', NO, CLI_R),
    NOT("ignore-pbs", 0, NO, CLI_R),
};
// clang-format on

#define NOPTS (sizeof(opts) / sizeof(opts[0]))

const sl_slurm_opt_t *sl_slurm_opt_at(size_t i) { return i < NOPTS ? &opts[i] : NULL; }

const sl_slurm_opt_t *sl_slurm_opt_find(const char *name, size_t n)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (!strncmp(opts[i].name, name, n) && !opts[i].name[n])
            return &opts[i];
    return NULL;
}

const char *sl_slurm_opt_name(const sl_slurm_opt_t *o) { return o->name; }
char sl_slurm_opt_short(const sl_slurm_opt_t *o) { return o->shortopt; }
sl_optarg_t sl_slurm_opt_arg(const sl_slurm_opt_t *o) { return o->arg; }
sl_optwho_t sl_slurm_opt_who(const sl_slurm_opt_t *o) { return o->who; }
const char *sl_slurm_opt_refusal(const sl_slurm_opt_t *o) { return o->refuse; }
const char *sl_slurm_opt_sample(const sl_slurm_opt_t *o) { return o->sample; }
const char *sl_slurm_opt_bad(const sl_slurm_opt_t *o) { return o->bad; }

/* ---- applying options ------------------------------------------------- */

static int apply_one(job_desc_msg_t *d, const char *opt, int *cpus, sl_error_t *err)
{
    errno = EINVAL;
    if (strncmp(opt, "--", 2))
        return sl_errprintf(err, "option \"%s\" is not in --long=value form", opt);
    const char *eq = strchr(opt, '=');
    size_t nl = eq ? (size_t)(eq - opt) : strlen(opt);
    if (nl >= 64)
        return sl_errprintf(err, "option \"%.40s...\" is not supported", opt);
    const char *v = eq ? eq + 1 : NULL;
    const sl_slurm_opt_t *o = sl_slurm_opt_find(opt + 2, nl - 2);
    if (!o || !o->parse)
        return sl_errprintf(err, "option %.*s is not supported for in-process submission", (int)nl,
                            opt);
    if (o->arg == SL_OPTARG_REQUIRED && !v)
        return sl_errprintf(err, "option --%s needs a value", o->name);
    if (o->arg == SL_OPTARG_NONE && v)
        return sl_errprintf(err, "option --%s takes no value", o->name);
    if (o->field == F(cpus_per_task))
        *cpus = 1;
    return o->parse(o, d, v, err);
}

int sl_slurm_apply_options(void *descp, const char *const *options, sl_error_t *err)
{
    job_desc_msg_t *d = descp;
    int cpus = 0;
    for (const char *const *o = options; o && *o; o++)
        if (apply_one(d, *o, &cpus, err) < 0)
            return -1;
    if (cpus) { /* slurmctld wants the job's total too, as sbatch sends it */
        uint32_t nt = d->num_tasks && d->num_tasks != NO_VAL ? d->num_tasks : 1;
        d->min_cpus = nt * d->cpus_per_task;
        d->pn_min_cpus = d->cpus_per_task;
    }
    return 0;
}

void sl_slurm_desc_free(void *desc)
{
    job_desc_msg_t *d = desc;
    char **fields[] = {
        &d->name,         &d->comment,       &d->partition,        &d->account,
        &d->qos,          &d->reservation,   &d->licenses,         &d->features,
        &d->exc_nodes,    &d->req_nodes,     &d->mail_user,        &d->tres_per_node,
        &d->tres_per_job, &d->tres_per_task, &d->tres_per_socket,  &d->std_out,
        &d->std_err,      &d->work_dir,      &d->cpus_per_tres,    &d->mem_per_tres,
        &d->tres_bind,    &d->tres_freq,     &d->cluster_features, &d->prefer,
        &d->network,      &d->wckey,         &d->mcs_label,        &d->acctg_freq,
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        free(*fields[i]);
        *fields[i] = NULL;
    }
}

int sl_slurm_check_options(const char *const *options, sl_error_t *err)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    int rc = sl_slurm_apply_options(&d, options, err);
    sl_slurm_desc_free(&d);
    return rc;
}
