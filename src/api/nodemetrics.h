/* nodemetrics.h — metrics.k8s.io/v1beta1 NodeMetrics (kubectl top node)
 * from Slurm's node data, read at each request (nodemetrics.c). */
#ifndef SL_API_NODEMETRICS_H
#define SL_API_NODEMETRICS_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>

struct api_req;
struct api_path;

/* Discovery (discovery.c), as review.h's: is group (version NULL: any)
 * metrics.k8s.io; its APIResource entries; its APIGroup; its aggregated
 * group item. */
bool api_nodemetrics_group(const char *group, const char *version);
void api_nodemetrics_resources(const char *group, const char *version, json_t *list);
void api_nodemetrics_groups(json_t *groups);
void api_nodemetrics_aggregated(json_t *items);
/* GET .../metrics.k8s.io/v1beta1/nodes[/NAME], after the router authorized
 * it: a NodeMetricsList or NodeMetrics; 503 when Slurm does not answer;
 * .../pods[/NAME] goes to api_handle_podmetrics (podmetrics.h); 404 for
 * other paths. */
enum MHD_Result api_handle_nodemetrics(struct api_req *r, const struct api_path *p,
                                       const char *resource);

#endif
