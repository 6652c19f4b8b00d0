/* registry.c — every workload kind slurmlink serves: its folder below
 * src/kinds/ defines its row, this list names it. Adding a kind: its
 * folder and one line here (docs/development.md, "Adding a workload
 * kind"). The API lists the rows after the core resources, in this
 * order. */
#include "kinds/kind.h"
#include "kinds/service/service.h"

#include <string.h>

const sl_kind_t *const sl_kinds[] = {
    &svc_kind_service,       /* core/v1 Services: their endpoints (src/kinds/service/) */
    &svc_kind_endpoints,     /* core/v1 Endpoints, the controller's, read-only */
    &svc_kind_endpointslice, /* discovery.k8s.io/v1 EndpointSlices, likewise */
    NULL,
};

const sl_kind_t *sl_kind_by_store(const char *store_name)
{
    for (const sl_kind_t *const *k = sl_kinds; store_name && *k; k++)
        if (!strcmp((*k)->api.store_name, store_name))
            return *k;
    return NULL;
}

const sl_kind_t *sl_kind_by_resource(const api_resource_t *res)
{
    return res ? sl_kind_by_store(res->store_name) : NULL;
}
