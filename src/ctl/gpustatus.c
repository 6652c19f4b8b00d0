/* gpustatus.c — the GPUs Slurm bound to a pod's job, as its shim saw them on
 * the node (the pod-started event's "gpus"), written back to the pod:
 *   - annotation slurmlink.io/gpus: {"node", "indexes", "uuids", "shards"}
 *     as JSON, for scripts and `slurmlink report`;
 *   - each GPU container's status.containerStatuses[].allocatedResourcesStatus
 *     (Kubernetes' per-device field, KEP 4680): for each GPU resource the
 *     container asked for, one entry per device, resourceID the GPU's UUID
 *     where the node's driver knows it, else NODE/gpuINDEX. */
#include "ctl/podstatus.h"

#include "common/xalloc.h"
#include "gpu/gpu.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <string.h>

/* a resource name that is a GPU or a part of one: nvidia.com/gpu,
 * amd.com/gpu, nvidia.com/gpu.shared (and other nvidia.com/gpu.*),
 * nvidia.com/mig-PROFILE */
static int gpu_resource(const char *k)
{
    return !strcmp(k, "nvidia.com/gpu") || !strcmp(k, "amd.com/gpu") ||
           !strncmp(k, "nvidia.com/gpu.", 15) ||
           !strncmp(k, SL_GPU_MIG_PREFIX, strlen(SL_GPU_MIG_PREFIX));
}

/* the devices as ResourceHealth entries */
static json_t *devices(json_t *g, const char *node)
{
    json_t *out = json_array(), *ix = json_object_get(g, "indexes");
    json_t *uu = json_object_get(g, "uuids");
    size_t i;
    json_t *v;
    json_array_foreach(ix, i, v)
    {
        const char *u = json_string_value(json_array_get(uu, i));
        char *id = u ? sl_xstrdup(u)
                     : sl_xasprintf("%s/gpu%lld", node ? node : "?", json_integer_value(v));
        json_array_append_new(out, json_pack("{s:s, s:s}", "resourceID", id, "health", "Healthy"));
        free(id);
    }
    return out;
}

/* allocatedResourcesStatus of one container status, from its spec */
static int container_gpus(json_t *cs, const json_t *spec, json_t *devs)
{
    json_t *want = json_array();
    const char *k;
    json_t *v;
    json_t *lim = sl_kube_path((json_t *)spec, "resources.limits");
    json_object_foreach(lim, k, v)
    {
        if (gpu_resource(k))
            json_array_append_new(want, json_pack("{s:s, s:O}", "name", k, "resources", devs));
    }
    if (!json_array_size(want)) {
        json_decref(want);
        return 0;
    }
    if (json_equal(json_object_get(cs, "allocatedResourcesStatus"), want)) {
        json_decref(want);
        return 0;
    }
    json_object_set_new(cs, "allocatedResourcesStatus", want);
    return 1;
}

static const json_t *spec_container(json_t *pod, const char *list, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(pod, list), i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && !strcmp(n, name))
            return c;
    }
    return NULL;
}

/* what the shim said, kept only in the shape it sends: at most 64 GPUs,
 * indexes 0..65535, UUIDs strings of up to 64 bytes (else null), shards
 * 1..100000; NULL when there is no index (a job's own processes can push
 * too: nothing else of theirs reaches the pod) */
static json_t *checked(const json_t *g)
{
    json_t *ix = json_object_get(g, "indexes"), *uu = json_object_get(g, "uuids");
    size_t n = json_array_size(ix);
    if (!n || n > 64)
        return NULL;
    json_t *o = json_object(), *oi = json_array(), *ou = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(ix, i), *u = json_array_get(uu, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 65535) {
            json_decref(o);
            json_decref(oi);
            json_decref(ou);
            return NULL;
        }
        json_array_append(oi, v);
        json_array_append_new(ou, json_is_string(u) && json_string_length(u) <= 64
                                      ? json_string(json_string_value(u))
                                      : json_null());
    }
    json_object_set_new(o, "indexes", oi);
    json_object_set_new(o, "uuids", ou);
    json_t *sh = json_object_get(g, "shards");
    if (json_is_integer(sh) && json_integer_value(sh) > 0 && json_integer_value(sh) <= 100000)
        json_object_set(o, "shards", sh);
    return o;
}

int ctl_status_gpus(json_t *pod, const json_t *ev)
{
    json_t *a = checked(json_object_get(ev, "gpus"));
    const char *node = json_string_value(json_object_get(ev, "node"));
    if (!a || !node || strlen(node) > 253) {
        json_decref(a);
        return 0;
    }
    json_t *g = json_deep_copy(a);
    json_object_set_new(a, "node", json_string(node));
    char *text = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(a);
    int changed = 0;
    const char *old = sl_kube_annotation(pod, SL_ANN_GPUS);
    if (!old || strcmp(old, text)) {
        sl_kube_set_annotation(pod, SL_ANN_GPUS, text);
        changed = 1;
    }
    free(text);
    json_t *devs = devices(g, node);
    json_decref(g);
    static const char *const lists[][2] = {{"status.containerStatuses", "spec.containers"},
                                           {"status.initContainerStatuses", "spec.initContainers"}};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *cs;
        json_array_foreach(sl_kube_path(pod, lists[l][0]), i, cs)
        {
            const char *n = json_string_value(json_object_get(cs, "name"));
            const json_t *spec = n ? spec_container(pod, lists[l][1], n) : NULL;
            if (spec)
                changed |= container_gpus(cs, spec, devs);
        }
    }
    json_decref(devs);
    return changed;
}

char *ctl_gpus_text(const json_t *ev)
{
    json_t *g = checked(json_object_get(ev, "gpus"));
    const char *node = json_string_value(json_object_get(ev, "node"));
    if (!g || !node || strlen(node) > 253) {
        json_decref(g);
        return NULL;
    }
    json_t *uu = json_object_get(g, "uuids");
    size_t i;
    json_t *v;
    char *s = sl_xstrdup("");
    json_array_foreach(json_object_get(g, "indexes"), i, v)
    {
        const char *u = json_string_value(json_array_get(uu, i));
        char *n = sl_xasprintf("%s%s%lld%s%s%s", s, i ? ", " : "", json_integer_value(v),
                               u ? " (" : "", u ? u : "", u ? ")" : "");
        free(s);
        s = n;
    }
    json_int_t shards = json_integer_value(json_object_get(g, "shards"));
    char *m = shards > 0 ? sl_xasprintf("GPU %s on %s, %lld shard(s)", s, node, (long long)shards)
                         : sl_xasprintf("GPU %s on %s", s, node);
    free(s);
    json_decref(g);
    return m;
}
