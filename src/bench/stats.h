/* stats.h — the study's statistics over run records: per path, warm runs
 * only, end to end and broken into phases, overhead against a baseline path
 * measured in the same bench; and throughput batches.
 *
 * Phases (they add up to end to end = t_seen - t_submit):
 *   ack         t_ack   - t_submit   (API answered / sbatch printed the id)
 *   queue       t_start - t_ack      (Slurm queue + job and container start-up)
 *   work        t_end   - t_start    (the container ran)
 *   visibility  t_seen  - t_end      (until the client saw the terminal state)
 * All durations in seconds (double).
 */
#ifndef SL_BENCH_STATS_H
#define SL_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "bench/record.h"

typedef struct sl_bench_stat {
    size_t n;
    double mean, median, min, max; /* all 0 when n == 0 */
} sl_bench_stat_t;

/* Statistics of v[0..n) (v is not modified). The median of an even count
 * is the mean of the two middle values. */
void sl_bench_stat_compute(const double *v, size_t n, sl_bench_stat_t *out);

enum {
    SL_BENCH_PH_ACK = 0,
    SL_BENCH_PH_QUEUE,
    SL_BENCH_PH_WORK,
    SL_BENCH_PH_SEEN,
    SL_BENCH_NPHASES
};

/* "ack", "queue", "work", "visibility" and their long labels. */
const char *sl_bench_phase_name(int ph);
const char *sl_bench_phase_label(int ph);

/* A run's phase durations in seconds (valid only for a checked record). */
double sl_bench_run_phase(const sl_bench_run_t *r, int ph);
double sl_bench_run_e2e(const sl_bench_run_t *r);

typedef struct sl_bench_summary {
    char path[16];
    size_t runs;           /* latency runs of this path, warm-ups included */
    size_t warm;           /* runs that count: not warm-up */
    size_t ok;             /* warm runs that worked and are ordered: the statistics' n */
    size_t failed;         /* warm runs with an error */
    size_t disordered;     /* warm runs that worked but break t_submit <= ... <= t_seen */
    char first_error[256]; /* of any run of this path ("" if none) */
    sl_bench_stat_t e2e;
    sl_bench_stat_t phase[SL_BENCH_NPHASES];
    /* against the baseline path of the same bench (has_ratio 0 when the
     * baseline or this path has no good run, or this is the baseline) */
    int has_ratio;
    double ratio_mean;    /* mean e2e / baseline mean e2e */
    double ratio_median;  /* median e2e / baseline median e2e */
    double over_mean_s;   /* mean e2e - baseline mean e2e */
    double over_median_s; /* median e2e - baseline median e2e */
    /* paired: rounds (same index) where both this path and the baseline
     * have a good run; the paths of a round are submitted at the same phase
     * of slurmctld's tick, so the per-round difference cancels most of the
     * tick's variance */
    size_t paired_n;
    double paired_mean_s, paired_median_s; /* of e2e(this) - e2e(baseline), per round */
} sl_bench_summary_t;

/* One summary per path name in paths[0..npaths), in that order, from the
 * latency runs (batch == 0) in runs[0..n). baseline (e.g. "sbatch", may be
 * NULL) is the path ratios are computed against. out has npaths entries. */
void sl_bench_summarize(const sl_bench_run_t *runs, size_t n, const char *const *paths,
                        size_t npaths, const char *baseline, sl_bench_summary_t *out);

/* Throughput: one batch of pods submitted at once on one path. */
typedef struct sl_bench_tput {
    char path[16];
    int batch;
    size_t pods, acked, started, finished, seen, failed;
    int64_t t0;            /* first t_submit */
    double all_acked_s;    /* last t_ack - t0 (0 unless every pod was acknowledged) */
    double all_started_s;  /* last t_start - t0 */
    double all_finished_s; /* last t_end - t0 */
    double all_seen_s;     /* last t_seen - t0 */
    double submit_per_s;   /* pods / all_acked_s */
    double jobs_per_s;     /* pods / all_seen_s: completed pods per second */
    char first_error[256];
} sl_bench_tput_t;

/* Summarise the runs of (path, batch) in runs[0..n). */
void sl_bench_tput_compute(const sl_bench_run_t *runs, size_t n, const char *path, int batch,
                           sl_bench_tput_t *out);

#endif
