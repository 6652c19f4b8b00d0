/* bench.c — the bench's lifecycle: set-up of the context, the runs in turn
 * (latency) or in batches (throughput), results, files and the report. */
#include "bench/internal.h"
#include "bench/report.h"
#include "bench/stats.h"

#include "common/argv.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "config/config.h"
#include "image/image.h"
#include "slurmif/slurmif.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const bench_path_t *all_paths[] = {&bench_path_sbatch, &bench_path_kubectl, &bench_path_api,
                                          &bench_path_slurmrestd, NULL};

const bench_path_t *bench_path_get(const char *name)
{
    for (int i = 0; all_paths[i]; i++)
        if (!strcmp(all_paths[i]->name, name))
            return all_paths[i];
    return NULL;
}

const char *const *sl_bench_path_names(void)
{
    static const char *names[] = {"sbatch", "kubectl", "api", "slurmrestd", NULL};
    return names;
}

void bench_progress(bench_ctx_t *c, const char *fmt, ...)
{
    if (!c->progress)
        return;
    char line[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (c->progress_tty) {
        /* one line, rewritten in place */
        fprintf(c->progress, "\r\033[K%s", line);
        c->progress_open = 1;
    } else {
        fprintf(c->progress, "%s\n", line);
    }
    fflush(c->progress);
}

/* end the \r line so the next output starts clean */
static void progress_end(bench_ctx_t *c)
{
    if (c->progress && c->progress_open) {
        fputc('\n', c->progress);
        c->progress_open = 0;
    }
}

static void loud(bench_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void loud(bench_ctx_t *c, const char *fmt, ...)
{
    if (!c->progress)
        return;
    progress_end(c);
    va_list ap;
    va_start(ap, fmt);
    fputs("!! ", c->progress);
    vfprintf(c->progress, fmt, ap);
    fputc('\n', c->progress);
    va_end(ap);
    fflush(c->progress);
}

void sl_bench_destroy(sl_bench_t *b)
{
    if (!b)
        return;
    bench_ctx_t *c = &b->c;
    bench_kube_destroy(c->kube);
    free(c->dir);
    free(c->slurm_conf);
    free(c->kubeconfig);
    free(c->pods_root);
    free(c->image_store);
    free(c->runtime);
    free(c->shim_path);
    free(c->out_dir);
    free(c->kubectl);
    free(c->kube_cache);
    free(c->workload_desc);
    free(c->run_as);
    free(c->home);
    json_decref(c->pod);
    free(b->runs);
    free(b->sum);
    free(b->tput);
    json_decref(b->meta);
    free(b);
}

static int parse_paths(sl_bench_t *b, const char *list, sl_error_t *err)
{
    char *copy = sl_xstrdup(list ? list : "sbatch,kubectl,api,slurmrestd");
    char *save = NULL;
    for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        const bench_path_t *bp = bench_path_get(p);
        if (!bp) {
            errno = EINVAL;
            sl_errprintf(err,
                         "--paths: unknown path '%s' (known: sbatch, kubectl, api, "
                         "slurmrestd)",
                         p);
            free(copy);
            return -1;
        }
        for (size_t i = 0; i < b->npaths; i++)
            if (b->paths[i] == bp) {
                errno = EINVAL;
                sl_errprintf(err, "--paths: '%s' given twice", p);
                free(copy);
                return -1;
            }
        b->paths[b->npaths++] = bp;
    }
    free(copy);
    if (!b->npaths) {
        errno = EINVAL;
        return sl_errprintf(err, "--paths: no path given");
    }
    return 0;
}

static char *first_line(const char *const *argv)
{
    char *out = NULL;
    if (sl_run(argv, NULL, 1, 10000, &out, NULL) != 0) {
        free(out);
        return sl_xstrdup("unknown");
    }
    out[strcspn(out, "\n")] = '\0';
    return out;
}

/* the scheduler settings every path shares: worth recording with the numbers */
static char *sched_params(const char *conf)
{
    char *text = sl_read_file(conf, NULL, NULL);
    char *r = NULL;
    for (char *l = text ? strtok(text, "\n") : NULL; l && !r; l = strtok(NULL, "\n"))
        if (!strncmp(l, "SchedulerParameters=", 20))
            r = sl_xstrdup(l + 20);
    free(text);
    return r ? r : sl_xstrdup("(Slurm defaults)");
}

/* slurmlinkd's own settings, from the command line of the folder's running
 * daemon: the direct paths must write where it writes and run as whom it
 * runs jobs. Fills what it finds (caller frees); missing stays NULL. */
typedef struct daemon_cfg {
    int seen; /* the running slurmlinkd's settings were read */
    char *state_dir, *pods_root, *image_store, *run_as, *runtime;
} daemon_cfg_t;

static char *cfg_dup(const sl_config_t *cfg, sl_cfg_id_t id)
{
    const char *v = sl_config_str(cfg, id);
    return v ? sl_xstrdup(v) : NULL;
}

/* The settings of the slurmlinkd running for dir: its command line (from
 * /proc) read the way slurmlinkd reads it, through the one option table,
 * configuration file included (slurmlink up passes --config alone). */
static void daemon_cfg(const char *dir, daemon_cfg_t *d)
{
    memset(d, 0, sizeof(*d));
    char *pidf = sl_xasprintf("%s/run/slurmlinkd.pid", dir);
    char *pid = sl_read_file(pidf, NULL, NULL);
    free(pidf);
    if (!pid)
        return;
    char *cl = sl_xasprintf("/proc/%ld/cmdline", strtol(pid, NULL, 10));
    free(pid);
    size_t len = 0;
    char *args = sl_read_file(cl, &len, NULL);
    free(cl);
    if (!args)
        return;
    sl_argv_t av = SL_ARGV_INIT;
    for (size_t at = 0; at < len; at += strlen(args + at) + 1)
        sl_argv_add(&av, args + at);
    free(args);
    sl_cfg_action_t action;
    sl_error_t err = SL_ERROR_INIT;
    sl_config_t *cfg = sl_config_load((int)av.n, av.v, &action, &err);
    sl_argv_free(&av);
    if (!cfg)
        return;
    d->seen = 1;
    d->state_dir = cfg_dup(cfg, SL_CFG_STATE_DIR);
    d->pods_root = cfg_dup(cfg, SL_CFG_PODS_ROOT);
    d->image_store = cfg_dup(cfg, SL_CFG_IMAGE_STORE);
    d->run_as = cfg_dup(cfg, SL_CFG_RUN_AS);
    d->runtime = cfg_dup(cfg, SL_CFG_DEFAULT_RUNTIME);
    sl_config_destroy(cfg);
}

static int uses_busybox(json_t *pod)
{
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(json_object_get(pod, "spec"), "containers"), i, k)
    {
        const char *img = json_string_value(json_object_get(k, "image"));
        if (img && (!strcmp(img, "busybox") || !strcmp(img, "busybox:latest")))
            return 1;
    }
    return 0;
}

/* c->dir must be a cluster folder (`slurmlink up`'s cluster.json in it) */
static int check_cluster(const bench_ctx_t *c, sl_error_t *err)
{
    char *cj = sl_xasprintf("%s/cluster.json", c->dir);
    struct stat st;
    int is_cluster = stat(cj, &st) == 0;
    free(cj);
    if (is_cluster)
        return 0;
    errno = ENOENT;
    sl_errprintf(err,
                 "%s is not a cluster folder (no cluster.json): start one with "
                 "`slurmlink up --dir %s`",
                 c->dir, c->dir);
    return -1;
}

/* the pods root, image store, runtime and user of the direct paths: opts,
 * else the running slurmlinkd's command line, else slurmlinkd's defaults */
static void daemon_settings(bench_ctx_t *c, const sl_bench_opts_t *opts)
{
    daemon_cfg_t d;
    daemon_cfg(c->dir, &d);
    if (opts->pods_root)
        c->pods_root = sl_abspath(opts->pods_root);
    else if (d.pods_root)
        c->pods_root = sl_abspath(d.pods_root);
    else /* slurmlinkd's default */
        c->pods_root = sl_xasprintf("%s/pods", d.state_dir ? d.state_dir : "/var/lib/slurmlink");
    if (opts->image_store)
        c->image_store = sl_abspath(opts->image_store);
    else if (d.image_store)
        c->image_store = sl_abspath(d.image_store);
    else
        c->image_store = sl_xasprintf("%s/images", c->dir);
    c->runtime = opts->runtime ? sl_xstrdup(opts->runtime)
                 : d.runtime   ? sl_xstrdup(d.runtime)
                               : NULL;
    c->run_as = sl_xstrdup(opts->run_as ? opts->run_as : d.run_as ? d.run_as : "nobody");
    int daemon_seen = d.seen;
    free(d.state_dir);
    free(d.pods_root);
    free(d.image_store);
    free(d.run_as);
    free(d.runtime);
    if (!daemon_seen && c->progress)
        bench_progress(c, "slurmlinkd of %s is not running: its settings are assumed", c->dir);
}

/* the shim next to this program, and the uid, gid and home of c->run_as */
static int shim_and_user(bench_ctx_t *c, sl_error_t *err)
{
    char *self = sl_self_dir();
    c->shim_path = sl_xasprintf("%s/slurmlink-shim", self ? self : ".");
    free(self);
    if (access(c->shim_path, X_OK) < 0) {
        sl_errprintf(err, "%s: %s (build it with make)", c->shim_path, strerror(errno));
        return -1;
    }
    struct passwd *pw = getpwnam(c->run_as);
    if (!pw) {
        errno = ENOENT;
        sl_errprintf(err, "--run-as: no user '%s'", c->run_as);
        return -1;
    }
    c->uid = pw->pw_uid;
    c->gid = pw->pw_gid;
    c->home = sl_xstrdup(pw->pw_dir);
    return 0;
}

/* the workload pod; the default busybox image made from Debian's
 * busybox-static when the pod uses it and the store lacks it */
static int load_workload(bench_ctx_t *c, const sl_bench_opts_t *opts, sl_error_t *err)
{
    c->pod = bench_workload(opts->workload, &c->workload_desc, err);
    if (!c->pod)
        return -1;
    if (!uses_busybox(c->pod))
        return 0;
    struct stat st;
    char *dir = sl_image_dir(c->image_store, "busybox", err);
    int have = dir && stat(dir, &st) == 0;
    free(dir);
    if (have)
        return 0;
    bench_progress(c, "importing busybox into %s", c->image_store);
    if (sl_image_import_busybox(c->image_store, "busybox", NULL, 0, err) < 0) {
        sl_errprefix(err, "importing the busybox image");
        return -1;
    }
    return 0;
}

/* b->meta: what was measured, where, with which versions and settings */
static void bench_meta(sl_bench_t *b, const struct tm *tm)
{
    bench_ctx_t *c = &b->c;
    struct utsname un;
    uname(&un);
    const char *sb[] = {"sbatch", "--version", NULL};
    const char *kv[] = {c->kubectl, "version", "--client", NULL};
    char *date = sl_xmalloc(64);
    strftime(date, 64, "%Y-%m-%dT%H:%M:%S%z", tm);
    b->meta = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:i, "
                        "s:i, s:i, s:i, s:s, s:s}",
                        "command", b->o.command ? b->o.command : "slurmlink bench", "date", date,
                        "id", c->stamp, "host", un.nodename, "kernel", un.release, "cluster",
                        c->dir, "workload", c->workload_desc, "pods_root", c->pods_root, "run_as",
                        c->run_as, "slurm", "", "kubectl", "", "runs", b->o.runs, "warmup",
                        b->o.warmup, "throughput", b->o.throughput, "poll_ms", c->poll_ms,
                        "stagger", c->stagger, "cpus", (int)sysconf(_SC_NPROCESSORS_ONLN),
                        "scheduler_parameters", "", "baseline", BENCH_BASELINE);
    free(date);
    char *v = first_line(sb);
    json_object_set_new(b->meta, "slurm", json_string(v));
    free(v);
    v = first_line(kv);
    json_object_set_new(b->meta, "kubectl", json_string(v));
    free(v);
    char *sp = sched_params(c->slurm_conf);
    json_object_set_new(b->meta, "scheduler_parameters", json_string(sp));
    free(sp);
    json_t *pl = json_array();
    for (size_t i = 0; i < b->npaths; i++)
        json_array_append_new(pl, json_string(b->paths[i]->name));
    json_object_set_new(b->meta, "paths", pl);
    json_object_set_new(b->meta, "pod", json_deep_copy(c->pod));
}

sl_bench_t *sl_bench_create(const sl_bench_opts_t *opts, sl_error_t *err)
{
    sl_bench_t *b = sl_xcalloc(1, sizeof(*b));
    bench_ctx_t *c = &b->c;
    b->o = *opts;
    if (b->o.runs < 1 || b->o.warmup < 0 || b->o.throughput < 0) {
        errno = EINVAL;
        sl_errprintf(err, "--runs must be >= 1, --warmup and --throughput >= 0");
        goto fail;
    }
    if (parse_paths(b, opts->paths, err) < 0)
        goto fail;
    c->dir = sl_abspath(opts->dir);
    if (check_cluster(c, err) < 0)
        goto fail;
    c->progress = opts->progress;
    c->progress_tty = opts->progress && isatty(fileno(opts->progress));
    c->slurm_conf = sl_xasprintf("%s/etc/slurm.conf", c->dir);
    c->kubeconfig = sl_xasprintf("%s/kubeconfig", c->dir);
    daemon_settings(c, opts);
    c->kubectl = sl_xstrdup(opts->kubectl ? opts->kubectl : "kubectl");
    c->poll_ms = opts->poll_ms > 0 ? opts->poll_ms : 50;
    c->timeout_ms = 1000LL * (opts->timeout_s > 0 ? opts->timeout_s : 300);
    c->stagger = !opts->no_stagger;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(c->stamp, sizeof(c->stamp), "%Y%m%d-%H%M%S", &tm);
    c->out_dir =
        opts->out_dir ? sl_abspath(opts->out_dir) : sl_xasprintf("%s/bench/%s", c->dir, c->stamp);
    if (sl_mkdir_p(c->out_dir, 0755, err) < 0)
        goto fail;
    c->kube_cache = sl_xasprintf("%s/kubectl-cache", c->out_dir);
    if (shim_and_user(c, err) < 0 || load_workload(c, opts, err) < 0)
        goto fail;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (sl_slurm_init(c->slurm_conf, err) < 0)
        goto fail;
    bench_meta(b, &tm);
    return b;
fail:
    sl_bench_destroy(b);
    return NULL;
}

static sl_bench_run_t *new_run(sl_bench_t *b, const char *path, int index, int warmup, int batch)
{
    if (b->nruns == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->runs = sl_xrealloc(b->runs, b->cap * sizeof(*b->runs));
    }
    sl_bench_run_t *r = &b->runs[b->nruns++];
    memset(r, 0, sizeof(*r));
    snprintf(r->path, sizeof(r->path), "%s", path);
    r->index = index;
    r->warmup = warmup;
    r->batch = batch;
    return r;
}

/* after the client saw the end: container times from the pod folder, then
 * the ordering rule, loudly */
static void finish_run(bench_ctx_t *c, sl_bench_run_t *r)
{
    if (r->error[0])
        return;
    if (sl_bench_run_read_events(r) < 0)
        return;
    char why[128];
    if (sl_bench_run_check(r, why, sizeof(why)) < 0)
        loud(c, "%s run %d (pod %s): ORDER VIOLATION: %s", r->path, r->index, r->pod, why);
}

static double random01(void)
{
    unsigned v = 0;
    if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
        v = (unsigned)rand();
    return (double)v / 4294967296.0;
}

/* Sleep until the wall clock's fraction of a second is phase (0..1), at
 * least 20 ms from now: the next moment that puts a submission at that
 * point of slurmctld's 1 s scheduling tick. */
static void wait_phase(double phase)
{
    long long now = sl_wall_us();
    long long frac = now % 1000000, target = (long long)(phase * 1e6);
    long long delta = target - frac;
    while (delta < 20000)
        delta += 1000000;
    struct timespec ts = {(time_t)(delta / 1000000), (long)(delta % 1000000) * 1000};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

typedef struct path_state {
    void *state;
    int set_up; /* setup() succeeded: teardown() is due */
    int ok;     /* runs go ahead (0 after a failed set-up or warm-up) */
    sl_error_t err;
} path_state_t;

static void run_batch(sl_bench_t *b, size_t p, path_state_t *ps, size_t first, size_t n)
{
    bench_ctx_t *c = &b->c;
    const bench_path_t *bp = b->paths[p];
    /* pointers taken after every record of the batch exists (realloc) */
    sl_bench_run_t **rs = sl_xcalloc(n, sizeof(*rs));
    for (size_t i = 0; i < n; i++)
        rs[i] = &b->runs[first + i];
    if (!ps->ok) {
        for (size_t i = 0; i < n; i++)
            sl_bench_run_fail(rs[i], "not run: %s path unavailable: %s", bp->name, ps->err.text);
    } else {
        long long deadline = sl_now_ms() + c->timeout_ms + 2000LL * (long long)(n - 1);
        bp->submit(c, ps->state, rs, n);
        bp->wait(c, ps->state, rs, n, deadline);
        for (size_t i = 0; i < n; i++)
            finish_run(c, rs[i]);
    }
    free(rs);
}

int sl_bench_execute(sl_bench_t *b, sl_error_t *err)
{
    (void)err;
    bench_ctx_t *c = &b->c;
    path_state_t ps[8];
    memset(ps, 0, sizeof(ps));
    for (size_t p = 0; p < b->npaths; p++) {
        bench_progress(c, "%s: setting up", b->paths[p]->name);
        ps[p].ok = ps[p].set_up = b->paths[p]->setup(c, &ps[p].state, &ps[p].err) == 0;
        if (!ps[p].ok)
            loud(c, "%s path cannot run: %s", b->paths[p]->name, ps[p].err.text);
    }
    int rounds = b->o.throughput ? b->o.warmup : b->o.warmup + b->o.runs;
    double offset = random01();
    for (int k = 0; k < rounds; k++) {
        /* one phase per round, shared by its paths; spread over the second */
        double phase = k < b->o.warmup ? random01()
                                       : fmod(offset + (double)(k - b->o.warmup) / b->o.runs, 1.0);
        for (size_t p = 0; p < b->npaths; p++) {
            int warm = k < b->o.warmup;
            size_t at = b->nruns;
            sl_bench_run_t *r = new_run(b, b->paths[p]->name, k, warm, 0);
            bench_progress(c, "[%d/%d] %s: %s %d", k + 1, rounds, r->path, warm ? "warm-up" : "run",
                           warm ? k + 1 : k - b->o.warmup + 1);
            if (c->stagger)
                wait_phase(phase);
            run_batch(b, p, &ps[p], at, 1);
            r = &b->runs[at];
            if (r->error[0] && ps[p].ok) {
                loud(c, "%s %s %d failed: %s", r->path, warm ? "warm-up" : "run", k + 1, r->error);
                /* a path that fails its warm-up would only burn the timeout
                 * again: its later runs fail at once, with this cause */
                if (warm) {
                    ps[p].ok = 0;
                    snprintf(ps[p].err.text, sizeof(ps[p].err.text), "its warm-up failed: %s",
                             r->error);
                }
            } else if (!r->error[0])
                bench_progress(c, "[%d/%d] %s: %.3f s", k + 1, rounds, r->path,
                               (double)(r->t_seen - r->t_submit) / 1e6);
        }
    }
    if (b->o.throughput) {
        b->tput = sl_xcalloc(b->npaths, sizeof(*b->tput));
        for (size_t p = 0; p < b->npaths; p++) {
            size_t at = b->nruns;
            for (int i = 0; i < b->o.throughput; i++)
                new_run(b, b->paths[p]->name, i, 0, 1);
            bench_progress(c, "%s: %d pods at once", b->paths[p]->name, b->o.throughput);
            run_batch(b, p, &ps[p], at, (size_t)b->o.throughput);
            sl_bench_tput_compute(b->runs, b->nruns, b->paths[p]->name, 1, &b->tput[p]);
            b->ntput++;
            bench_progress(c, "%s: %d pods seen finished after %.3f s", b->paths[p]->name,
                           b->o.throughput, b->tput[p].all_seen_s);
        }
    }
    for (size_t p = 0; p < b->npaths; p++)
        if (ps[p].set_up && b->paths[p]->teardown)
            b->paths[p]->teardown(c, ps[p].state);
    /* the API pods leave the store, and with them their pod folders, unless
     * they are kept to be looked at */
    if (c->kube && !b->o.keep_pods)
        bench_kube_cleanup(c);
    progress_end(c);

    const char *names[8];
    for (size_t p = 0; p < b->npaths; p++)
        names[p] = b->paths[p]->name;
    b->sum = sl_xcalloc(b->npaths, sizeof(*b->sum));
    sl_bench_summarize(b->runs, b->nruns, names, b->npaths, BENCH_BASELINE, b->sum);
    return 0;
}
