/* schema.h — strict field checking, ignored-field warnings, defaults and the
 * update rules of the core/v1 kinds slurmlink stores.
 *
 * The field sets (schema_table.c) are generated from Kubernetes' OpenAPI
 * (src/pod/gen/schema-gen.mjs), so a field Kubernetes knows is never
 * "unknown" here. Unknown fields come back as kube-apiserver's strict
 * decoder writes them, `unknown field "spec.containers[0].imagee"`, for the
 * API layer to refuse (fieldValidation=Strict, kubectl's default) or turn
 * into Warning headers (Warn). Values inside free-form maps (labels, data,
 * fieldsV1) are not checked.
 *
 * Returned string vectors are NULL-terminated; free with sl_strv_free()
 * (common/argv.h).
 */
#ifndef SL_POD_SCHEMA_H
#define SL_POD_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

#include "common/argv.h"
#include "common/err.h"

/* Kinds known: "Pod", "ConfigMap", "Secret", "Namespace", "ServiceAccount", "Event",
 * "ResourceQuota", "Service", "Endpoints", "Job", "CronJob" (batch/v1),
 * "EndpointSlice" (discovery.k8s.io/v1), "Deployment", "ReplicaSet"
 * (apps/v1), "Scale" (autoscaling/v1). */
int sl_schema_known_kind(const char *kind);

/* Unknown fields of obj as kind, in document order. NULL (errno ENOENT) for an
 * unknown kind. *n may be NULL. */
char **sl_schema_unknown_fields(const char *kind, const json_t *obj, size_t *n);

/* Fields of a Pod that Kubernetes knows and slurmlink cannot honour, each
 * with what is ignored and what to use instead:
 *   "spec.affinity is ignored: Slurm places the job; use nodeSelector (→ --constraint) or
 *    the slurmlink.io/partition annotation; only a required nodeAffinity term on
 *    nvidia.com/gpu.product is read (the GPU type)" */
char **sl_schema_pod_warnings(const json_t *pod, size_t *n);

/* Fill what kube-apiserver fills on create (SetDefaults_Pod and the
 * ServiceAccount/Priority admission): restartPolicy Always,
 * terminationGracePeriodSeconds 30, dnsPolicy ClusterFirst, schedulerName
 * default-scheduler, securityContext {}, enableServiceLinks true,
 * serviceAccountName/serviceAccount default, priority 0, preemptionPolicy
 * PreemptLowerPriority; per container imagePullPolicy (Always for :latest or
 * no tag, else IfNotPresent), terminationMessagePath /dev/termination-log,
 * terminationMessagePolicy File, resources {} with requests defaulted from
 * limits, ports protocol TCP, env fieldRef apiVersion v1; per volume
 * defaultMode 420 for configMap/secret/downwardAPI/projected. Existing values
 * are kept. */
void sl_pod_apply_defaults(json_t *pod);

/* ValidatePodUpdate's spec rules: only container and init container images,
 * activeDeadlineSeconds (set or lowered, never unset or raised), additions to
 * tolerations and a negative terminationGracePeriodSeconds set to 1 may
 * change. Both pods should be defaulted. Appends 422 field errors; returns
 * their number. */
int sl_pod_spec_update_errors(const json_t *old_pod, const json_t *new_pod, sl_error_t *errs);

#endif
