/* kind.c — the rows of trainer.kubeflow.org/v1alpha1's kinds (trainjob.h). */
#include "kinds/trainjob/internal.h"
#include "kinds/trainjob/trainjob.h"

const sl_kind_t sl_kind_trainjob = {
    .api = {TJ_GROUP,
            "v1alpha1",
            "trainjobs",
            "trainjob",
            "TrainJob",
            "TrainJobList",
            true,
            API_V_ALL,
            {0},
            {0},
            true,
            false,
            TJ_RES,
            &trainjob_ops},
    /* its pods come of a runtime and its trainer fields, not of a template
     * it holds: they are admitted as they are made (ctl_pods_create) */
    .pod_templates = {NULL},
    .runs_as_creator = true,
    .owns_pods = true,
    /* pods a TrainJob deleted unseen left: the garbage collector's (jobgc.c) */
    .ctl = {.needs_slurm = true, .reconcile = trainjob_reconcile, .gone = trainjob_gone},
};

const sl_kind_t sl_kind_trainingruntime = {
    .api = {TJ_GROUP,
            "v1alpha1",
            "trainingruntimes",
            "trainingruntime",
            "TrainingRuntime",
            "TrainingRuntimeList",
            true,
            API_V_ALL,
            {0},
            {0},
            false,
            false,
            TJ_RES_RT,
            &trainjob_runtime_ops},
};

const sl_kind_t sl_kind_clustertrainingruntime = {
    .api = {TJ_GROUP,
            "v1alpha1",
            "clustertrainingruntimes",
            "clustertrainingruntime",
            "ClusterTrainingRuntime",
            "ClusterTrainingRuntimeList",
            false,
            API_V_ALL,
            {0},
            {0},
            false,
            false,
            TJ_RES_CRT,
            &trainjob_runtime_ops},
};
