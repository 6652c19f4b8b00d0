/* runtime.c — what a TrainJob takes of its (Cluster)TrainingRuntime: the
 * trainer's pod of each node, as Kubeflow Trainer's JobSet would make it
 * (internal.h). Pure functions on jansson objects. */
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "kinds/job/jobpod.h"
#include "kinds/trainjob/internal.h"
#include "kube/meta.h"
#include "kube/quantity.h"
#include "pod/pod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JS "jobset.sigs.k8s.io/"

const char *trainjob_runtime_res(json_t *tj, const char **kind)
{
    const char *g = sl_kube_path_str(tj, "spec.runtimeRef.apiGroup");
    const char *k = sl_kube_path_str(tj, "spec.runtimeRef.kind");
    if (!k)
        k = "ClusterTrainingRuntime";
    *kind = k;
    if (g && strcmp(g, TJ_GROUP))
        return NULL;
    if (!strcmp(k, "ClusterTrainingRuntime"))
        return TJ_RES_CRT;
    if (!strcmp(k, "TrainingRuntime"))
        return TJ_RES_RT;
    return NULL;
}

json_t *trainjob_trainer_rjob(json_t *rt, const char **why)
{
    json_t *rjs = sl_kube_path(rt, "spec.template.spec.replicatedJobs"), *rj, *named = NULL;
    size_t i;
    json_array_foreach(rjs, i, rj)
    {
        const char *a = sl_kube_label(json_object_get(rj, "template"), TJ_ANCESTOR);
        const char *n = json_string_value(json_object_get(rj, "name"));
        if (a && !strcmp(a, "trainer"))
            return rj;
        if (n && !strcmp(n, TJ_NODE))
            named = rj;
    }
    if (!named)
        *why = "its template has no replicated job of the trainer (labelled " TJ_ANCESTOR
               ": trainer, or named node)";
    return named;
}

const char *trainjob_policy(json_t *rt, const char **why)
{
    json_t *ml = sl_kube_path(rt, "spec.mlPolicy");
    if (!json_is_object(ml) || json_is_object(json_object_get(ml, "torch")))
        return "torch"; /* no policy: plain ML, torch's environment does no harm */
    json_t *mpi = json_object_get(ml, "mpi");
    if (json_is_object(mpi)) {
        const char *impl = json_string_value(json_object_get(mpi, "mpiImplementation"));
        if (!impl || !strcmp(impl, "OpenMPI"))
            return "mpi";
        *why = "its mlPolicy.mpi.mpiImplementation is not run: slurmlink runs OpenMPI's";
        return NULL;
    }
    *why = "its mlPolicy is not run by slurmlink (it runs the torch and OpenMPI policies)";
    return NULL;
}

long long trainjob_mpi_slots(json_t *tj, json_t *rt)
{
    json_t *n = sl_kube_path(tj, "spec.trainer.numProcPerNode");
    if (!json_is_integer(n))
        n = sl_kube_path(rt, "spec.mlPolicy.mpi.numProcPerNode");
    return json_is_integer(n) && json_integer_value(n) > 0 ? json_integer_value(n) : 1;
}

long long trainjob_num_nodes(json_t *tj, json_t *rt)
{
    json_t *n = sl_kube_path(tj, "spec.trainer.numNodes");
    if (!json_is_integer(n))
        n = sl_kube_path(rt, "spec.mlPolicy.numNodes");
    return json_is_integer(n) && json_integer_value(n) > 0 ? json_integer_value(n) : 1;
}

/* the container named node of a pod spec (borrowed), or NULL */
static json_t *container(json_t *spec, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && !strcmp(n, name))
            return c;
    }
    return NULL;
}

/* the trainer's resources: resourcesPerNode, else the runtime's node container's */
static json_t *resources(json_t *tj, json_t *rt)
{
    json_t *r = sl_kube_path(tj, "spec.trainer.resourcesPerNode");
    if (json_is_object(r))
        return r;
    const char *why;
    json_t *rj = trainjob_trainer_rjob(rt, &why);
    return json_object_get(container(sl_kube_path(rj, "template.spec.template.spec"), TJ_NODE),
                           "resources");
}

/* a quantity of res's requests (else limits) rounded up, 0 when none */
static long long amount(json_t *res, const char *name)
{
    json_t *v = json_object_get(json_object_get(res, "requests"), name);
    if (!v)
        v = json_object_get(json_object_get(res, "limits"), name);
    sl_quantity_t q;
    int64_t n = 0;
    if (!v || sl_quantity_from_json(v, &q, NULL, NULL) < 0 || sl_quantity_ceil_div(&q, 1, &n) < 0)
        return 0;
    return n;
}

void trainjob_nproc(json_t *tj, json_t *rt, char *out, size_t len)
{
    json_t *n = sl_kube_path(tj, "spec.trainer.numProcPerNode");
    if (json_is_integer(n)) {
        snprintf(out, len, "%lld", (long long)json_integer_value(n));
        return;
    }
    json_t *res = resources(tj, rt);
    if (amount(res, "nvidia.com/gpu") > 0) {
        snprintf(out, len, "auto");
        return;
    }
    long long cpus = amount(res, "cpu");
    snprintf(out, len, "%lld", cpus > 1 ? cpus : 1);
}

/* env name=value (or valueFrom) set in the container, replacing one of that name */
static void upsert_env(json_t *c, json_t *var)
{
    json_t *env = json_object_get(c, "env");
    if (!json_is_array(env))
        json_object_set_new(c, "env", env = json_array());
    const char *name = json_string_value(json_object_get(var, "name"));
    size_t i;
    json_t *e;
    json_array_foreach(env, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && name && !strcmp(n, name)) {
            json_array_set(env, i, var);
            return;
        }
    }
    json_array_append(env, var);
}

static void set_env(json_t *c, const char *name, const char *value)
{
    json_t *v = json_pack("{s:s, s:s}", "name", name, "value", value);
    upsert_env(c, v);
    json_decref(v);
}

/* the torch plugin's EnforceMLPolicy: the trainer's env, then PET_* */
static void torch_env(json_t *tj, json_t *rt, json_t *c)
{
    size_t i;
    json_t *e;
    json_array_foreach(sl_kube_path(tj, "spec.trainer.env"), i, e) upsert_env(c, e);
    char buf[64];
    snprintf(buf, sizeof(buf), "%lld", trainjob_num_nodes(tj, rt));
    set_env(c, "PET_NNODES", buf);
    trainjob_nproc(tj, rt, buf, sizeof(buf));
    set_env(c, "PET_NPROC_PER_NODE", buf);
    json_t *rank = json_pack("{s:s, s:{s:{s:s}}}", "name", "PET_NODE_RANK", "valueFrom", "fieldRef",
                             "fieldPath", "metadata.annotations['" TJ_ANN_INDEX "']");
    upsert_env(c, rank);
    json_decref(rank);
    char *addr = sl_xasprintf("%s-" TJ_NODE "-0-0.%s", sl_kube_name(tj), sl_kube_name(tj));
    set_env(c, "PET_MASTER_ADDR", addr);
    free(addr);
    snprintf(buf, sizeof(buf), "%d", TJ_MASTER_PORT);
    set_env(c, "PET_MASTER_PORT", buf);
}

/* the trainer's image, command, args and resourcesPerNode on the node container */
static void trainer_fields(json_t *tj, json_t *c)
{
    json_t *t = sl_kube_path(tj, "spec.trainer");
    static const char *const f[][2] = {{"image", "image"},
                                       {"command", "command"},
                                       {"args", "args"},
                                       {"resourcesPerNode", "resources"}};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        json_t *v = json_object_get(t, f[i][0]);
        if (v && !json_is_null(v))
            json_object_set_new(c, f[i][1], json_deep_copy(v));
    }
}

/* a map of a patch's metadata merged into meta's */
static void merge_map(json_t *meta, json_t *patch, const char *key)
{
    json_t *m = json_object_get(patch, key);
    if (!json_is_object(m) || !json_object_size(m))
        return;
    json_t *have = json_object_get(meta, key);
    if (!json_is_object(have))
        json_object_set_new(meta, key, have = json_object());
    json_object_update(have, m);
}

/* one runtimePatch's pod part (PodTemplatePatch) onto the pod */
static void patch_pod(json_t *pod, json_t *pt)
{
    json_t *meta = sl_kube_meta(pod), *spec = json_object_get(pod, "spec");
    merge_map(meta, json_object_get(pt, "metadata"), "labels");
    merge_map(meta, json_object_get(pt, "metadata"), "annotations");
    json_t *ps = json_object_get(pt, "spec");
    const char *k;
    json_t *v;
    json_object_foreach(ps, k, v)
    {
        if (!strcmp(k, "containers") || !strcmp(k, "initContainers")) {
            size_t i;
            json_t *cp;
            json_array_foreach(v, i, cp)
            {
                json_t *c = container(spec, json_string_value(json_object_get(cp, "name")) ?: "");
                if (!c)
                    continue;
                size_t j;
                json_t *e;
                json_array_foreach(json_object_get(cp, "env"), j, e) upsert_env(c, e);
                json_t *vm = json_object_get(cp, "volumeMounts");
                if (json_array_size(vm)) {
                    json_t *have = json_object_get(c, "volumeMounts");
                    if (!json_is_array(have))
                        json_object_set_new(c, "volumeMounts", have = json_array());
                    json_array_extend(have, vm);
                }
                if (json_is_object(json_object_get(cp, "securityContext")))
                    json_object_set(c, "securityContext", json_object_get(cp, "securityContext"));
            }
        } else if (!strcmp(k, "nodeSelector")) {
            merge_map(spec, ps, "nodeSelector");
        } else if (json_is_array(v) && json_is_array(json_object_get(spec, k))) {
            json_array_extend(json_object_get(spec, k), v);
        } else {
            json_object_set(spec, k, v);
        }
    }
}

/* runtimePatches in order: each one's replicated job of this name */
static void runtime_patches(json_t *tj, json_t *pod, const char *rjname)
{
    size_t i, k;
    json_t *p, *rj;
    json_array_foreach(sl_kube_path(tj, "spec.runtimePatches"), i, p) json_array_foreach(
        sl_kube_path(p, "trainingRuntimeSpec.template.spec.replicatedJobs"), k, rj)
    {
        const char *n = json_string_value(json_object_get(rj, "name"));
        if (n && !strcmp(n, rjname))
            patch_pod(pod, sl_kube_path(rj, "template.spec.template"));
    }
}

/* JobSet's and the Job's labels and annotations of node i, Trainer's step */
static void names(json_t *pod, json_t *tj, const char *rjname, size_t i, bool trainer)
{
    const char *tn = sl_kube_name(tj);
    char idx[24], *job = sl_xasprintf("%s-%s-0", tn, rjname);
    snprintf(idx, sizeof(idx), "%zu", i);
    static const char *const both[] = {JS "jobset-name", JS "replicatedjob-name", JS "job-index",
                                       JS "job-global-index", JS "replicatedjob-replicas"};
    const char *vals[] = {tn, rjname, "0", "0", "1"};
    for (size_t k = 0; k < sizeof(both) / sizeof(both[0]); k++) {
        sl_kube_set_label(pod, both[k], vals[k]);
        sl_kube_set_annotation(pod, both[k], vals[k]);
    }
    sl_kube_set_label(pod, "batch.kubernetes.io/job-name", job);
    sl_kube_set_label(pod, "job-name", job);
    sl_kube_set_label(pod, TJ_ANN_INDEX, idx);
    sl_kube_set_annotation(pod, TJ_ANN_INDEX, idx);
    if (trainer)
        sl_kube_set_label(pod, TJ_ANCESTOR, "trainer");
    char *name = sl_xasprintf("%s-%zu", job, i);
    sl_kube_meta_set_str(pod, "name", name);
    sl_kube_meta_set_str(pod, "namespace", sl_kube_namespace(tj));
    json_t *spec = json_object_get(pod, "spec");
    json_object_set_new(spec, "hostname", json_string(name)); /* JobSet's DNS hostnames */
    json_object_set_new(spec, "subdomain", json_string(tn));
    free(name);
    free(job);
}

/* slurmlink's gang bookkeeping (gang.h) and the controller ownerReference */
static void bookkeeping(json_t *pod, json_t *tj, size_t member, size_t rank, long long attempt)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%zu", member);
    sl_kube_set_annotation(pod, SL_ANN_JOB_UID, sl_kube_uid(tj));
    sl_kube_set_annotation(pod, TJ_ANN_MEMBER, buf);
    snprintf(buf, sizeof(buf), "%zu", rank);
    sl_kube_set_annotation(pod, CTL_ANN_GANG_RANK, buf);
    snprintf(buf, sizeof(buf), "%lld", attempt);
    sl_kube_set_annotation(pod, TJ_ANN_ATTEMPT, buf);
    sl_kube_set_label(pod, JS "restart-attempt", buf);
    const char *user = sl_kube_annotation(tj, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(pod, SL_ANN_USER, user);
    json_object_set_new(sl_kube_meta(pod), "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", TJ_API_VERSION,
                                  "kind", "TrainJob", "name", sl_kube_name(tj), "uid",
                                  sl_kube_uid(tj), "controller", 1, "blockOwnerDeletion", 1));
}

/* the pod of replicated job rj's index idx: member `member` of the gang
 * on its node `rank`; its container named node (borrowed) in *node */
static json_t *rjob_pod(json_t *tj, json_t *rj, size_t idx, size_t member, size_t rank,
                        long long attempt, json_t **node, const char **why)
{
    const char *rjname = json_string_value(json_object_get(rj, "name"));
    json_t *tmpl = sl_kube_path(rj, "template.spec.template");
    json_t *meta = sl_kube_object_copy(json_object_get(tmpl, "metadata"));
    json_object_del(meta, "name");
    json_object_del(meta, "generateName");
    json_t *pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            meta, "spec", sl_kube_object_copy(json_object_get(tmpl, "spec")));
    json_t *spec = json_object_get(pod, "spec");
    runtime_patches(tj, pod, rjname ? rjname : TJ_NODE);
    *node = container(spec, TJ_NODE);
    if (!*node) {
        *why = "a pod template of its has no container named node";
        json_decref(pod);
        return NULL;
    }
    ctl_drop_server_owned(pod); /* the template's are not the server's */
    /* the gang restarts, not the container in place (docs/jobs.md) */
    json_object_set_new(spec, "restartPolicy", json_string("Never"));
    const char *a = sl_kube_label(json_object_get(rj, "template"), TJ_ANCESTOR);
    names(pod, tj, rjname ? rjname : TJ_NODE, idx, a && !strcmp(a, "trainer"));
    bookkeeping(pod, tj, member, rank, attempt);
    return pod;
}

json_t *trainjob_node_pod(json_t *tj, json_t *rt, size_t i, long long attempt, const char **why)
{
    json_t *rj = trainjob_trainer_rjob(rt, why), *c;
    if (!rj || !trainjob_policy(rt, why))
        return NULL;
    json_t *pod = rjob_pod(tj, rj, i, i, i, attempt, &c, why);
    if (pod) {
        trainer_fields(tj, c);
        torch_env(tj, rt, c);
    }
    return pod;
}

/* the MPI policy's pods: the trainer's (the launcher) member 0 on node 0,
 * then the node job's (node j on node j, or j+1 when the launcher is a
 * node itself: runLauncherAsNode) */
static json_t *mpi_pods(json_t *tj, json_t *rt, long long attempt, const char **why)
{
    json_t *lj = trainjob_trainer_rjob(rt, why), *nj = NULL, *rj, *c;
    size_t i;
    json_array_foreach(sl_kube_path(rt, "spec.template.spec.replicatedJobs"), i, rj)
    {
        const char *n = json_string_value(json_object_get(rj, "name"));
        if (rj != lj && n && !strcmp(n, TJ_NODE))
            nj = rj;
    }
    if (!lj || !nj) {
        *why = lj ? "its template has no replicated job named node beside the launcher" : *why;
        return NULL;
    }
    bool as_node = json_is_true(sl_kube_path(rt, "spec.mlPolicy.mpi.runLauncherAsNode"));
    size_t n = (size_t)trainjob_num_nodes(tj, rt), workers = as_node ? n - 1 : n;
    json_t *out = json_array(), *pod = rjob_pod(tj, lj, 0, 0, 0, attempt, &c, why);
    if (!pod) {
        json_decref(out);
        return NULL;
    }
    trainer_fields(tj, c);
    char slots[24];
    snprintf(slots, sizeof(slots), "%lld", trainjob_mpi_slots(tj, rt));
    size_t k;
    json_t *e;
    json_array_foreach(sl_kube_path(tj, "spec.trainer.env"), k, e) upsert_env(c, e);
    set_env(c, "OMPI_MCA_orte_keep_fqdn_hostnames", "true");
    set_env(c, "OMPI_MCA_orte_set_default_slots", slots);
    json_array_append_new(out, pod);
    for (size_t j = 0; j < workers; j++) {
        if (!(pod = rjob_pod(tj, nj, j, j + 1, as_node ? j + 1 : j, attempt, &c, why))) {
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, pod);
    }
    return out;
}

json_t *trainjob_pods(json_t *tj, json_t *rt, long long attempt, const char **why)
{
    const char *p = trainjob_policy(rt, why);
    if (p && !strcmp(p, "mpi"))
        return mpi_pods(tj, rt, attempt, why);
    if (!p)
        return NULL;
    json_t *out = json_array();
    for (size_t i = 0; i < (size_t)trainjob_num_nodes(tj, rt); i++) {
        json_t *pod = trainjob_node_pod(tj, rt, i, attempt, why);
        if (!pod) {
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, pod);
    }
    return out;
}
