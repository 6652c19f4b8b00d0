/* jobpod.c — the pod of one index of a Job (jobpod.h). */
#include "kinds/job/jobpod.h"
#include "ctl/gangowner.h"
#include "common/xalloc.h"
#include "ctl/podstatus.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_indexed(json_t *job)
{
    const char *m = sl_kube_path_str(job, "spec.completionMode");
    return m && !strcmp(m, "Indexed");
}

void ctl_job_index_env(json_t *spec)
{
    static const char *const lists[] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *ct;
        json_array_foreach(json_object_get(spec, lists[l]), i, ct)
        {
            json_t *env = json_object_get(ct, "env");
            if (!json_is_array(env))
                json_object_set_new(ct, "env", env = json_array());
            json_array_append_new(env, json_pack("{s:s, s:{s:{s:s, s:s}}}", "name",
                                                 "JOB_COMPLETION_INDEX", "valueFrom", "fieldRef",
                                                 "apiVersion", "v1", "fieldPath",
                                                 "metadata.annotations['" ANN_INDEX "']"));
        }
    }
}

json_t *ctl_job_new_pod(json_t *job, size_t idx, long long sub)
{
    const char *jname = sl_kube_name(job);
    json_t *pod = ctl_pod_from_template(sl_kube_path(job, "spec.template"));
    json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec");
    char buf[32];
    snprintf(buf, sizeof(buf), "%zu", idx);
    if (is_indexed(job)) {
        sl_kube_set_label(pod, ANN_INDEX, buf);
        sl_kube_set_annotation(pod, ANN_INDEX, buf);
        if (!json_object_get(spec, "hostname")) {
            char *h = sl_xasprintf("%.*s-%zu", 50, jname, idx);
            json_object_set_new(spec, "hostname", json_string(h));
            free(h);
        }
        ctl_job_index_env(spec);
    }
    sl_kube_set_annotation(pod, ANN_POD_INDEX, buf);
    snprintf(buf, sizeof(buf), "%lld", sub);
    sl_kube_set_annotation(pod, ANN_POD_SUB, buf);
    sl_kube_set_annotation(pod, SL_ANN_JOB_UID, sl_kube_uid(job));
    const char *user = sl_kube_annotation(job, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(pod, SL_ANN_USER, user);
    sl_kube_meta_set_str(pod, "namespace", sl_kube_namespace(job));
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", "batch/v1",
                                  "kind", "Job", "name", jname, "uid", sl_kube_uid(job),
                                  "controller", 1, "blockOwnerDeletion", 1));
    sl_pod_apply_defaults(pod);
    ctl_status_init(pod, sl_kube_now_ns());
    return pod;
}

/* onExitCodes of a rule against one terminated container (exit code 0
 * never matches, as in kube's matchOnExitCodes) */
static bool exit_code_matches(json_t *req, json_t *cs, long long *code)
{
    json_t *term = json_object_get(json_object_get(cs, "state"), "terminated");
    if (!term)
        return false;
    *code = json_integer_value(json_object_get(term, "exitCode"));
    const char *want = json_string_value(json_object_get(req, "containerName"));
    const char *name = json_string_value(json_object_get(cs, "name"));
    if (*code == 0 || (want && (!name || strcmp(want, name))))
        return false;
    bool in = false;
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(req, "values"), i, v) in |= json_integer_value(v) == *code;
    const char *op = json_string_value(json_object_get(req, "operator"));
    return op && (!strcmp(op, "In") ? in : !strcmp(op, "NotIn") ? !in : false);
}

/* the first terminated container of pod that rule's onExitCodes matches */
static json_t *rule_match(json_t *rule, json_t *pod, long long *code)
{
    json_t *req = json_object_get(rule, "onExitCodes");
    if (!json_is_object(req))
        return NULL; /* onPodConditions: cond_match */
    static const char *const lists[] = {"status.initContainerStatuses", "status.containerStatuses"};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *cs;
        json_array_foreach(sl_kube_path(pod, lists[l]), i,
                           cs) if (exit_code_matches(req, cs, code)) return cs;
    }
    return NULL;
}

/* the first of rule's onPodConditions patterns the pod's conditions meet
 * (type, status: True when not given): its type, or NULL */
static const char *cond_match(json_t *rule, json_t *pod)
{
    size_t i;
    json_t *pat;
    json_t *conds = sl_kube_path(pod, "status.conditions");
    json_array_foreach(json_object_get(rule, "onPodConditions"), i, pat)
    {
        const char *type = json_string_value(json_object_get(pat, "type"));
        const char *want = json_string_value(json_object_get(pat, "status"));
        if (type && sl_kube_condition_is(conds, type, want ? want : "True"))
            return type;
    }
    return NULL;
}

ctl_pfp_action_t ctl_job_pod_failure_action(json_t *job, json_t *pod, char *msg, size_t len)
{
    size_t i;
    json_t *rule;
    json_array_foreach(sl_kube_path(job, "spec.podFailurePolicy.rules"), i, rule)
    {
        long long code = 0;
        json_t *cs = rule_match(rule, pod, &code);
        const char *cond = cs ? NULL : cond_match(rule, pod);
        const char *action = json_string_value(json_object_get(rule, "action"));
        if ((!cs && !cond) || !action)
            continue;
        if (cond)
            snprintf(msg, len, "Pod %s/%s has condition %s matching %s rule at index %zu",
                     sl_kube_namespace(pod), sl_kube_name(pod), cond, action, i);
        else
            snprintf(msg, len,
                     "Container %s for pod %s/%s failed with exit code %lld matching %s rule at "
                     "index %zu",
                     json_string_value(json_object_get(cs, "name")), sl_kube_namespace(pod),
                     sl_kube_name(pod), code, action, i);
        if (!strcmp(action, "FailJob"))
            return CTL_PFP_FAIL_JOB;
        if (!strcmp(action, "Ignore"))
            return CTL_PFP_IGNORE;
        if (!strcmp(action, "FailIndex"))
            return CTL_PFP_FAIL_INDEX;
        return CTL_PFP_COUNT;
    }
    return CTL_PFP_COUNT;
}
