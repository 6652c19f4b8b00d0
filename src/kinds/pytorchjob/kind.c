/* kind.c — kubeflow.org/v1 PyTorchJob as the Training Operator's CRD
 * defines it: one gang-scheduled Slurm job (src/ctl/gang.h), run by the
 * Kubeflow training-job controller (src/kinds/kubeflow/) with this kind's
 * rules (pods.c). */
#include "kinds/kind.h"
#include "kinds/kubeflow/kubeflow.h"

static void reconcile(struct sl_ctl *c, json_t *job)
{
    ctl_tj_reconcile(&ctl_tj_pytorchjob, c, job);
}

static void gone(struct sl_ctl *c, json_t *job) { ctl_tj_gone(&ctl_tj_pytorchjob, c, job); }

const sl_kind_t sl_kind_pytorchjob = {
    .api = {"kubeflow.org",
            "v1",
            "pytorchjobs",
            "pytorchjob",
            "PyTorchJob",
            "PyTorchJobList",
            true,
            API_V_ALL,
            {0},
            {0},
            true,
            false,
            "pytorchjobs.kubeflow.org",
            &api_pytorchjob_ops},
    .pod_templates = {"spec.pytorchReplicaSpecs.*.template.spec"},
    .runs_as_creator = true,
    .owns_pods = true,
    .ctl = {.needs_slurm = true, .reconcile = reconcile, .gone = gone},
};
