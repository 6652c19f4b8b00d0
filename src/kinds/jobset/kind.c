/* kind.c — JobSet's row of the workload kinds' registry (kinds/kind.h). */
#include "kinds/jobset/jobset.h"

const sl_kind_t sl_kind_jobset = {
    .api = {JS_GROUP,
            JS_VERSION,
            "jobsets",
            "jobset",
            "JobSet",
            "JobSetList",
            true,
            API_V_ALL,
            {0},
            {0},
            true,
            false,
            JS_STORE,
            &js_api_ops},
    .pod_templates = {"spec.replicatedJobs.*.template.spec.template.spec", NULL},
    .runs_as_creator = true,
    .owns_pods = true,
    .delete_finalizers = false,
    .ctl = {.needs_slurm = true,
            .reconcile = js_reconcile,
            .gone = js_gone,
            /* what a JobSet deleted unseen left: its pods are the garbage
             * collector's (owns_pods), their gang job ends with them */
            .collect_gone = NULL},
};
