/* path_api.c — the pod through slurmlinkd's Kubernetes API directly: POST
 * with libcurl over a kept-alive connection, then a watch on the bench's
 * pods until Succeeded. What any client library does, without kubectl's
 * own start-up. */
#include "bench/internal.h"

#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct api {
    bench_kube_t *k;
    char rv[64]; /* lowest resourceVersion the creations returned */
} api_t;

static const char *ns_of(bench_ctx_t *c)
{
    const char *ns =
        json_string_value(json_object_get(json_object_get(c->pod, "metadata"), "namespace"));
    return ns ? ns : "default";
}

static int setup(bench_ctx_t *c, void **state, sl_error_t *err)
{
    bench_kube_t *k = bench_kube_get(c, err);
    *state = NULL;
    if (!k)
        return -1;
    /* the pods resource must exist before the runs mean anything */
    char *path = sl_xasprintf("/api/v1/namespaces/%s/pods?limit=1", ns_of(c));
    long status = 0;
    char *resp = NULL;
    int rc = bench_http_call(bench_kube_http(k), "GET", path, NULL, &status, &resp, NULL,
                             sl_now_ms() + 10000, err);
    free(path);
    if (rc == 0 && status != 200) {
        errno = ENOTSUP;
        rc = sl_errprintf(err, "slurmlinkd does not list pods (GET pods: HTTP %ld: %.120s)", status,
                          resp ? resp : "");
    }
    free(resp);
    if (rc < 0)
        return -1;
    api_t *a = sl_xcalloc(1, sizeof(*a));
    a->k = k;
    *state = a;
    return 0;
}

static void submit(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n)
{
    api_t *a = state;
    a->rv[0] = '\0';
    long long deadline = sl_now_ms() + c->timeout_ms;
    char *path = sl_xasprintf("/api/v1/namespaces/%s/pods", ns_of(c));
    for (size_t i = 0; i < n; i++) {
        sl_bench_run_t *r = rs[i];
        json_t *pod = bench_pod_instance(c, r, 0);
        char *body = json_dumps(pod, JSON_COMPACT);
        json_decref(pod);
        long status = 0;
        char *resp = NULL;
        long long t_done = 0;
        sl_error_t err = SL_ERROR_INIT;
        r->t_submit = sl_wall_us();
        int rc = bench_http_call(bench_kube_http(a->k), "POST", path, body, &status, &resp, &t_done,
                                 deadline, &err);
        free(body);
        json_t *j = rc == 0 ? json_loads(resp ? resp : "", 0, NULL) : NULL;
        if (rc < 0) {
            sl_bench_run_fail(r, "%s", err.text);
        } else if (status != 201 && status != 200) {
            const char *m = json_string_value(json_object_get(j, "message"));
            sl_bench_run_fail(r, "POST pods: HTTP %ld: %.200s", status, m ? m : resp ? resp : "");
        } else {
            r->t_ack = t_done;
            bench_kube_note_pod(c, r, j);
            const char *rv = json_string_value(
                json_object_get(json_object_get(j, "metadata"), "resourceVersion"));
            if (rv && (!a->rv[0] || strtoll(rv, NULL, 10) < strtoll(a->rv, NULL, 10)))
                snprintf(a->rv, sizeof(a->rv), "%s", rv);
            if (!r->uid[0])
                sl_bench_run_fail(r, "the created pod has no metadata.uid");
        }
        json_decref(j);
        free(resp);
        bench_progress(c, "%s: %zu/%zu submitted", r->path, i + 1, n);
    }
    free(path);
}

static void wait_pods(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n,
                      long long deadline_ms)
{
    api_t *a = state;
    char *sel = sl_xasprintf("slurmlink.io/bench=%s,slurmlink.io/bench-path=%s,"
                             "slurmlink.io/bench-batch=%d",
                             c->stamp, rs[0]->path, rs[0]->batch);
    /* from the creation's version: every later change is in the stream */
    bench_kube_watch(c, rs, n, sel, a->rv, deadline_ms);
    free(sel);
}

static void teardown(bench_ctx_t *c, void *state)
{
    (void)c;
    free(state); /* the client belongs to the context */
}

const bench_path_t bench_path_api = {
    .name = "api",
    .what = "POST to slurmlinkd's API with libcurl, then a watch until Succeeded",
    .setup = setup,
    .submit = submit,
    .wait = wait_pods,
    .teardown = teardown,
};
