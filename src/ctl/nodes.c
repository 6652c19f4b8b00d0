/* nodes.c — one Kubernetes Node per Slurm node, kept current. */
#include "common/fault.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/poll.h"
#include "gpu/gpu.h"
#include "kube/meta.h"
#include "metrics/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* the node snapshot (poll.h): mu, a leaf lock, guards snap; since is the
 * controller thread's */
struct ctl_nodes {
    pthread_mutex_t mu;
    sl_slurm_nodes_t *snap; /* last node snapshot (names → addresses) */
    time_t since;           /* the node list's last update time read */
};

ctl_nodes_t *ctl_nodes_create(void)
{
    ctl_nodes_t *n = sl_xcalloc(1, sizeof(*n));
    pthread_mutex_init(&n->mu, NULL);
    return n;
}

void ctl_nodes_destroy(ctl_nodes_t *n)
{
    if (!n)
        return;
    sl_slurm_nodes_free(n->snap);
    pthread_mutex_destroy(&n->mu);
    free(n);
}

void ctl_node_addr(sl_ctl_t *c, const char *node, char *out, size_t len)
{
    snprintf(out, len, "%s", "");
    pthread_mutex_lock(&c->nodes->mu);
    for (size_t i = 0; i < sl_slurm_nodes_count(c->nodes->snap); i++) {
        const sl_slurm_node_t *n = sl_slurm_nodes_at(c->nodes->snap, i);
        if (n && !strcmp(n->name, node)) {
            snprintf(out, len, "%s", *n->addr ? n->addr : n->hostname);
            break;
        }
    }
    pthread_mutex_unlock(&c->nodes->mu);
}

int ctl_node_up_now(const char *node)
{
    sl_slurm_nodes_t *all = NULL;
    if (sl_slurm_nodes_load(NULL, &all, NULL) < 0)
        return -1;
    int up = -1;
    for (size_t i = 0; i < sl_slurm_nodes_count(all) && up < 0; i++) {
        const sl_slurm_node_t *n = sl_slurm_nodes_at(all, i);
        if (n && !strcmp(n->name, node))
            up = !n->down && !n->not_responding;
    }
    sl_slurm_nodes_free(all);
    return up;
}

static void add_list_labels(json_t *labels, const char *prefix, const char *list)
{
    char *copy = sl_xstrdup(list);
    char *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *key = sl_xasprintf("%s%s", prefix, t);
        if (sl_kube_is_label_key(key, NULL))
            json_object_set_new(labels, key, json_string("true"));
        free(key);
    }
    free(copy);
}

/* a MIG profile's shape, "1g.10gb": NVIDIA's resource is nvidia.com/mig-<it> */
static int mig_profile(const char *t)
{
    unsigned g, m;
    char rest[4];
    return sscanf(t, "%ug.%ugb%3s", &g, &m, rest) == 2;
}

static void cap_add(json_t *cap, const char *name, long n)
{
    json_t *v = json_object_get(cap, name);
    long had = v ? strtol(json_string_value(v), NULL, 10) : 0;
    char s[24];
    snprintf(s, sizeof(s), "%ld", had + n);
    json_object_set_new(cap, name, json_string(s));
}

/* the node's GPUs as NVIDIA's device plugin and feature discovery show
 * them: capacity nvidia.com/gpu (whole GPUs), nvidia.com/mig-PROFILE, the
 * shared resource (shards); labels nvidia.com/gpu.product (the policy
 * table's product of its first GPU type) and nvidia.com/gpu.count */
static void node_gpus(sl_ctl_t *c, const sl_slurm_node_t *n, json_t *labels, json_t *cap)
{
    sl_gpu_gres_t g[16];
    size_t ng = sl_gpu_gres_parse(n->gres, g, 16);
    long whole = 0;
    const char *type = NULL;
    for (size_t i = 0; i < ng; i++) {
        if (!strcmp(g[i].name, "shard")) {
            cap_add(cap, c->o.gpu_shared ? c->o.gpu_shared : SL_GPU_DEFAULT_SHARED, g[i].count);
        } else if (!strcmp(g[i].name, "gpu") && mig_profile(g[i].type)) {
            char *k = sl_xasprintf(SL_GPU_MIG_PREFIX "%s", g[i].type);
            cap_add(cap, k, g[i].count);
            free(k);
        } else if (!strcmp(g[i].name, "gpu")) {
            whole += g[i].count;
            if (!type && *g[i].type)
                type = g[i].type;
        }
    }
    if (whole)
        cap_add(cap, "nvidia.com/gpu", whole);
    char cnt[24];
    snprintf(cnt, sizeof(cnt), "%ld", whole);
    if (whole)
        json_object_set_new(labels, SL_GPU_COUNT_LABEL, json_string(cnt));
    char *prod = type ? sl_gpu_product_for_type(c->o.gpu_types, type) : NULL;
    if (prod && sl_kube_is_label_value(prod, NULL))
        json_object_set_new(labels, SL_GPU_PRODUCT_LABEL, json_string(prod));
    free(prod);
}

/* the desired Node object for a Slurm node (without metadata bookkeeping) */
static json_t *node_object(sl_ctl_t *c, const sl_slurm_node_t *n)
{
    struct utsname u;
    uname(&u);
    json_t *labels =
        json_pack("{s:s, s:s, s:s, s:s}", "kubernetes.io/hostname", n->name, "kubernetes.io/os",
                  "linux", "kubernetes.io/arch", !strcmp(u.machine, "x86_64") ? "amd64" : u.machine,
                  "slurmlink.io/node", n->name);
    add_list_labels(labels, "slurmlink.io/partition-", n->partitions);
    add_list_labels(labels, "slurmlink.io/feature-", n->features);

    char cpu[16], mem[32], gpu[16], pods[16];
    snprintf(cpu, sizeof(cpu), "%u", n->cpus);
    snprintf(mem, sizeof(mem), "%lluMi", (unsigned long long)n->real_memory_mb);
    snprintf(gpu, sizeof(gpu), "%u", n->gpus);
    snprintf(pods, sizeof(pods), "%u", n->cpus * 16 > 110 ? n->cpus * 16 : 110);
    json_t *cap = json_pack("{s:s, s:s, s:s}", "cpu", cpu, "memory", mem, "pods", pods);
    node_gpus(c, n, labels, cap);

    int ready = !n->down && !n->not_responding;
    const char *reason = n->down             ? "SlurmNodeDown"
                         : n->not_responding ? "SlurmdNotResponding"
                                             : "SlurmdReady";
    char msg[512];
    if (ready && n->drain)
        snprintf(msg, sizeof(msg), "slurmd is up; Slurm state %s (drained: %s)", n->state,
                 *n->reason ? n->reason : "no reason given");
    else if (ready)
        snprintf(msg, sizeof(msg), "slurmd is up; Slurm state %s", n->state);
    else
        snprintf(msg, sizeof(msg), "Slurm state %s%s%s", n->state, *n->reason ? ": " : "",
                 n->reason);

    char alloc[160];
    snprintf(alloc, sizeof(alloc), "cpu=%u/%u, memory=%lluMi/%lluMi, nvidia.com/gpu=%u/%u",
             n->alloc_cpus, n->cpus, (unsigned long long)n->alloc_memory_mb,
             (unsigned long long)n->real_memory_mb, n->alloc_gpus, n->gpus);
    char ver[64];
    snprintf(ver, sizeof(ver), "slurm-%s", n->version);

    json_t *addrs = json_array();
    if (*n->addr)
        json_array_append_new(addrs,
                              json_pack("{s:s, s:s}", "type", "InternalIP", "address", n->addr));
    json_array_append_new(addrs, json_pack("{s:s, s:s}", "type", "Hostname", "address",
                                           *n->hostname ? n->hostname : n->name));
    json_t *obj = json_pack(
        "{s:s, s:s, s:{s:s, s:o, s:{s:s, s:s, s:s}},"
        " s:{s:b},"
        " s:{s:o, s:O, s:[{s:s, s:s, s:s, s:s}], s:o,"
        "    s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}}}",
        "apiVersion", "v1", "kind", "Node", "metadata", "name", n->name, "labels", labels,
        "annotations", "slurmlink.io/slurm-state", n->state, "slurmlink.io/allocated", alloc,
        "slurmlink.io/partitions", n->partitions, "spec", "unschedulable", n->drain, "status",
        "capacity", cap, "allocatable", cap, "conditions", "type", "Ready", "status",
        ready ? "True" : "False", "reason", reason, "message", msg, "addresses", addrs, "nodeInfo",
        "kubeletVersion", ver, "kubeProxyVersion", "", "operatingSystem", "linux", "architecture",
        !strcmp(u.machine, "x86_64") ? "amd64" : u.machine, "kernelVersion", u.release, "osImage",
        "Slurm node", "containerRuntimeVersion", "slurm://", "machineID", "", "systemUUID", "",
        "bootID", "");
    sl_kube_node_set_unschedulable(obj, n->drain); /* and its taint, as kube shows a cordon */
    return obj;
}

typedef struct node_upd {
    json_t *want;
    char *now;
    const sl_slurm_nodes_t *snap; /* what want was made from */
    bool kept;                    /* a spec kept: snap predates a cordon */
} node_upd_t;

/* copy the desired fields onto the stored node; keep transition times */
static int node_mutate(json_t *obj, void *arg)
{
    node_upd_t *u = arg;
    json_t *meta = json_object_get(obj, "metadata");
    json_t *wmeta = json_object_get(u->want, "metadata");
    int changed = 0;
    const char *keys[] = {"labels", "annotations"};
    for (int i = 0; i < 2; i++) {
        json_t *w = json_object_get(wmeta, keys[i]);
        if (!json_equal(json_object_get(meta, keys[i]), w)) {
            json_object_set(meta, keys[i], w);
            changed = 1;
        }
    }
    json_t *wspec = json_object_get(u->want, "spec");
    if (!json_equal(json_object_get(obj, "spec"), wspec)) {
        /* A snapshot read before a cordon or uncordon (api/nodeops.c)
         * leaves the spec that wrote alone. Checked under the store's
         * writer lock, which the cordon's write takes after its update in
         * Slurm, so the write this keeps is never an older one. */
        if (sl_slurm_nodes_outdated(u->snap)) {
            u->kept = true;
        } else {
            json_object_set(obj, "spec", wspec);
            changed = 1;
        }
    }
    json_t *st = json_object_get(obj, "status");
    json_t *wst = json_object_get(u->want, "status");
    json_t *oldc = json_array_get(json_object_get(st, "conditions"), 0);
    json_t *newc = json_array_get(json_object_get(wst, "conditions"), 0);
    const char *ostat = json_string_value(json_object_get(oldc, "status"));
    const char *trans = json_string_value(json_object_get(oldc, "lastTransitionTime"));
    int flip = !ostat || strcmp(ostat, json_string_value(json_object_get(newc, "status")));
    json_object_set_new(newc, "lastTransitionTime", json_string(flip || !trans ? u->now : trans));
    json_object_set(newc, "lastHeartbeatTime", json_object_get(oldc, "lastHeartbeatTime"));
    if (!json_equal(st, wst) || !json_object_get(oldc, "lastHeartbeatTime")) {
        json_object_set_new(newc, "lastHeartbeatTime", json_string(u->now));
        json_object_set(obj, "status", wst);
        changed = 1;
    }
    return changed;
}

void ctl_nodes_poll(sl_ctl_t *c)
{
    sl_slurm_nodes_t *n = NULL;
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_slurm_nodes_load(&c->nodes->since, &n, &err);
    if (r < 0) {
        if (ctl_slurm_ok(c))
            sl_warn("Slurm is unreachable: %s", err.text);
        ctl_slurm_set(c, 0);
        return;
    }
    ctl_slurm_set(c, 1);
    if (r == 0)
        return;
    SL_FAULT("nodes-loaded");
    pthread_mutex_lock(&c->nodes->mu);
    sl_slurm_nodes_t *old = c->nodes->snap;
    c->nodes->snap = n;
    pthread_mutex_unlock(&c->nodes->mu);
    sl_slurm_nodes_free(old);
    char *now = sl_kube_now_rfc3339();
    sl_metrics_gpus_begin();
    bool kept = false;
    for (size_t i = 0; i < sl_slurm_nodes_count(n); i++) {
        const sl_slurm_node_t *sn = sl_slurm_nodes_at(n, i);
        if (!sn)
            continue;
        sl_metrics_gpus(sn->name, sn->alloc_gpus, sn->gpus);
        node_upd_t u = {node_object(c, sn), now, n, false};
        sl_error_t e2 = SL_ERROR_INIT;
        if (sl_store_mutate(c->store, "nodes", NULL, sn->name, node_mutate, &u, NULL, &e2) < 0) {
            json_t *obj = json_deep_copy(u.want);
            json_t *cond =
                json_array_get(json_object_get(json_object_get(obj, "status"), "conditions"), 0);
            json_object_set_new(cond, "lastTransitionTime", json_string(now));
            json_object_set_new(cond, "lastHeartbeatTime", json_string(now));
            if (sl_store_create(c->store, "nodes", obj, &e2) < 0 && errno != EEXIST)
                sl_warn("cannot store node %s: %s", sn->name, e2.text);
            json_decref(obj);
        }
        kept |= u.kept;
        json_decref(u.want);
    }
    if (kept) /* read them all again at the next poll, whatever Slurm's time says */
        c->nodes->since = 0;
    free(now);
}
