/* resource.c — the resources slurmlinkd serves. */
#include "api/resource.h"
#include "kinds/kind.h"

#include <stdio.h>
#include <string.h>

#define RW_ALL API_V_ALL
#define NS_RW (API_V_CREATE | API_V_DELETE | API_V_GET | API_V_LIST | API_V_PATCH | API_V_UPDATE | API_V_WATCH)

/* the core group's resources; the workload kinds' rows
 * (src/kinds/registry.c) follow them in api_resources, then core_groups */
static const api_resource_t core[] = {
    {"", "v1", "pods", "pod", "Pod", "PodList", true, RW_ALL, {"po"}, {"all"}, true, true, "pods",
     &api_pod_ops},
    {"", "v1", "namespaces", "namespace", "Namespace", "NamespaceList", false, NS_RW, {"ns"}, {0},
     true, false, "namespaces", &api_namespace_ops},
    /* Nodes mirror Slurm's nodes: the controllers write them through the
     * store; a PATCH of spec.unschedulable drains or resumes the Slurm
     * node (kubectl cordon, nodeops.c), nothing else of them is written. */
    {"", "v1", "nodes", "node", "Node", "NodeList", false, API_V_READ | API_V_PATCH, {"no"}, {0}, true, false,
     "nodes", &api_node_ops},
    {"", "v1", "events", "event", "Event", "EventList", true, RW_ALL, {"ev"}, {0}, false, false,
     "events", &api_event_ops},
    {"", "v1", "configmaps", "configmap", "ConfigMap", "ConfigMapList", true, RW_ALL, {"cm"}, {0},
     false, false, "configmaps", &api_configmap_ops},
    {"", "v1", "secrets", "secret", "Secret", "SecretList", true, RW_ALL, {0}, {0}, false, false,
     "secrets", &api_secret_ops},
    {"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", "ServiceAccountList", true,
     RW_ALL, {"sa"}, {0}, false, false, "serviceaccounts", &api_serviceaccount_ops},
    /* per-namespace limits (quota.c): admins write them, the server keeps
     * status.hard and status.used */
    {"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", "ResourceQuotaList", true,
     RW_ALL, {"quota"}, {0}, true, false, "resourcequotas", &api_resourcequota_ops},
    /* storage (storage_kind.c): claims bind to folders of the site's shared
     * filesystems (src/ctl/storage.c); volumes are the controller's or an
     * admin's; classes come from storage.classes and are read-only here */
    {"", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim",
     "PersistentVolumeClaimList", true, RW_ALL, {"pvc"}, {0}, true, false,
     "persistentvolumeclaims", &api_pvc_ops},
    {"", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", "PersistentVolumeList",
     false, RW_ALL, {"pv"}, {0}, true, false, "persistentvolumes", &api_pv_ops},
    {0},
};

/* the core resources of other groups, served after the kinds */
static const api_resource_t core_groups[] = {
    /* storage.k8s.io/v1 StorageClasses: the admin's storage.classes, read-only */
    {"storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", "StorageClassList",
     false, API_V_READ, {"sc"}, {0}, false, false, "storageclasses.storage.k8s.io",
     &api_storageclass_ops},
    /* resource.k8s.io/v1 DRA (dra_kind.c): the subset slurmlink turns into
     * GRES; the controller fills a claim's status once Slurm placed the job */
    {"resource.k8s.io", "v1", "deviceclasses", "deviceclass", "DeviceClass", "DeviceClassList",
     false, RW_ALL, {0}, {0}, false, false, "deviceclasses.resource.k8s.io",
     &api_deviceclass_ops},
    {"resource.k8s.io", "v1", "resourceclaims", "resourceclaim", "ResourceClaim",
     "ResourceClaimList", true, RW_ALL, {0}, {0}, true, false, "resourceclaims.resource.k8s.io",
     &api_resourceclaim_ops},
    {"resource.k8s.io", "v1", "resourceclaimtemplates", "resourceclaimtemplate",
     "ResourceClaimTemplate", "ResourceClaimTemplateList", true, RW_ALL, {0}, {0}, false, false,
     "resourceclaimtemplates.resource.k8s.io", &api_resourceclaimtemplate_ops},
    {0},
};

static api_resource_t table[API_MAX_RESOURCES + 1];
const api_resource_t *const api_resources = table;

/* the served table: the core group's rows, every registered kind's, the
 * other groups' core rows (before
 * main: nothing reads it earlier, and it never changes after) */
__attribute__((constructor)) static void build_table(void)
{
    size_t n = 0;
    for (const api_resource_t *r = core; r->name && n < API_MAX_RESOURCES; r++)
        table[n++] = *r;
    for (const sl_kind_t *const *k = sl_kinds; *k && n < API_MAX_RESOURCES; k++)
        table[n++] = (*k)->api;
    for (const api_resource_t *r = core_groups; r->name && n < API_MAX_RESOURCES; r++)
        table[n++] = *r;
    table[n] = (api_resource_t){0};
}

const api_resource_t *api_resource_find(const char *group, const char *version, const char *plural)
{
    for (const api_resource_t *r = api_resources; r->name; r++)
        if (!strcmp(r->group, group) && !strcmp(r->version, version) && !strcmp(r->name, plural))
            return r;
    return NULL;
}

const char *api_resource_api_version(const api_resource_t *r, char *buf, size_t len)
{
    if (!*r->group)
        snprintf(buf, len, "%s", r->version);
    else
        snprintf(buf, len, "%s/%s", r->group, r->version);
    return buf;
}
