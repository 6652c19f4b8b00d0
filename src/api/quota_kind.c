/* quota_kind.c — the ResourceQuota kind: strict decoding, validation with
 * kube-apiserver's texts (ValidateResourceQuota), status reset on create and
 * kept on update (only the /status subresource and the server write it).
 * Admission of pods against quotas and status.used: quota.c. */
#include "api/internal.h"
#include "api/printers.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/quantity.h"
#include "pod/pod.h"

#include <string.h>

/* 0, or -1 with the first value that does not decode as a quantity (a
 * BadRequest with kube's text) in err. */
static int check_quantity_map(json_t *map, sl_error_t *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(map, k, v)
    {
        sl_quantity_t q;
        if (sl_quantity_from_json(v, &q, NULL, err) < 0)
            return -1;
    }
    return 0;
}

static int rq_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    if (check_quantity_map(sl_kube_path(obj, "spec.hard"), err) < 0 ||
        check_quantity_map(sl_kube_path(obj, "status.hard"), err) < 0 ||
        check_quantity_map(sl_kube_path(obj, "status.used"), err) < 0)
        return -1;
    return api_schema_unknown("ResourceQuota", obj, unknown);
}

/* the object counts kube's quota system knows (helper's standard and
 * integer resource names both start from them) */
static const char *const object_counts[] = {"pods",
                                            "services",
                                            "replicationcontrollers",
                                            "resourcequotas",
                                            "secrets",
                                            "configmaps",
                                            "persistentvolumeclaims",
                                            "services.nodeports",
                                            "services.loadbalancers",
                                            NULL};

static bool in_list(const char *k, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (!strcmp(k, list[i]))
            return true;
    return false;
}

/* helper.IsStandardQuotaResourceName: the names kube's quota system knows */
static bool standard_quota_name(const char *k)
{
    static const char *const compute[] = {"cpu",
                                          "memory",
                                          "ephemeral-storage",
                                          "requests.cpu",
                                          "requests.memory",
                                          "requests.storage",
                                          "requests.ephemeral-storage",
                                          "limits.cpu",
                                          "limits.memory",
                                          "limits.ephemeral-storage",
                                          NULL};
    return in_list(k, object_counts) || in_list(k, compute) || !strncmp(k, "count/", 6) ||
           !strncmp(k, "hugepages-", 10) || !strncmp(k, "requests.hugepages-", 19);
}

/* helper.IsIntegerResourceName: object counts and extended resources */
static bool integer_quota_name(const char *k)
{
    if (in_list(k, object_counts) || !strncmp(k, "count/", 6))
        return true;
    /* IsExtendedResourceName: a domain-prefixed name outside kubernetes.io
     * that is not itself a requests. quota name */
    return strchr(k, '/') && !strstr(k, "kubernetes.io/") && strncmp(k, "requests.", 9) &&
           strncmp(k, "limits.", 7);
}

/* what src/api/quota.c counts: pods and what pods request, claims and
 * their storage; object counts of other kinds (configmaps, secrets,
 * count/X, ...) are not counted, so a quota naming them would be stored but
 * never enforced */
static bool pod_quota_name(const char *k)
{
    const char *sc = strstr(k, ".storageclass.storage.k8s.io/");
    if (!strcmp(k, "pods") || !strcmp(k, "count/pods") || !strcmp(k, "persistentvolumeclaims") ||
        !strcmp(k, "count/persistentvolumeclaims") || !strcmp(k, "requests.storage") ||
        !strcmp(k, "services") || !strcmp(k, "count/services") ||
        !strcmp(k, "services.nodeports") || !strcmp(k, "services.loadbalancers"))
        return true;
    if (sc)
        return !strcmp(sc + 29, "requests.storage") || !strcmp(sc + 29, "persistentvolumeclaims");
    if (in_list(k, object_counts) || !strncmp(k, "count/", 6) || !strcmp(k, "requests.storage") ||
        strstr(k, "storage") == k)
        return false;
    return !strstr(k, ".storageclass.storage.k8s.io/");
}

static void validate_list(json_t *list, const char *field, sl_error_t *errs)
{
    const char *k;
    json_t *v;
    json_object_foreach(list, k, v)
    {
        char *f = sl_xasprintf("%s[%s]", field, k);
        sl_validate_qualified_name(errs, f, k);
        if (!strchr(k, '/') && !standard_quota_name(k))
            sl_err_invalid(errs, k, "must be a standard resource for quota", "%s", f);
        else if (!pod_quota_name(k))
            sl_err_forbidden(errs,
                             "not supported: slurmlink enforces quotas on pods and the "
                             "resources they request (pods, count/pods, cpu, memory, "
                             "ephemeral-storage, extended resources such as nvidia.com/gpu) "
                             "and on persistentvolumeclaims, requests.storage and services, "
                             "not on other objects",
                             "%s", f);
        sl_quantity_t q;
        char *text = NULL;
        if (sl_quantity_from_json(v, &q, &text, NULL) == 0) {
            if (sl_quantity_sign(&q) < 0)
                sl_err_invalid(errs, text, "must be greater than or equal to 0", "%s", f);
            else if (integer_quota_name(k) && !sl_quantity_is_integer(&q))
                sl_err_invalid(errs, text, "must be an integer", "%s", f);
        }
        free(text);
        free(f);
    }
}

static int rq_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    validate_list(sl_kube_path(obj, "spec.hard"), "spec.hard", err);
    /* scopes narrow a quota to some pods; slurmlink counts every pod of
     * the namespace, so a scoped quota would be enforced wrongly */
    if (json_array_size(sl_kube_path(obj, "spec.scopes")))
        sl_err_forbidden(err, "not supported: quotas apply to every pod of the namespace",
                         "spec.scopes");
    if (sl_kube_path(obj, "spec.scopeSelector"))
        sl_err_forbidden(err, "not supported: quotas apply to every pod of the namespace",
                         "spec.scopeSelector");
    return api_fields_result(err);
}

static int rq_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    return rq_validate(obj, err);
}

static void rq_prepare_create(json_t *obj)
{
    json_object_del(obj, "status"); /* the server computes it */
}

static void rq_prepare_update(json_t *obj, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(obj, "status", s);
    else
        json_object_del(obj, "status");
}

const api_kind_ops_t api_resourcequota_ops = {
    .decode_check = rq_decode,
    .prepare_create = rq_prepare_create,
    .prepare_update = rq_prepare_update,
    .validate_create = rq_validate,
    .validate_update = rq_validate_update,
    .table_columns = api_resourcequota_columns,
    .table_cells = api_resourcequota_cells,
};
