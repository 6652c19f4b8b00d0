/* src/kinds/kubeflow/api.c — what the kubeflow.org training kinds share
 * (src/kinds/kubeflow/kubeflow.h). */
#include "kinds/kubeflow/api.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "translate/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *api_tj_obj_child(json_t *o, const char *k)
{
    json_t *c = json_object_get(o, k);
    if (!json_is_object(c))
        json_object_set_new(o, k, c = json_object());
    return c;
}

void api_tj_default(json_t *o, const char *k, json_t *v)
{
    json_t *cur = json_object_get(o, k);
    if (!cur || json_is_null(cur))
        json_object_set_new(o, k, v);
    else
        json_decref(v);
}

void api_tj_template_warnings(json_t *job, const char *specs, json_t *warnings)
{
    const char *type;
    json_t *rs;
    json_object_foreach(sl_kube_path(job, specs), type, rs)
    {
        json_t *pod = json_pack("{s:O?}", "spec", sl_kube_path(rs, "template.spec"));
        size_t n = 0;
        char **w = sl_schema_pod_warnings(pod, &n);
        for (size_t i = 0; w && i < n; i++)
            json_array_append_new(warnings, json_sprintf("%s[%s].template.%s", specs, type, w[i]));
        sl_strv_free(w);
        json_decref(pod);
    }
}

void api_tj_prepare_create(json_t *job)
{
    json_object_del(job, "status"); /* the status subresource's strategy */
    json_object_set_new(sl_kube_meta(job), "generation", json_integer(1));
}

void api_tj_prepare_update(json_t *job, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(job, "status", s);
    else
        json_object_del(job, "status");
    long long gen = json_integer_value(sl_kube_path(old, "metadata.generation"));
    json_t *ns = json_object_get(job, "spec"), *os = json_object_get(old, "spec");
    json_object_set_new(sl_kube_meta(job), "generation",
                        json_integer(json_equal(ns, os) ? gen : gen + 1));
}

/* a pod module field path under the pod template at prefix, or NULL (the
 * pod's own name) */
static char *template_field(const char *prefix, const char *f)
{
    if (!strncmp(f, "spec", 4) && (!f[4] || f[4] == '.' || f[4] == '['))
        return sl_xasprintf("%s.%s", prefix, f);
    if (!strncmp(f, "metadata.labels", 15) || !strncmp(f, "metadata.annotations", 20))
        return sl_xasprintf("%s.%s", prefix, f);
    return NULL;
}

static void copy_errors(const char *prefix, const sl_error_t *from, sl_error_t *to)
{
    for (size_t i = 0; i < sl_err_nfields(from); i++) {
        const sl_fielderr_t *e = sl_err_fieldat(from, i);
        char *f = template_field(prefix, e->field);
        if (!f)
            continue;
        if (e->vkind == SL_FE_V_INT)
            sl_err_field_int(to, e->type, f, e->ivalue, e->detail);
        else if (e->vkind == SL_FE_V_RAW)
            sl_err_field_raw(to, e->type, f, e->value, e->detail);
        else if (e->vkind == SL_FE_V_STRING)
            sl_err_field(to, e->type, f, e->value, e->detail);
        else
            sl_err_field_none(to, e->type, f, e->detail);
        free(f);
    }
}

void api_tj_validate_pod_template(const char *prefix, json_t *tmpl, const char *restart,
                                  sl_error_t *err)
{
    json_t *meta = sl_kube_object_copy(json_object_get(tmpl, "metadata"));
    json_object_set_new(meta, "name", json_string("trainjob-replica"));
    json_t *ps = sl_kube_object_copy(json_object_get(tmpl, "spec"));
    json_object_set_new(ps, "restartPolicy", json_string(restart));
    json_t *pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            meta, "spec", ps);
    sl_pod_apply_defaults(pod);
    sl_error_t perr = SL_ERROR_INIT;
    sl_pod_t *p = sl_pod_parse(pod, &perr);
    if (p)
        sl_translate_validate(p, NULL, &perr);
    sl_pod_destroy(p);
    copy_errors(prefix, &perr, err);
    sl_error_clear(&perr);
    json_decref(pod);
}

void api_tj_validate_template(const char *specs, const char *type, json_t *rs, sl_error_t *err)
{
    const char *rp = json_string_value(json_object_get(rs, "restartPolicy"));
    char *prefix = sl_xasprintf("%s[%s].template", specs, type);
    api_tj_validate_pod_template(prefix, json_object_get(rs, "template"),
                                 !rp || !strcmp(rp, "ExitCode") ? "Never" : rp, err);
    free(prefix);
}

#define DNS1035_MSG                                                                                \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "   \
    "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "           \
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

static bool dns1035(const char *s)
{
    size_t n = strlen(s);
    if (!n || s[0] < 'a' || s[0] > 'z' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

bool api_tj_dns1035(const char *s, const char *sep, char *why, size_t len)
{
    why[0] = '\0';
    if (strlen(s) > 63)
        snprintf(why, len, "must be no more than 63 characters");
    if (!dns1035(s))
        snprintf(why + strlen(why), len - strlen(why), "%s" DNS1035_MSG, *why ? sep : "");
    return !*why;
}

#define NAME_DESC                                                                                  \
    "Name must be unique within a namespace. Is required when creating resources, although "       \
    "some resources may allow a client to request the generation of an appropriate name "          \
    "automatically. Name is primarily intended for creation idempotence and configuration "        \
    "definition. Cannot be updated. More info: "                                                   \
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
#define AGE_DESC                                                                                   \
    "CreationTimestamp is a timestamp representing the server time when this object was "          \
    "created. It is not guaranteed to be set in happens-before order across separate "             \
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "     \
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "                      \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"                            \
    "api-conventions.md#metadata"

json_t *api_tj_name_column(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", "Name", "type", "string", "format",
                     "name", "description", NAME_DESC, "priority", 0);
}

/* the apiextensions table convertor's columns when a CRD lists none:
 * the name, then Age from .metadata.creationTimestamp */
json_t *api_tj_columns_name_age(void)
{
    return json_pack("[o, {s:s, s:s, s:s, s:s, s:i}]", api_tj_name_column(), "name", "Age", "type",
                     "date", "format", "", "description", AGE_DESC, "priority", 0);
}

json_t *api_tj_cells_name_age(json_t *job, long long now)
{
    char age[32];
    const char *ts = sl_kube_meta_str(job, "creationTimestamp");
    if (ts)
        sl_kube_age(ts, now, age, sizeof(age));
    const char *name = sl_kube_name(job);
    return json_pack("[s, s?]", name ? name : "", ts ? age : NULL);
}
