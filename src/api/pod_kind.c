/* pod_kind.c — the Pod's hooks: strict decoding and "ignored field"
 * warnings, defaults, status reset on create and kept on update,
 * validation (of the status subresource too), spec immutability, QoS
 * class, printers.
 *
 * Every call into the pod module (src/pod) is in this file, so the API
 * layer has one place where Pod semantics are wired in. */
#include "api/internal.h"
#include "api/printers.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/quantity.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "pod/status.h"
#include "translate/translate.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- decoding: quantities fail while decoding in kube-apiserver (400,
 * not 422), then unknown fields and ignored-field warnings ---- */

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

static int check_quantities(json_t *pod, sl_error_t *err)
{
    const char *lists[] = {"spec.initContainers", "spec.containers", "spec.ephemeralContainers"};
    for (int l = 0; l < 3; l++) {
        size_t i;
        json_t *c;
        json_array_foreach(sl_kube_path(pod, lists[l]), i, c)
        {
            json_t *res = json_object_get(c, "resources");
            if (check_quantity_map(json_object_get(res, "limits"), err) < 0 ||
                check_quantity_map(json_object_get(res, "requests"), err) < 0)
                return -1;
        }
    }
    if (check_quantity_map(sl_kube_path(pod, "spec.overhead"), err) < 0)
        return -1;
    size_t i;
    json_t *v;
    json_array_foreach(sl_kube_path(pod, "spec.volumes"), i, v)
    {
        json_t *sz = json_object_get(json_object_get(v, "emptyDir"), "sizeLimit");
        sl_quantity_t q;
        if (sz && sl_quantity_from_json(sz, &q, NULL, err) < 0)
            return -1;
    }
    return 0;
}

static int pod_decode(json_t *pod, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    if (check_quantities(pod, err) < 0)
        return -1; /* a BadRequest */
    api_schema_unknown("Pod", pod, unknown);
    size_t n = 0;
    char **w = sl_schema_pod_warnings(pod, &n);
    for (size_t i = 0; w && i < n; i++)
        json_array_append_new(warnings, json_string(w[i]));
    sl_strv_free(w);
    return 0;
}

/* ---- QoS class (pkg/apis/core/helper/qos) ---- */

static int quantity(json_t *v, sl_quantity_t *out)
{
    return v ? sl_quantity_from_json(v, out, NULL, NULL) : -1;
}

static const char *qos_class(json_t *pod)
{
    bool any = false, guaranteed = true;
    const char *lists[] = {"spec.containers", "spec.initContainers"};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *c;
        json_array_foreach(sl_kube_path(pod, lists[l]), i, c)
        {
            json_t *res = json_object_get(c, "resources");
            json_t *req = json_object_get(res, "requests"), *lim = json_object_get(res, "limits");
            static const char *const names[] = {"cpu", "memory"};
            for (int k = 0; k < 2; k++) {
                sl_quantity_t rq, lq;
                bool hr =
                    quantity(json_object_get(req, names[k]), &rq) == 0 && sl_quantity_sign(&rq);
                bool hl =
                    quantity(json_object_get(lim, names[k]), &lq) == 0 && sl_quantity_sign(&lq);
                if (hr || hl)
                    any = true;
                if (!hl || (hr && sl_quantity_cmp(&rq, &lq) != 0))
                    guaranteed = false;
            }
        }
    }
    if (!any)
        return "BestEffort";
    return guaranteed ? "Guaranteed" : "Burstable";
}

static void pod_defaults(json_t *pod) { sl_pod_apply_defaults(pod); }

static void pod_prepare_create(json_t *pod)
{
    /* clients do not set status: kube-apiserver resets it on create */
    json_object_set_new(pod, "status",
                        json_pack("{s:s, s:s}", "phase", "Pending", "qosClass", qos_class(pod)));
}

static void pod_prepare_update(json_t *pod, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(pod, "status", s);
    else
        json_object_del(pod, "status");
}

/* ---- validation ---- */

/* Limits kube-apiserver leaves to etcd's object size; slurmlink sets them
 * so that one pod cannot make a batch script, a shim.json or a job's
 * process table absurd. Generous for real pods. */
#define POD_MAX_CONTAINERS 64 /* each of containers, initContainers, ephemeralContainers */
#define POD_MAX_ENV 1024      /* env entries per container */
#define POD_MAX_ENV_FROM 64   /* envFrom sources per container */
#define POD_MAX_MOUNTS 256    /* volumeMounts per container */
#define POD_MAX_VOLUMES 256

static void too_many(sl_error_t *errs, json_t *a, size_t max, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void too_many(sl_error_t *errs, json_t *a, size_t max, const char *fmt, ...)
{
    size_t n = json_array_size(a);
    if (n <= max)
        return;
    char field[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(field, sizeof(field), fmt, ap);
    va_end(ap);
    char detail[64];
    snprintf(detail, sizeof(detail), "must have at most %zu items", max);
    sl_err_field_int(errs, SL_FE_TOO_MANY, field, (long long)n, detail);
}

static void pod_limits(json_t *pod, sl_error_t *errs)
{
    json_t *spec = json_object_get(pod, "spec");
    static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
        json_t *a = json_object_get(spec, lists[l]);
        too_many(errs, a, POD_MAX_CONTAINERS, "spec.%s", lists[l]);
        size_t i;
        json_t *c;
        json_array_foreach(a, i, c)
        {
            if (i >= POD_MAX_CONTAINERS)
                break;
            too_many(errs, json_object_get(c, "env"), POD_MAX_ENV, "spec.%s[%zu].env", lists[l], i);
            too_many(errs, json_object_get(c, "envFrom"), POD_MAX_ENV_FROM, "spec.%s[%zu].envFrom",
                     lists[l], i);
            too_many(errs, json_object_get(c, "volumeMounts"), POD_MAX_MOUNTS,
                     "spec.%s[%zu].volumeMounts", lists[l], i);
        }
    }
    too_many(errs, json_object_get(spec, "volumes"), POD_MAX_VOLUMES, "spec.volumes");
}

static int pod_validate(json_t *pod, sl_error_t *err)
{
    pod_limits(pod, err);
    sl_pod_t *p = sl_pod_parse(pod, err);
    /* the annotations slurmlink reads, the slurm-job.vk.io/flags allow-list
     * among them: refused here, at admission, not when the job is submitted */
    if (p)
        sl_translate_validate(p, NULL, err);
    sl_pod_destroy(p);
    return api_fields_result(err);
}

/* Has the pod's Slurm job been submitted (or has it run)? From then on its
 * containers were set up from the images it had. */
static bool has_job(json_t *old)
{
    const char *phase = json_string_value(sl_kube_path(old, "status.phase"));
    return sl_kube_annotation(old, SL_ANN_JOB_ID) || sl_kube_path(old, "spec.nodeName") ||
           (phase && strcmp(phase, "Pending"));
}

/* kube lets an update change a container's image and the kubelet restarts
 * that container with it; the shim cannot take another image into a
 * running job, so once the job exists the change is refused, naming the
 * field, instead of being stored and never run. */
static void images_fixed(json_t *pod, json_t *old, sl_error_t *err)
{
    if (!has_job(old))
        return;
    static const char *const lists[] = {"initContainers", "containers"};
    for (size_t l = 0; l < 2; l++) {
        json_t *na = json_object_get(json_object_get(pod, "spec"), lists[l]);
        json_t *oa = json_object_get(json_object_get(old, "spec"), lists[l]);
        for (size_t i = 0; i < json_array_size(na) && i < json_array_size(oa); i++) {
            json_t *ni = json_object_get(json_array_get(na, i), "image");
            json_t *oi = json_object_get(json_array_get(oa, i), "image");
            if (!ni || !oi || json_equal(ni, oi))
                continue;
            char field[64];
            snprintf(field, sizeof(field), "spec.%s[%zu].image", lists[l], i);
            sl_err_field_none(err, SL_FE_FORBIDDEN, field,
                              "the image cannot change once the pod's Slurm job exists: the "
                              "container is not restarted with another image; delete the pod "
                              "and create it again");
        }
    }
}

static int pod_validate_update(json_t *pod, json_t *old, sl_error_t *err)
{
    pod_limits(pod, err);
    sl_pod_t *p = sl_pod_parse(pod, err);
    sl_pod_destroy(p);
    sl_pod_spec_update_errors(old, pod, err);
    images_fixed(pod, old, err);
    return api_fields_result(err);
}

/* pods/status (admins only, src/auth): validated like the object, so that
 * no reader of a stored status meets a condition without a status, an
 * unknown phase or a podIP that is not an address; and a terminal phase is
 * final */
static int pod_validate_status(json_t *pod, json_t *old, sl_error_t *err)
{
    sl_pod_status_errors(pod, err);
    sl_pod_status_update_errors(pod, old, err);
    return api_fields_result(err);
}

const api_kind_ops_t api_pod_ops = {
    .decode_check = pod_decode,
    .defaults = pod_defaults,
    .prepare_create = pod_prepare_create,
    .prepare_update = pod_prepare_update,
    .validate_create = pod_validate,
    .validate_update = pod_validate_update,
    .validate_status = pod_validate_status,
    .table_columns = api_pod_columns,
    .table_cells = api_pod_cells,
};
