/* service.h — core/v1 Service, core/v1 Endpoints and discovery.k8s.io/v1
 * EndpointSlice: their API rows and hooks (service.c, printers.c), the
 * endpoints controller (endpoints.c) and the ready targets the API's
 * service proxy may reach (api/svcproxy.c).
 *
 * slurmlink has no virtual network: a pod runs on its node's network
 * (status.podIP is the node's address), a Service gets no cluster IP and
 * is reached through the API's service proxy or kubectl port-forward
 * (docs/serving.md, "Services"). Endpoints and EndpointSlices are the
 * controller's alone: read-only through the API. Prefix svc_. */
#ifndef SL_KINDS_SERVICE_H
#define SL_KINDS_SERVICE_H

#include <jansson.h>
#include <stdbool.h>

#include "api/resource.h"
#include "common/err.h"
#include "kinds/kind.h"
#include "store/store.h"

struct sl_ctl;

extern const api_kind_ops_t svc_service_ops;
extern const api_kind_ops_t svc_endpoints_ops;
extern const api_kind_ops_t svc_endpointslice_ops;

/* The three API rows (initializers of api_resource_t). */
#define SVC_SERVICE_ROW                                                                            \
    {                                                                                              \
        "", "v1", "services", "service", "Service", "ServiceList", true, API_V_ALL, {"svc"},       \
            {"all"}, true, false, "services", &svc_service_ops                                     \
    }
#define SVC_ENDPOINTS_ROW                                                                          \
    {                                                                                              \
        "", "v1", "endpoints", "endpoints", "Endpoints", "EndpointsList", true, API_V_READ,        \
            {"ep"}, {0}, false, false, "endpoints", &svc_endpoints_ops                             \
    }
#define SVC_ENDPOINTSLICE_ROW                                                                      \
    {                                                                                              \
        "discovery.k8s.io", "v1", "endpointslices", "endpointslice", "EndpointSlice",              \
            "EndpointSliceList", true, API_V_READ, {0}, {0}, false, false,                         \
            "endpointslices.discovery.k8s.io", &svc_endpointslice_ops                              \
    }

/* The rows src/kinds/registry.c lists. */
extern const sl_kind_t sl_kind_service, sl_kind_endpoints, sl_kind_endpointslice;

/* The label kube's EndpointSlice controller sets, and its manager's value. */
#define SVC_LABEL_SERVICE_NAME "kubernetes.io/service-name"
#define SVC_LABEL_MANAGED_BY "endpointslice.kubernetes.io/managed-by"
#define SVC_MANAGED_BY "endpointslice-controller.k8s.io"

/* A headless Service (spec.clusterIP "None"). */
bool svc_is_headless(json_t *svc);

/* One address the proxy may reach: a ready pod of the Service, its node's
 * address as the controller wrote it, and the port the service port
 * resolves to in that pod. */
typedef struct svc_target {
    char ip[64];
    int port;
    char pod[254];
} svc_target_t;

/* The ready targets of service port `port` (its name, or its number as
 * text; "" the only port) of svc, computed now from the stored pods that
 * match its selector (never from an Endpoints object). Returns the number
 * found (up to max), or -1 with err: SL_ERR_UNAVAILABLE when the Service
 * has no such port. */
int svc_ready_targets(sl_store_t *st, json_t *svc, const char *port, svc_target_t *out, int max,
                      sl_error_t *err);

/* The controller (endpoints.c): every Service of the pass (the row's
 * reconcile_all): the Endpoints and EndpointSlices of each whose pods or
 * itself changed, kept from its ready pods, then the Service names of each
 * namespace one of them is in; what a deleted Service leaves, deleted. */
void svc_reconcile_all(struct sl_ctl *c, json_t *svcs);
void svc_gone(struct sl_ctl *c, json_t *svc);
void svc_collect_gone(struct sl_ctl *c);

/* The namespace's Service names file (names.c) written from its stored
 * Endpoints when its text changed; removed when it has none. */
void svc_names_sync(struct sl_ctl *c, const char *ns);

/* Table printers (printers.c). */
json_t *svc_service_columns(void);
json_t *svc_service_cells(json_t *svc, long long now);
json_t *svc_endpoints_columns(void);
json_t *svc_endpoints_cells(json_t *ep, long long now);
json_t *svc_slice_columns(void);
json_t *svc_slice_cells(json_t *slice, long long now);

#endif
