/* metrics.c — slurmlinkd's metric families, made once, and the calls that
 * feed them. Names follow Prometheus' conventions (base units, _total for
 * counters) and kube-apiserver's where it has the same metric. */
#include "metrics/metrics.h"
#include "common/log.h"
#include "metrics/expo.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* request and RPC latencies: 1 ms .. 60 s */
static const double fast_bounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                     0.5,   1,      2.5,   5,    10,    30,   60};
/* pod latencies (a poll period or more): 10 ms .. 5 min */
static const double pod_bounds[] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,  2,
                                    5,    10,    20,   30,  60,   120, 300};
#define NB(a) (sizeof(a) / sizeof((a)[0]))

static struct {
    sl_expo_t *x;
    sl_expo_family_t *pods, *subs, *sub_fail, *sub_lat, *status_lat, *queue, *poll_gap, *reread;
    sl_expo_family_t *fs_used, *fs_size;
    sl_expo_family_t *gpus, *gpus_alloc, *rpc_lat, *rpc_err, *req, *req_lat, *watches;
    sl_expo_family_t *recounts, *recount_pods, *views, *commits, *changes, *passes;
    sl_expo_family_t *lock_n, *lock_wait, *lock_held, *drafts, *commit_s, *groups, *grouped;
} m;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t scrape = PTHREAD_MUTEX_INITIALIZER;

/* every family: where it goes, its type, name, help, labels and (a
 * histogram's) bucket bounds */
typedef enum fam_type { FAM_COUNTER, FAM_GAUGE, FAM_HISTOGRAM } fam_type_t;
typedef struct fam_def {
    sl_expo_family_t **slot;
    fam_type_t type;
    const char *name, *help;
    const char *const *labels;
    const double *bounds;
    size_t nbounds;
} fam_def_t;

#define L(...) SL_EXPO_LABELS(__VA_ARGS__)
#define NONE SL_EXPO_NO_LABELS
static const fam_def_t families[] = {
    {&m.pods, FAM_GAUGE, "slurmlink_pods", "Pods in the store by namespace and phase.",
     L("namespace", "phase"), NULL, 0},
    {&m.subs, FAM_COUNTER, "slurmlink_pod_submissions_total",
     "Pod submissions to Slurm (attempts, retries included).", NONE, NULL, 0},
    {&m.sub_fail, FAM_COUNTER, "slurmlink_pod_submission_failures_total",
     "Pod submissions that Slurm refused or could not take.", NONE, NULL, 0},
    {&m.reread, FAM_COUNTER, "slurmlink_pod_submission_rereads_total",
     "Pod submissions queued behind the workers that held no parsed pod: the worker read it again "
     "from the store.",
     NONE, NULL, 0},
    {&m.sub_lat, FAM_HISTOGRAM, "slurmlink_pod_submit_latency_seconds",
     "From the controller seeing a pod created to its Slurm job id.", NONE, pod_bounds,
     NB(pod_bounds)},
    {&m.status_lat, FAM_HISTOGRAM, "slurmlink_pod_status_latency_seconds",
     "From a container's exit (the shim's push) to its status stored, visible to clients.", NONE,
     pod_bounds, NB(pod_bounds)},
    {&m.queue, FAM_GAUGE, "slurmlink_submit_queue_length",
     "Pods waiting for a submission to Slurm.", NONE, NULL, 0},
    {&m.poll_gap, FAM_GAUGE, "slurmlink_slurm_job_poll_interval_seconds",
     "The delay before the next Slurm job poll: slurm.poll_ms, longer after a slow poll.", NONE,
     NULL, 0},
    {&m.gpus, FAM_GAUGE, "slurmlink_node_gpus", "GPUs (GRES gpu) of each Slurm node.", L("node"),
     NULL, 0},
    {&m.gpus_alloc, FAM_GAUGE, "slurmlink_node_gpus_allocated",
     "GPUs allocated to jobs on each Slurm node.", L("node"), NULL, 0},
    {&m.fs_used, FAM_GAUGE, "slurmlink_storage_filesystem_used_bytes",
     "Bytes used on the filesystem of each StorageClass's root (statfs).", L("storageclass"), NULL,
     0},
    {&m.fs_size, FAM_GAUGE, "slurmlink_storage_filesystem_size_bytes",
     "Size of the filesystem of each StorageClass's root (statfs).", L("storageclass"), NULL, 0},
    {&m.rpc_lat, FAM_HISTOGRAM, "slurmlink_slurm_rpc_duration_seconds",
     "Duration of libslurm calls by RPC.", L("rpc"), fast_bounds, NB(fast_bounds)},
    {&m.rpc_err, FAM_COUNTER, "slurmlink_slurm_rpc_errors_total",
     "libslurm calls that returned an error, by RPC.", L("rpc"), NULL, 0},
    {&m.req, FAM_COUNTER, "slurmlink_api_requests_total",
     "API requests by verb, resource, subresource and HTTP code.",
     L("verb", "resource", "subresource", "code"), NULL, 0},
    {&m.req_lat, FAM_HISTOGRAM, "slurmlink_api_request_duration_seconds",
     "API request latency by verb and resource (watches excluded).", L("verb", "resource"),
     fast_bounds, NB(fast_bounds)},
    {&m.watches, FAM_GAUGE, "slurmlink_api_open_watches", "Watch streams now open.", NONE, NULL, 0},
    {&m.recounts, FAM_COUNTER, "slurmlink_quota_recounts_total",
     "Namespaces whose pods the quota janitor counted again.", NONE, NULL, 0},
    {&m.recount_pods, FAM_COUNTER, "slurmlink_quota_recount_pods_total",
     "Pods read by those recounts.", NONE, NULL, 0},
    {&m.views, FAM_COUNTER, "slurmlink_job_views_total",
     "Slurm job states the job poll compared with their pods: applied (the pod read from the "
     "store) or unchanged.",
     L("result"), NULL, 0},
    {&m.changes, FAM_COUNTER, "slurmlink_controller_changes_total",
     "Pods' changes the controller read from the store: parsed, or own (its own writes, passed by "
     "unparsed).",
     L("read"), NULL, 0},
    {&m.passes, FAM_COUNTER, "slurmlink_loop_passes_total",
     "Passes of a background loop: the API's janitor, or a workload kind's controller pass (its "
     "store name).",
     L("loop"), NULL, 0},
    {&m.commits, FAM_COUNTER, "slurmlink_store_commits_total",
     "Write transactions the store committed.", NONE, NULL, 0},
    {&m.commit_s, FAM_COUNTER, "slurmlink_store_commit_seconds_total",
     "Time the store spent committing (SQLite's COMMIT, with the checkpoints it runs).", NONE, NULL,
     0},
    {&m.groups, FAM_COUNTER, "slurmlink_store_group_commits_total",
     "Store transactions that committed several threads' creates at once (state.group_commit).",
     NONE, NULL, 0},
    {&m.grouped, FAM_COUNTER, "slurmlink_store_grouped_writes_total",
     "Creates committed in such a group.", NONE, NULL, 0},
    {&m.lock_n, FAM_COUNTER, "slurmlink_store_lock_acquisitions_total",
     "Times the store's writer or reader lock was taken.", L("lock"), NULL, 0},
    {&m.lock_wait, FAM_COUNTER, "slurmlink_store_lock_wait_seconds_total",
     "Time threads waited for the store's writer or reader lock.", L("lock"), NULL, 0},
    {&m.lock_held, FAM_COUNTER, "slurmlink_store_lock_held_seconds_total",
     "Time the store's writer or reader lock was held.", L("lock"), NULL, 0},
    {&m.drafts, FAM_COUNTER, "slurmlink_store_drafts_total",
     "Writes drafted outside the store's writer lock: written as drafted, or made again under it "
     "(the object had changed).",
     L("outcome"), NULL, 0},
};
#undef L
#undef NONE

static sl_expo_family_t *make_one(sl_expo_t *x, const fam_def_t *d, sl_error_t *e)
{
    switch (d->type) {
    case FAM_COUNTER: return sl_expo_counter(x, d->name, d->help, d->labels, e);
    case FAM_GAUGE: return sl_expo_gauge(x, d->name, d->help, d->labels, e);
    case FAM_HISTOGRAM:
        return sl_expo_histogram(x, d->name, d->help, d->labels, d->bounds, d->nbounds, e);
    }
    return NULL;
}

static void make(void)
{
    m.x = sl_expo_create();
    for (size_t i = 0; i < NB(families); i++) {
        sl_error_t e = SL_ERROR_INIT;
        *families[i].slot = make_one(m.x, &families[i], &e);
        if (!*families[i].slot) /* the table is constant: only a programming error gets here */
            sl_err("metrics: %s", e.text);
    }
}

static int ready(void)
{
    pthread_once(&once, make);
    return m.x != NULL;
}

double sl_metrics_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* a known word, else "other": label values never come from a client as is */
static const char *known(const char *s, const char *const *words)
{
    for (int i = 0; s && words[i]; i++)
        if (!strcmp(s, words[i]))
            return words[i];
    return "other";
}

/* resource names are the API's own (a found resource's plural): lower case
 * letters, digits, '-', '.' only */
static const char *resource_word(const char *s)
{
    if (!s)
        return "";
    size_t n = strlen(s);
    if (n > 63 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") != n)
        return "other";
    return s;
}

void sl_metrics_api_request(const char *verb, const char *resource, const char *sub, unsigned code,
                            double seconds)
{
    static const char *const verbs[] = {
        "get",  "list", "watch", "create",  "update", "patch", "delete", "deletecollection",
        "post", "put",  "head",  "options", NULL};
    static const char *const subs[] = {"", "status", "log", NULL};
    if (!ready())
        return;
    const char *v = known(verb, verbs), *r = resource_word(resource);
    char c[8];
    snprintf(c, sizeof(c), "%u", code < 1000 ? code : 0);
    sl_expo_add(m.req, SL_EXPO_LABELS(v, r, known(sub ? sub : "", subs), c), 1);
    if (strcmp(v, "watch") != 0)
        sl_expo_observe(m.req_lat, SL_EXPO_LABELS(v, r), seconds);
}

void sl_metrics_watch(int delta)
{
    if (ready())
        sl_expo_add(m.watches, NULL, delta);
}

void sl_metrics_submission(int ok, double seconds)
{
    if (!ready())
        return;
    sl_expo_add(m.subs, NULL, 1);
    if (!ok)
        sl_expo_add(m.sub_fail, NULL, 1);
    else if (seconds >= 0)
        sl_expo_observe(m.sub_lat, NULL, seconds);
}

void sl_metrics_submission_reread(void)
{
    if (ready())
        sl_expo_add(m.reread, NULL, 1);
}

void sl_metrics_status_latency(double seconds)
{
    if (ready())
        sl_expo_observe(m.status_lat, NULL, seconds < 0 ? 0 : seconds);
}

void sl_metrics_quota_recount(size_t pods)
{
    if (!ready())
        return;
    sl_expo_add(m.recounts, NULL, 1);
    sl_expo_add(m.recount_pods, NULL, (double)pods);
}

void sl_metrics_loop_pass(const char *loop)
{
    if (ready())
        sl_expo_add(m.passes, SL_EXPO_LABELS(loop), 1);
}

void sl_metrics_job_view(int applied)
{
    if (ready())
        sl_expo_add(m.views, SL_EXPO_LABELS(applied ? "applied" : "unchanged"), 1);
}

void sl_metrics_controller_changes(size_t parsed, size_t own)
{
    if (!ready())
        return;
    if (parsed)
        sl_expo_add(m.changes, SL_EXPO_LABELS("parsed"), (double)parsed);
    if (own)
        sl_expo_add(m.changes, SL_EXPO_LABELS("own"), (double)own);
}

void sl_metrics_store_commits(unsigned long long n, double seconds, unsigned long long groups,
                              unsigned long long grouped)
{
    if (!ready())
        return;
    sl_expo_family_t *f[] = {m.commits, m.commit_s, m.groups, m.grouped};
    double v[] = {(double)n, seconds, (double)groups, (double)grouped};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        sl_expo_reset(f[i]);
        sl_expo_add(f[i], NULL, v[i]);
    }
}

/* a counter of one label raised to a figure kept elsewhere (the store's),
 * under the scrape lock: the other label values' series stay as they are */
static void raise_to(sl_expo_family_t *f, const char *label, double v)
{
    sl_expo_add(f, SL_EXPO_LABELS(label), v - sl_expo_value(f, SL_EXPO_LABELS(label)));
}

void sl_metrics_store_lock(const char *lock, unsigned long long acquired, double wait_s,
                           double held_s)
{
    if (!ready())
        return;
    raise_to(m.lock_n, lock, (double)acquired);
    raise_to(m.lock_wait, lock, wait_s);
    raise_to(m.lock_held, lock, held_s);
}

void sl_metrics_store_drafts(unsigned long long written, unsigned long long redone)
{
    if (!ready())
        return;
    raise_to(m.drafts, "written", (double)written);
    raise_to(m.drafts, "redone", (double)redone);
}

void sl_metrics_queue_length(size_t n)
{
    if (ready())
        sl_expo_set(m.queue, NULL, (double)n);
}

void sl_metrics_job_poll_interval(double seconds)
{
    if (ready())
        sl_expo_set(m.poll_gap, NULL, seconds);
}

void sl_metrics_gpus_begin(void)
{
    if (!ready())
        return;
    sl_expo_reset(m.gpus);
    sl_expo_reset(m.gpus_alloc);
}

void sl_metrics_gpus(const char *node, unsigned allocated, unsigned total)
{
    if (!ready() || !node)
        return;
    sl_expo_set(m.gpus, SL_EXPO_LABELS(node), total);
    sl_expo_set(m.gpus_alloc, SL_EXPO_LABELS(node), allocated);
}

void sl_metrics_storage(const char *storage_class, double used, double total)
{
    if (!ready() || !storage_class)
        return;
    sl_expo_set(m.fs_used, SL_EXPO_LABELS(storage_class), used);
    sl_expo_set(m.fs_size, SL_EXPO_LABELS(storage_class), total);
}

void sl_metrics_slurm_rpc(const char *rpc, double seconds, int failed)
{
    if (!ready())
        return;
    sl_expo_observe(m.rpc_lat, SL_EXPO_LABELS(rpc), seconds);
    /* the series exists from the first call, so a rate() of 0 errors works */
    sl_expo_add(m.rpc_err, SL_EXPO_LABELS(rpc), failed ? 1 : 0);
}

void sl_metrics_pods_begin(void)
{
    pthread_mutex_lock(&scrape);
    if (ready())
        sl_expo_reset(m.pods);
}

void sl_metrics_pod(const char *ns, const char *phase)
{
    static const char *const phases[] = {"Pending", "Running", "Succeeded",
                                         "Failed",  "Unknown", NULL};
    if (ready() && ns)
        sl_expo_add(m.pods, SL_EXPO_LABELS(ns, phase && *phase ? known(phase, phases) : "Pending"),
                    1);
}

char *sl_metrics_render(size_t *len)
{
    char *text = ready() ? sl_expo_render(m.x, len) : NULL;
    pthread_mutex_unlock(&scrape);
    return text;
}
