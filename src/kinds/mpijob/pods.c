/* src/kinds/mpijob/pods.c — a kubeflow.org/v2beta1 MPIJob's pods and gang, as
 * mpi-operator makes the pods (<job>-launcher, <job>-worker-N; its
 * labels and environment) and as one Slurm job runs them (gang.h): a node
 * per Worker with slotsPerWorker tasks (--ntasks-per-node), each Worker a
 * step on its node (more Workers than Slurm has nodes: several to a node,
 * Worker i on node i mod N); the Launcher in the job's batch step on the
 * first node, beside Worker 0. Its mpirun reaches the Workers through
 * Slurm, not ssh. A Launcher on the host runtime: the batch script writes
 * the hostfile mpi-operator would (`<node> slots=N`, Intel and MPICH
 * `<node>:N`) from the job's node list and points the MPI's Slurm launcher
 * at it. A Launcher in a container (no Slurm there): mpi-operator's
 * /etc/mpi/hostfile of the Workers' names, and the MPI's rsh agent
 * pointed at slurmlink-mpi-rsh, which starts mpirun's daemons in the
 * Workers' containers through steps of the job (gang.h rsh_dir;
 * docs/jobs.md: why). */
#include "common/buf.h"
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/podstatus.h"
#include "kinds/kubeflow/kubeflow.h"
#include "kinds/mpijob/mpijob.h"
#include "kube/meta.h"
#include "mpirsh/proto.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L "training.kubeflow.org/"
#define MPI_VOLUME "mpi-job-config" /* mpi-operator's name of the Launcher's /etc/mpi */
#define MPI_DIR "/etc/mpi"

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

/* a replica's template runs in a container (its runtime mounts volumes)
 * whose /etc/mpi is free */
static bool rsh_template(json_t *job, const char *type)
{
    char path[64];
    snprintf(path, sizeof(path), "spec.mpiReplicaSpecs.%s.template", type);
    json_t *t = sl_kube_path(job, path);
    json_t *spec = json_object_get(t, "spec"),
           *c0 = json_array_get(json_object_get(spec, "containers"), 0);
    const char *ann =
        json_string_value(json_object_get(sl_kube_path(t, "metadata.annotations"), SL_ANN_RUNTIME));
    const char *image = json_string_value(json_object_get(c0, "image"));
    const sl_runtime_ops_t *ops = sl_runtime_get(sl_runtime_choose(ann, image, 1, "charliecloud"));
    if (!ops || !ops->can_mount)
        return false;
    size_t i, j;
    json_t *v, *c, *m;
    json_array_foreach(json_object_get(spec, "volumes"), i, v)
    {
        const char *n = json_string_value(json_object_get(v, "name"));
        if (n && !strcmp(n, MPI_VOLUME))
            return false;
    }
    json_array_foreach(json_object_get(spec, "containers"), i, c)
        json_array_foreach(json_object_get(c, "volumeMounts"), j, m)
    {
        const char *p = json_string_value(json_object_get(m, "mountPath"));
        if (p && !strncmp(p, MPI_DIR, strlen(MPI_DIR)) &&
            (!p[strlen(MPI_DIR)] || p[strlen(MPI_DIR)] == '/'))
            return false;
    }
    return true;
}

/* the Launcher and the Workers run in containers with /etc/mpi free: the
 * rsh agent (gang.h rsh_dir) in each, since mpirun's daemons look up the
 * agent mpirun names too */
bool api_mpijob_rsh(json_t *job)
{
    return rsh_template(job, "Launcher") &&
           (!sl_kube_path(job, "spec.mpiReplicaSpecs.Worker") || rsh_template(job, "Worker"));
}

bool api_mpijob_sshd(json_t *container)
{
    const char *cmd = json_string_value(json_array_get(json_object_get(container, "command"), 0));
    const char *base = cmd ? strrchr(cmd, '/') : NULL;
    return cmd && !strcmp(base ? base + 1 : cmd, "sshd");
}

/* a Worker's containers that would run sshd wait for the Launcher instead:
 * the agent the batch script put in their /etc/mpi before their steps
 * (gang.c), which keeps the container up until the job's end signals it */
static void sshd_to_wait(json_t *spec)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
    {
        if (!api_mpijob_sshd(c))
            continue;
        json_object_set_new(c, "command", json_pack("[s, s]", MPI_DIR "/rsh", SL_MPIRSH_WAIT));
        json_object_del(c, "args");
    }
}

/* a pod's /etc/mpi: an emptyDir the batch script fills (gang.c) */
static void rsh_mount(json_t *spec)
{
    json_t *vols = json_object_get(spec, "volumes");
    if (!json_is_array(vols))
        json_object_set_new(spec, "volumes", vols = json_array());
    json_array_append_new(vols, json_pack("{s:s, s:{}}", "name", MPI_VOLUME, "emptyDir"));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
    {
        json_t *m = json_object_get(c, "volumeMounts");
        if (!json_is_array(m))
            json_object_set_new(c, "volumeMounts", m = json_array());
        json_array_append_new(m, json_pack("{s:s, s:s}", "name", MPI_VOLUME, "mountPath", MPI_DIR));
    }
}

/* mpi-operator's hostfile path, and each MPI's ssh launcher pointed at the
 * agent; OpenMPI: no Slurm components (the job's SLURM_* may be in the
 * container), its daemons not daemonized (each lives in its step) */
static void rsh_env(json_t *spec, const char *impl)
{
    static const char *const ompi[] = {"OMPI_MCA_orte_default_hostfile",
                                       MPI_DIR "/hostfile",
                                       "OMPI_MCA_plm",
                                       "rsh",
                                       "OMPI_MCA_plm_rsh_agent",
                                       MPI_DIR "/rsh",
                                       "OMPI_MCA_ras",
                                       "^slurm",
                                       "OMPI_MCA_plm_rsh_no_tree_spawn",
                                       "1",
                                       "OMPI_MCA_orte_leave_session_attached",
                                       "1",
                                       NULL};
    static const char *const intel[] = {"I_MPI_HYDRA_HOST_FILE",
                                        MPI_DIR "/hostfile",
                                        "I_MPI_HYDRA_BOOTSTRAP",
                                        "ssh",
                                        "I_MPI_HYDRA_BOOTSTRAP_EXEC",
                                        MPI_DIR "/rsh",
                                        NULL};
    static const char *const mpich[] = {"HYDRA_HOST_FILE",
                                        MPI_DIR "/hostfile",
                                        "HYDRA_LAUNCHER",
                                        "ssh",
                                        "HYDRA_LAUNCHER_EXEC",
                                        MPI_DIR "/rsh",
                                        NULL};
    const char *const *v = !impl || !strcmp(impl, "OpenMPI") ? ompi
                           : !strcmp(impl, "Intel")          ? intel
                                                             : mpich;
    for (size_t i = 0; v[i]; i += 2)
        add_env(spec, v[i], v[i + 1]);
}

/* newLauncherPodTemplate / newWorker's environment: the role, and the
 * Launcher's default slots (the hostfile and launcher: mpijob_shape, and
 * in a container rsh_env) */
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
    if (api_mpijob_rsh(job)) {
        rsh_mount(spec);
        if (launcher)
            rsh_env(spec, impl);
        else
            sshd_to_wait(spec);
    }
    sl_pod_apply_defaults(pod);
    ctl_status_init(pod, sl_kube_now_ns());
    return pod;
}

/* mpi-operator's hostfile: <job>-worker-<i>.<job>-worker.<namespace>.svc
 * with slotsPerWorker slots, a line per Worker */
static char *rsh_hostfile(json_t *job, size_t workers)
{
    const char *impl = sl_kube_path_str(job, "spec.mpiImplementation");
    bool ompi = !impl || !strcmp(impl, "OpenMPI");
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < workers; i++)
        sl_buf_printf(&b, "%s-worker-%zu.%s-worker.%s.svc%s%lld\n", sl_kube_name(job), i,
                      sl_kube_name(job), sl_kube_namespace(job), ompi ? " slots=" : ":",
                      slots(job));
    return sl_buf_steal(&b);
}

/* the gang's shape: a node per Worker (packed when Slurm has fewer), the
 * Launcher in the batch step; the host's hostfile and Slurm launcher, or
 * the container's rsh agent */
static char *mpijob_shape(json_t *job, ctl_gang_t *g)
{
    long long w = json_integer_value(sl_kube_path(job, "spec.mpiReplicaSpecs.Worker.replicas"));
    g->nodes = w > 0 ? (size_t)w : 1;
    g->tasks_per_node = (unsigned)slots(job);
    g->pack = 1;
    if (g->n)
        g->m[0].batch = 1; /* the Launcher: member 0 (ctl_tj_replicas) */
    if (w > 0 && api_mpijob_rsh(job)) {
        g->rsh_dir = "volumes/" MPI_VOLUME;
        g->hostfile = rsh_hostfile(job, (size_t)w);
    }
    return ctl_gang_mpi_head(sl_kube_path_str(job, "spec.mpiImplementation"), slots(job), g->nodes);
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
