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
    ctl_gang_member_t m[3] = {{l, NULL, 0}, {NULL, NULL, 0}, {w, NULL, 0}};
    ctl_gang_t g = {.owner = j, .kind = "MPIJob", .m = m, .n = 3};
    char *head = ctl_tj_mpijob.shape(j, &g);
    ok(g.nodes == 2 && g.tasks_per_node == 4 && m[0].batch && !m[2].batch,
       "the gang: 2 nodes, 4 tasks each, the Launcher the batch member");
    ok(head && strstr(head, "sed 's/$/ slots=4/'") &&
           strstr(head, "OMPI_MCA_orte_default_hostfile=\"$hostfile\"") &&
           strstr(head, "OMPI_MCA_plm_slurm_args=--overlap"),
       "the head writes the hostfile (<node> slots=4) and points OpenMPI at it");
    free(head);
    json_decref(l);
    json_decref(w);
    json_decref(reps);
    json_decref(j);
}

int main(void)
{
    tap_plan(16);
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
