/* metrics.c — GET /metrics: slurmlinkd's metrics in Prometheus' text format
 * (src/metrics, docs/metrics.md). The router authorizes it as the
 * non-resource URL it is: the policy's nonResourceURLs grant, or an admin.
 * Pods by namespace and phase are counted from the store at each scrape, so
 * they agree with what a list shows; the store's commits are read then too. */
#include "metrics/metrics.h"
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "kube/status.h"
#include "metrics/expo.h"
#include "store/store.h"

#include <string.h>

/* one pod at a time (a scrape of 100,000 pods held them all parsed) */
static int count_pod(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)arg;
    json_t *pod = json_loadb(json, len, 0, NULL);
    const char *ph = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    sl_metrics_pod(it->ns, ph);
    json_decref(pod);
    return 0;
}

static void count_pods(sl_store_t *store)
{
    sl_store_list_each(store, "pods", NULL, count_pod, NULL, NULL);
}

enum MHD_Result api_serve_metrics(api_req_t *r)
{
    if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0)
        return api_reply_status(
            r, sl_kube_status(405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              json_object()));
    sl_metrics_pods_begin();
    count_pods(r->api->store);
    uint64_t groups, grouped;
    sl_store_group_stats(r->api->store, &groups, &grouped);
    sl_metrics_store_commits(sl_store_commits(r->api->store),
                             sl_store_commit_ns(r->api->store) / 1e9, groups, grouped);
    sl_store_lockstat_t w, rd;
    sl_store_lock_stats(r->api->store, &w, &rd);
    sl_metrics_store_lock("writer", w.acquired, w.wait_ns / 1e9, w.held_ns / 1e9);
    sl_metrics_store_lock("reader", rd.acquired, rd.wait_ns / 1e9, rd.held_ns / 1e9);
    uint64_t written, redone;
    sl_store_draft_stats(r->api->store, &written, &redone);
    sl_metrics_store_drafts(written, redone);
    size_t len = 0;
    char *text = sl_metrics_render(&len);
    if (!text)
        return api_reply_status(
            r, sl_kube_status(500, "InternalError", "metrics are not available", json_object()));
    return api_reply_owned(r, 200, SL_EXPO_CONTENT_TYPE, text, len);
}
