/* metrics.h — slurmlinkd's own metrics (docs/metrics.md lists each one):
 * one process-wide registry (metrics/expo.h) with a small call for each
 * place that observes something, so that the code observed stays one line:
 *
 *   src/api      requests by verb, resource and code, with latency; open watches;
 *                the quota janitor's recounts
 *   src/ctl      submissions and their failures, create → Slurm job id latency,
 *                container exit → status visible latency, the submission queue,
 *                GPUs per node
 *   src/slurmif  every libslurm RPC's latency and errors
 *
 * Pods by phase and namespace are counted from the store at each scrape,
 * and its commits read (src/api/metrics.c serves GET /metrics).
 *
 * Every call is thread-safe and cheap (one mutex, a short list search);
 * none fails visibly: a metric that cannot be recorded is dropped. */
#ifndef SL_METRICS_METRICS_H
#define SL_METRICS_METRICS_H

#include <stddef.h>

/* API requests: verb as kube-apiserver's RequestInfo (get, list, watch,
 * create, update, patch, delete, deletecollection; non-resource URLs: the
 * method in lower case), resource "" for a non-resource URL, sub "" or the
 * subresource, code the HTTP status. Unknown verbs and resources are
 * counted as "other" (label values are not taken from the URL as is). */
void sl_metrics_api_request(const char *verb, const char *resource, const char *sub, unsigned code,
                            double seconds);
/* A watch stream started (+1) or ended (-1). */
void sl_metrics_watch(int delta);

/* The quota janitor counted a namespace's pods again (pods: how many it read). */
void sl_metrics_quota_recount(size_t pods);

/* A background loop ended a pass: "janitor" (the API's: namespaces being
 * deleted, quotas' status.used), or a workload kind's store name
 * ("jobs.batch", "cronjobs.batch", ...: its controller pass). loop is one
 * of a fixed set, never taken from a request. Tests wait on the count
 * (t/lib.sh after_loop_passes) to see that something did not happen. */
void sl_metrics_loop_pass(const char *loop);

/* The job poll's view of a pod's job: applied (the pod read from the store,
 * written if it changed), else unchanged since it was last applied. */
void sl_metrics_job_view(int applied);

/* The controller read pods' changes from the store's change log: parsed
 * (handled), own (its own writes, passed by unparsed). */
void sl_metrics_controller_changes(size_t parsed, size_t own);

/* The store's committed write transactions so far (sl_store_commits), the
 * seconds spent committing (sl_store_commit_ns), and the group commits and
 * the creates they held (sl_store_group_stats), set at each scrape. */
void sl_metrics_store_commits(unsigned long long n, double seconds, unsigned long long groups,
                              unsigned long long grouped);
/* The store's lock ("writer" or "reader") so far (sl_store_lock_stats),
 * set at each scrape between sl_metrics_pods_begin and render. */
void sl_metrics_store_lock(const char *lock, unsigned long long acquired, double wait_s,
                           double held_s);
/* The store's drafts so far (sl_store_draft_stats): written as drafted, or
 * redone under the writer lock; set at each scrape, as the locks. */
void sl_metrics_store_drafts(unsigned long long written, unsigned long long redone);

/* A pod's submission to Slurm: ok 1 (a job id came back), else 0;
 * seconds: since the controller saw the pod created (ok only). */
void sl_metrics_submission(int ok, double seconds);
/* A queued submission's pod read again from the store by its worker (it
 * held no parsed pod: src/ctl/submit.c, SUB_PARSED_PER_WORKER). */
void sl_metrics_submission_reread(void);
/* A shim push that ended a container was applied: seconds from the
 * container's exit (the push's time) until its status was stored. */
void sl_metrics_status_latency(double seconds);
/* Pods waiting for a submission (new, backing off or deferred). */
void sl_metrics_queue_length(size_t n);
/* The delay the controller set before its next job poll (ctl_poll_gap). */
void sl_metrics_job_poll_interval(double seconds);
/* GPUs of the node mirror: begin drops the old values, then one call per node. */
void sl_metrics_gpus_begin(void);
void sl_metrics_gpus(const char *node, unsigned allocated, unsigned total);
/* The filesystem under a StorageClass's root (statfs): bytes used and its
 * size. */
void sl_metrics_storage(const char *storage_class, double used, double total);

/* A libslurm call named rpc ("submit_batch_job", "load_jobs", ...) took
 * seconds; failed 1 when it returned an error. */
void sl_metrics_slurm_rpc(const char *rpc, double seconds, int failed);

/* Pods by namespace and phase, filled anew for one scrape: begin, then one
 * call per pod; render ends it. The three run under the scrape lock that
 * begin takes and render releases. */
void sl_metrics_pods_begin(void);
void sl_metrics_pod(const char *ns, const char *phase);
/* The whole exposition (caller frees); releases the scrape lock. */
char *sl_metrics_render(size_t *len);

/* Seconds of a monotonic clock, for measuring durations. */
double sl_metrics_now(void);

#endif
