/* podmetrics.c — kubectl top pod: metrics.k8s.io/v1beta1 PodMetrics from
 * the shims' usage pushes (podmetrics.h).
 *
 * Each pod's shim pushes, every 10 s while the pod runs, each running
 * container's CPU time (a counter, nanoseconds) and resident memory. The
 * table keeps a pod's last two samples, by uid; a PodMetrics is served
 * from a pair: usage.cpu the CPU time between them over the time between
 * their arrivals (nanocores), usage.memory the last one (Ki), timestamp
 * the last arrival, window the time between the two. Nothing is stored:
 * after a restart of slurmlinkd the metrics come back with the next two
 * pushes. A pod is served only while the store has it Running with the
 * same uid. */
#include "api/podmetrics.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/selector.h"
#include "kube/status.h"
#include "store/store.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define GROUP "metrics.k8s.io"
#define VERSION "v1beta1"

typedef struct pm_ctr {
    char *name;
    long long cpu_ns, mem;
} pm_ctr_t;

typedef struct pm_sample {
    int64_t mono_ns, wall_ns; /* arrival */
    pm_ctr_t *c;
    size_t n;
} pm_sample_t;

typedef struct pm_entry {
    char *uid, *ns, *name;
    pm_sample_t prev, cur; /* prev.mono_ns 0: one sample so far */
} pm_entry_t;

struct api_podmetrics {
    pthread_mutex_t lock;
    pm_entry_t *v;
    size_t n, cap;
};

api_podmetrics_t *api_podmetrics_create(void)
{
    api_podmetrics_t *pm = sl_xcalloc(1, sizeof(*pm));
    pthread_mutex_init(&pm->lock, NULL);
    return pm;
}

static void sample_free(pm_sample_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->c[i].name);
    free(s->c);
    *s = (pm_sample_t){0};
}

static void entry_free(pm_entry_t *e)
{
    free(e->uid);
    free(e->ns);
    free(e->name);
    sample_free(&e->prev);
    sample_free(&e->cur);
}

void api_podmetrics_free(api_podmetrics_t *pm)
{
    if (!pm)
        return;
    for (size_t i = 0; i < pm->n; i++)
        entry_free(&pm->v[i]);
    free(pm->v);
    pthread_mutex_destroy(&pm->lock);
    free(pm);
}

static pm_sample_t sample_of(json_t *ev, int64_t now)
{
    json_t *cs = json_object_get(ev, "containers"), *c;
    pm_sample_t s = {.mono_ns = now, .wall_ns = sl_kube_now_ns()};
    s.c = sl_xcalloc(json_array_size(cs) + 1, sizeof(*s.c));
    size_t i;
    json_array_foreach(cs, i, c)
    {
        s.c[s.n++] = (pm_ctr_t){sl_xstrdup(json_string_value(json_object_get(c, "name"))),
                                json_integer_value(json_object_get(c, "cpuNs")),
                                json_integer_value(json_object_get(c, "memoryBytes"))};
    }
    return s;
}

/* entries whose last sample is stale go (the caller holds the lock) */
static void prune(api_podmetrics_t *pm, int64_t now)
{
    size_t k = 0;
    for (size_t i = 0; i < pm->n; i++) {
        if (now - pm->v[i].cur.mono_ns > (int64_t)API_PODMETRICS_STALE_S * 1000000000)
            entry_free(&pm->v[i]);
        else
            pm->v[k++] = pm->v[i];
    }
    pm->n = k;
}

void api_podmetrics_record(api_podmetrics_t *pm, json_t *ev)
{
    const char *uid = json_string_value(json_object_get(ev, "pod_uid"));
    const char *ns = json_string_value(json_object_get(ev, "namespace"));
    const char *name = json_string_value(json_object_get(ev, "name"));
    if (!pm || !uid || !ns || !name)
        return;
    int64_t now = sl_now_ns();
    pthread_mutex_lock(&pm->lock);
    prune(pm, now);
    pm_entry_t *e = NULL;
    for (size_t i = 0; i < pm->n && !e; i++)
        if (!strcmp(pm->v[i].uid, uid))
            e = &pm->v[i];
    if (!e) {
        if (pm->n == pm->cap) {
            pm->cap = pm->cap ? 2 * pm->cap : 64;
            pm->v = sl_xrealloc(pm->v, pm->cap * sizeof(*pm->v));
        }
        e = &pm->v[pm->n++];
        *e = (pm_entry_t){.uid = sl_xstrdup(uid), .ns = sl_xstrdup(ns), .name = sl_xstrdup(name)};
    } else {
        sample_free(&e->prev);
        e->prev = e->cur;
    }
    e->cur = sample_of(ev, now);
    pthread_mutex_unlock(&pm->lock);
}

/* Go's time.Duration.String() of a positive span, to the millisecond */
static void go_duration(int64_t ns, char *buf, size_t len)
{
    long long ms = (long long)(ns / 1000000);
    if (ms < 1000) { /* Go: "500ms" */
        snprintf(buf, len, "%lldms", ms);
        return;
    }
    snprintf(buf, len, "%lld.%03llds", ms / 1000, ms % 1000);
    char *dot = strchr(buf, '.'), *end = buf + strlen(buf) - 1; /* at the 's' */
    char *z = end;
    while (z - 1 > dot && z[-1] == '0')
        z--;
    if (z - 1 == dot)
        z = dot;
    memmove(z, "s", 2);
}

static long long prev_cpu(const pm_sample_t *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->c[i].name, name))
            return s->c[i].cpu_ns;
    return -1;
}

/* the PodMetrics of e (the caller holds the lock), or NULL with one sample */
static json_t *entry_metrics(const pm_entry_t *e, json_t *pod)
{
    if (!e->prev.mono_ns || e->cur.mono_ns <= e->prev.mono_ns)
        return NULL;
    int64_t span = e->cur.mono_ns - e->prev.mono_ns;
    json_t *cs = json_array();
    for (size_t i = 0; i < e->cur.n; i++) {
        const pm_ctr_t *c = &e->cur.c[i];
        long long before = prev_cpu(&e->prev, c->name);
        /* a container restarted between the two (its counter began again):
         * its CPU since the restart over the whole window */
        long long used = before >= 0 && before <= c->cpu_ns ? c->cpu_ns - before : c->cpu_ns;
        char cpu[32], mem[32];
        snprintf(cpu, sizeof(cpu), "%lldn", (long long)((double)used * 1e9 / (double)span));
        snprintf(mem, sizeof(mem), "%lldKi", c->mem / 1024);
        json_array_append_new(cs, json_pack("{s:s, s:{s:s, s:s}}", "name", c->name, "usage", "cpu",
                                            cpu, "memory", mem));
    }
    char window[32];
    go_duration(span, window, sizeof(window));
    char *ts = sl_kube_rfc3339(e->cur.wall_ns, 0), *now = sl_kube_now_rfc3339();
    json_t *labels = json_object_get(json_object_get(pod, "metadata"), "labels");
    json_t *m =
        json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:o}", "kind", "PodMetrics",
                  "apiVersion", GROUP "/" VERSION, "metadata", "name", e->name, "namespace", e->ns,
                  "creationTimestamp", now, "timestamp", ts, "window", window, "containers", cs);
    if (labels)
        json_object_set(json_object_get(m, "metadata"), "labels", labels);
    free(ts);
    free(now);
    return m;
}

/* the stored pod of e when it runs as e's uid (a new reference), else NULL */
static json_t *running_pod(api_req_t *r, const char *ns, const char *name, const char *uid)
{
    json_t *pod = sl_store_get(r->api->store, "pods", ns, name);
    json_t *md = json_object_get(pod, "metadata");
    const char *puid = json_string_value(json_object_get(md, "uid"));
    const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    if (!puid || strcmp(puid, uid) != 0 || !phase || strcmp(phase, "Running") != 0 ||
        json_object_get(md, "deletionTimestamp")) {
        json_decref(pod);
        return NULL;
    }
    return pod;
}

typedef struct pm_ref {
    char *uid, *ns, *name;
} pm_ref_t;

/* the entries of ns (NULL: all) and name (NULL: any), copied out of the lock */
static pm_ref_t *refs_of(api_podmetrics_t *pm, const char *ns, const char *name, size_t *n)
{
    pthread_mutex_lock(&pm->lock);
    prune(pm, sl_now_ns());
    pm_ref_t *v = sl_xcalloc(pm->n + 1, sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < pm->n; i++) {
        const pm_entry_t *e = &pm->v[i];
        if ((ns && strcmp(ns, e->ns)) || (name && strcmp(name, e->name)))
            continue;
        v[k++] = (pm_ref_t){sl_xstrdup(e->uid), sl_xstrdup(e->ns), sl_xstrdup(e->name)};
    }
    pthread_mutex_unlock(&pm->lock);
    *n = k;
    return v;
}

static json_t *metrics_of(api_podmetrics_t *pm, const char *uid, json_t *pod)
{
    json_t *m = NULL;
    pthread_mutex_lock(&pm->lock);
    for (size_t i = 0; i < pm->n && !m; i++)
        if (!strcmp(pm->v[i].uid, uid))
            m = entry_metrics(&pm->v[i], pod);
    pthread_mutex_unlock(&pm->lock);
    return m;
}

static json_t *collect(api_req_t *r, const api_path_t *p, const sl_kube_selector_t *ls,
                       const sl_kube_selector_t *fs)
{
    size_t n;
    pm_ref_t *refs = refs_of(r->api->podmetrics, p->ns, p->name, &n);
    json_t *items = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *pod = running_pod(r, refs[i].ns, refs[i].name, refs[i].uid);
        json_t *labels = json_object_get(json_object_get(pod, "metadata"), "labels");
        json_t *m = pod && (!ls || sl_kube_selector_match_labels(ls, labels)) &&
                            (!fs || sl_kube_selector_match(fs, pod))
                        ? metrics_of(r->api->podmetrics, refs[i].uid, pod)
                        : NULL;
        if (m)
            json_array_append_new(items, m);
        json_decref(pod);
        free(refs[i].uid);
        free(refs[i].ns);
        free(refs[i].name);
    }
    free(refs);
    return items;
}

enum MHD_Result api_handle_podmetrics(api_req_t *r, const api_path_t *p)
{
    if (p->sub || p->watch_prefix)
        return api_reply_status(r, sl_kube_status_not_found_url());
    if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0)
        return api_reply_status(
            r, sl_kube_status(405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              json_object()));
    sl_kube_selector_t *ls = NULL, *fs = NULL;
    sl_error_t err = SL_ERROR_INIT;
    if (!p->name &&
        api_parse_selectors(r, api_resource_find("", "v1", "pods"), &ls, &fs, &err) < 0) {
        return api_reply_error(r, NULL, NULL, &err);
    }
    json_t *items = collect(r, p, ls, fs);
    sl_kube_selector_destroy(ls);
    sl_kube_selector_destroy(fs);
    if (p->name) {
        json_t *one = json_incref(json_array_get(items, 0));
        json_decref(items);
        if (!one)
            return api_reply_status(r, sl_kube_status_not_found("podmetrics", GROUP, p->name));
        return api_reply_json(r, 200, one);
    }
    return api_reply_json(r, 200,
                          json_pack("{s:s, s:s, s:{}, s:o}", "kind", "PodMetricsList", "apiVersion",
                                    GROUP "/" VERSION, "metadata", "items", items));
}
