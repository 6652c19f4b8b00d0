/* path_kubectl.c — what a Kubernetes user types: `kubectl apply -f pod`,
 * then `kubectl wait --for=jsonpath={.status.phase}=Succeeded` (a watch).
 * The real kubectl, with the cluster folder's kubeconfig and a cache folder
 * of its own that the warm-up run fills (discovery), as on a user's laptop.
 * t_ack is the moment kubectl printed "pod/NAME created", t_seen the moment
 * it printed "condition met": process exit is not counted. */
#include "bench/internal.h"

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct lines {
    sl_bench_run_t **rs;
    size_t n;
    const char *suffix; /* " created" / " condition met" */
    int ack;            /* 1: set t_ack, 0: set t_seen */
} lines_t;

static void on_line(void *arg, const char *line, long long t)
{
    lines_t *l = arg;
    if (strncmp(line, "pod/", 4))
        return;
    const char *name = line + 4;
    size_t len = strcspn(name, " ");
    if (strcmp(name + len, l->suffix) && !(l->ack && !strcmp(name + len, " configured")))
        return;
    for (size_t i = 0; i < l->n; i++) {
        sl_bench_run_t *r = l->rs[i];
        if (strlen(r->pod) != len || strncmp(r->pod, name, len))
            continue;
        if (l->ack && !r->t_ack)
            r->t_ack = t;
        else if (!l->ack && !r->t_seen) {
            r->t_seen = t;
            snprintf(r->phase, sizeof(r->phase), "Succeeded");
        }
    }
}

static void base_argv(bench_ctx_t *c, sl_argv_t *a)
{
    sl_argv_add(a, c->kubectl);
    sl_argv_addf(a, "--kubeconfig=%s", c->kubeconfig);
    sl_argv_addf(a, "--cache-dir=%s", c->kube_cache);
}

static int setup(bench_ctx_t *c, void **state, sl_error_t *err)
{
    *state = NULL;
    const char *argv[] = {c->kubectl, "version", "--client", NULL};
    char *out = NULL;
    int st = sl_run(argv, NULL, 1, 30000, &out, err);
    free(out);
    if (st != 0) {
        errno = ENOENT;
        return st < 0 ? -1 : sl_errprintf(err, "%s version --client exited %d", c->kubectl, st);
    }
    /* the API client looks the pods up afterwards (uid → pod folder) */
    if (!bench_kube_get(c, err))
        return -1;
    return sl_mkdir_p(c->kube_cache, 0700, err);
}

static void submit(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n)
{
    (void)state;
    /* one file: every pod of the batch as its own YAML document (JSON is
     * YAML), as one writes a manifest. Not a v1 List: kubectl validates a
     * List against /openapi/v2, single objects against /openapi/v3. */
    sl_buf_t text = SL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        json_t *pod = bench_pod_instance(c, rs[i], 0);
        char *doc = json_dumps(pod, JSON_COMPACT);
        json_decref(pod);
        sl_buf_printf(&text, "---\n%s\n", doc);
        free(doc);
    }
    char *file = sl_xasprintf("%s/kubectl-%s.yaml", c->out_dir, rs[0]->pod);
    sl_error_t err = {""};
    int wrc = sl_write_file(file, text.data, text.len, 0644, &err);
    sl_buf_free(&text);
    if (wrc < 0) {
        for (size_t i = 0; i < n; i++)
            sl_bench_run_fail(rs[i], "%s", err.text);
        free(file);
        return;
    }
    sl_argv_t argv = SL_ARGV_INIT;
    base_argv(c, &argv);
    sl_argv_add(&argv, "apply");
    sl_argv_addf(&argv, "--filename=%s", file);
    lines_t l = {rs, n, " created", 1};
    char *errout = NULL;
    long long t0 = sl_wall_us();
    for (size_t i = 0; i < n; i++)
        rs[i]->t_submit = t0;
    int st = bench_child_run((const char *const *)argv.v, NULL, on_line, &l, &errout,
                             sl_now_ms() + c->timeout_ms, &err);
    for (size_t i = 0; i < n; i++) {
        if (rs[i]->t_ack)
            continue;
        if (st < 0)
            sl_bench_run_fail(rs[i], "kubectl apply: %s", err.text);
        else
            sl_bench_run_fail(rs[i], "kubectl apply exited %d without creating %s: %.200s", st,
                              rs[i]->pod, errout ? errout : "");
    }
    free(errout);
    sl_argv_free(&argv);
    free(file);
}

static void wait_pods(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n,
                      long long deadline_ms)
{
    (void)state;
    long long left_s = (deadline_ms - sl_now_ms()) / 1000;
    sl_argv_t argv = SL_ARGV_INIT;
    base_argv(c, &argv);
    sl_argv_add(&argv, "wait");
    sl_argv_add(&argv, "--for=jsonpath={.status.phase}=Succeeded");
    sl_argv_addf(&argv, "--timeout=%llds", left_s > 1 ? left_s : 1);
    size_t waiting = 0;
    for (size_t i = 0; i < n; i++)
        if (!rs[i]->error[0]) {
            sl_argv_addf(&argv, "pod/%s", rs[i]->pod);
            waiting++;
        }
    lines_t l = {rs, n, " condition met", 0};
    char *errout = NULL;
    sl_error_t err = {""};
    int st = waiting ? bench_child_run((const char *const *)argv.v, NULL, on_line, &l, &errout,
                                       deadline_ms + 5000, &err)
                     : 0;
    sl_argv_free(&argv);
    /* untimed look-ups: uid (the pod folder), job id, and why a pod was not seen */
    bench_kube_t *k = bench_kube_get(c, NULL);
    const char *ns = json_string_value(json_object_get(json_object_get(c->pod, "metadata"),
                                                       "namespace"));
    for (size_t i = 0; i < n && k; i++) {
        sl_bench_run_t *r = rs[i];
        if (r->error[0])
            continue;
        json_t *pod = bench_kube_get_pod(k, ns ? ns : "default", r->pod, &err);
        if (pod)
            bench_kube_note_pod(c, r, pod);
        if (!r->t_seen) {
            const char *phase = json_string_value(
                json_object_get(json_object_get(pod, "status"), "phase"));
            sl_bench_run_fail(r, "kubectl wait exited %d, pod phase %s: %.200s", st,
                              phase ? phase : "unknown", errout && *errout ? errout : err.text);
        }
        json_decref(pod);
    }
    free(errout);
}

const bench_path_t bench_path_kubectl = {
    .name = "kubectl",
    .what = "kubectl apply -f, then kubectl wait --for=jsonpath={.status.phase}=Succeeded",
    .setup = setup,
    .submit = submit,
    .wait = wait_pods,
    .teardown = NULL,
};
