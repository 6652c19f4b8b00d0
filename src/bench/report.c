/* report.c — the terminal outputs: latency table, stacked bar chart,
 * throughput table. */
#include "bench/report.h"

#include <math.h>
#include <string.h>

static void secs(char *out, size_t len, const sl_bench_stat_t *st, double v)
{
    if (!st->n)
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%.3f", v);
}

void sl_bench_print_table(FILE *f, const sl_bench_summary_t *s, size_t n, const char *baseline)
{
    fprintf(f, "%-11s %5s  %8s %8s %8s %8s  %8s %8s %8s %8s  %s\n", "path", "runs", "mean",
            "median", "min", "max", "ack", "queue", "work", "visible", "vs sbatch");
    fprintf(f, "%-11s %5s  %8s %8s %8s %8s  %8s %8s %8s %8s\n", "", "", "s", "s", "s", "s", "s",
            "+start s", "s", "s");
    for (size_t i = 0; i < n; i++) {
        const sl_bench_summary_t *p = &s[i];
        char runs[16], c[8][24], ratio[64];
        snprintf(runs, sizeof(runs), "%zu/%zu", p->ok, p->warm);
        secs(c[0], sizeof(c[0]), &p->e2e, p->e2e.mean);
        secs(c[1], sizeof(c[1]), &p->e2e, p->e2e.median);
        secs(c[2], sizeof(c[2]), &p->e2e, p->e2e.min);
        secs(c[3], sizeof(c[3]), &p->e2e, p->e2e.max);
        for (int ph = 0; ph < SL_BENCH_NPHASES; ph++)
            secs(c[4 + ph], sizeof(c[4 + ph]), &p->phase[ph], p->phase[ph].mean);
        if (baseline && !strcmp(p->path, baseline))
            snprintf(ratio, sizeof(ratio), "%s", p->ok ? "1.00x (baseline)" : "no baseline");
        else if (p->has_ratio)
            snprintf(ratio, sizeof(ratio), "%.2fx (%+.3f s; paired median %+.3f s)", p->ratio_mean,
                     p->over_mean_s, p->paired_median_s);
        else
            snprintf(ratio, sizeof(ratio), "-");
        fprintf(f, "%-11s %5s  %8s %8s %8s %8s  %8s %8s %8s %8s  %s\n", p->path, runs, c[0], c[1],
                c[2], c[3], c[4], c[5], c[6], c[7], ratio);
    }
    /* what did not count, loudly */
    for (size_t i = 0; i < n; i++) {
        const sl_bench_summary_t *p = &s[i];
        if (p->failed)
            fprintf(f, "!! %s: %zu of %zu warm runs FAILED: %s\n", p->path, p->failed, p->warm,
                    p->first_error);
        else if (p->first_error[0])
            fprintf(f, "!! %s: a warm-up run failed: %s\n", p->path, p->first_error);
        if (p->disordered)
            fprintf(f,
                    "!! %s: %zu warm runs break t_submit <= t_ack <= t_start <= t_end <= t_seen "
                    "(left out of the statistics; see the runs file)\n",
                    p->path, p->disordered);
        if (!p->warm && !p->runs)
            fprintf(f, "!! %s: no runs\n", p->path);
    }
}

static const char *glyph(int ph, int utf8)
{
    static const char *u[] = {"\u2593", "\u2592", "\u2588", "\u2591"};
    static const char *a[] = {">", "-", "#", "."};
    return utf8 ? u[ph] : a[ph];
}

/* a "nice" axis step: 1, 2 or 5 times a power of ten, about max/ticks */
static double nice_step(double max, int ticks)
{
    if (max <= 0)
        return 1;
    double raw = max / ticks;
    double p = pow(10, floor(log10(raw)));
    double m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

void sl_bench_print_chart(FILE *f, const sl_bench_summary_t *s, size_t n, int width, int utf8)
{
    double max = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].ok && s[i].e2e.mean > max)
            max = s[i].e2e.mean;
    if (width < 10)
        width = 10;
    fprintf(f, "End to end, warm mean (s):");
    for (int ph = 0; ph < SL_BENCH_NPHASES; ph++)
        fprintf(f, "  %s %s", glyph(ph, utf8), sl_bench_phase_label(ph));
    fprintf(f, "\n");
    if (max <= 0) {
        fprintf(f, "  (no path has a good warm run)\n");
        return;
    }
    double step = nice_step(max, 4);
    double axis_max = ceil(max / step) * step;
    double scale = width / axis_max; /* columns per second */
    for (size_t i = 0; i < n; i++) {
        const sl_bench_summary_t *p = &s[i];
        fprintf(f, "%-11s ", p->path);
        if (!p->ok) {
            fprintf(f, "(no good warm run)\n");
            continue;
        }
        /* cumulative rounding: the segments always add up to the bar */
        double cum = 0;
        int drawn = 0;
        for (int ph = 0; ph < SL_BENCH_NPHASES; ph++) {
            double v = p->phase[ph].mean;
            cum += v > 0 ? v : 0;
            int upto = (int)lround(cum * scale);
            for (; drawn < upto; drawn++)
                fputs(glyph(ph, utf8), f);
        }
        fprintf(f, "%*s %.3f s", width - drawn, "", p->e2e.mean);
        if (p->has_ratio)
            fprintf(f, "  %.2fx", p->ratio_mean);
        fprintf(f, "\n");
    }
    /* axis: tick labels under their column */
    char line[512];
    memset(line, ' ', sizeof(line));
    int last = 0;
    for (double t = 0; t <= axis_max + step / 2; t += step) {
        int col = 12 + (int)lround(t * scale);
        char lab[32];
        int len = snprintf(lab, sizeof(lab), "%g", t);
        if (col + len >= (int)sizeof(line) - 1)
            break;
        if (col < last)
            continue;
        memcpy(line + col, lab, (size_t)len);
        last = col + len + 1;
    }
    line[last > 0 ? last - 1 : 0] = '\0';
    fprintf(f, "%s s\n", line);
}

void sl_bench_print_tput(FILE *f, const sl_bench_tput_t *t, size_t n)
{
    fprintf(f, "%-11s %6s  %10s %10s %10s %10s  %9s %9s\n", "path", "pods", "all acked", "started",
            "finished", "seen", "submit/s", "jobs/s");
    for (size_t i = 0; i < n; i++) {
        const sl_bench_tput_t *p = &t[i];
        char c[6][24];
        double v[] = {p->all_acked_s, p->all_started_s, p->all_finished_s, p->all_seen_s};
        size_t got[] = {p->acked, p->started, p->finished, p->seen};
        for (int k = 0; k < 4; k++) {
            if (got[k] == p->pods && p->pods)
                snprintf(c[k], sizeof(c[k]), "%.3f s", v[k]);
            else
                snprintf(c[k], sizeof(c[k]), "%zu/%zu", got[k], p->pods);
        }
        double rate[] = {p->submit_per_s, p->jobs_per_s};
        for (int k = 0; k < 2; k++) {
            if (rate[k] > 0)
                snprintf(c[4 + k], sizeof(c[4 + k]), "%.1f", rate[k]);
            else
                snprintf(c[4 + k], sizeof(c[4 + k]), "-");
        }
        fprintf(f, "%-11s %6zu  %10s %10s %10s %10s  %9s %9s\n", p->path, p->pods, c[0], c[1], c[2],
                c[3], c[4], c[5]);
    }
    for (size_t i = 0; i < n; i++)
        if (t[i].failed)
            fprintf(f, "!! %s: %zu of %zu pods FAILED: %s\n", t[i].path, t[i].failed, t[i].pods,
                    t[i].first_error);
}
