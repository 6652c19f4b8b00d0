/* kind.c — the rows of trainer.kubeflow.org/v1alpha1's kinds (trainjob.h). */
#include "kinds/trainjob/internal.h"
#include "kinds/trainjob/trainjob.h"

const sl_kind_t sl_kind_trainjob = {
    .api = {.group = TJ_GROUP,
            .version = "v1alpha1",
            .name = "trainjobs",
            .singular = "trainjob",
            .kind = "TrainJob",
            .list_kind = "TrainJobList",
            .namespaced = true,
            .verbs = API_V_ALL,
            .status_sub = true,
            .store_name = TJ_RES,
            .ops = &trainjob_ops},
    /* its pods come of a runtime and its trainer fields: what a tenant
     * writes of their pod spec is its runtimePatches' (identity checked at
     * create); the pods themselves are admitted as they are made
     * (ctl_pods_create: identity, policy, quota) */
    .pod_templates = {"spec.runtimePatches.*.trainingRuntimeSpec.template.spec.replicatedJobs.*."
                      "template.spec.template.spec",
                      NULL},
    .runs_as_creator = true,
    .owns_pods = true,
    /* pods a TrainJob deleted unseen left: the garbage collector's (jobgc.c) */
    .ctl = {.needs_slurm = true, .reconcile = trainjob_reconcile, .gone = trainjob_gone},
};

const sl_kind_t sl_kind_trainingruntime = {
    .api = {.group = TJ_GROUP,
            .version = "v1alpha1",
            .name = "trainingruntimes",
            .singular = "trainingruntime",
            .kind = "TrainingRuntime",
            .list_kind = "TrainingRuntimeList",
            .namespaced = true,
            .verbs = API_V_ALL,
            .store_name = TJ_RES_RT,
            .ops = &trainjob_runtime_ops},
    /* a tenant's runtime: the identity its pods may claim checked at create */
    .pod_templates = {"spec.template.spec.replicatedJobs.*.template.spec.template.spec", NULL},
};

const sl_kind_t sl_kind_clustertrainingruntime = {
    .api = {.group = TJ_GROUP,
            .version = "v1alpha1",
            .name = "clustertrainingruntimes",
            .singular = "clustertrainingruntime",
            .kind = "ClusterTrainingRuntime",
            .list_kind = "ClusterTrainingRuntimeList",
            .namespaced = false,
            .verbs = API_V_ALL,
            .store_name = TJ_RES_CRT,
            .ops = &trainjob_runtime_ops},
};
