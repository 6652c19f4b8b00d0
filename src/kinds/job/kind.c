/* kind.c — batch/v1 Job: the controller runs each as one Slurm job array
 * (controller.c); its pods run as its creator and carry its ownerReference. */
#include "kinds/kind.h"
#include "kinds/job/controller.h"

const sl_kind_t sl_kind_job = {
    .api = {"batch",
            "v1",
            "jobs",
            "job",
            "Job",
            "JobList",
            true,
            API_V_ALL,
            {0},
            {"all"},
            true,
            false,
            "jobs.batch",
            &api_job_ops},
    .pod_templates = {"spec.template.spec"},
    .runs_as_creator = true,
    .owns_pods = true,
    .delete_finalizers = true,
    .ctl = {.needs_slurm = true, .reconcile = ctl_job_reconcile, .gone = ctl_job_gone},
};
