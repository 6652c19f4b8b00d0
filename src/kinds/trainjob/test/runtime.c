/* runtime — a TrainJob's node pods from its runtime, as Kubeflow Trainer's
 * torch plugin and JobSet make them: the PET_* environment (numNodes,
 * numProcPerNode "auto" as the node's CPUs, the rank from the Job's
 * completion index, the master's DNS name and port), the trainer's image,
 * command, args, env and resourcesPerNode, runtimePatches' pod metadata,
 * names, hostname/subdomain, labels, the ownerReference; and the status
 * (jobsStatus, Complete, Failed). */
#include "common/tap.h"
#include "ctl/gang.h"
#include "kinds/trainjob/internal.h"
#include "kube/meta.h"

#include <stdlib.h>
#include <string.h>

/* upstream's torch-distributed runtime (manifests/base/runtimes) */
static json_t *runtime(void)
{
    return json_pack(
        "{s:s, s:s, s:{s:s}, s:{s:{s:i, s:{}}, s:{s:{s:[{s:s, s:{s:{s:{s:s}}, s:{s:{s:{s:[{s:s, "
        "s:s}]}}}}}]}}}}",
        "apiVersion", TJ_API_VERSION, "kind", "ClusterTrainingRuntime", "metadata", "name",
        "torch-distributed", "spec", "mlPolicy", "numNodes", 1, "torch", "template", "spec",
        "replicatedJobs", "name", "node", "template", "metadata", "labels", TJ_ANCESTOR, "trainer",
        "spec", "template", "spec", "containers", "name", "node", "image",
        "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime");
}

static json_t *trainjob(void)
{
    return json_loads(
        "{\"apiVersion\":\"trainer.kubeflow.org/v1alpha1\",\"kind\":\"TrainJob\","
        "\"metadata\":{\"name\":\"mn\",\"namespace\":\"team\",\"uid\":\"u-1\"},"
        "\"spec\":{\"runtimeRef\":{\"name\":\"torch-distributed\"},"
        "\"trainer\":{\"numNodes\":2,\"command\":[\"torchrun\",\"x.py\"],\"args\":[\"--a\"],"
        "\"env\":[{\"name\":\"CUSTOM_VAR\",\"value\":\"v\"}],"
        "\"resourcesPerNode\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}},"
        "\"runtimePatches\":[{\"manager\":\"me\",\"trainingRuntimeSpec\":{\"template\":{\"spec\":"
        "{\"replicatedJobs\":[{\"name\":\"node\",\"template\":{\"spec\":{\"template\":{"
        "\"metadata\":{\"annotations\":{\"slurmlink.io/runtime\":\"host\"}},"
        "\"spec\":{\"nodeSelector\":{\"k\":\"v\"}}}}}}]}}}}]}}",
        0, NULL);
}

static json_t *env_of(json_t *pod, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(sl_kube_path(json_array_get(sl_kube_path(pod, "spec.containers"), 0), "env"),
                       i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && !strcmp(n, name))
            return e;
    }
    return NULL;
}

static const char *env(json_t *pod, const char *name)
{
    return json_string_value(json_object_get(env_of(pod, name), "value"));
}

static void test_pod(void)
{
    json_t *tj = trainjob(), *rt = runtime();
    const char *why = NULL;
    json_t *pod = trainjob_node_pod(tj, rt, 1, 3, &why);
    ok(pod != NULL, "node 1's pod made");
    is_str(sl_kube_name(pod), "mn-node-0-1", "named <tj>-node-0-<i>, as JobSet names it");
    is_str(sl_kube_namespace(pod), "team", "in the TrainJob's namespace");
    is_str(sl_kube_path_str(pod, "spec.hostname"), "mn-node-0-1", "spec.hostname");
    is_str(sl_kube_path_str(pod, "spec.subdomain"), "mn", "spec.subdomain: the TrainJob's name");
    is_str(env(pod, "PET_NNODES"), "2", "PET_NNODES: trainer.numNodes");
    is_str(env(pod, "PET_NPROC_PER_NODE"), "2", "PET_NPROC_PER_NODE auto without GPUs: the CPUs");
    is_str(env(pod, "PET_MASTER_ADDR"), "mn-node-0-0.mn", "PET_MASTER_ADDR: <tj>-node-0-0.<tj>");
    is_str(env(pod, "PET_MASTER_PORT"), "29500", "PET_MASTER_PORT 29500");
    is_str(sl_kube_path_str(env_of(pod, "PET_NODE_RANK"), "valueFrom.fieldRef.fieldPath"),
           "metadata.annotations['batch.kubernetes.io/job-completion-index']",
           "PET_NODE_RANK from the completion index");
    is_str(sl_kube_annotation(pod, TJ_ANN_INDEX), "1", "the completion index is the node");
    is_str(sl_kube_annotation(pod, CTL_ANN_GANG_RANK), "1", "the gang rank is the node");
    is_str(sl_kube_annotation(pod, TJ_ANN_ATTEMPT), "3", "the attempt");
    is_str(env(pod, "CUSTOM_VAR"), "v", "trainer.env");
    json_t *c = json_array_get(sl_kube_path(pod, "spec.containers"), 0);
    is_str(sl_kube_path_str(c, "image"), "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime",
           "the runtime's image without trainer.image");
    is_str(json_string_value(json_array_get(json_object_get(c, "command"), 0)), "torchrun",
           "trainer.command");
    is_str(json_string_value(json_array_get(json_object_get(c, "args"), 0)), "--a", "trainer.args");
    is_str(sl_kube_path_str(c, "resources.requests.cpu"), "2", "resourcesPerNode");
    is_str(sl_kube_annotation(pod, "slurmlink.io/runtime"), "host", "runtimePatches' annotation");
    is_str(sl_kube_path_str(pod, "spec.nodeSelector.k"), "v", "runtimePatches' nodeSelector");
    is_str(sl_kube_label(pod, "jobset.sigs.k8s.io/jobset-name"), "mn", "JobSet's jobset-name");
    is_str(sl_kube_label(pod, "jobset.sigs.k8s.io/replicatedjob-name"), "node",
           "JobSet's replicatedjob-name");
    is_str(sl_kube_label(pod, TJ_ANCESTOR), "trainer", "Trainer's ancestor step");
    is_str(sl_kube_path_str(pod, "spec.restartPolicy"), "Never", "the gang restarts, not a pod");
    json_t *ref = json_array_get(sl_kube_path(pod, "metadata.ownerReferences"), 0);
    ok(json_is_true(json_object_get(ref, "controller")) &&
           !strcmp(json_string_value(json_object_get(ref, "kind")), "TrainJob") &&
           !strcmp(json_string_value(json_object_get(ref, "uid")), "u-1"),
       "the TrainJob's controller ownerReference");
    json_decref(pod);

    json_object_set_new(sl_kube_path(tj, "spec.trainer"), "numProcPerNode", json_integer(4));
    json_object_set_new(sl_kube_path(tj, "spec.trainer"), "image", json_string("busybox"));
    pod = trainjob_node_pod(tj, rt, 0, 0, &why);
    is_str(env(pod, "PET_NPROC_PER_NODE"), "4", "trainer.numProcPerNode");
    is_str(sl_kube_path_str(json_array_get(sl_kube_path(pod, "spec.containers"), 0), "image"),
           "busybox", "trainer.image");
    json_decref(pod);
    json_object_set_new(sl_kube_path(tj, "spec.trainer"), "numProcPerNode", json_null());
    json_object_set_new(sl_kube_path(tj, "spec.trainer"), "resourcesPerNode",
                        json_pack("{s:{s:i}}", "limits", "nvidia.com/gpu", 2));
    char np[16];
    trainjob_nproc(tj, rt, np, sizeof(np));
    is_str(np, "auto", "numProcPerNode auto with GPUs stays auto");
    json_object_del(sl_kube_path(tj, "spec"), "trainer");
    is_int(trainjob_num_nodes(tj, rt), 1, "no trainer: the runtime's mlPolicy.numNodes");
    json_decref(tj);
    json_decref(rt);
}

static void test_runtime(void)
{
    json_t *tj = trainjob(), *rt = runtime();
    const char *kind, *why = NULL;
    is_str(trainjob_runtime_res(tj, &kind), TJ_RES_CRT, "default kind: ClusterTrainingRuntime");
    json_object_set_new(sl_kube_path(tj, "spec.runtimeRef"), "kind",
                        json_string("TrainingRuntime"));
    is_str(trainjob_runtime_res(tj, &kind), TJ_RES_RT, "kind TrainingRuntime");
    json_object_set_new(sl_kube_path(tj, "spec.runtimeRef"), "kind", json_string("Other"));
    ok(trainjob_runtime_res(tj, &kind) == NULL, "another kind: not served");
    json_object_set_new(sl_kube_path(rt, "spec.mlPolicy"), "mpi", json_object());
    json_object_del(sl_kube_path(rt, "spec.mlPolicy"), "torch");
    is_str(trainjob_policy(rt, &why), "mpi", "mlPolicy.mpi: OpenMPI by default");
    json_object_set_new(sl_kube_path(rt, "spec.mlPolicy.mpi"), "mpiImplementation",
                        json_string("Intel"));
    ok(trainjob_policy(rt, &why) == NULL && strstr(why, "OpenMPI"), "Intel MPI: not run, said so");
    json_object_del(sl_kube_path(rt, "spec.mlPolicy"), "mpi");
    json_object_set_new(sl_kube_path(rt, "spec.mlPolicy"), "jax", json_object());
    ok(trainjob_policy(rt, &why) == NULL && why, "jax: not run, said so");
    json_object_del(sl_kube_path(rt, "spec.template.spec"), "replicatedJobs");
    ok(trainjob_node_pod(tj, rt, 0, 0, &why) == NULL && why, "no trainer job: no pod, why");
    json_decref(tj);
    json_decref(rt);
}

/* an MPI runtime in deepspeed-distributed's shape: node and launcher jobs */
static void test_mpi(void)
{
    json_t *rt = json_loads(
        "{\"spec\":{\"mlPolicy\":{\"numNodes\":1,\"mpi\":{\"numProcPerNode\":2,"
        "\"runLauncherAsNode\":true}},\"template\":{\"spec\":{\"replicatedJobs\":["
        "{\"name\":\"node\",\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":"
        "[{\"name\":\"node\",\"image\":\"w\",\"command\":[\"sleep\",\"600\"]}]}}}}},"
        "{\"name\":\"launcher\",\"template\":{\"metadata\":{\"labels\":{\"" TJ_ANCESTOR
        "\":\"trainer\"}},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":"
        "\"node\",\"image\":\"l\"}]}}}}}]}}}}",
        0, NULL);
    json_t *tj = trainjob();
    const char *why = NULL;
    json_t *pods = trainjob_pods(tj, rt, 0, &why);
    is_int(json_array_size(pods), 2, "runLauncherAsNode, 2 nodes: the launcher and one node pod");
    json_t *l = json_array_get(pods, 0), *w = json_array_get(pods, 1);
    is_str(sl_kube_name(l), "mn-launcher-0-0", "the launcher <tj>-launcher-0-0, member 0");
    is_str(sl_kube_name(w), "mn-node-0-0", "the node pod <tj>-node-0-0");
    is_str(sl_kube_annotation(w, CTL_ANN_GANG_RANK), "1", "... on node 1 (the launcher is node 0)");
    is_str(env(l, "OMPI_MCA_orte_set_default_slots"), "2", "the launcher's slots: numProcPerNode");
    is_str(json_string_value(json_array_get(
               sl_kube_path(json_array_get(sl_kube_path(l, "spec.containers"), 0), "command"), 0)),
           "torchrun", "trainer.command is the launcher's");
    is_str(sl_kube_label(w, TJ_ANCESTOR), NULL, "the node pods are no trainer step");
    json_decref(pods);
    json_decref(tj);
    json_decref(rt);
}

static json_t *phase(const char *p) { return json_pack("{s:{s:s}}", "status", "phase", p); }

static void test_status(void)
{
    json_t *st = json_object();
    json_t *pods = json_pack("[o, o]", phase("Running"), phase("Succeeded"));
    is_int(trainjob_pods_status(st, pods, 2, NULL, "t1"), 0, "one runs: not finished");
    is_int(json_integer_value(
               sl_kube_path(json_array_get(json_object_get(st, "jobsStatus"), 0), "active")),
           1, "jobsStatus active 1");
    json_decref(pods);
    pods = json_pack("[o, o]", phase("Succeeded"), phase("Succeeded"));
    is_int(trainjob_pods_status(st, pods, 2, NULL, "t2"), 1, "all succeeded: finished");
    json_t *c = sl_kube_condition(json_object_get(st, "conditions"), "Complete");
    is_str(json_string_value(json_object_get(c, "reason")), "AllJobsCompleted",
           "Complete, JobSet's reason");
    is_int(json_integer_value(
               sl_kube_path(json_array_get(json_object_get(st, "jobsStatus"), 0), "succeeded")),
           1, "jobsStatus succeeded 1");
    json_decref(pods);
    json_decref(st);
    st = json_object();
    pods = json_pack("[o, o]", phase("Failed"), phase("Running"));
    is_int(trainjob_pods_status(st, pods, 2, NULL, "t3"), 1, "a node failed: finished");
    c = sl_kube_condition(json_object_get(st, "conditions"), "Failed");
    is_str(json_string_value(json_object_get(c, "reason")), "FailedJobs",
           "Failed, JobSet's reason");
    json_decref(pods);
    trainjob_set_condition(st, "Suspended", true, "Suspended", "TrainJob is suspended", "t4");
    trainjob_set_condition(st, "Suspended", true, "Suspended", "TrainJob is suspended", "t5");
    c = sl_kube_condition(json_object_get(st, "conditions"), "Suspended");
    is_str(json_string_value(json_object_get(c, "lastTransitionTime")), "t4",
           "the transition time kept while unchanged");
    trainjob_set_condition(st, "Suspended", false, "Resumed", "TrainJob is resumed", "t6");
    is_str(json_string_value(json_object_get(c, "status")), "False", "resumed: False");
    is_str(json_string_value(json_object_get(c, "lastTransitionTime")), "t6", "... at t6");
    json_decref(st);
}

int main(void)
{
    tap_plan(53);
    test_pod();
    test_runtime();
    test_status();
    test_mpi();
    return tap_done();
}
