/* Unit tests: run records (ordering, time parsing, shim events) and statistics. */
#include "bench/stats.h"
#include "bench/record.h"
#include "common/tap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define near(a, b) (fabs((a) - (b)) < 1e-9)

static sl_bench_run_t mk(const char *path, int warm, int64_t sub, int64_t ack, int64_t st,
                         int64_t end, int64_t seen)
{
    sl_bench_run_t r;
    memset(&r, 0, sizeof(r));
    snprintf(r.path, sizeof(r.path), "%s", path);
    r.warmup = warm;
    r.t_submit = sub;
    r.t_ack = ack;
    r.t_start = st;
    r.t_end = end;
    r.t_seen = seen;
    return r;
}

static void test_stat(void)
{
    sl_bench_stat_t st;
    double odd[] = {3, 1, 2};
    sl_bench_stat_compute(odd, 3, &st);
    is_int(st.n, 3, "n of 3 values");
    ok(near(st.mean, 2) && near(st.median, 2) && near(st.min, 1) && near(st.max, 3),
       "mean 2, median 2, min 1, max 3 of {3,1,2}");
    double even[] = {10, 1, 4, 2};
    sl_bench_stat_compute(even, 4, &st);
    ok(near(st.median, 3), "median of an even count is the mean of the middle two (%g)", st.median);
    ok(near(st.mean, 4.25), "mean of {10,1,4,2} is 4.25 (%g)", st.mean);
    ok(even[0] == 10 && even[3] == 2, "input left unsorted");
    sl_bench_stat_compute(even, 0, &st);
    ok(st.n == 0 && st.mean == 0 && st.max == 0, "no values: all zero");
    double one[] = {0.5};
    sl_bench_stat_compute(one, 1, &st);
    ok(near(st.mean, 0.5) && near(st.median, 0.5) && near(st.min, 0.5) && near(st.max, 0.5),
       "one value");
}

static void test_check(void)
{
    char why[128];
    sl_bench_run_t r = mk("sbatch", 0, 100, 200, 300, 400, 500);
    is_int(sl_bench_run_check(&r, why, sizeof(why)), 0, "ordered run passes");
    r = mk("sbatch", 0, 100, 100, 100, 100, 100);
    is_int(sl_bench_run_check(&r, why, sizeof(why)), 0, "equal times are ordered (<=)");
    r = mk("sbatch", 0, 100, 200, 150, 400, 500);
    is_int(sl_bench_run_check(&r, why, sizeof(why)), -1, "t_start before t_ack is refused");
    is_str(why, "t_start is 0.050 ms before t_ack", "and explained");
    r = mk("sbatch", 0, 100, 200, 300, 400, 0);
    is_int(sl_bench_run_check(&r, why, sizeof(why)), -1, "missing t_seen is refused");
    is_str(why, "t_seen was not recorded", "and named");
    r = mk("sbatch", 0, 100, 200, 300, 600, 500);
    sl_bench_run_check(&r, why, sizeof(why));
    is_str(why, "t_seen is 0.100 ms before t_end", "visibility before exit is caught");
    sl_bench_run_fail(&r, "first %d", 1);
    sl_bench_run_fail(&r, "second");
    is_str(r.error, "first 1", "the first error is kept");
}

static void test_time(void)
{
    is_int(sl_bench_parse_time("1970-01-01T00:00:00Z"), 0, "epoch");
    is_int(sl_bench_parse_time("2026-11-30T12:00:00.123456Z"), 1796040000123456LL,
           "RFC 3339 with microseconds");
    is_int(sl_bench_parse_time("2026-11-30T12:00:00.123456789Z"), 1796040000123456LL,
           "nanoseconds truncated to microseconds");
    is_int(sl_bench_parse_time("2026-11-30T12:00:00.5Z"), 1796040000500000LL, "short fraction");
    is_int(sl_bench_parse_time("2026-11-30T13:30:00+01:30"), 1796040000000000LL, "offset");
    is_int(sl_bench_parse_time("2000-02-29T00:00:00Z"), 951782400000000LL, "leap day");
    is_int(sl_bench_parse_time("2026-11-30 12:00:00"), -1, "no zone: refused");
    is_int(sl_bench_parse_time("2026-13-30T12:00:00Z"), -1, "month 13 refused");
    is_int(sl_bench_parse_time("2026-11-30T12:00:00.Z"), -1, "empty fraction refused");
    is_int(sl_bench_parse_time("2026-11-30T12:00:00Zx"), -1, "trailing text refused");
    is_int(sl_bench_parse_time(NULL), -1, "NULL refused");
}

static void test_events(void)
{
    const char *ev =
        "{\"event\":\"pod-started\",\"seq\":1,\"time\":\"2026-11-30T12:00:00.000100Z\"}\n"
        "{\"event\":\"started\",\"container\":\"init\",\"init\":true,"
        "\"startedAt\":\"2026-11-30T12:00:00.000200Z\",\"time\":\"2026-11-30T12:00:00.000200Z\"}\n"
        "{\"event\":\"exited\",\"container\":\"init\",\"init\":true,"
        "\"finishedAt\":\"2026-11-30T12:00:00.000300Z\"}\n"
        "{\"event\":\"started\",\"container\":\"b\",\"init\":false,"
        "\"startedAt\":\"2026-11-30T12:00:00.000500Z\"}\n"
        "{\"event\":\"started\",\"container\":\"a\",\"init\":false,"
        "\"startedAt\":\"2026-11-30T12:00:00.000400Z\"}\n"
        "{\"event\":\"exited\",\"container\":\"a\",\"init\":false,\"restartInMs\":10,"
        "\"finishedAt\":\"2026-11-30T12:00:00.000900Z\"}\n"
        "not json at all\n"
        "{\"event\":\"exited\",\"container\":\"b\",\"init\":false,"
        "\"finishedAt\":\"2026-11-30T12:00:00.000700Z\"}\n"
        "{\"event\":\"exited\",\"container\":\"a\",\"init\":false,"
        "\"finishedAt\":\"2026-11-30T12:00:00.000800Z\"}\n"
        "{\"event\":\"pod-finished\",\"exitCode\":0,\"phase\":\"Succeeded\"";
    int64_t s = 0, e = 0;
    sl_error_t err = SL_ERROR_INIT;
    is_int(sl_bench_events_times(ev, &s, &e, &err), 0, "events parsed (%s)", err.text);
    is_int(s, 1796040000000400LL, "t_start: earliest app container start (init excluded)");
    is_int(e, 1796040000000800LL, "t_end: latest final exit (a restarting exit excluded)");
    is_int(sl_bench_events_times("{\"event\":\"started\",\"init\":false,"
                                 "\"startedAt\":\"2026-11-30T12:00:00Z\"}\n",
                                 &s, &e, &err),
           -1, "no exit yet: error");
    has_str(err.text, "exited", "naming the missing exit");
    is_int(sl_bench_events_times("", &s, &e, &err), -1, "empty file: error");
    has_str(err.text, "started", "naming the missing start");
    is_int(sl_bench_events_times("{\"event\":\"started\",\"init\":false,"
                                 "\"time\":\"2026-11-30T12:00:01Z\"}\n{\"event\":\"exited\","
                                 "\"init\":false,\"time\":\"2026-11-30T12:00:02Z\"}",
                                 &s, &e, &err),
           0, "falls back to the event time");
    is_int(e - s, 1000000, "one second apart");
}

static void test_summary(void)
{
    sl_bench_run_t runs[16];
    size_t n = 0;
    /* sbatch: warm-up (slow, excluded), then 1.0 s and 2.0 s runs */
    runs[n++] = mk("sbatch", 1, 0, 50000000, 50000000, 50000000, 50000000);
    runs[n++] = mk("sbatch", 0, 1000000, 1010000, 1800000, 1900000, 2000000);
    runs[n++] = mk("sbatch", 0, 3000000, 3010000, 4700000, 4900000, 5000000);
    /* api: 1.5 s and 2.5 s, one failed run, one disordered */
    runs[n++] = mk("api", 0, 1000000, 1020000, 2000000, 2100000, 2500000);
    runs[n++] = mk("api", 0, 10000000, 10020000, 12000000, 12100000, 12500000);
    runs[n] = mk("api", 0, 20000000, 0, 0, 0, 0);
    sl_bench_run_fail(&runs[n++], "watch broke");
    runs[n++] = mk("api", 0, 30000000, 30020000, 30010000, 30100000, 30500000);
    /* a throughput record must not count as a latency run */
    runs[n] = mk("api", 0, 1, 2, 3, 4, 900000000);
    runs[n++].batch = 1;
    const char *paths[] = {"sbatch", "api", "kubectl"};
    sl_bench_summary_t s[3];
    sl_bench_summarize(runs, n, paths, 3, "sbatch", s);
    is_int(s[0].runs, 3, "sbatch: 3 runs");
    is_int(s[0].warm, 2, "2 warm");
    is_int(s[0].ok, 2, "2 good");
    ok(near(s[0].e2e.mean, 1.5), "sbatch mean e2e 1.5 s (%g)", s[0].e2e.mean);
    ok(near(s[0].e2e.min, 1.0) && near(s[0].e2e.max, 2.0), "min 1.0, max 2.0: warm-up excluded");
    ok(near(s[0].phase[SL_BENCH_PH_ACK].mean, 0.010), "ack mean 10 ms");
    ok(near(s[0].phase[SL_BENCH_PH_QUEUE].mean, (0.79 + 1.69) / 2), "queue mean");
    ok(near(s[0].phase[SL_BENCH_PH_WORK].mean, 0.15), "work mean");
    ok(near(s[0].phase[SL_BENCH_PH_SEEN].mean, 0.1), "visibility mean");
    double sum = 0;
    for (int p = 0; p < SL_BENCH_NPHASES; p++)
        sum += s[0].phase[p].mean;
    ok(near(sum, s[0].e2e.mean), "phase means add up to the e2e mean");
    ok(!s[0].has_ratio, "the baseline has no ratio against itself");
    is_int(s[1].warm, 4, "api: 4 warm latency runs (the batch run is not one)");
    is_int(s[1].ok, 2, "2 good");
    is_int(s[1].failed, 1, "1 failed");
    is_int(s[1].disordered, 1, "1 disordered, left out");
    is_str(s[1].first_error, "watch broke", "first error kept");
    ok(near(s[1].e2e.mean, 2.0), "api mean 2.0 s (%g)", s[1].e2e.mean);
    ok(s[1].has_ratio && near(s[1].ratio_mean, 2.0 / 1.5), "ratio of means vs sbatch (%g)",
       s[1].ratio_mean);
    ok(near(s[1].ratio_median, 2.0 / 1.5), "ratio of medians");
    ok(near(s[1].over_mean_s, 0.5), "overhead +0.5 s");
    is_int(s[2].runs, 0, "kubectl: no runs");
    ok(!s[2].has_ratio, "no ratio without runs");
    /* without a usable baseline nobody has a ratio */
    sl_bench_summarize(runs + 3, n - 3, paths, 3, "sbatch", s);
    ok(!s[1].has_ratio, "no sbatch runs: no ratio");
}

static void test_paired(void)
{
    /* round k: sbatch and api submitted at the same phase of the tick */
    sl_bench_run_t runs[8];
    size_t n = 0;
    int64_t e2e_sb[] = {300000, 900000, 600000}, e2e_api[] = {320000, 950000, 0};
    for (int k = 0; k < 3; k++) {
        int64_t t = 10000000LL * (k + 1);
        runs[n] = mk("sbatch", 0, t, t + 1000, t + 2000, t + 3000, t + e2e_sb[k]);
        runs[n++].index = k;
        if (e2e_api[k]) {
            runs[n] = mk("api", 0, t, t + 1000, t + 2000, t + 3000, t + e2e_api[k]);
            runs[n++].index = k;
        }
    }
    const char *paths[] = {"sbatch", "api"};
    sl_bench_summary_t s[2];
    sl_bench_summarize(runs, n, paths, 2, "sbatch", s);
    is_int(s[1].paired_n, 2, "two rounds have both paths");
    ok(near(s[1].paired_median_s, 0.035) && near(s[1].paired_mean_s, 0.035),
       "paired difference: the median of per-round differences (%g)", s[1].paired_median_s);
    ok(near(s[1].over_mean_s, 0.635 - 0.6), "unpaired: mean minus mean (%g)", s[1].over_mean_s);
    is_int(s[0].paired_n, 0, "the baseline is not paired with itself");
}

static void test_tput(void)
{
    sl_bench_run_t runs[4];
    for (int i = 0; i < 3; i++) {
        runs[i] = mk("sbatch", 0, 1000000 + i * 1000, 1005000 + i * 1000, 2000000 + i * 500000,
                     2100000 + i * 500000, 2200000 + i * 500000);
        runs[i].batch = 1;
    }
    runs[3] = mk("sbatch", 0, 1, 2, 3, 4, 5); /* latency run: not in the batch */
    sl_bench_tput_t t;
    sl_bench_tput_compute(runs, 4, "sbatch", 1, &t);
    is_int(t.pods, 3, "3 pods in the batch");
    ok(near(t.all_acked_s, 0.007), "all acknowledged after 7 ms (%g)", t.all_acked_s);
    ok(near(t.all_started_s, 2.0), "all started after 2.0 s");
    ok(near(t.all_finished_s, 2.1), "all finished after 2.1 s");
    ok(near(t.all_seen_s, 2.2), "all seen after 2.2 s");
    ok(near(t.jobs_per_s, 3 / 2.2), "jobs/s = pods / all seen");
    ok(near(t.submit_per_s, 3 / 0.007), "submissions/s");
    runs[2].t_end = 0;
    runs[2].t_seen = 0;
    sl_bench_run_fail(&runs[2], "lost");
    sl_bench_tput_compute(runs, 4, "sbatch", 1, &t);
    ok(t.finished == 2 && t.all_finished_s == 0 && t.jobs_per_s == 0,
       "a milestone not reached by every pod is not reported");
    is_int(t.failed, 1, "failure counted");
}

int main(void)
{
    test_stat();
    test_check();
    test_time();
    test_events();
    test_summary();
    test_paired();
    test_tput();
    return tap_done();
}
