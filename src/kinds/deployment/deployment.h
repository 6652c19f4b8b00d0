/* deployment.h — apps/v1 Deployment: ReplicaSets by pod-template hash
 * (<deploy>-<hash>), rolled from one to the next with maxSurge and
 * maxUnavailable (RollingUpdate) or all at once (Recreate), as kube's
 * deployment controller does; revisions, history, pause, the progress
 * deadline and kube's conditions (docs/serving.md, "Deployments"). The
 * pods are the ReplicaSets' (src/kinds/replicaset/). Prefix sl_deploy_. */
#ifndef SL_KINDS_DEPLOYMENT_H
#define SL_KINDS_DEPLOYMENT_H

#include <jansson.h>
#include <stdbool.h>

#include "api/resource.h"
#include "kinds/kind.h"

#define SL_DEPLOY_ANN_REVISION "deployment.kubernetes.io/revision"
#define SL_DEPLOY_ANN_DESIRED "deployment.kubernetes.io/desired-replicas"
#define SL_DEPLOY_ANN_MAX "deployment.kubernetes.io/max-replicas"

extern const sl_kind_t sl_kind_deployment;
extern const api_kind_ops_t sl_deploy_api_ops;

/* an IntOrString of the strategy (maxSurge, maxUnavailable) against
 * replicas: an integer as it is, a percent rounded up (round_up) or down,
 * as intstr.GetScaledValueFromIntOrPercent; dflt when absent */
long long sl_deploy_scaled(json_t *v, long long replicas, bool round_up, long long dflt);

#endif
