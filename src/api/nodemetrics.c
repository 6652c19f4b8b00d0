/* nodemetrics.c — kubectl top node: metrics.k8s.io/v1beta1 NodeMetrics
 * from what Slurm knows of each node, read through libslurm (slurmif) at
 * each request, nothing stored:
 *   usage.cpu     slurmd's load average (CPULoad), as cores: the number of
 *                 runnable threads, not CPU time
 *   usage.memory  the memory Slurm has allocated to jobs on the node
 *                 (AllocMem), not what they use
 * PodMetrics, the group's other resource, come from the pods' shims
 * (podmetrics.c): the discovery of the group lists both. */
#include "api/nodemetrics.h"
#include "api/http/request.h"
#include "api/podmetrics.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "slurmif/slurmif.h"

#include <stdio.h>
#include <string.h>

#define GROUP "metrics.k8s.io"
#define VERSION "v1beta1"

bool api_nodemetrics_group(const char *group, const char *version)
{
    return !strcmp(group, GROUP) && (!version || !strcmp(version, VERSION));
}

void api_nodemetrics_resources(const char *group, const char *version, json_t *list)
{
    if (api_nodemetrics_group(group, version))
        json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:[s, s]}", "name", "nodes",
                                              "singularName", "", "namespaced", 0, "kind",
                                              "NodeMetrics", "verbs", "get", "list"));
    if (api_nodemetrics_group(group, version))
        json_array_append_new(list, json_pack("{s:s, s:s, s:b, s:s, s:[s, s]}", "name", "pods",
                                              "singularName", "", "namespaced", 1, "kind",
                                              "PodMetrics", "verbs", "get", "list"));
}

void api_nodemetrics_groups(json_t *groups)
{
    const char *gv = GROUP "/" VERSION;
    json_array_append_new(groups,
                          json_pack("{s:s, s:[{s:s, s:s}], s:{s:s, s:s}}", "name", GROUP,
                                    "versions", "groupVersion", gv, "version", VERSION,
                                    "preferredVersion", "groupVersion", gv, "version", VERSION));
}

void api_nodemetrics_aggregated(json_t *items)
{
    json_t *res = json_pack(
        "[{s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:[s, s]}, {s:s, s:{s:s, s:s, s:s}, s:s, s:s, s:[s, "
        "s]}]",
        "resource", "nodes", "responseKind", "group", GROUP, "version", VERSION, "kind",
        "NodeMetrics", "scope", "Cluster", "singularResource", "", "verbs", "get", "list",
        "resource", "pods", "responseKind", "group", GROUP, "version", VERSION, "kind",
        "PodMetrics", "scope", "Namespaced", "singularResource", "", "verbs", "get", "list");
    json_array_append_new(items,
                          json_pack("{s:{s:s, s:n}, s:[{s:s, s:o, s:s}]}", "metadata", "name",
                                    GROUP, "creationTimestamp", "versions", "version", VERSION,
                                    "resources", res, "freshness", "Current"));
}

static json_t *node_metrics(const sl_slurm_node_t *n, const char *now)
{
    char cpu[32], mem[32];
    snprintf(cpu, sizeof(cpu), "%um", n->cpu_load * 10); /* hundredths of a core → millicores */
    snprintf(mem, sizeof(mem), "%lluMi", (unsigned long long)n->alloc_memory_mb);
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:s, s:s, s:{s:s, s:s}}", "kind",
                     "NodeMetrics", "apiVersion", GROUP "/" VERSION, "metadata", "name", n->name,
                     "creationTimestamp", now, "labels", "slurmlink.io/node", n->name, "timestamp",
                     now, "window", "1m0s", "usage", "cpu", cpu, "memory", mem);
}

static enum MHD_Result reply_nodes(api_req_t *r, const api_path_t *p, sl_slurm_nodes_t *nodes)
{
    char *now = sl_kube_now_rfc3339();
    json_t *items = json_array(), *one = NULL;
    for (size_t i = 0; i < sl_slurm_nodes_count(nodes); i++) {
        const sl_slurm_node_t *n = sl_slurm_nodes_at(nodes, i);
        if (!n || (p->name && strcmp(p->name, n->name) != 0))
            continue;
        json_t *m = node_metrics(n, now);
        if (p->name)
            one = m;
        else
            json_array_append_new(items, m);
    }
    free(now);
    if (p->name) {
        json_decref(items);
        if (!one)
            return api_reply_status(r, sl_kube_status_not_found("nodes", GROUP, p->name));
        return api_reply_json(r, 200, one);
    }
    return api_reply_json(r, 200,
                          json_pack("{s:s, s:s, s:{}, s:o}", "kind", "NodeMetricsList",
                                    "apiVersion", GROUP "/" VERSION, "metadata", "items", items));
}

enum MHD_Result api_handle_nodemetrics(api_req_t *r, const api_path_t *p, const char *resource)
{
    if (!strcmp(resource, "pods"))
        return api_handle_podmetrics(r, p);
    if (strcmp(resource, "nodes") != 0 || p->ns || p->sub || p->watch_prefix)
        return api_reply_status(r, sl_kube_status_not_found_url());
    if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0)
        return api_reply_status(
            r, sl_kube_status(405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              json_object()));
    sl_slurm_nodes_t *nodes = NULL;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_slurm_nodes_load(NULL, &nodes, &err) <= 0) {
        enum MHD_Result m =
            api_reply_status(r, sl_kube_status_unavailable(*err.text ? err.text : "no node data"));
        sl_error_clear(&err);
        return m;
    }
    enum MHD_Result m = reply_nodes(r, p, nodes);
    sl_slurm_nodes_free(nodes);
    return m;
}
