/* podmetrics.h — metrics.k8s.io/v1beta1 PodMetrics (kubectl top pod) from
 * the usage samples the pods' shims push (docs/shim-spec.md, "usage"):
 * the last two of each pod, kept in memory only (podmetrics.c). */
#ifndef SL_API_PODMETRICS_H
#define SL_API_PODMETRICS_H

#include <jansson.h>
#include <microhttpd.h>

struct api_req;
struct api_path;

/* A sample older than this is no longer served, and is dropped: the pod
 * stopped pushing (its job ended, its node went away). The shim pushes one
 * every 10 s while the pod runs. */
#define API_PODMETRICS_STALE_S 35

typedef struct api_podmetrics api_podmetrics_t;

api_podmetrics_t *api_podmetrics_create(void);
void api_podmetrics_free(api_podmetrics_t *pm); /* NULL: no-op */
/* A "usage" push the controller accepted (it set "namespace" and "name"
 * from its own pod table); thread-safe. */
void api_podmetrics_record(api_podmetrics_t *pm, json_t *event);
/* GET .../metrics.k8s.io/v1beta1[/namespaces/NS]/pods[/NAME], after the
 * router authorized it: a PodMetricsList of the running pods with two
 * samples (labelSelector and fieldSelector as for pods), or one
 * PodMetrics; 404 for a pod that has none. */
enum MHD_Result api_handle_podmetrics(struct api_req *r, const struct api_path *p);

#endif
