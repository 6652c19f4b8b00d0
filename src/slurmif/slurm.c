/* slurm.c — libslurm 22.05 behind sl_slurm_*: submit, signal, job and node loads. */
#include "slurmif/slurmif.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "metrics/metrics.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>

#include "slurmif/compat.h"
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_ulong rpc_count;

unsigned long sl_slurm_rpc_count(void)
{
    return atomic_load(&rpc_count);
}

/* Every libslurm RPC goes between these two: it is counted (the number
 * above, which tests read), timed, and its failure counted, by RPC name
 * (slurmlink_slurm_rpc_duration_seconds, _errors_total). */
double sl_slurm_rpc_begin(void)
{
    atomic_fetch_add(&rpc_count, 1);
    return sl_metrics_now();
}

void sl_slurm_rpc_end(const char *rpc, double t0, int failed)
{
    sl_metrics_slurm_rpc(rpc, sl_metrics_now() - t0, failed);
}

/* ---- start-up: a configuration libslurm can load, checked first ----------
 *
 * libslurm 22.05 does not report a bad slurm.conf: slurm_init() (and any RPC
 * before it) retries a missing file for 60 s, then calls fatal(), which
 * exits the process. So the file is opened here first (a missing or
 * unreadable one is named at once), then loaded by a forked child whose
 * stderr is read back: libslurm's first error line is the reason. Only a
 * configuration the child loaded is loaded here, once: libslurm keeps it for
 * the life of the process and never reads the file again, so no later RPC
 * goes back to the file (the paths that fatal() on a configuration are
 * those that load it; the auth and other client plugins are loaded here,
 * by slurm_init, not at the first RPC). */

#define SL_SLURM_DEFAULT_CONF "/etc/slurm/slurm.conf" /* Debian's libslurm */

/* libslurm's first "error: " or "fatal: " line of text, without its prefix */
static void first_slurm_error(char *text, sl_error_t *err, int status)
{
    const char *tags[] = {"error: ", "fatal: "};
    for (size_t t = 0; t < 2; t++) {
        char *at = strstr(text, tags[t]);
        if (at) {
            at += strlen(tags[t]);
            at[strcspn(at, "\n")] = '\0';
            sl_errprintf(err, "%s", at);
            return;
        }
    }
    sl_errprintf(err, "libslurm cannot load it (exit status %d)", status);
}

/* slurm_init(path) in a child: 0, or -1 with libslurm's reason */
static int load_in_child(const char *path, sl_error_t *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return sl_errprintf(err, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return sl_errprintf(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        slurm_init(path); /* fatal() exits 1 */
        _exit(0);
    }
    close(fds[1]);
    char text[4096];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fds[0], text + n, sizeof(text) - 1 - n)) > 0 || (r < 0 && errno == EINTR))
        n += r > 0 ? (size_t)r : 0;
    close(fds[0]);
    text[n] = '\0';
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    first_slurm_error(text, err, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return -1;
}

int sl_slurm_init(const char *conf, sl_error_t *err)
{
    const char *path = conf ? conf : getenv("SLURM_CONF");
    if (!path || !*path)
        path = SL_SLURM_DEFAULT_CONF;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        int e = fd < 0 ? errno : EINVAL;
        if (fd >= 0)
            close(fd);
        errno = e;
        return sl_errprintf(err, "slurm.conf %s: %s", path,
                            e == EINVAL ? "not a regular file" : strerror(e));
    }
    close(fd);
    sl_error_t why = {""};
    if (load_in_child(path, &why) < 0) {
        errno = EINVAL;
        return sl_errprintf(err, "slurm.conf %s: %s", path, why.text);
    }
    slurm_init(path);
    return 0;
}

/* ---- option parsing -------------------------------------------------- */

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
    if (errno || !*v || *end || x > max || v[0] == '-')
        return sl_errprintf(err, "%s: invalid value \"%s\": must be an integer 0..%lu", opt, v, max);
    *out = x;
    return 0;
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

static void set_str(char **field, const char *v)
{
    free(*field);
    *field = sl_xstrdup(v);
}

int sl_slurm_apply_options(void *descp, const char *const *options, sl_error_t *err)
{
    job_desc_msg_t *d = descp;
    unsigned long ntasks = 0, cpt = 0;
    for (const char *const *o = options; o && *o; o++) {
        const char *opt = *o;
        if (strncmp(opt, "--", 2))
            return sl_errprintf(err, "option \"%s\" is not in --long=value form", opt);
        const char *eq = strchr(opt, '=');
        char name[64];
        size_t nl = eq ? (size_t)(eq - opt) : strlen(opt);
        if (nl >= sizeof(name))
            return sl_errprintf(err, "option \"%.40s...\" is not supported", opt);
        memcpy(name, opt, nl);
        name[nl] = '\0';
        const char *v = eq ? eq + 1 : NULL;
        unsigned long u;
        errno = EINVAL;
#define NEED_VALUE()                                                                      \
    do {                                                                                  \
        if (!v)                                                                           \
            return sl_errprintf(err, "option %s needs a value", name);                    \
    } while (0)
        if (!strcmp(name, "--job-name")) {
            NEED_VALUE();
            set_str(&d->name, v);
        } else if (!strcmp(name, "--comment")) {
            NEED_VALUE();
            set_str(&d->comment, v);
        } else if (!strcmp(name, "--partition")) {
            NEED_VALUE();
            set_str(&d->partition, v);
        } else if (!strcmp(name, "--account")) {
            NEED_VALUE();
            set_str(&d->account, v);
        } else if (!strcmp(name, "--qos")) {
            NEED_VALUE();
            set_str(&d->qos, v);
        } else if (!strcmp(name, "--reservation")) {
            NEED_VALUE();
            set_str(&d->reservation, v);
        } else if (!strcmp(name, "--licenses")) {
            NEED_VALUE();
            set_str(&d->licenses, v);
        } else if (!strcmp(name, "--constraint")) {
            NEED_VALUE();
            set_str(&d->features, v);
        } else if (!strcmp(name, "--exclude")) {
            NEED_VALUE();
            set_str(&d->exc_nodes, v);
        } else if (!strcmp(name, "--nodelist")) {
            NEED_VALUE();
            set_str(&d->req_nodes, v);
        } else if (!strcmp(name, "--mail-user")) {
            NEED_VALUE();
            set_str(&d->mail_user, v);
        } else if (!strcmp(name, "--time") || !strcmp(name, "--time-min")) {
            NEED_VALUE();
            long m = sl_slurm_time_minutes(v);
            if (m == -1)
                return sl_errprintf(err, "%s: invalid time \"%s\"", name, v);
            uint32_t val = m == -2 ? INFINITE : (uint32_t)m;
            if (name[6] == '-')
                d->time_min = val;
            else
                d->time_limit = val;
        } else if (!strcmp(name, "--nodes")) {
            NEED_VALUE();
            const char *dash = strchr(v, '-');
            char lo[32];
            snprintf(lo, sizeof(lo), "%.*s", dash ? (int)(dash - v) : 31, v);
            unsigned long a, b;
            if (uint_val(name, lo, 100000, &a, err) < 0)
                return -1;
            b = a;
            if (dash && uint_val(name, dash + 1, 100000, &b, err) < 0)
                return -1;
            if (a == 0 || b < a)
                return sl_errprintf(err, "%s: invalid node count \"%s\"", name, v);
            d->min_nodes = (uint32_t)a;
            d->max_nodes = (uint32_t)b;
        } else if (!strcmp(name, "--ntasks")) {
            NEED_VALUE();
            if (uint_val(name, v, 1000000, &ntasks, err) < 0)
                return -1;
            d->num_tasks = (uint32_t)ntasks;
        } else if (!strcmp(name, "--ntasks-per-node")) {
            NEED_VALUE();
            if (uint_val(name, v, 65533, &u, err) < 0)
                return -1;
            d->ntasks_per_node = (uint16_t)u;
        } else if (!strcmp(name, "--cpus-per-task")) {
            NEED_VALUE();
            if (uint_val(name, v, 65533, &cpt, err) < 0 || cpt == 0)
                return cpt == 0 ? sl_errprintf(err, "%s: must be at least 1", name) : -1;
            d->cpus_per_task = (uint16_t)cpt;
        } else if (!strcmp(name, "--mem") || !strcmp(name, "--mem-per-cpu")) {
            NEED_VALUE();
            long long mb = size_mb(v);
            if (mb < 0)
                return sl_errprintf(err, "%s: invalid size \"%s\"", name, v);
            d->pn_min_memory = (uint64_t)mb;
            if (name[5] == '-')
                d->pn_min_memory |= MEM_PER_CPU;
        } else if (!strcmp(name, "--gres")) {
            NEED_VALUE();
            char *g = gres_prepend(v);
            free(d->tres_per_node);
            d->tres_per_node = g;
        } else if (!strcmp(name, "--gpus") || !strcmp(name, "--gpus-per-node") ||
                   !strcmp(name, "--gpus-per-task") || !strcmp(name, "--gpus-per-socket")) {
            NEED_VALUE();
            char *g = sl_xasprintf("gres:gpu:%s", v);
            char **field = !strcmp(name, "--gpus")            ? &d->tres_per_job
                           : !strcmp(name, "--gpus-per-node") ? &d->tres_per_node
                           : !strcmp(name, "--gpus-per-task") ? &d->tres_per_task
                                                              : &d->tres_per_socket;
            free(*field);
            *field = g;
        } else if (!strcmp(name, "--exclusive")) {
            if (v && strcmp(v, "user") && strcmp(v, "mcs"))
                return sl_errprintf(err, "--exclusive: invalid value \"%s\"", v);
            d->shared = !v ? JOB_SHARED_NONE : !strcmp(v, "user") ? JOB_SHARED_USER : JOB_SHARED_MCS;
        } else if (!strcmp(name, "--requeue")) {
            d->requeue = 1;
        } else if (!strcmp(name, "--no-requeue")) {
            d->requeue = 0;
        } else if (!strcmp(name, "--nice")) {
            /* sbatch's range; whether a negative one is allowed is slurmctld's call */
            const long lim = (long)NICE_OFFSET - 3;
            long n = 100;
            char *end = NULL;
            errno = 0;
            if (v)
                n = strtol(v, &end, 10);
            if (v && (errno || !*v || *end || n < -lim || n > lim))
                return sl_errprintf(
                    err, "--nice: invalid value \"%s\": must be an integer %ld..%ld", v, -lim, lim);
            d->nice = (uint32_t)((long)NICE_OFFSET + n);
        } else if (!strcmp(name, "--begin") || !strcmp(name, "--deadline")) {
            NEED_VALUE();
            time_t t = slurm_parse_time((char *)v, 0);
            if (!t)
                return sl_errprintf(err, "%s: invalid time \"%s\"", name, v);
            if (name[2] == 'b')
                d->begin_time = t;
            else
                d->deadline = t;
        } else if (!strcmp(name, "--output")) {
            NEED_VALUE();
            set_str(&d->std_out, v);
        } else if (!strcmp(name, "--error")) {
            NEED_VALUE();
            set_str(&d->std_err, v);
        } else if (!strcmp(name, "--chdir")) {
            NEED_VALUE();
            set_str(&d->work_dir, v);
        } else if (!strcmp(name, "--open-mode")) {
            NEED_VALUE();
            if (!strcmp(v, "append"))
                d->open_mode = OPEN_MODE_APPEND;
            else if (!strcmp(v, "truncate"))
                d->open_mode = OPEN_MODE_TRUNCATE;
            else
                return sl_errprintf(err, "--open-mode: invalid value \"%s\"", v);
        } else if (!strcmp(name, "--ntasks-per-socket") || !strcmp(name, "--ntasks-per-core") ||
                   !strcmp(name, "--ntasks-per-gpu") || !strcmp(name, "--sockets-per-node") ||
                   !strcmp(name, "--cores-per-socket") || !strcmp(name, "--threads-per-core") ||
                   !strcmp(name, "--mincpus") || !strcmp(name, "--core-spec") ||
                   !strcmp(name, "--thread-spec")) {
            NEED_VALUE();
            if (uint_val(name, v, 65533, &u, err) < 0)
                return -1;
            uint16_t x = (uint16_t)u;
            if (!strcmp(name, "--ntasks-per-socket"))
                d->ntasks_per_socket = x;
            else if (!strcmp(name, "--ntasks-per-core"))
                d->ntasks_per_core = x;
            else if (!strcmp(name, "--ntasks-per-gpu"))
                d->ntasks_per_tres = x;
            else if (!strcmp(name, "--sockets-per-node"))
                d->sockets_per_node = x;
            else if (!strcmp(name, "--cores-per-socket"))
                d->cores_per_socket = x;
            else if (!strcmp(name, "--threads-per-core"))
                d->threads_per_core = x;
            else if (!strcmp(name, "--mincpus"))
                d->pn_min_cpus = x;
            else if (!strcmp(name, "--core-spec"))
                d->core_spec = x;
            else
                d->core_spec = x | CORE_SPEC_THREAD;
        } else if (!strcmp(name, "--extra-node-info")) {
            NEED_VALUE();
            unsigned a = 0, b = 0, cc = 0;
            int n = sscanf(v, "%u:%u:%u", &a, &b, &cc);
            if (n < 1 || a == 0 || a > 65533 || b > 65533 || cc > 65533)
                return sl_errprintf(err, "%s: invalid value \"%s\": want S[:C[:T]]", name, v);
            d->sockets_per_node = (uint16_t)a;
            if (n > 1)
                d->cores_per_socket = (uint16_t)b;
            if (n > 2)
                d->threads_per_core = (uint16_t)cc;
        } else if (!strcmp(name, "--cpus-per-gpu") || !strcmp(name, "--mem-per-gpu")) {
            NEED_VALUE();
            char *t;
            if (name[2] == 'c') {
                if (uint_val(name, v, 65533, &u, err) < 0)
                    return -1;
                t = sl_xasprintf("gres:gpu:%lu", u);
                free(d->cpus_per_tres);
                d->cpus_per_tres = t;
            } else {
                long long mb = size_mb(v);
                if (mb < 0)
                    return sl_errprintf(err, "%s: invalid size \"%s\"", name, v);
                t = sl_xasprintf("gres:gpu:%lld", mb);
                free(d->mem_per_tres);
                d->mem_per_tres = t;
            }
        } else if (!strcmp(name, "--tmp")) {
            NEED_VALUE();
            long long mb = size_mb(v);
            if (mb < 0 || mb > UINT32_MAX)
                return sl_errprintf(err, "%s: invalid size \"%s\"", name, v);
            d->pn_min_tmp_disk = (uint32_t)mb;
        } else if (!strcmp(name, "--gpu-bind") || !strcmp(name, "--gpu-freq")) {
            NEED_VALUE();
            char *t = sl_xasprintf("gpu:%s", v);
            char **field = name[6] == 'b' ? &d->tres_bind : &d->tres_freq;
            free(*field);
            *field = t;
        } else if (!strcmp(name, "--tres-per-task")) {
            NEED_VALUE();
            char *g = gres_prepend(v);
            free(d->tres_per_task);
            d->tres_per_task = g;
        } else if (!strcmp(name, "--cluster-constraint")) {
            NEED_VALUE();
            set_str(&d->cluster_features, v);
        } else if (!strcmp(name, "--prefer")) {
            NEED_VALUE();
            set_str(&d->prefer, v);
        } else if (!strcmp(name, "--network")) {
            NEED_VALUE();
            set_str(&d->network, v);
        } else if (!strcmp(name, "--wckey")) {
            NEED_VALUE();
            set_str(&d->wckey, v);
        } else if (!strcmp(name, "--mcs-label")) {
            NEED_VALUE();
            set_str(&d->mcs_label, v);
        } else if (!strcmp(name, "--acctg-freq")) {
            NEED_VALUE();
            set_str(&d->acctg_freq, v);
        } else if (!strcmp(name, "--contiguous")) {
            d->contiguous = 1;
        } else if (!strcmp(name, "--use-min-nodes")) {
            d->bitflags |= USE_MIN_NODES;
        } else if (!strcmp(name, "--spread-job")) {
            d->bitflags |= SPREAD_JOB;
        } else if (!strcmp(name, "--oversubscribe")) {
            d->shared = JOB_SHARED_OK;
        } else if (!strcmp(name, "--no-kill")) {
            if (v && strcmp(v, "off") && strcmp(v, "on"))
                return sl_errprintf(err, "--no-kill: invalid value \"%s\"", v);
            d->kill_on_node_fail = v && !strcmp(v, "off") ? 1 : 0;
        } else if (!strcmp(name, "--kill-on-invalid-dep")) {
            NEED_VALUE();
            if (!strcmp(v, "yes"))
                d->bitflags |= KILL_INV_DEP;
            else if (!strcmp(v, "no"))
                d->bitflags |= NO_KILL_INV_DEP;
            else
                return sl_errprintf(err, "%s: invalid value \"%s\": yes or no", name, v);
        } else if (!strcmp(name, "--priority")) {
            NEED_VALUE();
            if (uint_val(name, v, 0xfffffffe, &u, err) < 0)
                return -1;
            d->priority = (uint32_t)u;
        } else if (!strcmp(name, "--delay-boot")) {
            NEED_VALUE();
            long m = sl_slurm_time_minutes(v);
            if (m < 0)
                return sl_errprintf(err, "%s: invalid time \"%s\"", name, v);
            d->delay_boot = (uint32_t)(m * 60);
        } else if (!strcmp(name, "--switches")) {
            NEED_VALUE();
            char buf[64];
            snprintf(buf, sizeof(buf), "%s", v);
            char *at = strchr(buf, '@');
            if (at)
                *at++ = '\0';
            if (uint_val(name, buf, 100000, &u, err) < 0)
                return -1;
            d->req_switch = (uint32_t)u;
            if (at) {
                long m = sl_slurm_time_minutes(at);
                if (m < 0)
                    return sl_errprintf(err, "%s: invalid time \"%s\"", name, at);
                d->wait4switch = (uint32_t)(m * 60);
            }
        } else if (!strcmp(name, "--signal")) {
            /* [{R|B}:]<sig_num>[@sig_time] */
            NEED_VALUE();
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
                if (uint_val(name, at, 65535, &when, err) < 0)
                    return -1;
            }
            int signo = 0;
            char *end;
            long nsig = strtol(sig, &end, 10);
            if (*sig && !*end)
                signo = (int)nsig;
            else {
                const char *nm = !strncasecmp(sig, "SIG", 3) ? sig + 3 : sig;
                static const struct {
                    const char *n;
                    int s;
                } sigs[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},
                            {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
                            {"TERM", SIGTERM}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
                            {"ALRM", SIGALRM}, {"URG", SIGURG}};
                for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
                    if (!strcasecmp(nm, sigs[k].n))
                        signo = sigs[k].s;
            }
            if (signo <= 0 || signo > 64)
                return sl_errprintf(err, "%s: invalid signal \"%s\"", name, v);
            d->warn_signal = (uint16_t)signo;
            d->warn_time = (uint16_t)when;
            d->warn_flags = flags;
        } else if (!strcmp(name, "--mail-type")) {
            NEED_VALUE();
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
            char *copy = sl_xstrdup(v);
            char *save = NULL;
            uint16_t bits = 0;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                size_t k, nk = sizeof(mt) / sizeof(mt[0]);
                for (k = 0; k < nk; k++)
                    if (!strcasecmp(t, mt[k].n))
                        break;
                if (k == nk) {
                    sl_errprintf(err, "%s: invalid mail type \"%s\"", name, t);
                    free(copy);
                    return -1;
                }
                bits |= mt[k].bits;
            }
            free(copy);
            d->mail_type = bits;
        } else if (!strcmp(name, "--hold")) {
            d->priority = 0;
        } else {
            return sl_errprintf(err, "option %s is not supported for in-process submission", name);
        }
#undef NEED_VALUE
    }
    if (cpt) {
        unsigned long nt = ntasks ? ntasks : 1;
        d->min_cpus = (uint32_t)(nt * cpt);
        d->pn_min_cpus = (uint16_t)cpt;
    }
    return 0;
}

static int retryable_errno(int e)
{
    return e == SLURM_COMMUNICATIONS_CONNECTION_ERROR || e == SLURM_COMMUNICATIONS_SEND_ERROR ||
           e == SLURM_COMMUNICATIONS_RECEIVE_ERROR || e == SLURM_COMMUNICATIONS_SHUTDOWN_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_SEND_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR || e == SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT ||
           e == ESLURM_NODES_BUSY || e == EAGAIN || e == ETIMEDOUT || e == ECONNREFUSED ||
           e == ESLURM_TRANSITION_STATE_NO_UPDATE;
}

static void free_desc(job_desc_msg_t *d)
{
    free(d->name);
    free(d->comment);
    free(d->partition);
    free(d->account);
    free(d->qos);
    free(d->reservation);
    free(d->licenses);
    free(d->features);
    free(d->exc_nodes);
    free(d->req_nodes);
    free(d->mail_user);
    free(d->tres_per_node);
    free(d->tres_per_job);
    free(d->tres_per_task);
    free(d->tres_per_socket);
    free(d->std_out);
    free(d->std_err);
    free(d->work_dir);
    free(d->cpus_per_tres);
    free(d->mem_per_tres);
    free(d->tres_bind);
    free(d->tres_freq);
    free(d->cluster_features);
    free(d->prefer);
    free(d->network);
    free(d->wckey);
    free(d->mcs_label);
    free(d->acctg_freq);
}

int sl_slurm_check_options(const char *const *options, sl_error_t *err)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    int rc = sl_slurm_apply_options(&d, options, err);
    free_desc(&d);
    return rc;
}

/* ---- the submitter's credential ------------------------------------------
 *
 * munged names the uid and gid of the process that connects to its socket
 * (SO_PEERCRED: the effective ids of the connecting thread, taken at
 * connect), and libslurm's auth/munge plugin makes a new credential for
 * every RPC, in the calling thread. So the calling thread takes the job
 * user's effective uid and gid (and only that gid as its groups) for the one
 * RPC, and slurmctld judges the job as that user's own sbatch: operator-only
 * options, partition and account rules, limits.
 *
 * Raw syscalls, not glibc's seteuid(): glibc changes every thread of the
 * process (its setxid broadcast); the kernel's calls change the caller only.
 * The real and saved uid stay 0, so the user can neither signal nor ptrace
 * the daemon meanwhile, and the daemon's other threads keep root. */

int sl_slurm_cred_begin(uid_t uid, gid_t gid, sl_slurm_cred_t *saved, sl_error_t *err)
{
    saved->switched = 0;
    saved->euid = geteuid();
    saved->egid = getegid();
    if (saved->euid != 0 || (uid == 0 && gid == 0))
        return 0; /* not root: slurmctld sees who we are, and judges that */
    int n = getgroups((int)(sizeof(saved->groups) / sizeof(saved->groups[0])), saved->groups);
    if (n < 0)
        return sl_errprintf(err, "getgroups: %s", strerror(errno));
    saved->ngroups = n;
    gid_t one = gid;
    if (syscall(SYS_setgroups, 1, &one) < 0 || syscall(SYS_setresgid, -1, (long)gid, -1) < 0 ||
        syscall(SYS_setresuid, -1, (long)uid, -1) < 0) {
        int e = errno;
        saved->switched = 1;
        sl_slurm_cred_end(saved);
        errno = e;
        return sl_errprintf(err, "cannot take uid %u gid %u to submit: %s", (unsigned)uid,
                            (unsigned)gid, strerror(e));
    }
    saved->switched = 1;
    return 0;
}

void sl_slurm_cred_end(const sl_slurm_cred_t *saved)
{
    if (!saved->switched)
        return;
    /* uid first: only root may set the gid and groups back. A thread that
     * cannot become root again must not go on as anyone. */
    if (syscall(SYS_setresuid, -1, (long)saved->euid, -1) < 0 ||
        syscall(SYS_setresgid, -1, (long)saved->egid, -1) < 0 ||
        syscall(SYS_setgroups, (long)saved->ngroups, saved->groups) < 0)
        abort();
}

void sl_slurm_desc_free(void *desc)
{
    free_desc(desc);
}

int sl_slurm_submit(const sl_slurm_submit_t *req, uint32_t *job_id, int *retryable, sl_error_t *err)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    if (retryable)
        *retryable = 0;
    size_t nenv = 0;
    while (req->env && req->env[nenv])
        nenv++;
    if (!req->script || nenv == 0) {
        errno = EINVAL;
        return sl_errprintf(err, "a batch job needs a script and an environment");
    }
    if (sl_slurm_apply_options(&d, req->options, err) < 0) {
        free_desc(&d);
        errno = EINVAL;
        return -1;
    }
    d.script = (char *)req->script;
    d.environment = (char **)req->env;
    d.env_size = (uint32_t)nenv;
    d.user_id = req->uid;
    d.group_id = req->gid;
    /* explicit fields win over the same options */
    if (req->work_dir)
        set_str(&d.work_dir, req->work_dir);
    if (req->std_out)
        set_str(&d.std_out, req->std_out);
    if (req->std_err)
        set_str(&d.std_err, req->std_err);

    submit_response_msg_t *resp = NULL;
    sl_slurm_cred_t saved;
    if (sl_slurm_cred_begin(req->uid, req->gid, &saved, err) < 0) {
        free_desc(&d);
        return -1;
    }
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_submit_batch_job(&d, &resp);
    int e = slurm_get_errno();
    sl_slurm_rpc_end("submit_batch_job", t0, rc != SLURM_SUCCESS || !resp);
    sl_slurm_cred_end(&saved);
    free_desc(&d);
    if (rc != SLURM_SUCCESS || !resp) {
        if (resp)
            slurm_free_submit_response_response_msg(resp);
        if (retryable)
            *retryable = retryable_errno(e);
        errno = e ? e : EIO;
        return sl_errprintf(err, "%s", slurm_strerror(e));
    }
    *job_id = resp->job_id;
    slurm_free_submit_response_response_msg(resp);
    return 0;
}

int sl_slurm_signal(uint32_t job_id, int sig, int batch_only, sl_error_t *err)
{
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_kill_job(job_id, (uint16_t)sig, batch_only ? KILL_JOB_BATCH : KILL_FULL_JOB);
    sl_slurm_rpc_end("kill_job", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        int e = slurm_get_errno();
        errno = e;
        return sl_errprintf(err, "signal job %u: %s", job_id, slurm_strerror(e));
    }
    return 0;
}

int sl_slurm_cancel(uint32_t job_id, sl_error_t *err)
{
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_kill_job(job_id, SIGKILL, 0);
    sl_slurm_rpc_end("kill_job", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        int e = slurm_get_errno();
        errno = e;
        return sl_errprintf(err, "cancel job %u: %s", job_id, slurm_strerror(e));
    }
    return 0;
}
