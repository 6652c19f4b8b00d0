/* jobpod — a Job's template becomes the pod of one index as kube's Job
 * controller makes it: owner reference, labels, the Indexed mode's index
 * label, annotation, hostname and JOB_COMPLETION_INDEX, the creator, pod
 * defaults, and no change to the Job itself. */
#include "kinds/job/jobpod.h"
#include "common/tap.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <stdlib.h>
#include <string.h>

static json_t *job(const char *mode)
{
    json_t *j = json_pack(
        "{s:s, s:s, s:{s:s, s:s, s:s, s:{s:s}}, s:{s:s, s:i, s:{s:{s:{s:s, s:s}}, s:{s:s, "
        "s:[{s:s, s:s}]}}}}",
        "apiVersion", "batch/v1", "kind", "Job", "metadata", "name", "train", "namespace", "ml",
        "uid", "11111111-2222-3333-4444-555555555555", "annotations", SL_ANN_USER, "alice", "spec",
        "completionMode", mode, "completions", 4, "template", "metadata", "labels", "job-name",
        "train", "controller-uid", "11111111-2222-3333-4444-555555555555", "spec", "restartPolicy",
        "Never", "containers", "name", "c", "image", "busybox");
    return j;
}

static const char *s(json_t *o, const char *path) { return sl_kube_path_str(o, path); }

/* a failed pod whose container c exited with code */
static json_t *failed_pod(int code)
{
    return json_pack("{s:{s:s, s:s}, s:{s:s, s:[{s:s, s:{s:{s:i}}}]}}", "metadata", "name", "p",
                     "namespace", "ml", "status", "phase", "Failed", "containerStatuses", "name",
                     "c", "state", "terminated", "exitCode", code);
}

static ctl_pfp_action_t act(const char *rules, int code, char *msg)
{
    json_t *r = json_loads(rules, 0, NULL);
    json_t *j = json_pack("{s:{s:{s:o}}}", "spec", "podFailurePolicy", "rules", r);
    json_t *p = failed_pod(code);
    ctl_pfp_action_t a = ctl_job_pod_failure_action(j, p, msg, 512);
    json_decref(j);
    json_decref(p);
    return a;
}

static void policy(void)
{
    char msg[512] = "";
    const char *in42 = "[{\"action\":\"FailJob\",\"onExitCodes\":{\"operator\":\"In\","
                       "\"values\":[42]}}]";
    ok(act(in42, 42, msg) == CTL_PFP_FAIL_JOB, "FailJob: exit code 42 In [42]");
    is_str(msg,
           "Container c for pod ml/p failed with exit code 42 matching FailJob rule at index 0",
           "kube's message");
    ok(act(in42, 3, msg) == CTL_PFP_COUNT, "exit code 3: no rule matches, counted");
    ok(act("[{\"action\":\"Ignore\",\"onExitCodes\":{\"operator\":\"NotIn\",\"values\":[1]}},"
           "{\"action\":\"FailJob\",\"onExitCodes\":{\"operator\":\"In\",\"values\":[7]}}]",
           7, msg) == CTL_PFP_IGNORE,
       "the first matching rule wins (Ignore on NotIn [1])");
    ok(act("[{\"action\":\"FailJob\",\"onExitCodes\":{\"containerName\":\"other\","
           "\"operator\":\"In\",\"values\":[42]}}]",
           42, msg) == CTL_PFP_COUNT &&
           act("[{\"action\":\"FailJob\",\"onExitCodes\":{\"operator\":\"NotIn\",\"values\":[1]}}]",
               0, msg) == CTL_PFP_COUNT,
       "another container's rule, and exit code 0, never match");
}

int main(void)
{
    tap_plan(20);
    json_t *j = job("Indexed"), *before = json_deep_copy(j);
    json_t *p = ctl_job_new_pod(j, 2, 1);
    json_t *ref = json_array_get(sl_kube_path(p, "metadata.ownerReferences"), 0);
    is_str(s(ref, "kind"), "Job", "ownerReference kind Job");
    ok(json_is_true(json_object_get(ref, "controller")) &&
           json_is_true(json_object_get(ref, "blockOwnerDeletion")) &&
           !strcmp(s(ref, "uid"), "11111111-2222-3333-4444-555555555555") &&
           !strcmp(s(ref, "apiVersion"), "batch/v1") && !strcmp(s(ref, "name"), "train"),
       "controller, blockOwnerDeletion, the Job's uid, name and apiVersion");
    is_str(sl_kube_label(p, "job-name"), "train", "the template's labels");
    is_str(sl_kube_label(p, ANN_INDEX), "2", "Indexed: the index label");
    is_str(sl_kube_annotation(p, ANN_INDEX), "2", "Indexed: the index annotation");
    is_str(s(p, "spec.hostname"), "train-2", "Indexed: hostname <job>-<index>");
    json_t *env = json_array_get(
        json_object_get(json_array_get(sl_kube_path(p, "spec.containers"), 0), "env"), 0);
    ok(!strcmp(s(env, "name"), "JOB_COMPLETION_INDEX") &&
           !strcmp(s(env, "valueFrom.fieldRef.fieldPath"),
                   "metadata.annotations['batch.kubernetes.io/job-completion-index']"),
       "Indexed: JOB_COMPLETION_INDEX from the annotation");
    is_str(sl_kube_annotation(p, SL_ANN_USER), "alice", "the Job's creator runs the pod");
    is_str(sl_kube_annotation(p, SL_ANN_JOB_UID), "11111111-2222-3333-4444-555555555555",
           "slurmlink.io/job-uid ties the pod to the Job's arrays");
    is_str(s(p, "metadata.namespace"), "ml", "the Job's namespace");
    ok(!sl_kube_name(p), "no name yet (generateName is the caller's)");
    ok(!strcmp(s(p, "spec.dnsPolicy"), "ClusterFirst") && !strcmp(s(p, "status.phase"), "Pending"),
       "pod defaults and a Pending status");
    ok(json_equal(j, before), "the Job is not changed");
    json_decref(p);
    json_decref(j);
    json_decref(before);
    j = job("NonIndexed");
    p = ctl_job_new_pod(j, 0, 1);
    ok(!sl_kube_label(p, ANN_INDEX) && !s(p, "spec.hostname") &&
           !json_object_get(json_array_get(sl_kube_path(p, "spec.containers"), 0), "env"),
       "NonIndexed: no index label, hostname or JOB_COMPLETION_INDEX");
    json_decref(p);
    /* a template carrying the server's annotations: the pod has the
     * controller's own (the Job's uid and creator), never the template's */
    json_object_set_new(sl_kube_path(j, "spec.template.metadata"), "annotations",
                        json_pack("{s:s, s:s, s:s, s:s}", SL_ANN_JOB_ID, "17", SL_ANN_ARRAY_TASK,
                                  "17_0", SL_ANN_JOB_UID, "forged", SL_ANN_USER, "bob"));
    p = ctl_job_new_pod(j, 0, 1);
    ok(!sl_kube_annotation(p, SL_ANN_JOB_ID) && !sl_kube_annotation(p, SL_ANN_ARRAY_TASK) &&
           !strcmp(sl_kube_annotation(p, SL_ANN_JOB_UID), "11111111-2222-3333-4444-555555555555") &&
           !strcmp(sl_kube_annotation(p, SL_ANN_USER), "alice"),
       "the template's server-owned annotations are dropped: job-id, array-task; job-uid and "
       "user are the Job's");
    json_decref(p);
    json_decref(j);
    policy();
    return tap_done();
}
