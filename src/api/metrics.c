/* metrics.c — GET /metrics: slurmlinkd's metrics in Prometheus' text format
 * (src/metrics, docs/metrics.md). The router authorizes it as the
 * non-resource URL it is: the policy's nonResourceURLs grant, or an admin.
 * Pods by namespace and phase are counted from the store at each scrape, so
 * they agree with what a list shows. */
#include "metrics/metrics.h"
#include "api/internal.h"
#include "kube/status.h"
#include "metrics/expo.h"

#include <string.h>

static void count_pods(sl_store_t *store)
{
    json_t *pods = sl_store_list(store, "pods", NULL, NULL);
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        json_t *md = json_object_get(pod, "metadata");
        const char *ns = json_string_value(json_object_get(md, "namespace"));
        const char *ph =
            json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
        sl_metrics_pod(ns, ph);
    }
    json_decref(pods);
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
    size_t len = 0;
    char *text = sl_metrics_render(&len);
    if (!text)
        return api_reply_status(
            r, sl_kube_status(500, "InternalError", "metrics are not available", json_object()));
    return api_reply_owned(r, 200, SL_EXPO_CONTENT_TYPE, text, len);
}
