/* statefulset.h — apps/v1 StatefulSet: `replicas` ordinary pods (one Slurm
 * job each, through the pod path) with stable names <sts>-<ordinal>, each
 * with spec.hostname its name and spec.subdomain the StatefulSet's
 * serviceName (so <sts>-0.<svc> resolves through the pods' hosts files,
 * docs/serving.md "Names inside pods"); made and removed in order
 * (OrderedReady) or all at once (Parallel); updated from the highest
 * ordinal down (RollingUpdate, partition) or when a pod is deleted
 * (OnDelete); a replaced pod keeps its name (docs/serving.md,
 * "StatefulSets"). The API hooks (api.c) and the controller (ctl.c).
 * Prefix sts_. */
#ifndef SL_KINDS_STATEFULSET_H
#define SL_KINDS_STATEFULSET_H

#include <jansson.h>

#include "api/resource.h"
#include "kinds/kind.h"

#define STS_STORE "statefulsets.apps"
#define STS_REVISION_LABEL "controller-revision-hash"
#define STS_POD_NAME_LABEL "statefulset.kubernetes.io/pod-name"
#define STS_POD_INDEX_LABEL "apps.kubernetes.io/pod-index"

extern const api_kind_ops_t sts_api_ops;
extern const sl_kind_t sl_kind_statefulset;

/* spec.podManagementPolicy is Parallel */
int sts_parallel(json_t *sts);
/* spec.updateStrategy.type is OnDelete */
int sts_on_delete(json_t *sts);
/* spec.updateStrategy.rollingUpdate.partition (0 when unset) */
long long sts_partition(json_t *sts);

#endif
