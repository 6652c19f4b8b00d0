/* registry.c — every workload kind slurmlink serves: its folder below
 * src/kinds/ defines its row, this list names it. Adding a kind: its
 * folder and one line here (docs/development.md, "Adding a workload
 * kind"). The API lists the rows after the core resources, in this
 * order. */
#include "kinds/kind.h"

#include <string.h>

/* X(NAME): the row sl_kind_NAME, defined in src/kinds/NAME/ (trainingruntime and
 * clustertrainingruntime: in src/kinds/trainjob/, beside the TrainJob; endpoints
 * and endpointslice: in src/kinds/service/, beside the Service they follow). A
 * Deployment before its ReplicaSets (a new one gets its pods in the same pass),
 * both, and StatefulSets, before the Services (whose endpoints follow those pods) */
#define SL_KINDS(X)                                                                                \
    X(job)                                                                                         \
    X(cronjob)                                                                                     \
    X(pytorchjob)                                                                                  \
    X(mpijob)                                                                                      \
    X(trainjob)                                                                                    \
    X(trainingruntime)                                                                             \
    X(clustertrainingruntime)                                                                      \
    X(deployment)                                                                                  \
    X(replicaset)                                                                                  \
    X(statefulset)                                                                                 \
    X(service)                                                                                     \
    X(endpoints)                                                                                   \
    X(endpointslice)                                                                               \
    X(jobset)                                                                                      \
    X(lws)

#define DECLARE(name) extern const sl_kind_t sl_kind_##name;
#define ROW(name) &sl_kind_##name,
SL_KINDS(DECLARE)

const sl_kind_t *const sl_kinds[] = {SL_KINDS(ROW) NULL};

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
