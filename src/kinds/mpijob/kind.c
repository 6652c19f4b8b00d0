/* kind.c — kubeflow.org/v2beta1 MPIJob as mpi-operator's CRD defines it:
 * one Slurm job, the Launcher in its batch step (src/ctl/gang.h), run by
 * the Kubeflow training-job controller (src/kinds/kubeflow/) with this
 * kind's rules (pods.c). */
#include "kinds/kind.h"
#include "kinds/kubeflow/kubeflow.h"

static void reconcile(struct sl_ctl *c, json_t *job) { ctl_tj_reconcile(&ctl_tj_mpijob, c, job); }

static void gone(struct sl_ctl *c, json_t *job) { ctl_tj_gone(&ctl_tj_mpijob, c, job); }

const sl_kind_t sl_kind_mpijob = {
    .api = {"kubeflow.org",
            "v2beta1",
            "mpijobs",
            "mpijob",
            "MPIJob",
            "MPIJobList",
            true,
            API_V_ALL,
            {0},
            {0},
            true,
            false,
            "mpijobs.kubeflow.org",
            &api_mpijob_ops},
    .pod_templates = {"spec.mpiReplicaSpecs.*.template.spec"},
    .runs_as_creator = true,
    .owns_pods = true,
    .ctl = {.needs_slurm = true, .reconcile = reconcile, .gone = gone},
};
