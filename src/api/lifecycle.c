/* lifecycle.c — what the API keeps true over time:
 *  - at start: the namespaces default, kube-system and kube-public, and a
 *    `default` ServiceAccount in every namespace;
 *  - namespace deletion: the janitor runs the namespace controller
 *    (namespace.c) for every Terminating namespace;
 *  - events older than the event TTL (1 h, like kube-apiserver's
 *    --event-ttl) are removed.
 * A janitor thread re-checks terminating namespaces after store changes
 * (pods leave them when the lifecycle controller removes them) and expires
 * events once a minute; each pass (a store change seen, or a second with
 * none) is counted in slurmlink_loop_passes_total{loop="janitor"}. */
#include "api/lifecycle.h"
#include "api/decode.h"
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/podmetrics.h"
#include "api/quota.h"
#include "api/server.h"
#include "common/argv.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "gpu/gpu.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "metrics/metrics.h"
#include "store/store.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

static const char *const initial_namespaces[] = {"default", "kube-system", "kube-public", NULL};

void api_ensure_default_sa(sl_api_t *api, const char *ns)
{
    json_t *sa = sl_store_get(api->store, "serviceaccounts", ns, "default");
    if (sa) {
        json_decref(sa);
        return;
    }
    sa = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "ServiceAccount",
                   "metadata", "name", "default", "namespace", ns);
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_create(api->store, "serviceaccounts", sa, &err) < 0 && errno != EEXIST)
        sl_warn("cannot create serviceaccount %s/default: %s", ns, err.text);
    json_decref(sa);
}

int api_bootstrap(sl_api_t *api, sl_error_t *err)
{
    for (int i = 0; initial_namespaces[i]; i++) {
        const char *name = initial_namespaces[i];
        json_t *ns = sl_store_get(api->store, "namespaces", NULL, name);
        if (!ns) {
            ns = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:[s]}, s:{s:s}}", "apiVersion", "v1",
                           "kind", "Namespace", "metadata", "name", name, "labels",
                           "kubernetes.io/metadata.name", name, "spec", "finalizers", "kubernetes",
                           "status", "phase", "Active");
            if (sl_store_create(api->store, "namespaces", ns, err) < 0 && errno != EEXIST) {
                json_decref(ns);
                return sl_errprefix(err, "creating namespace %s", name);
            }
        }
        json_decref(ns);
    }
    /* DRA: the class of NVIDIA's GPUs (docs/gpus.md), made once; an admin may
     * change or delete it */
    json_t *dc = sl_store_get(api->store, "deviceclasses.resource.k8s.io", NULL, SL_GPU_DRA_DRIVER);
    if (!dc) {
        dc = json_pack("{s:s, s:s, s:{s:s}, s:{s:[{s:{s:s}}]}}", "apiVersion", "resource.k8s.io/v1",
                       "kind", "DeviceClass", "metadata", "name", SL_GPU_DRA_DRIVER, "spec",
                       "selectors", "cel", "expression",
                       "device.driver == \"" SL_GPU_DRA_DRIVER "\"");
        sl_error_t e2 = SL_ERROR_INIT;
        if (sl_store_create(api->store, "deviceclasses.resource.k8s.io", dc, &e2) < 0 &&
            errno != EEXIST)
            sl_warn("cannot create deviceclass %s: %s", SL_GPU_DRA_DRIVER, e2.text);
    }
    json_decref(dc);
    json_t *all = sl_store_list(api->store, "namespaces", NULL, NULL);
    size_t i;
    json_t *ns;
    json_array_foreach(all, i, ns) if (!sl_kube_meta_str(ns, "deletionTimestamp"))
        api_ensure_default_sa(api, sl_kube_name(ns)); /* none in one being emptied */
    json_decref(all);
    return 0;
}

/* sl_store_list_each's fn: an Event older than the TTL (its lastTimestamp,
 * else eventTime, else creationTimestamp) goes on the list to delete */
struct expiry {
    long long now, ttl_ns;
    sl_argv_t keys; /* namespace, name, namespace, name, ... */
};

static int note_expired(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    struct expiry *x = arg;
    json_t *e = json_loadb(json, len, 0, NULL);
    const char *ts = json_string_value(json_object_get(e, "lastTimestamp"));
    if (!ts)
        ts = json_string_value(json_object_get(e, "eventTime"));
    if (!ts)
        ts = sl_kube_meta_str(e, "creationTimestamp");
    int64_t t = 0;
    if (ts && sl_kube_parse_rfc3339(ts, &t) == 0 && x->now - t >= x->ttl_ns) {
        sl_argv_add(&x->keys, it->ns);
        sl_argv_add(&x->keys, it->name);
    }
    json_decref(e);
    return 0;
}

/* one Event parsed at a time, the expired ones' keys kept, then deleted */
static void expire_events(sl_api_t *api)
{
    struct expiry x = {.now = sl_kube_now_ns(), .ttl_ns = api->event_ttl_ns, .keys = SL_ARGV_INIT};
    sl_store_list_each(api->store, "events", NULL, note_expired, &x, NULL);
    for (size_t i = 0; i + 1 < x.keys.n; i += 2)
        sl_store_delete(api->store, "events", x.keys.v[i], x.keys.v[i + 1], 0, NULL, NULL);
    sl_argv_free(&x.keys);
}

static void *janitor(void *arg)
{
    sl_api_t *api = arg;
    int64_t rv = 0;
    long long last_events = 0;
    api_quota_watch_t *quotas = api_quota_watch_new();
    while (!atomic_load(&api->stopping)) {
        int64_t now_rv = sl_store_wait(api->store, rv, 1000);
        if (atomic_load(&api->stopping))
            break;
        if (now_rv != rv) {
            rv = now_rv;
            json_t *nss = sl_store_list(api->store, "namespaces", NULL, NULL);
            size_t i;
            json_t *ns;
            json_array_foreach(nss, i, ns) if (sl_kube_meta_str(ns, "deletionTimestamp"))
                api_namespace_sweep(api, sl_kube_name(ns));
            json_decref(nss);
            api_quota_sync(api, quotas);
            /* under a storm of changes, look at most every 200 ms */
            for (int k = 0; k < 4 && !atomic_load(&api->stopping); k++)
                sl_sleep_ms(50);
        }
        long long t = sl_now_ms();
        /* once a minute, or as often as a shorter TTL: an Event outlives
         * it by at most the sweep's interval */
        long long sweep_ms =
            api->event_ttl_ns / 1000000 < 60000 ? api->event_ttl_ns / 1000000 : 60000;
        if (t - last_events >= sweep_ms) {
            last_events = t;
            expire_events(api);
        }
        sl_metrics_loop_pass("janitor"); /* tests wait on the count (t/lib.sh) */
    }
    api_quota_watch_free(quotas);
    return NULL;
}

int api_janitor_start(sl_api_t *api, sl_error_t *err)
{
    int e = pthread_create(&api->janitor, NULL, janitor, api);
    if (e) {
        errno = e;
        return sl_errprintf(err, "cannot start the janitor thread: %s", strerror(e));
    }
    api->janitor_started = true;
    return 0;
}

void api_janitor_stop(sl_api_t *api)
{
    if (!api->janitor_started)
        return;
    atomic_store(&api->stopping, 1);
    sl_store_kick(api->store);
    pthread_join(api->janitor, NULL);
    api->janitor_started = false;
}

/* POST /internal/v1/shim/events: handed to the lifecycle controller's hook. */
enum MHD_Result api_handle_shim_event(api_req_t *r)
{
    sl_api_t *api = r->api;
    pthread_mutex_lock(&api->hook_lock);
    sl_api_shim_event_fn hook = api->shim_event;
    void *hook_arg = api->shim_event_arg;
    pthread_mutex_unlock(&api->hook_lock);
    if (!hook)
        return api_reply_status(r, sl_kube_status_unavailable("no receiver for shim events"));
    const char *auth = api_header(r, "Authorization");
    const char *bearer = NULL;
    if (auth && !strncasecmp(auth, "Bearer ", 7))
        bearer = auth + 7;
    sl_error_t perr = SL_ERROR_INIT;
    json_t *ev = api_parse_body(r->body.data, r->body.len, false, &perr);
    if (!ev || !json_is_object(ev)) {
        char *m = sl_xasprintf("invalid shim event: %s", ev ? "not a JSON object" : perr.text);
        json_t *st = sl_kube_status_bad_request(m);
        free(m);
        json_decref(ev);
        return api_reply_status(r, st);
    }
    sl_error_t err = SL_ERROR_INIT;
    errno = 0;
    int rc = hook(hook_arg, bearer, ev, &err);
    int e = errno;
    /* the pod's token was good: its connection counts as that pod's */
    if (rc == 0 && !strcmp(json_string_value(json_object_get(ev, "event")), "usage"))
        api_podmetrics_record(api->podmetrics, ev); /* kubectl top pod */
    char *who =
        rc == 0 ? sl_xasprintf("shim:%s", json_string_value(json_object_get(ev, "pod_uid"))) : NULL;
    json_decref(ev);
    if (who) { /* over the pod's cap: the event counts, the connection goes */
        api_conn_attach(r, who, false);
        free(who);
        return api_reply_bytes(r, 204, NULL, "", 0);
    }
    if (e == EACCES)
        return api_reply_status(r, sl_kube_status_unauthorized(NULL));
    return api_reply_status(
        r, sl_kube_status_bad_request(err.text[0] ? err.text : "shim event refused"));
}
