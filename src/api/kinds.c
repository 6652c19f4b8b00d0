/* kinds.c — per-kind hooks of the simple kinds (namespaces, nodes, events,
 * configmaps, secrets, serviceaccounts): metadata validation with
 * kube-apiserver's texts, defaults, status kept on update, Table printers.
 * Pods have their own file (pod_kind.c). */
#include "api/datakeys.h"
#include "api/internal.h"
#include "api/printers.h"
#include "common/b64.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "pod/pod.h"
#include "pod/schema.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define ANNOTATIONS_MAX (256 * 1024) /* TotalAnnotationSizeLimitB */

/* ValidateObjectMeta: name (label or subdomain), labels, annotations. */
void api_validate_meta(json_t *obj, bool name_is_label, sl_error_t *errs)
{
    const char *name = sl_kube_name(obj);
    const char *gen = sl_kube_meta_str(obj, "generateName");
    if (!name || !*name) {
        if (!gen || !*gen)
            sl_err_required(errs, "name or generateName is required", "metadata.name");
    } else if (name_is_label) {
        sl_validate_dns1123_label(errs, "metadata.name", name);
    } else {
        sl_validate_dns1123_subdomain(errs, "metadata.name", name);
    }
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(sl_kube_meta(obj), "labels"), k, v)
    {
        sl_validate_qualified_name(errs, "metadata.labels", k);
        if (json_is_string(v))
            sl_validate_label_value(errs, "metadata.labels", json_string_value(v));
    }
    size_t total = 0;
    json_object_foreach(json_object_get(sl_kube_meta(obj), "annotations"), k, v)
    {
        char lower[320];
        size_t n = strlen(k);
        if (n >= sizeof(lower))
            n = sizeof(lower) - 1;
        for (size_t i = 0; i < n; i++)
            lower[i] = (char)(k[i] >= 'A' && k[i] <= 'Z' ? k[i] + 32 : k[i]);
        lower[n] = '\0';
        sl_validate_qualified_name(errs, "metadata.annotations", lower);
        total += strlen(k) + (json_is_string(v) ? strlen(json_string_value(v)) : 0);
    }
    if (total > ANNOTATIONS_MAX)
        sl_err_field(errs, SL_FE_TOO_LONG, "metadata.annotations", NULL,
                     "may not be more than 262144 bytes"); /* kube 1.30+ wording */
}

int api_schema_unknown(const char *kind, json_t *obj, json_t *unknown)
{
    size_t n = 0;
    char **v = sl_schema_unknown_fields(kind, obj, &n);
    for (size_t i = 0; v && i < n; i++)
        json_array_append_new(unknown, json_string(v[i]));
    sl_strv_free(v);
    return 0;
}

int api_fields_result(const sl_error_t *err) { return sl_err_nfields(err) ? -1 : 0; }

static int validate_subdomain_named(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    return api_fields_result(err);
}

/* ---- namespaces ---- */

static int ns_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("Namespace", obj, unknown);
}

static void ns_defaults(json_t *obj)
{
    /* kube-apiserver labels every namespace with its own name */
    const char *name = sl_kube_name(obj);
    if (name && *name)
        sl_kube_set_label(obj, "kubernetes.io/metadata.name", name);
}

static void ns_prepare_create(json_t *obj)
{
    json_object_set_new(obj, "spec", json_pack("{s:[s]}", "finalizers", "kubernetes"));
    json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Active"));
}

static void keep_status(json_t *obj, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(obj, "status", s);
    else
        json_object_del(obj, "status");
}

/* kube's namespace strategy: an update keeps spec.finalizers and status
 * (those change through /finalize and /status only) */
static void ns_prepare_update(json_t *obj, json_t *old)
{
    keep_status(obj, old);
    /* the creator, whose Unix user slurm.create_accounts associates with
     * the namespace's account, is the server's */
    const char *creator = sl_kube_annotation(old, SL_ANN_USER);
    json_t *ann = json_object_get(sl_kube_meta(obj), "annotations");
    if (creator)
        sl_kube_set_annotation(obj, SL_ANN_USER, creator);
    else if (json_is_object(ann))
        json_object_del(ann, SL_ANN_USER);
    json_t *fin = sl_kube_path(old, "spec.finalizers");
    json_t *spec = json_object_get(obj, "spec");
    if (!json_is_object(spec))
        json_object_set_new(obj, "spec", spec = json_object());
    if (fin)
        json_object_set(spec, "finalizers", fin);
    else
        json_object_del(spec, "finalizers");
}

/* slurm.create_accounts: a namespace's name is the Slurm account made for
 * it, and Slurm's tree has a root account of its own */
static atomic_int ns_slurm_accounts;

void sl_api_namespace_accounts(int on) { atomic_store(&ns_slurm_accounts, on); }

static int ns_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, true, err);
    const char *name = sl_kube_meta_str(obj, "name");
    if (atomic_load(&ns_slurm_accounts) && name && !strcmp(name, "root"))
        sl_err_invalid(err, name,
                       "is Slurm's root account, which slurm.create_accounts never gives a "
                       "namespace",
                       "metadata.name");
    return api_fields_result(err);
}

static int ns_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    return ns_validate(obj, err);
}

const api_kind_ops_t api_namespace_ops = {
    .decode_check = ns_decode,
    .defaults = ns_defaults,
    .prepare_create = ns_prepare_create,
    .prepare_update = ns_prepare_update,
    .validate_create = ns_validate,
    .validate_update = ns_validate_update,
    .table_columns = api_namespace_columns,
    .table_cells = api_namespace_cells,
};

/* ---- nodes (written by controllers through the store; read here) ---- */

const api_kind_ops_t api_node_ops = {
    .table_columns = api_node_columns,
    .table_cells = api_node_cells,
};

/* ---- events ---- */

static int ev_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("Event", obj, unknown);
}

static int ev_validate(json_t *obj, sl_error_t *err) { return validate_subdomain_named(obj, err); }
static int ev_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    return ev_validate(obj, err);
}

const api_kind_ops_t api_event_ops = {
    .decode_check = ev_decode,
    .validate_create = ev_validate,
    .validate_update = ev_validate_update,
    .table_columns = api_event_columns,
    .table_cells = api_event_cells,
};

/* ---- configmaps ---- */

static int cm_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    if (api_data_decode_check(obj, "binaryData", err) < 0)
        return -1;
    return api_schema_unknown("ConfigMap", obj, unknown);
}

static int cm_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    api_validate_configmap_data(obj, err);
    return api_fields_result(err);
}
static int cm_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    return cm_validate(obj, err);
}

const api_kind_ops_t api_configmap_ops = {
    .decode_check = cm_decode,
    .validate_create = cm_validate,
    .validate_update = cm_validate_update,
    .table_columns = api_configmap_columns,
    .table_cells = api_configmap_cells,
};

/* ---- secrets ---- */

static int secret_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    if (api_data_decode_check(obj, "data", err) < 0)
        return -1;
    return api_schema_unknown("Secret", obj, unknown);
}

/* stringData is write-only (kube's v1 → internal conversion): each value
 * goes into data, base64, overwriting; stringData itself is dropped. Runs
 * before validation, so its keys are checked as data keys. */
static void merge_string_data(json_t *obj)
{
    json_t *sd = json_object_get(obj, "stringData");
    if (json_is_object(sd) && json_object_size(sd)) {
        json_t *data = json_object_get(obj, "data");
        if (!json_is_object(data))
            json_object_set_new(obj, "data", data = json_object());
        const char *k;
        json_t *v;
        json_object_foreach(sd, k, v)
        {
            const char *text = json_string_value(v);
            char *enc = text ? sl_b64_encode(text, json_string_length(v)) : NULL;
            if (enc)
                json_object_set_new(data, k, json_string(enc));
            free(enc);
        }
    }
    json_object_del(obj, "stringData");
}

static void secret_defaults(json_t *obj)
{
    merge_string_data(obj);
    if (!json_string_value(json_object_get(obj, "type")))
        json_object_set_new(obj, "type", json_string("Opaque"));
}

static int secret_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    api_validate_secret_data(obj, err);
    return api_fields_result(err);
}
static int secret_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    return secret_validate(obj, err);
}

const api_kind_ops_t api_secret_ops = {
    .decode_check = secret_decode,
    .defaults = secret_defaults,
    .validate_create = secret_validate,
    .validate_update = secret_validate_update,
    .table_columns = api_secret_columns,
    .table_cells = api_secret_cells,
};

/* ---- serviceaccounts ---- */

static int sa_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("ServiceAccount", obj, unknown);
}

static int sa_validate(json_t *obj, sl_error_t *err) { return validate_subdomain_named(obj, err); }
static int sa_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    return sa_validate(obj, err);
}

const api_kind_ops_t api_serviceaccount_ops = {
    .decode_check = sa_decode,
    .validate_create = sa_validate,
    .validate_update = sa_validate_update,
    .table_columns = api_serviceaccount_columns,
    .table_cells = api_serviceaccount_cells,
};
