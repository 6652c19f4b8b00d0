/* Unit tests: metric families, series, escaping and the text exposition
 * (the integration test t/80-metrics.t also runs promtool on the output). */
#include "metrics/expo.h"
#include "common/tap.h"
#include "metrics/metrics.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void test_names(void)
{
    sl_expo_t *x = sl_expo_create();
    sl_error_t e = SL_ERROR_INIT;
    ok(sl_expo_counter(x, "a_total", "", SL_EXPO_NO_LABELS, &e) != NULL, "a plain name");
    ok(sl_expo_counter(x, "ns:sub_total", "", SL_EXPO_NO_LABELS, &e) != NULL, "a colon");
    errno = 0;
    ok(!sl_expo_counter(x, "a_total", "", SL_EXPO_NO_LABELS, &e) && errno == EEXIST,
       "a name twice: EEXIST");
    ok(!sl_expo_gauge(x, "9lives", "", SL_EXPO_NO_LABELS, &e) && errno == EINVAL,
       "a leading digit is refused");
    has_str(e.text, "\"9lives\" is invalid", "the error names the metric");
    ok(!sl_expo_gauge(x, "a-b", "", SL_EXPO_NO_LABELS, &e), "a dash is refused");
    ok(!sl_expo_gauge(x, "", "", SL_EXPO_NO_LABELS, &e), "an empty name is refused");
    ok(!sl_expo_gauge(x, "g", "", SL_EXPO_LABELS("__x"), &e), "a reserved label is refused");
    ok(!sl_expo_gauge(x, "g", "", SL_EXPO_LABELS("a:b"), &e), "a colon in a label is refused");
    ok(!sl_expo_gauge(x, "g", "", SL_EXPO_LABELS("a", "a"), &e), "a repeated label is refused");
    double b[] = {1, 1};
    ok(!sl_expo_histogram(x, "h", "", SL_EXPO_NO_LABELS, b, 2, &e), "equal bounds are refused");
    double inf[] = {1, INFINITY};
    ok(!sl_expo_histogram(x, "h", "", SL_EXPO_NO_LABELS, inf, 2, &e), "+Inf is implicit");
    ok(!sl_expo_histogram(x, "h", "", SL_EXPO_LABELS("le"), b, 1, &e),
       "a histogram label \"le\" is refused");
    sl_expo_destroy(x);
}

static void test_updates(void)
{
    sl_expo_t *x = sl_expo_create();
    sl_error_t e = SL_ERROR_INIT;
    sl_expo_family_t *c = sl_expo_counter(x, "c_total", "", SL_EXPO_LABELS("k"), &e);
    sl_expo_family_t *g = sl_expo_gauge(x, "g", "", SL_EXPO_NO_LABELS, &e);
    sl_expo_family_t *h = sl_expo_histogram(x, "h", "", SL_EXPO_NO_LABELS, (double[]){1}, 1, &e);
    is_int(sl_expo_add(c, SL_EXPO_LABELS("a"), 2), 0, "counter add");
    sl_expo_add(c, SL_EXPO_LABELS("a"), 3);
    ok(sl_expo_value(c, SL_EXPO_LABELS("a")) == 5, "counter sums");
    ok(sl_expo_add(c, SL_EXPO_LABELS("a"), -1) < 0 && errno == EINVAL, "a counter cannot go down");
    ok(sl_expo_add(c, SL_EXPO_LABELS("a", "b"), 1) < 0 && errno == EINVAL, "too many values");
    ok(sl_expo_add(c, NULL, 1) < 0 && errno == EINVAL, "too few values");
    ok(sl_expo_set(c, SL_EXPO_LABELS("a"), 1) < 0, "set is for gauges");
    ok(sl_expo_add(g, NULL, NAN) < 0, "NaN is refused");
    ok(sl_expo_observe(g, NULL, 1) < 0, "observe is for histograms");
    ok(sl_expo_add(h, NULL, 1) < 0, "add is not for histograms");
    sl_expo_set(g, NULL, 7);
    sl_expo_add(g, NULL, -9);
    ok(sl_expo_value(g, NULL) == -2, "a gauge goes up and down");
    int refused = 0;
    for (int i = 0; i < SL_EXPO_MAX_SERIES + 5; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%d", i);
        if (sl_expo_add(c, SL_EXPO_LABELS(k), 1) < 0 && errno == ENOSPC)
            refused++;
    }
    is_int(refused, 6, "series beyond the cap are refused (one taken by \"a\")");
    sl_expo_reset(c);
    ok(sl_expo_value(c, SL_EXPO_LABELS("a")) == 0, "reset drops the series");
    sl_expo_destroy(x);
}

static void test_render(void)
{
    sl_expo_t *x = sl_expo_create();
    sl_error_t e = SL_ERROR_INIT;
    sl_expo_family_t *c = sl_expo_counter(x, "req_total", "Requests \\ with\nlines.",
                                          SL_EXPO_LABELS("path", "code"), &e);
    sl_expo_family_t *g = sl_expo_gauge(x, "temp", "T.", SL_EXPO_NO_LABELS, &e);
    sl_expo_family_t *h = sl_expo_histogram(x, "lat_seconds", "L.", SL_EXPO_LABELS("rpc"),
                                            (double[]){0.1, 0.5, 2}, 3, &e);
    sl_expo_add(c, SL_EXPO_LABELS("a\"b\\c\nd", "200"), 1);
    sl_expo_set(g, NULL, 0.1);
    sl_expo_observe(h, SL_EXPO_LABELS("x"), 0.1); /* le is inclusive */
    sl_expo_observe(h, SL_EXPO_LABELS("x"), 1);
    sl_expo_observe(h, SL_EXPO_LABELS("x"), 5);
    size_t len = 0;
    char *t = sl_expo_render(x, &len);
    is_int(len, strlen(t), "the length is the text's");
    has_str(t, "# HELP req_total Requests \\\\ with\\nlines.\n# TYPE req_total counter\n",
            "HELP escapes backslash and newline");
    has_str(t, "req_total{path=\"a\\\"b\\\\c\\nd\",code=\"200\"} 1\n",
            "label values escape quote, backslash and newline");
    has_str(t, "# TYPE temp gauge\ntemp 0.1\n", "a gauge without labels, shortest float");
    has_str(t, "lat_seconds_bucket{rpc=\"x\",le=\"0.1\"} 1\n", "bucket 0.1 holds 0.1");
    has_str(t, "lat_seconds_bucket{rpc=\"x\",le=\"0.5\"} 1\n", "buckets are cumulative");
    has_str(t, "lat_seconds_bucket{rpc=\"x\",le=\"2\"} 2\n", "bucket 2");
    has_str(t, "lat_seconds_bucket{rpc=\"x\",le=\"+Inf\"} 3\n", "+Inf holds all");
    has_str(t, "lat_seconds_sum{rpc=\"x\"} 6.1\n", "sum");
    has_str(t, "lat_seconds_count{rpc=\"x\"} 3\n", "count");
    ok(strstr(t, "# TYPE req_total") < strstr(t, "# TYPE temp"), "families in their order");
    free(t);
    sl_expo_destroy(x);
}

static sl_expo_family_t *shared;

static void *hammer(void *arg)
{
    const char *k = arg;
    for (int i = 0; i < 20000; i++)
        sl_expo_add(shared, SL_EXPO_LABELS(i % 2 ? k : "common"), 1);
    return NULL;
}

static void test_threads(void)
{
    sl_expo_t *x = sl_expo_create();
    sl_error_t e = SL_ERROR_INIT;
    shared = sl_expo_counter(x, "t_total", "", SL_EXPO_LABELS("k"), &e);
    pthread_t th[4];
    const char *keys[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, hammer, (void *)keys[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    ok(sl_expo_value(shared, SL_EXPO_LABELS("common")) == 40000, "no update is lost");
    ok(sl_expo_value(shared, SL_EXPO_LABELS("c")) == 10000, "each thread's own series");
    sl_expo_destroy(x);
}

static void test_slurmlink(void)
{
    sl_metrics_api_request("get", "pods", "", 200, 0.002);
    sl_metrics_api_request("get", "pods/../x\"", "", 404, 0.002);
    sl_metrics_api_request("frobnicate", "pods", "evil", 405, 0.002);
    sl_metrics_submission(1, 0.3);
    sl_metrics_submission(0, 0);
    sl_metrics_slurm_rpc("load_jobs", 0.004, 1);
    sl_metrics_gpus_begin();
    sl_metrics_gpus("n1", 1, 2);
    sl_metrics_pods_begin();
    sl_metrics_pod("team-a", "Running");
    sl_metrics_pod("team-a", "Running");
    sl_metrics_pod("team-a", NULL);
    char *t = sl_metrics_render(NULL);
    has_str(t,
            "slurmlink_api_requests_total{verb=\"get\",resource=\"pods\",subresource=\"\","
            "code=\"200\"} 1\n",
            "a request by verb, resource and code");
    has_str(t, "resource=\"other\",subresource=\"\",code=\"404\"} 1\n",
            "a resource the API does not name is \"other\"");
    has_str(t, "verb=\"other\",resource=\"pods\",subresource=\"other\",code=\"405\"}",
            "an unknown verb and subresource are \"other\"");
    has_str(t, "slurmlink_pod_submissions_total 2\n", "submissions");
    has_str(t, "slurmlink_pod_submission_failures_total 1\n", "submission failures");
    has_str(t, "slurmlink_pod_submit_latency_seconds_count 1\n", "only successes have latency");
    has_str(t, "slurmlink_slurm_rpc_errors_total{rpc=\"load_jobs\"} 1\n", "RPC errors");
    has_str(t, "slurmlink_node_gpus{node=\"n1\"} 2\n", "GPUs total");
    has_str(t, "slurmlink_node_gpus_allocated{node=\"n1\"} 1\n", "GPUs allocated");
    has_str(t, "slurmlink_pods{namespace=\"team-a\",phase=\"Running\"} 2\n", "pods by phase");
    has_str(t, "slurmlink_pods{namespace=\"team-a\",phase=\"Pending\"} 1\n",
            "a pod without a phase is Pending");
    free(t);
    sl_metrics_pods_begin();
    t = sl_metrics_render(NULL);
    ok(!strstr(t, "slurmlink_pods{"), "each scrape counts pods anew");
    free(t);
}

/* values as Go's strconv.FormatFloat(v, 'g', -1, 64) writes them (the
 * Prometheus clients' form): the shortest digits that read back, in
 * exponent form only below 1e-4 or from 1e+06 */
static void test_float_form(void)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {{20, "g 20\n"},
                 {100, "g 100\n"},
                 {57, "g 57\n"},
                 {999999, "g 999999\n"},
                 {1e6, "g 1e+06\n"},
                 {1234567, "g 1.234567e+06\n"},
                 {0.1, "g 0.1\n"},
                 {0.25, "g 0.25\n"},
                 {0.0001, "g 0.0001\n"},
                 {1e-05, "g 1e-05\n"},
                 {123.456, "g 123.456\n"},
                 {-30, "g -30\n"},
                 {0, "g 0\n"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sl_expo_t *x = sl_expo_create();
        sl_error_t e = SL_ERROR_INIT;
        sl_expo_family_t *g = sl_expo_gauge(x, "g", "", SL_EXPO_NO_LABELS, &e);
        sl_expo_set(g, NULL, cases[i].v);
        char *t = sl_expo_render(x, NULL);
        has_str(t, cases[i].want, "%.17g is written %.*s", cases[i].v,
                (int)strlen(cases[i].want) - 1, cases[i].want);
        free(t);
        sl_expo_destroy(x);
    }
}

int main(void)
{
    tap_plan(63);
    test_float_form();
    test_names();
    test_updates();
    test_render();
    test_threads();
    test_slurmlink();
    return tap_done();
}
