/* decode.c — request bodies decoded the way kube-apiserver decodes them,
 * with its error texts:
 *
 *   malformed:   the object provided is unrecognized (must be of type Pod):
 *                couldn't get version/kind; json parse error: <Go's error> (<first 30 bytes> ...)
 *   wrong kind:  Service in version "v1" cannot be handled as a Pod:
 *                converting (v1.Service) to (core.Pod): unknown conversion
 *   unknown:     Podd in version "v1" cannot be handled as a Pod: no kind "Podd"
 *                is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"
 *   strict:      Pod in version "v1" cannot be handled as a Pod: strict decoding
 *                error: unknown field "spec.containers[0].imagee"
 */
#include "api/decode.h"
#include "api/gojson.h"
#include "api/http/request.h"
#include "api/protobuf.h"
#include "api/resource.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/status.h"
#include "pod/yamljson.h"

#include <string.h>
#include <strings.h>

#define SCHEME "pkg/api/legacyscheme/scheme.go:30"

/* Kinds kube-apiserver's scheme knows, for choosing between its two
 * wrong-kind messages (conversion error vs "no kind registered"). */
static const struct {
    const char *gv, *pkg, *kinds;
} registered[] = {
    {"v1", "v1",
     " Pod Service ConfigMap Secret Namespace Node Event ServiceAccount Endpoints "
     "PersistentVolume PersistentVolumeClaim ReplicationController LimitRange ResourceQuota "
     "PodTemplate Binding ComponentStatus List "},
    {"apps/v1", "v1", " Deployment StatefulSet DaemonSet ReplicaSet ControllerRevision "},
    {"batch/v1", "v1", " Job CronJob "},
    {"networking.k8s.io/v1", "v1", " Ingress NetworkPolicy IngressClass "},
    {"rbac.authorization.k8s.io/v1", "v1", " Role RoleBinding ClusterRole ClusterRoleBinding "},
    {"policy/v1", "v1", " PodDisruptionBudget "},
    {"storage.k8s.io/v1", "v1", " StorageClass CSIDriver CSINode VolumeAttachment "},
    {"coordination.k8s.io/v1", "v1", " Lease "},
    {"scheduling.k8s.io/v1", "v1", " PriorityClass "},
};

static const char *registered_pkg(const char *gv, const char *kind)
{
    char k[130];
    snprintf(k, sizeof(k), " %s ", kind);
    for (size_t i = 0; i < sizeof(registered) / sizeof(registered[0]); i++)
        if (!strcmp(registered[i].gv, gv) && strstr(registered[i].kinds, k))
            return registered[i].pkg;
    return NULL;
}

/* The internal package kube converts into ("core" for the core group). */
static const char *internal_pkg(const api_resource_t *res)
{
    if (!*res->group)
        return "core";
    static __thread char buf[64];
    snprintf(buf, sizeof(buf), "%s", res->group);
    char *dot = strchr(buf, '.');
    if (dot)
        *dot = '\0';
    return buf;
}

static char *summarize(const char *data, size_t len)
{
    if (len == 0)
        return sl_xstrdup("<empty>");
    if ((unsigned char)data[0] == 0x1f)
        return sl_xstrdup("<gzip>");
    if (len > 30)
        return sl_xasprintf("%.30s ...", data);
    return sl_xstrndup(data, len);
}

json_t *api_parse_body(const char *data, size_t len, bool yaml, sl_error_t *err)
{
    if (yaml) {
        json_t *docs = sl_yaml_to_json(data, len, err);
        if (!docs) {
            sl_errprefix(err, "error converting YAML to JSON");
            err->kind = SL_ERR_BAD_REQUEST;
            return NULL;
        }
        json_t *v = json_incref(json_array_get(docs, 0));
        json_decref(docs);
        return v ? v : json_null();
    }
    char *e = api_gojson_error(data, len);
    if (e) {
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "%s", e);
        free(e);
        return NULL;
    }
    json_error_t je;
    json_t *v = json_loadb(data, len, JSON_DECODE_ANY, &je);
    if (!v)
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "%s", je.text);
    return v;
}

static const char *json_type_go(json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER:
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "bool";
    case JSON_OBJECT: return "object";
    default: return "null";
    }
}

static const char unknown_format[] = "the body of the request was in an unknown format - accepted "
                                     "media types include: application/json, application/yaml";

static bool is_yaml_ct(const char *ct) { return ct && !strncasecmp(ct, "application/yaml", 16); }

/* Content-Type check for create/update bodies: 0 when acceptable, else -1
 * with a 415 in err (kube names what it accepts). */
static int content_type_check(api_req_t *r, bool *yaml, bool *proto, sl_error_t *err)
{
    const char *ct = api_header(r, "Content-Type");
    *yaml = is_yaml_ct(ct);
    *proto = ct && !strncasecmp(ct, "application/vnd.kubernetes.protobuf", 35);
    if (!ct || !*ct || *yaml || *proto || !strncasecmp(ct, "application/json", 16) ||
        !strncmp(ct, "*/*", 3))
        return 0;
    return sl_errkindf(err, SL_ERR_UNSUPPORTED_MEDIA_TYPE, "%s", unknown_format);
}

const char *api_options_kind(const api_req_t *r)
{
    return !strcmp(r->method, "POST")  ? "CreateOptions"
           : !strcmp(r->method, "PUT") ? "UpdateOptions"
                                       : "PatchOptions";
}

void api_options_subject(const api_req_t *r, sl_error_t *err)
{
    sl_err_subject(err, NULL, "meta.k8s.io", api_options_kind(r), "");
}

const char *api_field_validation(api_req_t *r, sl_error_t *err)
{
    const char *v = api_query(r, "fieldValidation");
    if (!v || !*v)
        return "Warn"; /* kube-apiserver's default when the client says nothing */
    if (!strcmp(v, "Strict") || !strcmp(v, "Warn") || !strcmp(v, "Ignore"))
        return v;
    static const char *const allowed[] = {"Ignore", "Strict", "Warn", NULL};
    json_t *jv = json_string(v);
    sl_kube_cause_not_supported(err, "fieldValidation", jv, allowed);
    json_decref(jv);
    api_options_subject(r, err);
    return NULL;
}

static char *handled_prefix(const api_resource_t *res, const char *kind, const char *version)
{
    return sl_xasprintf("%s in version \"%s\" cannot be handled as a %s: ", kind, version,
                        res->kind);
}

/* The warnings the stored object draws (its decode errors do not matter). */
static json_t *old_warnings(const api_resource_t *res, json_t *old)
{
    json_t *copy = json_deep_copy(old), *unknown = json_array(), *warns = json_array();
    sl_error_t e = SL_ERROR_INIT;
    res->ops->decode_check(copy, unknown, warns, &e);
    sl_error_clear(&e);
    json_decref(copy);
    json_decref(unknown);
    return warns;
}

static bool in_array(json_t *arr, json_t *v)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (json_equal(e, v))
            return true;
    }
    return false;
}

int api_check_fields(api_req_t *r, const api_resource_t *res, json_t *obj, json_t *old,
                     const char *directive, sl_error_t *err)
{
    if (!res->ops || !res->ops->decode_check)
        return 0;
    json_t *unknown = json_array(), *warns = json_array();
    sl_error_t derr = SL_ERROR_INIT;
    bool prefix = strcmp(r->method, "PATCH") != 0; /* patch errors are bare in kube */
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *slash = av ? strrchr(av, '/') : NULL;
    const char *version = slash ? slash + 1 : av ? av : res->version;
    char *pre = prefix ? handled_prefix(res, res->kind, version) : sl_xstrdup("");
    int rc = 0;
    if (res->ops->decode_check(obj, unknown, warns, &derr) < 0) {
        rc = sl_errkindf(err, SL_ERR_BAD_REQUEST, "%s%s", pre,
                         *derr.text ? derr.text : "decode error");
        goto out;
    }
    size_t i;
    json_t *w;
    json_t *had = old && json_array_size(warns) ? old_warnings(res, old) : NULL;
    json_array_foreach(warns, i, w)
    {
        if (!had || !in_array(had, w))
            api_warn(r, "%s", json_string_value(w));
    }
    json_decref(had);
    if (json_array_size(unknown) && !strcmp(directive, "Strict")) {
        sl_buf_t b = SL_BUF_INIT;
        sl_buf_printf(&b, "%sstrict decoding error: ", pre);
        json_array_foreach(unknown, i, w)
        {
            if (i)
                sl_buf_puts(&b, ", ");
            sl_buf_puts(&b, json_string_value(w));
        }
        rc = sl_errkindf(err, SL_ERR_BAD_REQUEST, "%s", b.data);
        sl_buf_free(&b);
        goto out;
    }
    if (!strcmp(directive, "Warn"))
        json_array_foreach(unknown, i, w) api_warn(r, "%s", json_string_value(w));
out:
    sl_error_clear(&derr);
    free(pre);
    json_decref(unknown);
    json_decref(warns);
    return rc;
}

/* The body as JSON, YAML or protobuf (content type and protobuf errors
 * are the edge's to word); NULL with err. */
static json_t *decode_body(api_req_t *r, bool yaml, bool proto, sl_error_t *err)
{
    if (!proto)
        return api_parse_body(r->body.data, r->body.len, yaml, err);
    json_t *obj = api_pb_decode(r->body.data, r->body.len, err);
    if (!obj && err->kind == SL_ERR_UNSUPPORTED_MEDIA_TYPE) /* kube's 415 names the media types */
        sl_errkindf(err, SL_ERR_UNSUPPORTED_MEDIA_TYPE, "%s", unknown_format);
    return obj;
}

/* Go's unmarshalling into TypeMeta: an object with string apiVersion and
 * kind; else NULL with a BadRequest in err (obj consumed). */
static json_t *check_type_meta(json_t *obj, sl_error_t *err)
{
    if (obj && json_is_null(obj)) {
        json_decref(obj);
        obj = json_object();
    }
    if (obj && !json_is_object(obj)) {
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "json: cannot unmarshal %s into Go value of type struct { APIVersion "
                    "string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                    "\"json:\\\"kind,omitempty\\\"\" }",
                    json_type_go(obj));
        json_decref(obj);
        return NULL;
    }
    json_t *jav = obj ? json_object_get(obj, "apiVersion") : NULL;
    json_t *jkind = obj ? json_object_get(obj, "kind") : NULL;
    if (obj && ((jav && !json_is_string(jav)) || (jkind && !json_is_string(jkind)))) {
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "json: cannot unmarshal %s into Go struct field .%s of type string",
                    json_type_go(jav && !json_is_string(jav) ? jav : jkind),
                    jav && !json_is_string(jav) ? "apiVersion" : "kind");
        json_decref(obj);
        return NULL;
    }
    return obj;
}

/* apiVersion and kind filled in when absent, then checked against res:
 * 0, or -1 with kube's BadRequest for another kind. */
static int check_kind(const api_resource_t *res, json_t *obj, sl_error_t *err)
{
    char gv[128];
    api_resource_api_version(res, gv, sizeof(gv));
    const char *av = json_string_value(json_object_get(obj, "apiVersion"));
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (!av || !*av)
        json_object_set_new(obj, "apiVersion", json_string(gv));
    if (!kind || !*kind)
        json_object_set_new(obj, "kind", json_string(res->kind));
    av = json_string_value(json_object_get(obj, "apiVersion"));
    kind = json_string_value(json_object_get(obj, "kind"));
    if (!strcmp(av, gv) && !strcmp(kind, res->kind))
        return 0;
    const char *slash = strrchr(av, '/');
    const char *version = slash ? slash + 1 : av;
    char *pre = handled_prefix(res, kind, version);
    const char *pkg = registered_pkg(av, kind);
    if (pkg)
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "%sconverting (%s.%s) to (%s.%s): unknown conversion",
                    pre, pkg, kind, internal_pkg(res), res->kind);
    else
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "%sno kind \"%s\" is registered for version \"%s\" in scheme \"%s\"", pre, kind,
                    av, SCHEME);
    free(pre);
    return -1;
}

json_t *api_decode_object(api_req_t *r, const api_resource_t *res, json_t *old, sl_error_t *err)
{
    bool yaml, proto;
    if (content_type_check(r, &yaml, &proto, err) < 0)
        return NULL;
    const char *directive = api_field_validation(r, err);
    if (!directive)
        return NULL;
    sl_error_t perr = SL_ERROR_INIT;
    json_t *obj = decode_body(r, yaml, proto, proto ? err : &perr);
    if (!obj && proto)
        return NULL;
    obj = check_type_meta(obj, &perr);
    if (!obj) {
        char *sum = summarize(r->body.data, r->body.len);
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "the object provided is unrecognized (must be of type %s): %s%s (%s)",
                    res->kind,
                    yaml ? "" : "couldn't get version/kind; json parse error: ", perr.text, sum);
        free(sum);
        sl_error_clear(&perr);
        return NULL;
    }
    if (check_kind(res, obj, err) < 0 || api_check_fields(r, res, obj, old, directive, err) < 0) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}
