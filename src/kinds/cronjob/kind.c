/* kind.c — batch/v1 CronJob: the controller creates its Jobs on schedule
 * (controller.c), which run as the CronJob's creator. */
#include "kinds/kind.h"
#include "kinds/cronjob/controller.h"

const sl_kind_t sl_kind_cronjob = {
    .api = {"batch",
            "v1",
            "cronjobs",
            "cronjob",
            "CronJob",
            "CronJobList",
            true,
            API_V_ALL,
            {"cj"},
            {"all"},
            true,
            false,
            "cronjobs.batch",
            &api_cronjob_ops},
    .pod_templates = {"spec.jobTemplate.spec.template.spec"},
    .runs_as_creator = true,
    .delete_finalizers = true,
    .ctl = {.needs_slurm = true,
            .reconcile_all = ctl_cronjobs_reconcile,
            .gone = ctl_cronjob_removed,
            .collect_gone = ctl_cronjobs_collect_gone},
};
