/* registry.c — every workload kind slurmlink serves: its folder below
 * src/kinds/ defines its row, this list names it. Adding a kind: its
 * folder and one line here (docs/development.md, "Adding a workload
 * kind"). The API lists the rows after the core resources, in this
 * order. */
#include "kinds/kind.h"
#include "kinds/deployment/deployment.h"
#include "kinds/replicaset/replicaset.h"

#include <string.h>

const sl_kind_t *const sl_kinds[] = {
    &sl_kind_deployment, /* before its ReplicaSets: a new one gets its pods in the same pass */
    &sl_kind_replicaset,
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
