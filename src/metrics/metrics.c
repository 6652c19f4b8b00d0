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

static sl_expo_family_t *must(sl_expo_family_t *f, const sl_error_t *err)
{
    if (!f) /* the names below are constants: only a programming error gets here */
        sl_err("metrics: %s", err->text);
    return f;
}

/* the pods' and submissions' families */
static void make_pods(sl_expo_t *x)
{
    sl_error_t e = SL_ERROR_INIT;
    m.pods = must(sl_expo_gauge(x, "slurmlink_pods", "Pods in the store by namespace and phase.",
                                SL_EXPO_LABELS("namespace", "phase"), &e),
                  &e);
    m.subs = must(sl_expo_counter(x, "slurmlink_pod_submissions_total",
                                  "Pod submissions to Slurm (attempts, retries included).",
                                  SL_EXPO_NO_LABELS, &e),
                  &e);
    m.sub_fail = must(sl_expo_counter(x, "slurmlink_pod_submission_failures_total",
                                      "Pod submissions that Slurm refused or could not take.",
                                      SL_EXPO_NO_LABELS, &e),
                      &e);
    m.reread = must(sl_expo_counter(x, "slurmlink_pod_submission_rereads_total",
                                    "Pod submissions queued behind the workers that held no "
                                    "parsed pod: the worker read it again from the store.",
                                    SL_EXPO_NO_LABELS, &e),
                    &e);
    m.sub_lat = must(sl_expo_histogram(x, "slurmlink_pod_submit_latency_seconds",
                                       "From the controller seeing a pod created to its Slurm "
                                       "job id.",
                                       SL_EXPO_NO_LABELS, pod_bounds, NB(pod_bounds), &e),
                     &e);
    m.status_lat = must(sl_expo_histogram(x, "slurmlink_pod_status_latency_seconds",
                                          "From a container's exit (the shim's push) to its "
                                          "status stored, visible to clients.",
                                          SL_EXPO_NO_LABELS, pod_bounds, NB(pod_bounds), &e),
                        &e);
    m.queue = must(sl_expo_gauge(x, "slurmlink_submit_queue_length",
                                 "Pods waiting for a submission to Slurm.", SL_EXPO_NO_LABELS, &e),
                   &e);
    m.poll_gap = must(sl_expo_gauge(x, "slurmlink_slurm_job_poll_interval_seconds",
                                    "The delay before the next Slurm job poll: slurm.poll_ms, "
                                    "longer after a slow poll.",
                                    SL_EXPO_NO_LABELS, &e),
                      &e);
}

/* the nodes', storage's, Slurm RPCs', API's, quotas', store's and loops' families */
static void make_cluster(sl_expo_t *x)
{
    sl_error_t e = SL_ERROR_INIT;
    m.gpus = must(sl_expo_gauge(x, "slurmlink_node_gpus", "GPUs (GRES gpu) of each Slurm node.",
                                SL_EXPO_LABELS("node"), &e),
                  &e);
    m.gpus_alloc = must(sl_expo_gauge(x, "slurmlink_node_gpus_allocated",
                                      "GPUs allocated to jobs on each Slurm node.",
                                      SL_EXPO_LABELS("node"), &e),
                        &e);
    m.fs_used = must(sl_expo_gauge(x, "slurmlink_storage_filesystem_used_bytes",
                                   "Bytes used on the filesystem of each StorageClass's root "
                                   "(statfs).",
                                   SL_EXPO_LABELS("storageclass"), &e),
                     &e);
    m.fs_size = must(sl_expo_gauge(x, "slurmlink_storage_filesystem_size_bytes",
                                   "Size of the filesystem of each StorageClass's root (statfs).",
                                   SL_EXPO_LABELS("storageclass"), &e),
                     &e);
    m.rpc_lat = must(sl_expo_histogram(x, "slurmlink_slurm_rpc_duration_seconds",
                                       "Duration of libslurm calls by RPC.", SL_EXPO_LABELS("rpc"),
                                       fast_bounds, NB(fast_bounds), &e),
                     &e);
    m.rpc_err = must(sl_expo_counter(x, "slurmlink_slurm_rpc_errors_total",
                                     "libslurm calls that returned an error, by RPC.",
                                     SL_EXPO_LABELS("rpc"), &e),
                     &e);
    m.req = must(sl_expo_counter(x, "slurmlink_api_requests_total",
                                 "API requests by verb, resource, subresource and HTTP code.",
                                 SL_EXPO_LABELS("verb", "resource", "subresource", "code"), &e),
                 &e);
    m.req_lat = must(sl_expo_histogram(x, "slurmlink_api_request_duration_seconds",
                                       "API request latency by verb and resource (watches "
                                       "excluded).",
                                       SL_EXPO_LABELS("verb", "resource"), fast_bounds,
                                       NB(fast_bounds), &e),
                     &e);
    m.watches = must(sl_expo_gauge(x, "slurmlink_api_open_watches", "Watch streams now open.",
                                   SL_EXPO_NO_LABELS, &e),
                     &e);
    m.recounts = must(sl_expo_counter(x, "slurmlink_quota_recounts_total",
                                      "Namespaces whose pods the quota janitor counted again.",
                                      SL_EXPO_NO_LABELS, &e),
                      &e);
    m.recount_pods = must(sl_expo_counter(x, "slurmlink_quota_recount_pods_total",
                                          "Pods read by those recounts.", SL_EXPO_NO_LABELS, &e),
                          &e);
    m.views = must(sl_expo_counter(x, "slurmlink_job_views_total",
                                   "Slurm job states the job poll compared with their pods: "
                                   "applied (the pod read from the store) or unchanged.",
                                   SL_EXPO_LABELS("result"), &e),
                   &e);
    m.changes = must(sl_expo_counter(x, "slurmlink_controller_changes_total",
                                     "Pods' changes the controller read from the store: parsed, "
                                     "or own (its own writes, passed by unparsed).",
                                     SL_EXPO_LABELS("read"), &e),
                     &e);
    m.passes = must(sl_expo_counter(x, "slurmlink_loop_passes_total",
                                    "Passes of a background loop: the API's janitor, or a "
                                    "workload kind's controller pass (its store name).",
                                    SL_EXPO_LABELS("loop"), &e),
                    &e);
    m.commits =
        must(sl_expo_counter(x, "slurmlink_store_commits_total",
                             "Write transactions the store committed.", SL_EXPO_NO_LABELS, &e),
             &e);
    m.commit_s = must(sl_expo_counter(x, "slurmlink_store_commit_seconds_total",
                                      "Time the store spent committing (SQLite's COMMIT, with "
                                      "the checkpoints it runs).",
                                      SL_EXPO_NO_LABELS, &e),
                      &e);
    m.groups = must(sl_expo_counter(x, "slurmlink_store_group_commits_total",
                                    "Store transactions that committed several threads' creates "
                                    "at once (state.group_commit).",
                                    SL_EXPO_NO_LABELS, &e),
                    &e);
    m.grouped = must(sl_expo_counter(x, "slurmlink_store_grouped_writes_total",
                                     "Creates committed in such a group.", SL_EXPO_NO_LABELS, &e),
                     &e);
    m.lock_n = must(sl_expo_counter(x, "slurmlink_store_lock_acquisitions_total",
                                    "Times the store's writer or reader lock was taken.",
                                    SL_EXPO_LABELS("lock"), &e),
                    &e);
    m.lock_wait = must(sl_expo_counter(x, "slurmlink_store_lock_wait_seconds_total",
                                       "Time threads waited for the store's writer or reader "
                                       "lock.",
                                       SL_EXPO_LABELS("lock"), &e),
                       &e);
    m.lock_held = must(sl_expo_counter(x, "slurmlink_store_lock_held_seconds_total",
                                       "Time the store's writer or reader lock was held.",
                                       SL_EXPO_LABELS("lock"), &e),
                       &e);
    m.drafts = must(sl_expo_counter(x, "slurmlink_store_drafts_total",
                                    "Writes drafted outside the store's writer lock: written as "
                                    "drafted, or made again under it (the object had changed).",
                                    SL_EXPO_LABELS("outcome"), &e),
                    &e);
}

static void make(void)
{
    m.x = sl_expo_create();
    make_pods(m.x);
    make_cluster(m.x);
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
