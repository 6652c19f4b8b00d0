/* bench.h — `slurmlink bench`: the comparison study's end-to-end method as a
 * library. One bench runs the same pod through several paths on the same
 * cluster and records, per run, t_submit ≤ t_ack ≤ t_start ≤ t_end ≤ t_seen
 * (record.h):
 *
 *   sbatch      the exact batch script slurmlinkd would submit for the pod,
 *               run with `sbatch --parsable` (argv, no shell); completion
 *               polled through libslurm
 *   kubectl     `kubectl apply -f`, then `kubectl wait` for Succeeded (a watch)
 *   api         the pod POSTed to slurmlinkd with libcurl, then a watch
 *   slurmrestd  Debian's slurmrestd, started privately on a Unix socket:
 *               POST /slurm/v0.0.38/job/submit of the same script, GET
 *               /slurm/v0.0.38/job/{id} polled to completion, stopped after
 *
 * Latency mode (default): per path, `warmup` runs then `runs` measured runs,
 * one pod at a time; the paths take turns run by run, so slow drift in the
 * machine hits every path alike. slurmctld starts batch jobs on a 1 s tick,
 * so the queue time of a run depends on where in the second it was
 * submitted. Each measured round therefore submits at a chosen phase of the
 * wall-clock second, the same phase for every path of the round, the
 * phases spread evenly over the second across rounds (random offset):
 * every path meets the tick at the same points, and the mean covers the
 * whole second rather than one phase locked in by the previous run's end. Throughput mode: per
 * path, `throughput` pods submitted at once, timed until all acknowledged, started, finished and
 * seen.
 *
 * Lifecycle: create (validates, imports the default image if missing,
 * prepares the output folder), execute (progress on opts->progress), then
 * read the results, write the files, print; destroy.
 */
#ifndef SL_BENCH_BENCH_H
#define SL_BENCH_BENCH_H

#include <jansson.h>
#include <stdio.h>

#include "bench/record.h"
#include "bench/stats.h"
#include "common/err.h"

typedef struct sl_bench_opts {
    const char *dir;      /* cluster folder (slurmlink up) */
    const char *paths;    /* comma list; NULL: "sbatch,kubectl,api,slurmrestd" */
    int runs;             /* measured runs per path (>= 1) */
    int warmup;           /* warm-up runs per path, excluded (>= 0) */
    const char *workload; /* a command for `sh -c` in busybox, or a pod file
                             (.yaml/.yml/.json, or any existing file); NULL: no-op */
    const char *out_dir;  /* NULL: <dir>/bench/<stamp> */
    int throughput;       /* > 0: throughput mode with this many pods per path */
    /* The direct paths use slurmlinkd's settings, read from the command line
     * of the folder's running daemon (--run-as, --pods-root, --image-store,
     * --default-runtime); these override them (NULL: the daemon's, else its
     * defaults: nobody, <state-dir>/pods, <dir>/images, translate's). */
    const char *run_as;
    const char *pods_root;
    const char *image_store;
    const char *runtime;
    const char *kubectl; /* NULL: "kubectl" */
    int poll_ms;         /* sbatch / slurmrestd completion polling (0: 50) */
    int timeout_s;       /* per run or batch (0: 300) */
    int keep_pods;       /* leave the API paths' pods in the store (their folders,
                            logs and records stay until they are deleted) */
    int no_stagger;      /* submit each latency run as soon as the previous one was
                            seen, instead of at a staggered phase of the second (below) */
    FILE *progress;      /* progress lines (NULL: none) */
    const char *command; /* the command line, recorded with the results */
} sl_bench_opts_t;

typedef struct sl_bench sl_bench_t;

sl_bench_t *sl_bench_create(const sl_bench_opts_t *opts, sl_error_t *err);
void sl_bench_destroy(sl_bench_t *b); /* NULL is a no-op */

/* Run every path. Returns 0 when it ran to the end (individual runs may
 * still have failed: see the records), -1 with err when it could not. */
int sl_bench_execute(sl_bench_t *b, sl_error_t *err);

/* Results (owned by b, valid until destroy). */
const sl_bench_run_t *sl_bench_runs(const sl_bench_t *b, size_t *n);
const sl_bench_summary_t *sl_bench_summaries(const sl_bench_t *b, size_t *n);
const sl_bench_tput_t *sl_bench_tputs(const sl_bench_t *b, size_t *n);
const char *sl_bench_out_dir(const sl_bench_t *b);

/* Everything as JSON (meta, runs, summary, throughput); new reference. */
json_t *sl_bench_to_json(const sl_bench_t *b);

/* runs.csv, summary.csv (latency) / throughput.csv, bench.json, bench.svg in
 * the output folder. */
int sl_bench_write_files(const sl_bench_t *b, sl_error_t *err);

/* The terminal report: table and bar chart (latency) or the throughput table. */
void sl_bench_print(const sl_bench_t *b, FILE *f, int utf8);

/* Problems that make the numbers untrustworthy: failed runs, ordering
 * violations. Returns their count (0: clean); prints each to f if not NULL. */
int sl_bench_problems(const sl_bench_t *b, FILE *f);

/* Names of the known paths (NULL-terminated). */
const char *const *sl_bench_path_names(void);

/* GET path from the API server of a kubeconfig's current context (the
 * bench's client: token or client certificate, its CA): the JSON answer,
 * or NULL with err (unreadable kubeconfig, no answer, an HTTP error). */
json_t *sl_bench_api_get(const char *kubeconfig, const char *path, sl_error_t *err);

#endif
