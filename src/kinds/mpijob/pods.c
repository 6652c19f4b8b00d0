/* src/kinds/mpijob/pods.c — a kubeflow.org/v2beta1 MPIJob's pods and gang, as
 * mpi-operator makes the pods (<job>-launcher, <job>-worker-N; its
 * labels and environment) and as one Slurm job runs them (gang.h): a node
 * per Worker with slotsPerWorker tasks (--ntasks-per-node), each Worker a
 * step on its node; the Launcher in the job's batch step on the first
 * node, beside Worker 0. Its mpirun reaches the Workers' nodes through
 * Slurm, not ssh: the batch script writes the hostfile mpi-operator would
 * (`<node> slots=N`, Intel and MPICH `<node>:N`) from the job's node list
 * and points the MPI's Slurm launcher at it (docs/jobs.md: why). */
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/podstatus.h"
#include "kinds/kubeflow/kubeflow.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L "training.kubeflow.org/"

static long long slots(json_t *job)
{
    json_t *s = sl_kube_path(job, "spec.slotsPerWorker");
    return json_is_integer(s) && json_integer_value(s) > 0 ? json_integer_value(s) : 1;
}

static void add_env(json_t *spec, const char *name, const char *value)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
    {
        json_t *env = json_object_get(c, "env");
        if (!json_is_array(env))
            json_object_set_new(c, "env", env = json_array());
        json_array_append_new(env, json_pack("{s:s, s:s}", "name", name, "value", value));
    }
}

/* newLauncherPodTemplate / newWorker's environment: the role, and the
 * Launcher's default slots (the hostfile and launcher come from the
 * batch script: mpijob_shape) */
static json_t *mpijob_new_pod(json_t *job, json_t *r, size_t i, long long attempt)
{
    const char *type = json_string_value(json_object_get(r, "type"));
    bool launcher = !strcmp(type, "Launcher");
    size_t node = launcher ? 0 : (size_t)json_integer_value(json_object_get(r, "index"));
    json_t *pod = ctl_tj_base_pod(&ctl_tj_mpijob, job, r, node, i, attempt);
    json_t *spec = json_object_get(pod, "spec");
    sl_kube_set_label(pod, L "job-role", launcher ? "launcher" : "worker");
    add_env(spec, "K_MPI_JOB_ROLE", launcher ? "launcher" : "worker");
    const char *impl = sl_kube_path_str(job, "spec.mpiImplementation");
    char buf[24];
    snprintf(buf, sizeof(buf), "%lld", slots(job));
    if (launcher && (!impl || !strcmp(impl, "OpenMPI"))) {
        add_env(spec, "OMPI_MCA_orte_keep_fqdn_hostnames", "true");
        add_env(spec, "OMPI_MCA_orte_set_default_slots", buf);
    } else if (launcher && !strcmp(impl, "Intel")) {
        add_env(spec, "I_MPI_PERHOST", buf);
    }
    sl_pod_apply_defaults(pod);
    ctl_status_init(pod, sl_kube_now_ns());
    return pod;
}

/* the hostfile of the job's nodes and each MPI's Slurm launcher (gang.h) */
static char *mpijob_shape(json_t *job, ctl_gang_t *g)
{
    long long w = json_integer_value(sl_kube_path(job, "spec.mpiReplicaSpecs.Worker.replicas"));
    g->nodes = w > 0 ? (size_t)w : 1;
    g->tasks_per_node = (unsigned)slots(job);
    if (g->n)
        g->m[0].batch = 1; /* the Launcher: member 0 (ctl_tj_replicas) */
    return ctl_gang_mpi_head(sl_kube_path_str(job, "spec.mpiImplementation"), slots(job));
}

const ctl_tj_kind_t ctl_tj_mpijob = {
    .res = "mpijobs.kubeflow.org",
    .kind = "MPIJob",
    .api_version = "kubeflow.org/v2beta1",
    .specs = "spec.mpiReplicaSpecs",
    .types = {"Launcher", "Worker"},
    .operator_name = "mpi-operator",
    .launcher_rules = true,
    .new_pod = mpijob_new_pod,
    .shape = mpijob_shape,
};
