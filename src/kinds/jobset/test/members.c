/* members — a JobSet's gang members and their pods (kinds/jobset/members.c):
 * rank order over replicated Jobs, replicas and completion indexes; the
 * global job index; the pod's name, hostname and subdomain as upstream's
 * controllers make them; the jobset.sigs.k8s.io labels and annotations, the
 * Job controller's completion index and JOB_COMPLETION_INDEX by the
 * downward API; the gang's bookkeeping; and the defaults and field errors
 * of the API hooks (kinds/jobset/api.c). */
#include "common/err.h"
#include "common/tap.h"
#include "ctl/gang.h"
#include "kinds/jobset/jobset.h"
#include "kube/meta.h"
#include "translate/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *parse(const char *text)
{
    json_t *o = json_loads(text, 0, NULL);
    if (!o)
        abort();
    return o;
}

/* upstream's paralleljobs shape: workers 2 x 2 pods, driver 1 x 1 */
static const char *JS = "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\","
                        "\"metadata\":{\"name\":\"pj\",\"namespace\":\"team\",\"uid\":\"u-1\"},"
                        "\"spec\":{\"replicatedJobs\":["
                        "{\"name\":\"workers\",\"replicas\":2,\"template\":{\"spec\":{"
                        "\"parallelism\":2,\"completions\":2,"
                        "\"template\":{\"metadata\":{\"labels\":{\"app\":\"w\"}},\"spec\":{"
                        "\"containers\":[{\"name\":\"c\","
                        "\"image\":\"busybox\"}]}}}}},"
                        "{\"name\":\"driver\",\"template\":{\"spec\":{\"template\":{\"spec\":{"
                        "\"containers\":[{\"name\":"
                        "\"d\",\"image\":\"busybox\"}]}}}}}]}}";

static void members(void)
{
    json_t *js = parse(JS);
    js_member_t m[8];
    size_t n = js_members(js, m, 8);
    is_int((long long)n, 5, "2 replicas x 2 completions + 1 x 1: five members");
    char got[256] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s/%lld/%lld/%lld", i ? " " : "",
                 m[i].rjob, m[i].job, m[i].global, m[i].pod);
    is_str(got, "workers/0/0/0 workers/0/0/1 workers/1/1/0 workers/1/1/1 driver/0/2/0",
           "rank order: replicated Job, job index, completion index; the global job index");
    is_int((long long)js_members(js, m, 0), 5, "the count without room to write");
    is_str(js_subdomain(js), "pj", "the subdomain defaults to the JobSet's name");
    json_object_set_new(sl_kube_path(js, "spec"), "network",
                        parse("{\"enableDNSHostnames\":true,\"subdomain\":\"net\"}"));
    is_str(js_subdomain(js), "net", "network.subdomain");
    json_object_set_new(sl_kube_path(js, "spec.network"), "enableDNSHostnames", json_false());
    ok(js_subdomain(js) == NULL, "no subdomain when enableDNSHostnames is false");
    json_decref(js);
}

static const char *env_field(json_t *pod, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(
        sl_kube_path(json_array_get(sl_kube_path(pod, "spec.containers"), 0), "env"), i,
        e) if (!strcmp(json_string_value(json_object_get(e, "name")),
                       name)) return sl_kube_path_str(e, "valueFrom.fieldRef.fieldPath");
    return NULL;
}

static void pod(void)
{
    json_t *js = parse(JS);
    sl_kube_set_annotation(js, "slurmlink.io/user", "alice");
    js_member_t m[8];
    js_members(js, m, 8);
    json_t *p = js_new_pod(js, &m[3], 3, 2, 1);
    is_str(sl_kube_name(p), "pj-workers-1-1", "the pod's name: <js>-<rjob>-<job>-<index>");
    is_str(sl_kube_path_str(p, "spec.hostname"), "pj-workers-1-1", "its hostname");
    is_str(sl_kube_path_str(p, "spec.subdomain"), "pj", "its subdomain");
    is_str(sl_kube_path_str(p, "spec.restartPolicy"), "Never",
           "restartPolicy Never: the gang restarts");
    static const char *const keys[][2] = {
        {"jobset.sigs.k8s.io/jobset-name", "pj"},
        {"jobset.sigs.k8s.io/jobset-uid", "u-1"},
        {"jobset.sigs.k8s.io/replicatedjob-name", "workers"},
        {"jobset.sigs.k8s.io/replicatedjob-replicas", "2"},
        {"jobset.sigs.k8s.io/global-replicas", "3"},
        {"jobset.sigs.k8s.io/job-index", "1"},
        {"jobset.sigs.k8s.io/job-global-index", "1"},
        {"jobset.sigs.k8s.io/restart-attempt", "1"},
        {"jobset.sigs.k8s.io/group-name", "default"},
        {"jobset.sigs.k8s.io/job-group-index", "1"},
        /* jobHashKey: sha1("team/pj-workers-1") */
        {"jobset.sigs.k8s.io/job-key", "6c283048f90565c12dff1fbc01a8c266ec59d964"},
        {"batch.kubernetes.io/job-completion-index", "1"},
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const char *l =
            json_string_value(json_object_get(sl_kube_path(p, "metadata.labels"), keys[i][0]));
        const char *a = sl_kube_annotation(p, keys[i][0]);
        ok(l && a && !strcmp(l, keys[i][1]) && !strcmp(a, keys[i][1]),
           "%s=%s (label %s, annotation %s)", keys[i][0], keys[i][1], l ? l : "-", a ? a : "-");
    }
    is_str(sl_kube_path_str(sl_kube_path(p, "metadata.labels"), "job-name"), "pj-workers-1",
           "job-name: the child Job's name <js>-<rjob>-<job>");
    is_str(sl_kube_path_str(sl_kube_path(p, "metadata.labels"), "app"), "w",
           "the template's labels kept");
    is_str(env_field(p, "JOB_COMPLETION_INDEX"),
           "metadata.annotations['batch.kubernetes.io/job-completion-index']",
           "JOB_COMPLETION_INDEX from the index annotation (downward API)");
    is_str(sl_kube_annotation(p, CTL_ANN_GANG_RANK), "3", "the gang rank");
    is_str(sl_kube_annotation(p, CTL_ANN_GANG_ATTEMPT), "2", "the attempt");
    is_str(sl_kube_annotation(p, "slurmlink.io/user"), "alice", "the creator's user");
    json_t *ref = json_array_get(sl_kube_path(p, "metadata.ownerReferences"), 0);
    ok(json_is_true(json_object_get(ref, "controller")) &&
           !strcmp(json_string_value(json_object_get(ref, "kind")), "JobSet") &&
           !strcmp(json_string_value(json_object_get(ref, "uid")), "u-1"),
       "the JobSet is its controller owner");
    json_decref(p);
    json_object_set_new(sl_kube_path(js, "spec"), "coordinator",
                        parse("{\"replicatedJob\":\"driver\",\"jobIndex\":0,\"podIndex\":0}"));
    p = js_new_pod(js, &m[0], 0, 0, 0);
    is_str(sl_kube_annotation(p, "jobset.sigs.k8s.io/coordinator"), "pj-driver-0-0.pj",
           "spec.coordinator: every pod's coordinator annotation (CoordinatorEndpoint)");
    is_str(json_string_value(json_object_get(sl_kube_path(p, "metadata.labels"),
                                             "jobset.sigs.k8s.io/coordinator")),
           "pj-driver-0-0.pj", "... and label");
    json_decref(p);
    json_object_del(sl_kube_path(js, "spec"), "coordinator");
    p = js_new_pod(js, &m[4], 4, 0, 0);
    is_str(sl_kube_name(p), "pj-driver-0-0", "the driver's pod");
    is_str(sl_kube_annotation(p, "jobset.sigs.k8s.io/job-global-index"), "2",
           "the driver's child Job is the set's third");
    json_decref(p);
    json_decref(js);
}

static void api(void)
{
    json_t *js = parse(JS);
    js_api_ops.defaults(js);
    is_str(sl_kube_path_str(js, "spec.successPolicy.operator"), "All", "default successPolicy All");
    is_str(sl_kube_path_str(js, "spec.startupPolicy.startupPolicyOrder"), "AnyOrder",
           "default startupPolicy AnyOrder");
    ok(json_is_true(sl_kube_path(js, "spec.network.enableDNSHostnames")),
       "default network.enableDNSHostnames true");
    json_t *rj = json_array_get(sl_kube_path(js, "spec.replicatedJobs"), 1);
    is_str(sl_kube_path_str(rj, "template.spec.completionMode"), "Indexed", "default Indexed");
    is_int(json_integer_value(json_object_get(rj, "replicas")), 1, "default replicas 1");
    is_str(sl_kube_path_str(rj, "template.spec.template.spec.restartPolicy"), "OnFailure",
           "default pod restartPolicy OnFailure");
    sl_error_t err = SL_ERROR_INIT;
    is_int(js_api_ops.validate_create(js, &err), 0, "the example is valid: %s", err.text);
    sl_error_clear(&err);
    json_object_set_new(json_array_get(sl_kube_path(js, "spec.replicatedJobs"), 1), "name",
                        json_string("workers"));
    json_object_set_new(json_array_get(sl_kube_path(js, "spec.replicatedJobs"), 0), "replicas",
                        json_integer(-1));
    js_api_ops.validate_create(js, &err);
    char *all = sl_err_fields_lines(&err);
    ok(strstr(all, "spec.replicatedJobs[1]: Duplicate value") != NULL, "a duplicate name: %s", all);
    free(all);
    sl_error_clear(&err);
    json_object_set_new(json_array_get(sl_kube_path(js, "spec.replicatedJobs"), 1), "name",
                        json_string("driver"));
    js_api_ops.validate_create(js, &err);
    all = sl_err_fields_lines(&err);
    ok(strstr(all, "spec.replicatedJobs[0].replicas: Invalid value: -1") != NULL,
       "replicas < 0: %s", all);
    free(all);
    sl_error_clear(&err);
    json_object_set_new(json_array_get(sl_kube_path(js, "spec.replicatedJobs"), 0), "replicas",
                        json_integer(1));
    json_object_set_new(sl_kube_path(js, "spec.successPolicy"), "targetReplicatedJobs",
                        parse("[\"nope\"]"));
    js_api_ops.validate_create(js, &err);
    all = sl_err_fields_lines(&err);
    ok(strstr(all, "spec.successPolicy.targetReplicatedJobs[0]: Invalid value: \"nope\"") != NULL,
       "a success target that is no replicated Job: %s", all);
    free(all);
    sl_error_clear(&err);
    json_object_del(sl_kube_path(js, "spec.successPolicy"), "targetReplicatedJobs");
    json_object_set_new(sl_kube_path(js, "spec"), "coordinator",
                        parse("{\"replicatedJob\":\"workers\",\"jobIndex\":5}"));
    json_object_set_new(sl_kube_path(js, "spec"), "volumeClaimPolicies",
                        parse("[{\"templates\":[]}]"));
    js_api_ops.validate_create(js, &err);
    all = sl_err_fields_lines(&err);
    ok(strstr(all, "spec.coordinator.jobIndex: Invalid value: 5: coordinator job index 5 is "
                   "invalid for replicatedJob workers") != NULL,
       "a coordinator beyond the replicas: %s", all);
    ok(strstr(all, "spec.volumeClaimPolicies: Forbidden") != NULL,
       "volumeClaimPolicies refused, naming the field: %s", all);
    free(all);
    sl_error_clear(&err);
    json_decref(js);
}

int main(void)
{
    members();
    pod();
    api();
    return tap_done();
}
