/* internal.h — shared by the bench's own files only: the context every path
 * driver gets, the driver ops table, and helpers (pod instances, pod
 * folders, child processes, HTTP, the Kubernetes client). */
#ifndef SL_BENCH_INTERNAL_H
#define SL_BENCH_INTERNAL_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "bench/bench.h"
#include "bench/record.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
#include "translate/translate.h"

typedef struct bench_kube bench_kube_t;

/* Everything the drivers share; built by sl_bench_create(), read-only to
 * drivers (except the progress helper). Strings owned by the context. */
typedef struct bench_ctx {
    char *dir;         /* cluster folder */
    char *slurm_conf;  /* <dir>/etc/slurm.conf */
    char *kubeconfig;  /* <dir>/kubeconfig */
    char *pods_root;   /* pod folders: the daemon's and the direct paths' */
    char *image_store; /* charliecloud images */
    char *runtime;     /* default runtime for registry images (NULL: translate's) */
    char *shim_path;   /* slurmlink-shim */
    char *out_dir;     /* result files, kubectl cache, slurmrestd log */
    char *kubectl;     /* kubectl program */
    char *kube_cache;  /* kubectl --cache-dir (fresh, warmed by the warm-up) */
    char stamp[32];    /* this bench's id: yyyymmdd-hhmmss (in pod names and labels) */
    json_t *pod;       /* the workload pod template */
    char *workload_desc;
    char *run_as; /* direct paths: the job's user, as slurmlinkd runs jobs */
    uid_t uid;
    gid_t gid;
    char *home;
    int poll_ms;          /* direct paths' completion polling */
    long long timeout_ms; /* per run (per batch in throughput mode) */
    int stagger;          /* latency runs at staggered phases of the second */
    FILE *progress;
    int progress_tty;
    int progress_open;  /* a \r line is on screen */
    bench_kube_t *kube; /* API client (created on first use) */
} bench_ctx_t;

/* A way of running pods. submit/wait get the runs of one latency run
 * (n == 1) or one throughput batch (n pods at once). They fill the
 * records: submit sets t_submit, t_ack, job_id/uid/pod_dir as known; wait
 * sets t_seen and phase. A run that goes wrong gets sl_bench_run_fail();
 * the others go on. t_start/t_end are read from the pod folders afterwards
 * by the caller. */
typedef struct bench_path {
    const char *name;
    const char *what; /* one line for --help and the docs */
    /* -1 with err when the path cannot run at all (every run then fails) */
    int (*setup)(bench_ctx_t *c, void **state, sl_error_t *err);
    void (*submit)(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n);
    void (*wait)(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n, long long deadline_ms);
    void (*teardown)(bench_ctx_t *c, void *state);
} bench_path_t;

extern const bench_path_t bench_path_sbatch, bench_path_kubectl, bench_path_api,
    bench_path_slurmrestd;
const bench_path_t *bench_path_get(const char *name);

/* ---- pods (pods.c) ---- */
/* The workload template from a command (NULL: no-op) or a pod file. */
json_t *bench_workload(const char *workload, char **desc, sl_error_t *err);
/* A new pod object for run r (name, namespace, labels; a fresh uid when
 * with_uid, for pods that no API server names). Sets r->pod (and r->uid). */
json_t *bench_pod_instance(bench_ctx_t *c, sl_bench_run_t *r, int with_uid);
/* <pods_root>/<ns>/<name>-<uid> into r->pod_dir. */
void bench_pod_dir(bench_ctx_t *c, sl_bench_run_t *r, const char *ns);
/* Direct paths: translate the pod exactly as slurmlinkd does and write its
 * folder owned by the job's user. The script's identity comment is
 * slurmlink-bench:uid=... instead of slurmlink:uid=... (slurmlinkd cancels
 * jobs that carry its own marker but have no pod). Returns the result
 * (destroy it) or NULL with the run failed. */
sl_translate_result_t *bench_direct_prepare(bench_ctx_t *c, sl_bench_run_t *r);
/* The job environment slurmlinkd gives jobs (NULL-terminated; free with
 * sl_argv_free). */
void bench_job_env(bench_ctx_t *c, const char *uid, sl_argv_t *env);
/* Slurm's terminal states (base state names). */
int bench_slurm_terminal(const char *state);

/* ---- child processes with line-timed output (child.c) ---- */
/* Run argv with envp (NULL: inherit); call on_line for every stdout line
 * with the wall-clock time (µs) it was read; on_line returns non-zero when
 * it has what it waited for: the child's process group is then terminated
 * and the run counts as a success (status 0). stderr is collected into
 * *errout (caller frees; may be NULL). Kills the child at deadline_ms
 * (monotonic, sl_now_ms). Returns the exit status (0-255, 128+signal), or
 * -1 with err (spawn failure, deadline). */
typedef int (*bench_line_fn)(void *arg, const char *line, long long t_us);
int bench_child_run(const char *const *argv, const char *const *envp, bench_line_fn on_line,
                    void *arg, char **errout, long long deadline_ms, sl_error_t *err);

/* ---- HTTP (http.c, libcurl) ---- */
typedef struct bench_http_target {
    const char *base;      /* "http://127.0.0.1:6443" or "http://localhost" for a socket */
    const char *unix_path; /* Unix socket (NULL: TCP) */
    const char *token;     /* bearer token (NULL: none) */
    const char *ca_file;   /* CA bundle file */
    const char *ca_data;   /* PEM CA in memory (kubeconfig certificate-authority-data) */
    const char *cert_data, *key_data; /* client certificate/key PEM in memory */
    const char *cert_file, *key_file;
    int insecure; /* skip TLS verification */
} bench_http_target_t;
typedef struct bench_http bench_http_t; /* one kept-alive connection */
bench_http_t *bench_http_create(const bench_http_target_t *t);
void bench_http_destroy(bench_http_t *h);
/* method path body (NULL: none) → status and body (caller frees); *t_done
 * (may be NULL) the wall-clock µs the answer was complete. -1 with err. */
int bench_http_call(bench_http_t *h, const char *method, const char *path, const char *body,
                    long *status, char **resp, long long *t_done, long long deadline_ms,
                    sl_error_t *err);
/* A streaming GET (watch): on_line gets every line with its arrival time;
 * it returns non-zero to stop. Returns 0 when stopped by on_line, -1 with
 * err otherwise (stream ended, HTTP error, deadline). */
int bench_http_stream(bench_http_t *h, const char *path,
                      int (*on_line)(void *arg, const char *line, long long t_us), void *arg,
                      long long deadline_ms, sl_error_t *err);

/* ---- Kubernetes client for slurmlinkd (kube.c) ---- */
/* From <dir>/kubeconfig's current context (parsed with the YAML loader). */
bench_kube_t *bench_kube_get(bench_ctx_t *c, sl_error_t *err);
void bench_kube_destroy(bench_kube_t *k);
bench_http_t *bench_kube_http(bench_kube_t *k);       /* for requests and pod creation */
bench_http_t *bench_kube_watch_http(bench_kube_t *k); /* a second connection for watches */
/* GET one pod (new reference) or NULL with err. */
json_t *bench_kube_get_pod(bench_kube_t *k, const char *ns, const char *name, sl_error_t *err);
/* DELETE the bench's pods (label slurmlink.io/bench=<stamp>); errors ignored. */
void bench_kube_cleanup(bench_ctx_t *c);
/* Fill r from a pod object: uid, pod_dir, job id (annotation slurmlink.io/job-id). */
void bench_kube_note_pod(bench_ctx_t *c, sl_bench_run_t *r, json_t *pod);
/* Fail r with why the pod object says it Failed (pod reason, else the
 * first container's exit). */
void bench_kube_fail_pod(sl_bench_run_t *r, json_t *pod);
/* Watch pods with labelSelector from resourceVersion rv until every run in
 * rs has a terminal phase (Succeeded/Failed): sets t_seen, phase, and fails
 * runs that ended Failed. */
void bench_kube_watch(bench_ctx_t *c, sl_bench_run_t **rs, size_t n, const char *selector,
                      const char *rv, long long deadline_ms);

/* The bench itself (bench.c runs it, output.c reports it). */
#define BENCH_BASELINE "sbatch" /* ratios are against this path */

struct sl_bench {
    bench_ctx_t c;
    sl_bench_opts_t o;
    const bench_path_t *paths[8];
    size_t npaths;
    sl_bench_run_t *runs;
    size_t nruns, cap;
    sl_bench_summary_t *sum;
    sl_bench_tput_t *tput;
    size_t ntput;
    json_t *meta;
};

/* ---- progress (bench.c) ---- */
void bench_progress(bench_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
