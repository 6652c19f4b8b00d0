/* kube.c — a minimal Kubernetes client for the api path and for looking up
 * pods after kubectl runs: credentials from the cluster folder's kubeconfig
 * (current context), requests and watches over libcurl. */
#include "bench/internal.h"

#include "common/fsutil.h"
#include "common/proc.h"
#include "common/b64.h"
#include "common/xalloc.h"
#include "pod/pod.h"
#include "pod/yamljson.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bench_kube {
    bench_http_t *http, *watch;
    char *strings[8]; /* owned copies the targets point to */
    int nstrings;
};

static const char *keep(bench_kube_t *k, char *s)
{
    if (s && k->nstrings < 8)
        k->strings[k->nstrings++] = s;
    return s;
}

static json_t *named(json_t *list, const char *name, const char *field)
{
    size_t i;
    json_t *e;
    json_array_foreach(list, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && name && !strcmp(n, name))
            return json_object_get(e, field);
    }
    return NULL;
}

/* kubeconfig *-data fields are base64 PEM */
static char *b64(const char *s)
{
    if (!s)
        return NULL;
    return sl_b64_decode(s, strlen(s), NULL);
}

void bench_kube_destroy(bench_kube_t *k)
{
    if (!k)
        return;
    bench_http_destroy(k->http);
    bench_http_destroy(k->watch);
    for (int i = 0; i < k->nstrings; i++)
        free(k->strings[i]);
    free(k);
}

bench_kube_t *bench_kube_get(bench_ctx_t *c, sl_error_t *err)
{
    if (c->kube)
        return c->kube;
    size_t len = 0;
    char *text = sl_read_file(c->kubeconfig, &len, err);
    if (!text)
        return NULL;
    json_t *docs = sl_yaml_to_json(text, len, err);
    free(text);
    json_t *kc = json_array_get(docs, 0);
    const char *cur = json_string_value(json_object_get(kc, "current-context"));
    json_t *ctx = named(json_object_get(kc, "contexts"), cur, "context");
    json_t *cl = named(json_object_get(kc, "clusters"),
                       json_string_value(json_object_get(ctx, "cluster")), "cluster");
    json_t *user = named(json_object_get(kc, "users"),
                         json_string_value(json_object_get(ctx, "user")), "user");
    const char *server = json_string_value(json_object_get(cl, "server"));
    if (!server) {
        json_decref(docs);
        errno = EINVAL;
        sl_errprintf(err, "%s: no server for the current context", c->kubeconfig);
        return NULL;
    }
    bench_kube_t *k = sl_xcalloc(1, sizeof(*k));
    bench_http_target_t t = {0};
    size_t sl = strlen(server);
    t.base = keep(k, sl_xstrndup(server, sl && server[sl - 1] == '/' ? sl - 1 : sl));
    t.ca_file =
        keep(k, json_string_value(json_object_get(cl, "certificate-authority"))
                    ? sl_xstrdup(json_string_value(json_object_get(cl, "certificate-authority")))
                    : NULL);
    t.ca_data = keep(k, b64(json_string_value(json_object_get(cl, "certificate-authority-data"))));
    t.insecure = json_is_true(json_object_get(cl, "insecure-skip-tls-verify"));
    const char *tok = json_string_value(json_object_get(user, "token"));
    const char *tokfile = json_string_value(json_object_get(user, "tokenFile"));
    if (tok)
        t.token = keep(k, sl_xstrdup(tok));
    else if (tokfile) {
        char *s = sl_read_file(tokfile, NULL, NULL);
        if (s)
            s[strcspn(s, "\r\n")] = '\0';
        t.token = keep(k, s);
    }
    t.cert_data = keep(k, b64(json_string_value(json_object_get(user, "client-certificate-data"))));
    t.key_data = keep(k, b64(json_string_value(json_object_get(user, "client-key-data"))));
    const char *cf = json_string_value(json_object_get(user, "client-certificate"));
    const char *kf = json_string_value(json_object_get(user, "client-key"));
    t.cert_file = keep(k, cf ? sl_xstrdup(cf) : NULL);
    t.key_file = keep(k, kf ? sl_xstrdup(kf) : NULL);
    json_decref(docs);
    k->http = bench_http_create(&t);
    k->watch = bench_http_create(&t);
    if (!k->http || !k->watch) {
        bench_kube_destroy(k);
        errno = ENOMEM;
        sl_errprintf(err, "cannot create an HTTP client");
        return NULL;
    }
    c->kube = k;
    return k;
}

bench_http_t *bench_kube_http(bench_kube_t *k) { return k->http; }

bench_http_t *bench_kube_watch_http(bench_kube_t *k) { return k->watch; }

static json_t *get_json(bench_kube_t *k, const char *path, sl_error_t *err)
{
    long status = 0;
    char *resp = NULL;
    if (bench_http_call(k->http, "GET", path, NULL, &status, &resp, NULL, sl_now_ms() + 30000,
                        err) < 0)
        return NULL;
    json_t *j = json_loads(resp ? resp : "", 0, NULL);
    if (status != 200 || !j) {
        const char *m = json_string_value(json_object_get(j, "message"));
        errno = status == 404 ? ENOENT : EPROTO;
        sl_errprintf(err, "GET %s: HTTP %ld: %.200s", path, status, m ? m : resp ? resp : "");
        json_decref(j);
        j = NULL;
    }
    free(resp);
    return j;
}

json_t *bench_kube_get_pod(bench_kube_t *k, const char *ns, const char *name, sl_error_t *err)
{
    char *path = sl_xasprintf("/api/v1/namespaces/%s/pods/%s", ns, name);
    json_t *j = get_json(k, path, err);
    free(path);
    return j;
}

json_t *sl_bench_api_get(const char *kubeconfig, const char *path, sl_error_t *err)
{
    bench_ctx_t c = {.kubeconfig = (char *)kubeconfig};
    bench_kube_t *k = bench_kube_get(&c, err);
    json_t *j = k ? get_json(k, path, err) : NULL;
    bench_kube_destroy(k);
    return j;
}

static char *escape(const char *s)
{
    char *e = curl_easy_escape(NULL, s, 0);
    char *r = sl_xstrdup(e ? e : "");
    curl_free(e);
    return r;
}

void bench_kube_cleanup(bench_ctx_t *c)
{
    bench_kube_t *k = bench_kube_get(c, NULL);
    if (!k)
        return;
    const char *ns =
        json_string_value(json_object_get(json_object_get(c->pod, "metadata"), "namespace"));
    ns = ns ? ns : "default";
    char *sel = sl_xasprintf("slurmlink.io/bench=%s", c->stamp);
    char *esel = escape(sel);
    char *path = sl_xasprintf("/api/v1/namespaces/%s/pods?labelSelector=%s", ns, esel);
    json_t *list = get_json(k, path, NULL);
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(list, "items"), i, p)
    {
        const char *name =
            json_string_value(json_object_get(json_object_get(p, "metadata"), "name"));
        char *dp = sl_xasprintf("/api/v1/namespaces/%s/pods/%s", ns, name ? name : "");
        long status;
        char *resp = NULL;
        bench_http_call(k->http, "DELETE", dp, NULL, &status, &resp, NULL, sl_now_ms() + 10000,
                        NULL);
        free(resp);
        free(dp);
    }
    json_decref(list);
    free(path);
    free(esel);
    free(sel);
}

void bench_kube_note_pod(bench_ctx_t *c, sl_bench_run_t *r, json_t *pod)
{
    json_t *md = json_object_get(pod, "metadata");
    const char *uid = json_string_value(json_object_get(md, "uid"));
    if (uid && !r->uid[0]) {
        snprintf(r->uid, sizeof(r->uid), "%s", uid);
        bench_pod_dir(c, r, json_string_value(json_object_get(md, "namespace")));
    }
    const char *job =
        json_string_value(json_object_get(json_object_get(md, "annotations"), SL_ANN_JOB_ID));
    if (job && !r->job_id[0])
        snprintf(r->job_id, sizeof(r->job_id), "%s", job);
}

void bench_kube_fail_pod(sl_bench_run_t *r, json_t *pod)
{
    json_t *st = json_object_get(pod, "status");
    const char *reason = json_string_value(json_object_get(st, "reason"));
    const char *msg = json_string_value(json_object_get(st, "message"));
    if (reason || msg) {
        sl_bench_run_fail(r, "pod Failed: %s%s%s", reason ? reason : "", msg ? ": " : "",
                          msg ? msg : "");
        return;
    }
    /* no pod-level reason: the first container that ended badly says why */
    size_t i;
    json_t *cs;
    json_array_foreach(json_object_get(st, "containerStatuses"), i, cs)
    {
        json_t *t = json_object_get(json_object_get(cs, "state"), "terminated");
        if (t && json_integer_value(json_object_get(t, "exitCode")) != 0) {
            const char *cr = json_string_value(json_object_get(t, "reason"));
            sl_bench_run_fail(r, "pod Failed: container %s exited %lld (%s)",
                              json_string_value(json_object_get(cs, "name")),
                              (long long)json_integer_value(json_object_get(t, "exitCode")),
                              cr ? cr : "no reason");
            return;
        }
    }
    sl_bench_run_fail(r, "pod Failed");
}

typedef struct watch {
    bench_ctx_t *c;
    sl_bench_run_t **rs;
    size_t n, left;
    char rv[64];
    int gone; /* 410: resourceVersion too old */
    char error[256];
} watch_t;

/* a pod object seen at time t (from a watch event or a list) */
static void observe(watch_t *w, json_t *pod, long long t)
{
    const char *name = json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));
    const char *rv =
        json_string_value(json_object_get(json_object_get(pod, "metadata"), "resourceVersion"));
    if (rv)
        snprintf(w->rv, sizeof(w->rv), "%s", rv);
    if (!name)
        return;
    for (size_t i = 0; i < w->n; i++) {
        sl_bench_run_t *r = w->rs[i];
        if (strcmp(r->pod, name) || r->t_seen || r->error[0])
            continue;
        bench_kube_note_pod(w->c, r, pod);
        json_t *st = json_object_get(pod, "status");
        const char *phase = json_string_value(json_object_get(st, "phase"));
        if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed"))) {
            r->t_seen = t;
            snprintf(r->phase, sizeof(r->phase), "%s", phase);
            if (!strcmp(phase, "Failed"))
                bench_kube_fail_pod(r, pod);
            w->left--;
        }
    }
}

static int on_event(void *arg, const char *line, long long t)
{
    watch_t *w = arg;
    json_t *ev = json_loads(line, 0, NULL);
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *obj = json_object_get(ev, "object");
    if (type && !strcmp(type, "ERROR")) {
        long long code = json_integer_value(json_object_get(obj, "code"));
        const char *m = json_string_value(json_object_get(obj, "message"));
        if (code == 410)
            w->gone = 1;
        else
            snprintf(w->error, sizeof(w->error), "watch error %lld: %s", code, m ? m : "");
        json_decref(ev);
        return 1;
    }
    if (type && (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED")))
        observe(w, obj, t);
    else if (type && !strcmp(type, "BOOKMARK"))
        observe(w, obj, t);
    json_decref(ev);
    if (w->n > 1)
        bench_progress(w->c, "%s: %zu/%zu seen finished", w->rs[0]->path, w->n - w->left, w->n);
    return w->left == 0;
}

static int relist(watch_t *w, bench_kube_t *k, const char *ns, const char *esel, sl_error_t *err)
{
    char *path = sl_xasprintf("/api/v1/namespaces/%s/pods?labelSelector=%s", ns, esel);
    json_t *list = get_json(k, path, err);
    long long t = sl_wall_us();
    free(path);
    if (!list)
        return -1;
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(list, "items"), i, p) observe(w, p, t);
    const char *rv =
        json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
    if (rv)
        snprintf(w->rv, sizeof(w->rv), "%s", rv);
    json_decref(list);
    return 0;
}

void bench_kube_watch(bench_ctx_t *c, sl_bench_run_t **rs, size_t n, const char *selector,
                      const char *rv, long long deadline_ms)
{
    watch_t w = {.c = c, .rs = rs, .n = n};
    for (size_t i = 0; i < n; i++)
        if (!rs[i]->error[0] && !rs[i]->t_seen)
            w.left++;
    sl_error_t err = SL_ERROR_INIT;
    bench_kube_t *k = bench_kube_get(c, &err);
    const char *ns =
        json_string_value(json_object_get(json_object_get(c->pod, "metadata"), "namespace"));
    ns = ns ? ns : "default";
    char *esel = escape(selector);
    snprintf(w.rv, sizeof(w.rv), "%s", rv ? rv : "");
    int failures = 0;
    while (k && w.left && sl_now_ms() < deadline_ms && failures < 5) {
        if (w.gone || !w.rv[0]) {
            w.gone = 0;
            if (relist(&w, k, ns, esel, &err) < 0) {
                failures++;
                sl_sleep_ms(200);
                continue;
            }
            if (!w.left)
                break;
        }
        char *path = sl_xasprintf("/api/v1/namespaces/%s/pods?watch=1&labelSelector=%s"
                                  "&resourceVersion=%s",
                                  ns, esel, w.rv);
        int rc = bench_http_stream(bench_kube_watch_http(k), path, on_event, &w, deadline_ms, &err);
        free(path);
        if (w.error[0]) {
            snprintf(err.text, sizeof(err.text), "%s", w.error);
            break;
        }
        if (rc < 0 && !w.gone) {
            /* the server may end a watch at any time: resume from the last version */
            failures++;
            sl_sleep_ms(100);
        }
    }
    free(esel);
    for (size_t i = 0; i < n; i++)
        if (!rs[i]->error[0] && !rs[i]->t_seen)
            sl_bench_run_fail(rs[i], "not seen finished through the watch%s%s",
                              err.text[0] ? ": " : "", err.text);
}
