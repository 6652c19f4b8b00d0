/* replicaset.h — apps/v1 ReplicaSet: `replicas` ordinary pods (one Slurm
 * job each, through the pod path) matching its selector, named
 * <rs>-xxxxx, its controller ownerReference on each; a failed pod, or one
 * whose job or node died, replaced; scaled up and down as kube's
 * ReplicaSet controller does (docs/serving.md, "Deployments").
 *
 * What the Deployment kind (src/kinds/deployment/) shares with it: the
 * pod template's defaults and validation of an apps/v1 workload, a pod's
 * readiness and availability, the wide Table cells. Prefix sl_rs_. */
#ifndef SL_KINDS_REPLICASET_H
#define SL_KINDS_REPLICASET_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "kinds/kind.h"

#define SL_RS_HASH_LABEL "pod-template-hash"

extern const sl_kind_t sl_kind_replicaset;

/* SetDefaults_PodSpec on obj's spec.template (restartPolicy Always) */
void sl_rs_template_defaults(json_t *obj);
/* ValidateReplicaSetSpec / ValidateDeploymentSpec's common part on obj:
 * replicas and minReadySeconds not negative, the selector present, not
 * empty and matching the template's labels, the template a valid pod
 * template with restartPolicy Always and no activeDeadlineSeconds */
void sl_rs_validate_spec(json_t *obj, sl_error_t *err);
/* an update: spec.selector is immutable (apps/v1) */
void sl_rs_validate_selector_fixed(json_t *obj, json_t *old, sl_error_t *err);
/* the status counts of an apps/v1 status write are not negative */
int sl_rs_validate_status(json_t *obj, json_t *old, sl_error_t *err);
/* the strategy's PrepareForCreate and PrepareForUpdate: status reset,
 * generation 1 / status kept, generation + 1 when spec changed */
void sl_rs_prepare_create(json_t *obj);
void sl_rs_prepare_update(json_t *obj, json_t *old);

/* a pod's Ready condition is True; and has been for min_ready_s by now
 * (podutil.IsPodAvailable) */
bool sl_rs_pod_ready(json_t *pod);
bool sl_rs_pod_available(json_t *pod, long long min_ready_s, int64_t now_ns);
/* spec.replicas (default 1) */
long long sl_rs_replicas(json_t *obj);

/* the wide cells CONTAINERS IMAGES SELECTOR of an object with a pod
 * template and a selector, appended to cells */
void sl_rs_wide_cells(json_t *obj, json_t *cells);
/* the column definitions: Name (with kube's description), Age, and the
 * three wide ones; a column of its own */
json_t *sl_rs_col(const char *name, const char *desc, int priority);
json_t *sl_rs_col_name(void);
json_t *sl_rs_col_age(void);
void sl_rs_wide_columns(json_t *cols);

#endif
