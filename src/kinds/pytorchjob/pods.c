/* src/kinds/pytorchjob/pods.c — a PyTorchJob's replica pods (src/kinds/pytorchjob/pods.h). */
#include "kinds/pytorchjob/pods.h"
#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/podstatus.h"
#include "kinds/job/jobpod.h"
#include "kinds/kubeflow/kubeflow.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L "training.kubeflow.org/"
#define ANN_POD_INDEX                                                                              \
    "slurmlink.io/job-index" /* what ctl_job_pod_of reads (src/kinds/job/controller.c) */

json_t *ctl_tj_replicas(const ctl_tj_kind_t *k, json_t *job)
{
    json_t *out = json_array();
    for (int t = 0; t < 2; t++) {
        json_t *rs = sl_kube_path(sl_kube_path(job, k->specs), k->types[t]);
        json_int_t n = json_integer_value(json_object_get(rs, "replicas"));
        for (json_int_t i = 0; json_is_object(rs) && i < n; i++)
            json_array_append_new(out, json_pack("{s:s, s:I}", "type", k->types[t], "index", i));
    }
    return out;
}

json_t *ctl_ptj_replicas(json_t *job) { return ctl_tj_replicas(&ctl_tj_pytorchjob, job); }

void ctl_tj_lower(const char *type, char *out, size_t len)
{
    snprintf(out, len, "%s", type);
    for (char *p = out; *p; p++)
        *p = (char)tolower((unsigned char)*p);
}

/* the pytorch container's pytorchjob-port of a replica type (getPortFromPyTorchJob) */
static long long type_port(json_t *job, const char *type)
{
    size_t i, k;
    json_t *c, *p;
    json_array_foreach(
        sl_kube_path(sl_kube_path(sl_kube_path(job, "spec.pytorchReplicaSpecs"), type),
                     "template.spec.containers"),
        i, c) json_array_foreach(json_object_get(c, "ports"), k, p)
    {
        const char *n = json_string_value(json_object_get(p, "name"));
        if (n && !strcmp(n, "pytorchjob-port"))
            return json_integer_value(json_object_get(p, "containerPort"));
    }
    return 23456;
}

static long long master_port(json_t *job) { return type_port(job, "Master"); }

static bool has_master(json_t *job)
{
    return json_is_object(sl_kube_path(job, "spec.pytorchReplicaSpecs.Master"));
}

/* elasticPolicy with minReplicas < maxReplicas: the job's node range, the
 * Workers' plus the Master's node (docs/jobs.md) */
static bool ptj_range(json_t *job, size_t *lo, size_t *hi)
{
    json_t *mn = sl_kube_path(job, "spec.elasticPolicy.minReplicas"),
           *mx = sl_kube_path(job, "spec.elasticPolicy.maxReplicas");
    if (!json_is_integer(mn) || !json_is_integer(mx) || json_integer_value(mn) < 1 ||
        json_integer_value(mn) >= json_integer_value(mx))
        return false;
    size_t lead = has_master(job) ? 1 : 0;
    *lo = (size_t)json_integer_value(mn) + lead;
    *hi = (size_t)json_integer_value(mx) + lead;
    return true;
}

/* PET_RDZV_ENDPOINT (generateEnvRDZVEndpoint): rdzvHost, else worker-0's
 * node (the operator's <job>-worker-0: no Services here), and rdzvPort,
 * else the Worker's pytorchjob-port; exported on the first node, it
 * reaches every step as MASTER_ADDR does */
static char *rdzv_export(json_t *job)
{
    json_t *ep = sl_kube_path(job, "spec.elasticPolicy");
    json_t *port = json_object_get(ep, "rdzvPort");
    long long pn = json_is_integer(port) ? json_integer_value(port) : type_port(job, "Worker");
    const char *host = json_string_value(json_object_get(ep, "rdzvHost"));
    if (host) {
        char *hp = sl_xasprintf("%s:%lld", host, pn), *q = sl_shell_quote(hp);
        char *out = sl_xasprintf("export PET_RDZV_ENDPOINT=%s", q);
        free(hp);
        free(q);
        return out;
    }
    if (!has_master(job)) /* worker-0 is the first node */
        return sl_xasprintf("export PET_RDZV_ENDPOINT=\"$(hostname):%lld\"", pn);
    return sl_xasprintf("export PET_RDZV_ENDPOINT=\"$(scontrol show hostnames "
                        "\"$SLURM_JOB_NODELIST\" | sed -n 2p):%lld\"",
                        pn);
}

/* MASTER_ADDR and PET_MASTER_ADDR: the first node's (the Master's) name;
 * with an elasticPolicy PET_RDZV_ENDPOINT; a range: --nodes=LO-HI */
static char *ptj_shape(json_t *job, ctl_gang_t *g)
{
    size_t lo, hi;
    if (ptj_range(job, &lo, &hi)) {
        g->nodes_min = lo;
        g->nodes = hi;
    }
    const char *m = "export MASTER_ADDR=\"$(hostname)\"\nexport PET_MASTER_ADDR=\"$MASTER_ADDR\"";
    if (!json_is_object(sl_kube_path(job, "spec.elasticPolicy")))
        return sl_xstrdup(m);
    char *r = rdzv_export(job), *out = sl_xasprintf("%s\n%s", m, r);
    free(r);
    return out;
}

static void add_env(json_t *env, const char *name, const char *value)
{
    json_array_append_new(env, json_pack("{s:s, s:s}", "name", name, "value", value));
}

/* the elastic generator's variables (elastic.go Generate): PET_RDZV_BACKEND,
 * PET_NNODES "min:max", PET_MAX_RESTARTS, PET_NPROC_PER_NODE, PET_RDZV_ID,
 * PET_RDZV_CONF "k=v,k=v", PET_STANDALONE (PET_RDZV_ENDPOINT: ptj_shape) */
static void elastic_env(json_t *env, json_t *ep, size_t total)
{
    const char *be = json_string_value(json_object_get(ep, "rdzvBackend"));
    add_env(env, "PET_RDZV_BACKEND", be ? be : "c10d");
    json_t *mn = json_object_get(ep, "minReplicas"), *mx = json_object_get(ep, "maxReplicas");
    char buf[64];
    if (json_is_integer(mn) && json_is_integer(mx))
        snprintf(buf, sizeof(buf), "%lld:%lld", (long long)json_integer_value(mn),
                 (long long)json_integer_value(mx));
    else
        snprintf(buf, sizeof(buf), "%zu", total);
    add_env(env, "PET_NNODES", buf);
    static const char *const ints[][2] = {{"maxRestarts", "PET_MAX_RESTARTS"},
                                          {"nProcPerNode", "PET_NPROC_PER_NODE"}};
    for (size_t i = 0; i < 2; i++)
        if (json_is_integer(json_object_get(ep, ints[i][0]))) {
            snprintf(buf, sizeof(buf), "%lld",
                     (long long)json_integer_value(json_object_get(ep, ints[i][0])));
            add_env(env, ints[i][1], buf);
        }
    const char *id = json_string_value(json_object_get(ep, "rdzvId"));
    if (id)
        add_env(env, "PET_RDZV_ID", id);
    sl_buf_t conf = SL_BUF_INIT;
    size_t i;
    json_t *kv;
    json_array_foreach(json_object_get(ep, "rdzvConf"), i, kv) sl_buf_printf(
        &conf, "%s%s=%s", i ? "," : "", json_string_value(json_object_get(kv, "key")) ?: "",
        json_string_value(json_object_get(kv, "value")) ?: "");
    char *c = sl_buf_steal(&conf);
    if (json_array_size(json_object_get(ep, "rdzvConf")))
        add_env(env, "PET_RDZV_CONF", c);
    free(c);
    if (json_is_true(json_object_get(ep, "standalone")))
        add_env(env, "PET_STANDALONE", "");
}

/* setPodEnv of the operator's envvar.go (MASTER_ADDR comes from the step);
 * a range has no WORLD_SIZE: how many nodes run is Slurm's to say (and
 * torchrun's to tell its workers) */
static void set_env(json_t *job, json_t *spec, size_t rank, size_t total)
{
    const char *nproc = sl_kube_path_str(job, "spec.nprocPerNode");
    json_t *ep = sl_kube_path(job, "spec.elasticPolicy");
    size_t lo, hi;
    bool range = ptj_range(job, &lo, &hi);
    char *end = NULL;
    long np = nproc ? strtol(nproc, &end, 10) : 1;
    if (!nproc || *end || np < 1)
        np = 1;
    char port[24], world[24], r[24], nn[24];
    snprintf(port, sizeof(port), "%lld", master_port(job));
    snprintf(world, sizeof(world), "%zu", total * (size_t)np);
    snprintf(r, sizeof(r), "%zu", rank);
    snprintf(nn, sizeof(nn), "%zu", total);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
    {
        json_t *env = json_object_get(c, "env");
        if (!json_is_array(env))
            json_object_set_new(c, "env", env = json_array());
        add_env(env, "PYTHONUNBUFFERED", "1");
        add_env(env, "MASTER_PORT", port);
        add_env(env, "PET_MASTER_PORT", port);
        if (!range)
            add_env(env, "WORLD_SIZE", world);
        add_env(env, "RANK", r);
        add_env(env, "PET_NODE_RANK", r);
        if (nproc)
            add_env(env, "PET_NPROC_PER_NODE", nproc);
        if (json_is_object(ep))
            elastic_env(env, ep, total);
        else
            add_env(env, "PET_NNODES", nn);
    }
}

static void labels(const ctl_tj_kind_t *k, json_t *pod, json_t *job, const char *lower,
                   long long index)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%lld", index);
    sl_kube_set_label(pod, L "operator-name", k->operator_name);
    sl_kube_set_label(pod, L "job-name", sl_kube_name(job));
    sl_kube_set_label(pod, L "replica-type", lower);
    sl_kube_set_label(pod, L "replica-index", buf);
}

static void bookkeeping(json_t *pod, json_t *job, size_t node, size_t i, long long attempt)
{
    char buf[24];
    ctl_drop_server_owned(pod); /* the template's are not the server's */
    snprintf(buf, sizeof(buf), "%zu", i);
    sl_kube_set_annotation(pod, SL_ANN_JOB_UID, sl_kube_uid(job));
    sl_kube_set_annotation(pod, ANN_POD_INDEX, buf);
    snprintf(buf, sizeof(buf), "%zu", node);
    sl_kube_set_annotation(pod, CTL_ANN_GANG_RANK, buf);
    snprintf(buf, sizeof(buf), "%lld", attempt);
    sl_kube_set_annotation(pod, PTJ_ANN_ATTEMPT, buf);
    const char *user = sl_kube_annotation(job, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(pod, SL_ANN_USER, user);
}

json_t *ctl_tj_base_pod(const ctl_tj_kind_t *k, json_t *job, json_t *r, size_t node, size_t i,
                        long long attempt)
{
    const char *type = json_string_value(json_object_get(r, "type"));
    long long index = json_integer_value(json_object_get(r, "index"));
    json_t *tmpl = sl_kube_path(sl_kube_path(job, k->specs), type);
    tmpl = json_object_get(tmpl, "template");
    json_t *meta = json_deep_copy(json_object_get(tmpl, "metadata"));
    if (!json_is_object(meta)) {
        json_decref(meta);
        meta = json_object();
    }
    json_t *spec = json_deep_copy(json_object_get(tmpl, "spec"));
    /* the gang restarts, not the container in place (docs/jobs.md) */
    json_object_set_new(spec, "restartPolicy", json_string("Never"));
    json_t *pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            meta, "spec", spec);
    char lower[16];
    ctl_tj_lower(type, lower, sizeof(lower));
    char *name = sl_xasprintf("%s-%s-%lld", sl_kube_name(job), lower, index);
    if (k->launcher_rules && i == 0) { /* mpi-operator's <job>-launcher */
        free(name);
        name = sl_xasprintf("%s-%s", sl_kube_name(job), lower);
    }
    sl_kube_meta_set_str(pod, "name", name);
    free(name);
    sl_kube_meta_set_str(pod, "namespace", sl_kube_namespace(job));
    labels(k, pod, job, lower, index);
    bookkeeping(pod, job, node, i, attempt);
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", k->api_version,
                                  "kind", k->kind, "name", sl_kube_name(job), "uid",
                                  sl_kube_uid(job), "controller", 1, "blockOwnerDeletion", 1));
    return pod;
}

static json_t *ptj_new_pod(json_t *job, json_t *r, size_t rank, long long attempt)
{
    json_t *pod = ctl_tj_base_pod(&ctl_tj_pytorchjob, job, r, rank, rank, attempt);
    const char *type = json_string_value(json_object_get(r, "type"));
    if (type && !strcmp(type, "Master")) /* IsMasterRole: the Master only, not a worker-0 */
        sl_kube_set_label(pod, L "job-role", "master");
    json_t *all = ctl_ptj_replicas(job);
    set_env(job, json_object_get(pod, "spec"), rank, json_array_size(all));
    json_decref(all);
    sl_pod_apply_defaults(pod);
    ctl_status_init(pod, sl_kube_now_ns());
    return pod;
}

const ctl_tj_kind_t ctl_tj_pytorchjob = {
    .res = "pytorchjobs.kubeflow.org",
    .kind = "PyTorchJob",
    .api_version = "kubeflow.org/v1",
    .specs = "spec.pytorchReplicaSpecs",
    .types = {"Master", "Worker"},
    .operator_name = "pytorchjob-controller",
    .launcher_rules = false,
    .new_pod = ptj_new_pod,
    .shape = ptj_shape,
    .range = ptj_range,
};
