/* path_kubectl.c — what a Kubernetes user types: `kubectl apply -f pod`,
 * then `kubectl get pod -w` until the phase is Succeeded (a watch; unlike
 * `kubectl wait --for=jsonpath=...=Succeeded` it also sees Failed at once,
 * and it follows a batch of pods together rather than one after another).
 * The real kubectl, with the cluster folder's kubeconfig and a cache folder
 * of its own that the warm-up run fills (discovery), as on a user's laptop.
 * t_ack is the moment kubectl printed "pod/NAME created", t_seen the moment
 * it printed the terminal phase: process exit is not counted. */
#include "bench/internal.h"

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct lines {
    bench_ctx_t *c;
    sl_bench_run_t **rs;
    size_t n, left; /* left: runs still waiting for their terminal phase */
} lines_t;

/* `kubectl apply` prints "pod/NAME created" when the API answered */
static int on_apply(void *arg, const char *line, long long t)
{
    lines_t *l = arg;
    if (strncmp(line, "pod/", 4))
        return 0;
    const char *name = line + 4;
    size_t len = strcspn(name, " ");
    if (strcmp(name + len, " created") && strcmp(name + len, " configured"))
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        sl_bench_run_t *r = l->rs[i];
        if (strlen(r->pod) == len && !strncmp(r->pod, name, len) && !r->t_ack)
            r->t_ack = t;
    }
    return 0;
}

/* `kubectl get -w -o jsonpath=...` prints "NAME PHASE" at every change */
static int on_watch(void *arg, const char *line, long long t)
{
    lines_t *l = arg;
    const char *sp = strchr(line, ' ');
    if (!sp)
        return 0;
    const char *phase = sp + 1;
    if (strcmp(phase, "Succeeded") && strcmp(phase, "Failed"))
        return 0;
    for (size_t i = 0; i < l->n; i++) {
        sl_bench_run_t *r = l->rs[i];
        if (strlen(r->pod) != (size_t)(sp - line) || strncmp(r->pod, line, (size_t)(sp - line)) ||
            r->t_seen || r->error[0])
            continue;
        r->t_seen = t;
        snprintf(r->phase, sizeof(r->phase), "%s", phase);
        l->left--;
    }
    if (l->n > 1)
        bench_progress(l->c, "%s: %zu/%zu seen finished", l->rs[0]->path, l->n - l->left, l->n);
    return l->left == 0;
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
    sl_error_t err = SL_ERROR_INIT;
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
    lines_t l = {c, rs, n, n};
    char *errout = NULL;
    long long t0 = sl_wall_us();
    for (size_t i = 0; i < n; i++)
        rs[i]->t_submit = t0;
    int st = bench_child_run((const char *const *)argv.v, NULL, on_apply, &l, &errout,
                             sl_now_ms() + c->timeout_ms, &err);
    for (size_t i = 0; i < n; i++) {
        if (rs[i]->t_ack)
            continue;
        if (st < 0)
            sl_bench_run_fail(rs[i], "kubectl apply: %s", err.text);
        else {
            char *tail = sl_run_tail(errout, 300);
            sl_bench_run_fail(rs[i], "kubectl apply exited %d without creating %s: %s", st,
                              rs[i]->pod, tail);
            free(tail);
        }
    }
    free(errout);
    sl_argv_free(&argv);
    free(file);
}

static void wait_pods(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n,
                      long long deadline_ms)
{
    (void)state;
    sl_argv_t argv = SL_ARGV_INIT;
    base_argv(c, &argv);
    sl_argv_add(&argv, "get");
    sl_argv_add(&argv, "pods");
    if (n == 1)
        sl_argv_add(&argv, rs[0]->pod);
    else
        sl_argv_addf(&argv,
                     "--selector=slurmlink.io/bench=%s,slurmlink.io/bench-path=%s,"
                     "slurmlink.io/bench-batch=%d",
                     c->stamp, rs[0]->path, rs[0]->batch);
    sl_argv_add(&argv, "--watch");
    sl_argv_add(&argv, "--output=jsonpath={.metadata.name}{\" \"}{.status.phase}{\"\\n\"}");
    lines_t l = {c, rs, n, 0};
    for (size_t i = 0; i < n; i++)
        if (!rs[i]->error[0])
            l.left++;
    char *errout = NULL;
    sl_error_t err = SL_ERROR_INIT;
    int st = l.left ? bench_child_run((const char *const *)argv.v, NULL, on_watch, &l, &errout,
                                      deadline_ms, &err)
                    : 0;
    sl_argv_free(&argv);
    /* untimed look-ups: uid (the pod folder), job id, and why a pod failed */
    bench_kube_t *k = bench_kube_get(c, NULL);
    const char *ns =
        json_string_value(json_object_get(json_object_get(c->pod, "metadata"), "namespace"));
    for (size_t i = 0; i < n && k; i++) {
        sl_bench_run_t *r = rs[i];
        if (r->error[0])
            continue;
        json_t *pod = bench_kube_get_pod(k, ns ? ns : "default", r->pod, &err);
        if (pod)
            bench_kube_note_pod(c, r, pod);
        if (!r->t_seen)
            sl_bench_run_fail(r, "kubectl get -w ended (%d) before the pod finished: %.200s", st,
                              errout && *errout ? errout : err.text);
        else if (!strcmp(r->phase, "Failed"))
            bench_kube_fail_pod(r, pod);
        json_decref(pod);
    }
    free(errout);
}

const bench_path_t bench_path_kubectl = {
    .name = "kubectl",
    .what = "kubectl apply -f, then kubectl get -w until the phase is Succeeded",
    .setup = setup,
    .submit = submit,
    .wait = wait_pods,
    .teardown = NULL,
};
