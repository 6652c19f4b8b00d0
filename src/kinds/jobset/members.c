/* members.c — the members of a JobSet's gang and their pods (jobset.h). */
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/podstatus.h"
#include "kinds/job/jobpod.h"
#include "kinds/jobset/jobset.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"

#include <gnutls/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JL "jobset.sigs.k8s.io/"

static long long int_or(json_t *v, long long def)
{
    return json_is_integer(v) ? json_integer_value(v) : def;
}

static long long replicas_of(json_t *rjob) { return int_or(json_object_get(rjob, "replicas"), 1); }

long long js_pods_per_job(json_t *rjob)
{
    json_t *spec = sl_kube_path(rjob, "template.spec");
    long long p = int_or(json_object_get(spec, "parallelism"), 1);
    return int_or(json_object_get(spec, "completions"), p);
}

size_t js_members(json_t *js, js_member_t *out, size_t max)
{
    size_t n = 0, r;
    long long global = 0;
    json_t *rjob;
    json_array_foreach(sl_kube_path(js, "spec.replicatedJobs"), r, rjob)
    {
        const char *name = json_string_value(json_object_get(rjob, "name"));
        long long reps = replicas_of(rjob), per = js_pods_per_job(rjob);
        for (long long j = 0; j < reps; j++, global++)
            for (long long p = 0; p < per; p++, n++)
                if (n < max)
                    out[n] = (js_member_t){name ? name : "", r, j, global, p};
    }
    return n;
}

const char *js_subdomain(json_t *js)
{
    if (json_is_false(sl_kube_path(js, "spec.network.enableDNSHostnames")))
        return NULL;
    const char *s = sl_kube_path_str(js, "spec.network.subdomain");
    return s && *s ? s : sl_kube_name(js);
}

/* the sums upstream labels with: every replicated Job's replicas, those of
 * the group, and the job's index in its group */
static void group_counts(json_t *js, const js_member_t *m, long long *all, long long *group,
                         long long *in_group)
{
    json_t *rjobs = sl_kube_path(js, "spec.replicatedJobs");
    const char *g = sl_kube_path_str(json_array_get(rjobs, m->rjob_at), "groupName");
    *all = *group = *in_group = 0;
    size_t r;
    json_t *rjob;
    json_array_foreach(rjobs, r, rjob)
    {
        long long reps = replicas_of(rjob);
        const char *rg = json_string_value(json_object_get(rjob, "groupName"));
        bool same = (!g && !rg) || (g && rg && !strcmp(g, rg));
        *all += reps;
        if (same && r < m->rjob_at)
            *in_group += reps;
        if (same)
            *group += reps;
    }
    *in_group += m->job;
}

/* jobHashKey: the SHA-1 of "<namespace>/<job name>" in hex */
static void job_key(const char *ns, const char *job, char out[41])
{
    unsigned char sha[20];
    char *s = sl_xasprintf("%s/%s", ns ? ns : "", job);
    out[0] = '\0';
    if (gnutls_hash_fast(GNUTLS_DIG_SHA1, s, strlen(s), sha) == 0)
        for (int i = 0; i < 20; i++)
            snprintf(out + 2 * i, 3, "%02x", sha[i]);
    free(s);
    out[40] = '\0';
}

static void both(json_t *pod, const char *key, const char *value)
{
    sl_kube_set_label(pod, key, value);
    sl_kube_set_annotation(pod, key, value);
}

static void both_int(json_t *pod, const char *key, long long v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%lld", v);
    both(pod, key, buf);
}

/* labelAndAnnotateObject's keys, and what kube's Job controller puts on
 * the pods of Job `job` */
static void upstream_keys(json_t *pod, json_t *js, const js_member_t *m, const char *job,
                          long long restarts)
{
    long long all, group, in_group;
    group_counts(js, m, &all, &group, &in_group);
    const char *g = sl_kube_path_str(
        json_array_get(sl_kube_path(js, "spec.replicatedJobs"), m->rjob_at), "groupName");
    char key[41];
    job_key(sl_kube_namespace(js), job, key);
    both(pod, JL "jobset-name", sl_kube_name(js));
    both(pod, JL "jobset-uid", sl_kube_uid(js));
    both(pod, JL "replicatedjob-name", m->rjob);
    both_int(pod, JL "restart-attempt", restarts);
    json_t *rjob = json_array_get(sl_kube_path(js, "spec.replicatedJobs"), m->rjob_at);
    both_int(pod, JL "replicatedjob-replicas", replicas_of(rjob));
    both_int(pod, JL "global-replicas", all);
    both_int(pod, JL "job-index", m->job);
    both(pod, JL "job-key", key);
    both_int(pod, JL "job-global-index", m->global);
    both(pod, JL "group-name", g ? g : "default");
    both_int(pod, JL "group-replicas", group);
    both_int(pod, JL "job-group-index", in_group);
    both_int(pod, ANN_INDEX, m->pod);
    json_t *co = sl_kube_path(js, "spec.coordinator");
    if (json_is_object(co)) { /* CoordinatorEndpoint */
        const char *sub = sl_kube_path_str(js, "spec.network.subdomain");
        char *ep = sl_xasprintf("%s-%s-%lld-%lld.%s", sl_kube_name(js),
                                sl_kube_path_str(co, "replicatedJob") ?: "",
                                (long long)json_integer_value(json_object_get(co, "jobIndex")),
                                (long long)json_integer_value(json_object_get(co, "podIndex")),
                                sub && *sub ? sub : sl_kube_name(js));
        both(pod, JL "coordinator", ep);
        free(ep);
    }
    sl_kube_set_label(pod, "batch.kubernetes.io/job-name", job);
    sl_kube_set_label(pod, "job-name", job);
}

json_t *js_new_pod(json_t *js, const js_member_t *m, size_t rank, long long attempt,
                   long long restarts)
{
    json_t *rjob = json_array_get(sl_kube_path(js, "spec.replicatedJobs"), m->rjob_at);
    json_t *tmpl = sl_kube_path(rjob, "template.spec.template");
    json_t *meta = sl_kube_object_copy(json_object_get(tmpl, "metadata"));
    json_t *spec = sl_kube_object_copy(json_object_get(tmpl, "spec"));
    json_object_set_new(spec, "restartPolicy", json_string("Never"));
    char *job = sl_xasprintf("%s-%s-%lld", sl_kube_name(js), m->rjob, m->job);
    char *name = sl_xasprintf("%s-%lld", job, m->pod);
    json_object_set_new(spec, "hostname", json_string(name));
    const char *sub = js_subdomain(js);
    if (sub)
        json_object_set_new(spec, "subdomain", json_string(sub));
    else
        json_object_del(spec, "subdomain");
    ctl_job_index_env(spec);
    json_t *pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            meta, "spec", spec);
    json_object_del(meta, "generateName");
    sl_kube_meta_set_str(pod, "name", name);
    sl_kube_meta_set_str(pod, "namespace", sl_kube_namespace(js));
    upstream_keys(pod, js, m, job, restarts);
    ctl_gang_pod_bookkeeping(pod, js, rank, rank, attempt);
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", JS_API_VERSION,
                                  "kind", "JobSet", "name", sl_kube_name(js), "uid",
                                  sl_kube_uid(js), "controller", 1, "blockOwnerDeletion", 1));
    free(job);
    free(name);
    sl_pod_apply_defaults(pod);
    ctl_status_init(pod, sl_kube_now_ns());
    return pod;
}
