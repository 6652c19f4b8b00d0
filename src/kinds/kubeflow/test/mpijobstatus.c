/* mpijobstatus — an MPIJob's pods, gang and status as mpi-operator's rules
 * give them (ctl/trainjob.h, src/kinds/mpijob/pods.c, src/kinds/kubeflow/status.c): the Launcher
 * first
 * (<job>-launcher, node 0, the batch member), a Worker per node with
 * slotsPerWorker tasks, the hostfile in the batch script's head; Running
 * once the Launcher and every Worker run, only the Launcher's end decides,
 * the messages name namespace/name. */
#include "common/tap.h"
#include "ctl/gang.h"
#include "kinds/kubeflow/kubeflow.h"
#include "kinds/kubeflow/status.h"
#include "kube/meta.h"

#include <stdlib.h>
#include <string.h>

static json_t *job(int workers, int slots)
{
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:i, s:s, s:{s:{s:i, s:s, s:{s:{s:[{s:s, "
                     "s:s}]}}}, s:{s:i, s:s, s:{s:{s:[{s:s, s:s}]}}}}, s:{}}}",
                     "apiVersion", "kubeflow.org/v2beta1", "kind", "MPIJob", "metadata", "name",
                     "pi", "namespace", "default", "uid", "u-1", "spec", "slotsPerWorker", slots,
                     "mpiImplementation", "OpenMPI", "mpiReplicaSpecs", "Launcher", "replicas", 1,
                     "restartPolicy", "OnFailure", "template", "spec", "containers", "name", "l",
                     "image", "busybox", "Worker", "replicas", workers, "restartPolicy", "Never",
                     "template", "spec", "containers", "name", "w", "image", "busybox",
                     "runPolicy");
}

static json_t *pod(const char *type, const char *phase)
{
    return json_pack("{s:{s:{s:s}}, s:{s:s, s:[{s:{s:{s:i}}}]}}", "metadata", "labels",
                     "training.kubeflow.org/replica-type", type, "status", "phase", phase,
                     "containerStatuses", "state", "terminated", "exitCode",
                     strcmp(phase, "Failed") ? 0 : 1);
}

static const char *cond(json_t *st, const char *type, const char *what)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(st, "conditions"), i,
                       c) if (!strcmp(json_string_value(json_object_get(c, "type")),
                                      type)) return json_string_value(json_object_get(c, what));
    return "";
}

static json_t *run(json_t *j, json_t *pods, ptj_next_t *next)
{
    json_t *st = ctl_tj_status(&ctl_tj_mpijob, j, pods, 0, 1700000000000000000LL, next);
    json_object_set_new(j, "status", st); /* st borrowed: j holds it */
    json_decref(pods);
    return st;
}

static void pods_and_gang(void)
{
    json_t *j = job(2, 4), *reps = ctl_tj_replicas(&ctl_tj_mpijob, j);
    is_int((long long)json_array_size(reps), 3, "the Launcher and two Workers");
    json_t *l = ctl_tj_mpijob.new_pod(j, json_array_get(reps, 0), 0, 0);
    json_t *w = ctl_tj_mpijob.new_pod(j, json_array_get(reps, 2), 2, 0);
    is_str(sl_kube_name(l), "pi-launcher", "the Launcher's pod: <job>-launcher");
    is_str(sl_kube_name(w), "pi-worker-1", "a Worker's: <job>-worker-N");
    is_str(sl_kube_annotation(l, CTL_ANN_GANG_RANK), "0", "the Launcher on node 0");
    is_str(sl_kube_annotation(w, CTL_ANN_GANG_RANK), "1", "Worker 1 on node 1");
    json_t *lb = sl_kube_path(w, "metadata.labels");
    is_str(json_string_value(json_object_get(lb, "training.kubeflow.org/job-role")), "worker",
           "job-role worker");
    is_str(json_string_value(json_object_get(lb, "training.kubeflow.org/operator-name")),
           "mpi-operator", "operator-name mpi-operator");
    ctl_gang_member_t m[3] = {{.pod = l}, {.pod = NULL}, {.pod = w}};
    ctl_gang_t g = {.owner = j, .kind = "MPIJob", .m = m, .n = 3};
    char *head = ctl_tj_mpijob.shape(j, &g);
    ok(g.nodes == 2 && g.tasks_per_node == 4 && g.pack && m[0].batch && !m[2].batch,
       "the gang: 2 nodes (packed when Slurm has fewer), 4 tasks each, the Launcher the batch "
       "member");
    ok(head && strstr(head, " slots=$(((2 - j + ${#nodes[@]} - 1) / ${#nodes[@]} * 4))") &&
           strstr(head, "OMPI_MCA_orte_default_hostfile=\"$hostfile\"") &&
           strstr(head, "OMPI_MCA_plm_slurm_args=--overlap"),
       "the head writes the hostfile (<node> slots=4 per Worker on it) and points OpenMPI at it");
    is_str(g.rsh_dir, "volumes/mpi-job-config",
           "a Launcher in a container: the rsh agent's folder");
    is_str(g.hostfile,
           "pi-worker-0.pi-worker.default.svc slots=4\npi-worker-1.pi-worker.default.svc slots=4\n",
           "... mpi-operator's hostfile of the Workers");
    json_t *env = sl_kube_path(json_array_get(sl_kube_path(l, "spec.containers"), 0), "env");
    size_t i;
    json_t *e;
    const char *agent = NULL, *hf = NULL;
    json_array_foreach(env, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (!strcmp(n, "OMPI_MCA_plm_rsh_agent"))
            agent = json_string_value(json_object_get(e, "value"));
        if (!strcmp(n, "OMPI_MCA_orte_default_hostfile"))
            hf = json_string_value(json_object_get(e, "value"));
    }
    ok(agent && !strcmp(agent, "/etc/mpi/rsh") && hf && !strcmp(hf, "/etc/mpi/hostfile"),
       "the Launcher's mpirun: the rsh agent /etc/mpi/rsh, the hostfile /etc/mpi/hostfile");
    is_str(
        json_string_value(sl_kube_path(json_array_get(sl_kube_path(l, "spec.volumes"), 0), "name")),
        "mpi-job-config", "... its /etc/mpi an emptyDir");
    free(head);
    free(g.hostfile);
    json_t *hj = job(2, 1);
    json_object_set_new(sl_kube_path(hj, "spec.mpiReplicaSpecs.Launcher.template"), "metadata",
                        json_pack("{s:{s:s}}", "annotations", "slurmlink.io/runtime", "host"));
    ctl_gang_t hg = {.owner = hj, .kind = "MPIJob", .m = m, .n = 3};
    head = ctl_tj_mpijob.shape(hj, &hg);
    json_t *hl = ctl_tj_mpijob.new_pod(hj, json_array_get(reps, 0), 0, 0);
    ok(!hg.rsh_dir && !hg.hostfile && !sl_kube_path(hl, "spec.volumes"),
       "a Launcher on the host runtime: no rsh agent, OpenMPI's Slurm launcher");
    free(head);
    json_decref(hl);
    json_decref(hj);
    json_decref(l);
    json_decref(w);
    json_decref(reps);
    json_decref(j);
}

int main(void)
{
    tap_plan(21);
    pods_and_gang();
    json_t *j = job(2, 1);
    ptj_next_t next;
    json_t *st = run(j,
                     json_pack("[o, o, o]", pod("launcher", "Running"), pod("worker", "Running"),
                               pod("worker", "Pending")),
                     &next);
    is_str(cond(st, "Created", "message"), "MPIJob default/pi is created.",
           "Created: mpi-operator's message, namespace/name");
    is_str(cond(st, "Running", "status"), "", "not Running while a Worker is not");
    st = run(j,
             json_pack("[o, o, o]", pod("launcher", "Running"), pod("worker", "Running"),
                       pod("worker", "Running")),
             &next);
    is_str(cond(st, "Running", "reason"), "MPIJobRunning",
           "Running once the Launcher and every Worker run");
    st = run(j,
             json_pack("[o, o, o]", pod("launcher", "Running"), pod("worker", "Failed"),
                       pod("worker", "Running")),
             &next);
    ok(next == PTJ_GO_ON && !*cond(st, "Failed", "status"),
       "a failed Worker decides nothing: the Launcher does");
    st = run(j,
             json_pack("[o, o, o]", pod("launcher", "Succeeded"), pod("worker", "Failed"),
                       pod("worker", "Failed")),
             &next);
    is_str(cond(st, "Succeeded", "message"), "MPIJob default/pi successfully completed.",
           "the Launcher succeeded: Succeeded with mpi-operator's message");
    ok(next == PTJ_STOP && !strcmp(cond(st, "Running", "status"), "False"),
       "... stop, Running False");
    json_decref(j);
    j = job(2, 1);
    st = run(j, json_pack("[o]", pod("launcher", "Failed")), &next);
    ok(next == PTJ_RESTART && !strcmp(cond(st, "Restarting", "reason"), "MPIJobRestarting"),
       "a failed Launcher with OnFailure restarts the gang (MPIJobRestarting)");
    json_decref(j);
    return tap_done();
}
