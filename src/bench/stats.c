/* stats.c — mean, median, min, max; per-path summaries; throughput batches. */
#include "bench/stats.h"

#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sl_bench_stat_compute(const double *v, size_t n, sl_bench_stat_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!n)
        return;
    double *s = sl_xmalloc(n * sizeof(*s));
    memcpy(s, v, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    out->n = n;
    out->mean = sum / (double)n;
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    out->min = s[0];
    out->max = s[n - 1];
    free(s);
}

const char *sl_bench_phase_name(int ph)
{
    static const char *n[] = {"ack", "queue", "work", "visibility"};
    return ph >= 0 && ph < SL_BENCH_NPHASES ? n[ph] : "?";
}

const char *sl_bench_phase_label(int ph)
{
    static const char *n[] = {"acknowledgement", "queue + start-up", "work (container ran)",
                              "completion visibility"};
    return ph >= 0 && ph < SL_BENCH_NPHASES ? n[ph] : "?";
}

double sl_bench_run_phase(const sl_bench_run_t *r, int ph)
{
    int64_t d = 0;
    switch (ph) {
    case SL_BENCH_PH_ACK: d = r->t_ack - r->t_submit; break;
    case SL_BENCH_PH_QUEUE: d = r->t_start - r->t_ack; break;
    case SL_BENCH_PH_WORK: d = r->t_end - r->t_start; break;
    case SL_BENCH_PH_SEEN: d = r->t_seen - r->t_end; break;
    }
    return (double)d / 1e6;
}

double sl_bench_run_e2e(const sl_bench_run_t *r) { return (double)(r->t_seen - r->t_submit) / 1e6; }

static void summarize_one(const sl_bench_run_t *runs, size_t n, const char *path,
                          sl_bench_summary_t *s)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->path, sizeof(s->path), "%s", path);
    double *e2e = sl_xcalloc(n + 1, sizeof(double));
    double *ph[SL_BENCH_NPHASES];
    for (int p = 0; p < SL_BENCH_NPHASES; p++)
        ph[p] = sl_xcalloc(n + 1, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        const sl_bench_run_t *r = &runs[i];
        if (r->batch || strcmp(r->path, path))
            continue;
        s->runs++;
        if (r->error[0] && !s->first_error[0])
            snprintf(s->first_error, sizeof(s->first_error), "%s", r->error);
        if (r->warmup)
            continue;
        s->warm++;
        if (r->error[0]) {
            s->failed++;
            continue;
        }
        char why[128];
        if (sl_bench_run_check(r, why, sizeof(why)) < 0) {
            s->disordered++;
            continue;
        }
        e2e[s->ok] = sl_bench_run_e2e(r);
        for (int p = 0; p < SL_BENCH_NPHASES; p++)
            ph[p][s->ok] = sl_bench_run_phase(r, p);
        s->ok++;
    }
    sl_bench_stat_compute(e2e, s->ok, &s->e2e);
    for (int p = 0; p < SL_BENCH_NPHASES; p++) {
        sl_bench_stat_compute(ph[p], s->ok, &s->phase[p]);
        free(ph[p]);
    }
    free(e2e);
}

static int good_warm(const sl_bench_run_t *r, const char *path)
{
    char why[128];
    return !r->batch && !r->warmup && !r->error[0] && !strcmp(r->path, path) &&
           sl_bench_run_check(r, why, sizeof(why)) == 0;
}

/* per-round differences against the baseline's run of the same round */
static void paired(const sl_bench_run_t *runs, size_t n, const char *baseline,
                   sl_bench_summary_t *s)
{
    double *d = sl_xcalloc(n + 1, sizeof(double));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!good_warm(&runs[i], s->path))
            continue;
        for (size_t j = 0; j < n; j++)
            if (good_warm(&runs[j], baseline) && runs[j].index == runs[i].index) {
                d[k++] = sl_bench_run_e2e(&runs[i]) - sl_bench_run_e2e(&runs[j]);
                break;
            }
    }
    sl_bench_stat_t st;
    sl_bench_stat_compute(d, k, &st);
    s->paired_n = k;
    s->paired_mean_s = st.mean;
    s->paired_median_s = st.median;
    free(d);
}

void sl_bench_summarize(const sl_bench_run_t *runs, size_t n, const char *const *paths,
                        size_t npaths, const char *baseline, sl_bench_summary_t *out)
{
    const sl_bench_summary_t *base = NULL;
    for (size_t i = 0; i < npaths; i++) {
        summarize_one(runs, n, paths[i], &out[i]);
        if (baseline && !strcmp(paths[i], baseline))
            base = &out[i];
    }
    if (!base || !base->ok || base->e2e.mean <= 0 || base->e2e.median <= 0)
        return;
    for (size_t i = 0; i < npaths; i++) {
        sl_bench_summary_t *s = &out[i];
        if (s == base || !s->ok)
            continue;
        s->has_ratio = 1;
        s->ratio_mean = s->e2e.mean / base->e2e.mean;
        s->ratio_median = s->e2e.median / base->e2e.median;
        s->over_mean_s = s->e2e.mean - base->e2e.mean;
        s->over_median_s = s->e2e.median - base->e2e.median;
        paired(runs, n, baseline, s);
    }
}

void sl_bench_tput_compute(const sl_bench_run_t *runs, size_t n, const char *path, int batch,
                           sl_bench_tput_t *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", path);
    out->batch = batch;
    int64_t last_ack = 0, last_start = 0, last_end = 0, last_seen = 0;
    for (size_t i = 0; i < n; i++) {
        const sl_bench_run_t *r = &runs[i];
        if (r->batch != batch || strcmp(r->path, path))
            continue;
        out->pods++;
        if (r->t_submit > 0 && (!out->t0 || r->t_submit < out->t0))
            out->t0 = r->t_submit;
        if (r->t_ack > 0)
            out->acked++;
        if (r->t_start > 0)
            out->started++;
        if (r->t_end > 0)
            out->finished++;
        if (r->t_seen > 0)
            out->seen++;
        if (r->error[0]) {
            out->failed++;
            if (!out->first_error[0])
                snprintf(out->first_error, sizeof(out->first_error), "%s", r->error);
        }
        if (r->t_ack > last_ack)
            last_ack = r->t_ack;
        if (r->t_start > last_start)
            last_start = r->t_start;
        if (r->t_end > last_end)
            last_end = r->t_end;
        if (r->t_seen > last_seen)
            last_seen = r->t_seen;
    }
    if (!out->pods || !out->t0)
        return;
    /* a milestone counts only when every pod reached it */
    if (out->acked == out->pods)
        out->all_acked_s = (double)(last_ack - out->t0) / 1e6;
    if (out->started == out->pods)
        out->all_started_s = (double)(last_start - out->t0) / 1e6;
    if (out->finished == out->pods)
        out->all_finished_s = (double)(last_end - out->t0) / 1e6;
    if (out->seen == out->pods)
        out->all_seen_s = (double)(last_seen - out->t0) / 1e6;
    if (out->all_acked_s > 0)
        out->submit_per_s = (double)out->pods / out->all_acked_s;
    if (out->all_seen_s > 0)
        out->jobs_per_s = (double)out->pods / out->all_seen_s;
}
