/* dra_kind.c — resource.k8s.io/v1 DeviceClass (cluster-scoped),
 * ResourceClaim and ResourceClaimTemplate (namespaced): the subset of DRA
 * slurmlink turns into Slurm GRES (docs/gpus.md, "DRA"). A request is
 * `exactly` a count of devices of a class, selected by the CEL subset of
 * gpu/gpu.h; anything else of a claim's spec is a 422 naming the field, so
 * nothing is accepted that would not be honoured. The server owns a
 * claim's status (its allocation, once Slurm placed the pod's job). */
#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "gpu/gpu.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <stdlib.h>
#include <string.h>

/* selectors[] at path: each {cel: {expression}} in the CEL subset */
static void check_selectors(const json_t *sels, const char *path, sl_error_t *err)
{
    size_t i;
    json_t *s;
    json_array_foreach(sels, i, s)
    {
        const char *e = sl_kube_path_str((json_t *)s, "cel.expression");
        char *prod = NULL;
        const char *why = NULL;
        if (!e)
            sl_err_required(err, "", "%s[%zu].cel.expression", path, i);
        else if (sl_gpu_cel(e, &prod, &why) < 0)
            sl_err_invalid(err, e, why, "%s[%zu].cel.expression", path, i);
        free(prod);
    }
}

static void check_request(const json_t *rq, const char *path, sl_error_t *err)
{
    const char *name = json_string_value(json_object_get(rq, "name"));
    if (!name || !*name)
        sl_err_required(err, "", "%s.name", path);
    else {
        char *f = sl_xasprintf("%s.name", path);
        sl_validate_dns1123_label(err, f, name);
        free(f);
    }
    const json_t *ex = json_object_get(rq, "exactly");
    if (json_object_get(rq, "firstAvailable"))
        sl_err_forbidden(err, "slurmlink serves only exactly requests", "%s.firstAvailable", path);
    if (!json_is_object(ex)) {
        sl_err_required(err, "exactly a count of devices of a class", "%s.exactly", path);
        return;
    }
    if (!json_string_value(json_object_get(ex, "deviceClassName")))
        sl_err_required(err, "", "%s.exactly.deviceClassName", path);
    const char *mode = json_string_value(json_object_get(ex, "allocationMode"));
    if (mode && strcmp(mode, "ExactCount"))
        sl_err_not_supported(err, mode, (const char *const[]){"ExactCount", NULL},
                             "%s.exactly.allocationMode", path);
    json_t *n = json_object_get(ex, "count");
    if (n && (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > 64))
        sl_err_invalid(err, "", "must be an integer in 1..64", "%s.exactly.count", path);
    char *sp = sl_xasprintf("%s.exactly.selectors", path);
    check_selectors(json_object_get(ex, "selectors"), sp, err);
    free(sp);
    static const char *const other[] = {"adminAccess", "tolerations", "capacity"};
    for (size_t k = 0; k < sizeof(other) / sizeof(other[0]); k++)
        if (json_object_get(ex, other[k]))
            sl_err_forbidden(err, "not supported by slurmlink", "%s.exactly.%s", path, other[k]);
}

/* a ResourceClaimSpec at path ("spec" or "spec.spec") */
static void check_claim_spec(const json_t *spec, const char *path, sl_error_t *err)
{
    const json_t *dev = json_object_get(spec, "devices");
    const json_t *rqs = json_object_get(dev, "requests");
    if (!json_array_size(rqs))
        sl_err_required(err, "at least one request", "%s.devices.requests", path);
    size_t i;
    json_t *rq;
    json_array_foreach(rqs, i, rq)
    {
        char *p = sl_xasprintf("%s.devices.requests[%zu]", path, i);
        check_request(rq, p, err);
        free(p);
    }
    if (json_array_size(json_object_get(dev, "constraints")))
        sl_err_forbidden(err, "not supported by slurmlink", "%s.devices.constraints", path);
    if (json_array_size(json_object_get(dev, "config")))
        sl_err_forbidden(err, "not supported by slurmlink", "%s.devices.config", path);
}

static int claim_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    check_claim_spec(json_object_get(obj, "spec"), "spec", err);
    return api_fields_result(err);
}

static int claim_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    if (!json_equal(json_object_get(obj, "spec"), json_object_get(old, "spec")))
        sl_err_invalid(err, "", "field is immutable", "spec");
    return claim_validate(obj, err);
}

static void claim_prepare_create(json_t *obj) { json_object_del(obj, "status"); }

static void claim_prepare_update(json_t *obj, json_t *old)
{
    json_t *st = json_object_get(old, "status");
    if (st)
        json_object_set(obj, "status", st);
    else
        json_object_del(obj, "status");
}

static void claim_defaults(json_t *obj)
{
    size_t i;
    json_t *rq;
    json_array_foreach(sl_kube_path(obj, "spec.devices.requests"), i, rq)
    {
        json_t *ex = json_object_get(rq, "exactly");
        if (!json_is_object(ex))
            continue;
        if (!json_object_get(ex, "allocationMode"))
            json_object_set_new(ex, "allocationMode", json_string("ExactCount"));
        if (!json_object_get(ex, "count"))
            json_object_set_new(ex, "count", json_integer(1));
    }
}

static json_t *col(const char *name, const char *desc)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", "string", "format",
                     !strcmp(name, "Name") ? "name" : "", "description", desc, "priority", 0);
}

static json_t *age(json_t *o, long long now)
{
    int64_t t = 0;
    const char *c = sl_kube_meta_str(o, "creationTimestamp");
    char buf[32] = "<unknown>";
    if (c && sl_kube_parse_rfc3339(c, &t) == 0)
        sl_kube_human_duration(now - t, buf, sizeof(buf));
    return json_string(buf);
}

static json_t *claim_columns(void)
{
    return json_pack(
        "[o, o, o]", col("Name", "Name of the claim"),
        col("State", "allocated,reserved once Slurm placed the pod's job, else pending"),
        col("Age", "time since creation"));
}

static json_t *claim_cells(json_t *o, long long now)
{
    int alloc = json_array_size(sl_kube_path(o, "status.allocation.devices.results")) > 0;
    int res = json_array_size(sl_kube_path(o, "status.reservedFor")) > 0;
    const char *state = alloc && res ? "allocated,reserved" : alloc ? "allocated" : "pending";
    return json_pack("[s, s, o]", sl_kube_name(o), state, age(o, now));
}

static json_t *plain_columns(void)
{
    return json_pack("[o, o]", col("Name", "Name of the object"),
                     col("Age", "time since creation"));
}

static json_t *plain_cells(json_t *o, long long now)
{
    return json_pack("[s, o]", sl_kube_name(o), age(o, now));
}

const api_kind_ops_t api_resourceclaim_ops = {
    .defaults = claim_defaults,
    .prepare_create = claim_prepare_create,
    .prepare_update = claim_prepare_update,
    .validate_create = claim_validate,
    .validate_update = claim_validate_update,
    .table_columns = claim_columns,
    .table_cells = claim_cells,
};

static void template_defaults(json_t *obj)
{
    json_t *inner = json_pack("{s:O}", "spec", sl_kube_path(obj, "spec.spec"));
    claim_defaults(inner);
    json_decref(inner);
}

static int template_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    check_claim_spec(sl_kube_path(obj, "spec.spec"), "spec.spec", err);
    return api_fields_result(err);
}

static int template_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    if (!json_equal(json_object_get(obj, "spec"), json_object_get(old, "spec")))
        sl_err_invalid(err, "", "field is immutable", "spec");
    return template_validate(obj, err);
}

const api_kind_ops_t api_resourceclaimtemplate_ops = {
    .defaults = template_defaults,
    .validate_create = template_validate,
    .validate_update = template_validate_update,
    .table_columns = plain_columns,
    .table_cells = plain_cells,
};

static int class_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    check_selectors(sl_kube_path(obj, "spec.selectors"), "spec.selectors", err);
    if (json_array_size(sl_kube_path(obj, "spec.config")))
        sl_err_forbidden(err, "not supported by slurmlink", "spec.config");
    return api_fields_result(err);
}

static int class_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    return class_validate(obj, err);
}

const api_kind_ops_t api_deviceclass_ops = {
    .validate_create = class_validate,
    .validate_update = class_validate_update,
    .table_columns = plain_columns,
    .table_cells = plain_cells,
};
