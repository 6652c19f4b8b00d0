/* status.c — metav1.Status objects with kube-apiserver's texts
 * (k8s.io/apimachinery/pkg/api/errors and .../util/validation/field). */
#include "kube/status.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"

static const char *reason_for(int code)
{
    switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return NULL;
    }
}

json_t *sl_kube_status(int code, const char *reason, const char *message, json_t *details)
{
    int success = code >= 200 && code < 300;
    json_t *st = json_pack("{s:s,s:s,s:{},s:s}", "kind", "Status", "apiVersion", "v1", "metadata",
                           "status", success ? "Success" : "Failure");
    if (message)
        json_object_set_new(st, "message", json_string(message));
    if (!reason && !success)
        reason = reason_for(code);
    if (reason)
        json_object_set_new(st, "reason", json_string(reason));
    if (details)
        json_object_set_new(st, "details", details);
    json_object_set_new(st, "code", json_integer(code));
    return st;
}

/* "pods" or "jobs.batch", as schema.GroupResource.String() prints it. */
static char *qualified(const char *resource, const char *group)
{
    if (group && *group)
        return sl_xasprintf("%s.%s", resource, group);
    return sl_xstrdup(resource ? resource : "");
}

/* StatusDetails with omitempty fields. */
static json_t *details(const char *name, const char *group, const char *kind)
{
    json_t *d = json_object();
    if (name && *name)
        json_object_set_new(d, "name", json_string(name));
    if (group && *group)
        json_object_set_new(d, "group", json_string(group));
    if (kind && *kind)
        json_object_set_new(d, "kind", json_string(kind));
    return d;
}

static json_t *with_msg(int code, const char *reason, char *msg, json_t *det)
{
    json_t *st = sl_kube_status(code, reason, msg, det);
    free(msg);
    return st;
}

json_t *sl_kube_status_success(const char *resource, const char *group, const char *name,
                               const char *uid)
{
    json_t *d = details(name, group, resource);
    if (uid && *uid)
        json_object_set_new(d, "uid", json_string(uid));
    json_t *st = sl_kube_status(200, NULL, NULL, d);
    json_object_del(st, "code"); /* kube-apiserver's delete Status carries no code */
    return st;
}

json_t *sl_kube_status_not_found(const char *resource, const char *group, const char *name)
{
    char *q = qualified(resource, group);
    char *msg = sl_xasprintf("%s \"%s\" not found", q, name ? name : "");
    free(q);
    return with_msg(404, "NotFound", msg, details(name, group, resource));
}

json_t *sl_kube_status_not_found_url(void)
{
    return sl_kube_status(404, "NotFound", "the server could not find the requested resource",
                          json_object());
}

json_t *sl_kube_status_already_exists(const char *resource, const char *group, const char *name)
{
    char *q = qualified(resource, group);
    char *msg = sl_xasprintf("%s \"%s\" already exists", q, name ? name : "");
    free(q);
    return with_msg(409, "AlreadyExists", msg, details(name, group, resource));
}

json_t *sl_kube_status_conflict(const char *resource, const char *group, const char *name,
                                const char *why)
{
    if (!why)
        why = "the object has been modified; please apply your changes to the latest version "
              "and try again";
    char *q = qualified(resource, group);
    char *msg =
        sl_xasprintf("Operation cannot be fulfilled on %s \"%s\": %s", q, name ? name : "", why);
    free(q);
    return with_msg(409, "Conflict", msg, details(name, group, resource));
}

json_t *sl_kube_status_bad_request(const char *message)
{
    return sl_kube_status(400, "BadRequest", message, NULL);
}

char *sl_kube_cause_string(json_t *cause)
{
    const char *f = json_string_value(json_object_get(cause, "field"));
    const char *m = json_string_value(json_object_get(cause, "message"));
    if (f && *f)
        return sl_xasprintf("%s: %s", f, m ? m : "");
    return sl_xstrdup(m ? m : "");
}

json_t *sl_kube_status_invalid(const char *kind, const char *group, const char *name,
                               json_t *causes)
{
    if (!json_is_array(causes)) {
        json_decref(causes);
        causes = json_array();
    }
    char *qk = group && *group ? sl_xasprintf("%s.%s", kind, group) : sl_xstrdup(kind);
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_printf(&b, "%s \"%s\" is invalid", qk, name ? name : "");
    free(qk);
    /* field.ErrorList.ToAggregate(): duplicates dropped, one error bare,
     * several as "[a, b]" */
    size_t n = json_array_size(causes), kept = 0;
    char **seen = sl_xcalloc(n ? n : 1, sizeof *seen);
    for (size_t i = 0; i < n; i++) {
        char *s = sl_kube_cause_string(json_array_get(causes, i));
        int dup = 0;
        for (size_t j = 0; j < kept; j++)
            if (strcmp(seen[j], s) == 0)
                dup = 1;
        if (dup)
            free(s);
        else
            seen[kept++] = s;
    }
    if (kept == 1) {
        sl_buf_printf(&b, ": %s", seen[0]);
    } else if (kept > 1) {
        sl_buf_puts(&b, ": [");
        for (size_t j = 0; j < kept; j++)
            sl_buf_printf(&b, "%s%s", j ? ", " : "", seen[j]);
        sl_buf_puts(&b, "]");
    }
    for (size_t j = 0; j < kept; j++)
        free(seen[j]);
    free(seen);
    json_t *d = details(name, group, kind);
    json_object_set_new(d, "causes", causes);
    return with_msg(422, "Invalid", sl_buf_steal(&b), d);
}

/* Go's rendering of a bad value in field.Error.ErrorBody(). */
static char *render_value(json_t *v)
{
    if (!v || json_is_null(v))
        return sl_xstrdup("null");
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    return s ? s : sl_xstrdup("null");
}

static void add_cause(json_t *causes, const char *type, const char *field, char *body)
{
    json_array_append_new(causes, json_pack("{s:s,s:s,s:s}", "reason", type, "message", body,
                                            "field", field ? field : ""));
    free(body);
}

static char *body(const char *what, const char *value, const char *detail)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, what);
    if (value)
        sl_buf_printf(&b, ": %s", value);
    if (detail && *detail)
        sl_buf_printf(&b, ": %s", detail);
    return sl_buf_steal(&b);
}

void sl_kube_cause_required(json_t *causes, const char *field, const char *detail)
{
    add_cause(causes, "FieldValueRequired", field, body("Required value", NULL, detail));
}

void sl_kube_cause_forbidden(json_t *causes, const char *field, const char *detail)
{
    add_cause(causes, "FieldValueForbidden", field, body("Forbidden", NULL, detail));
}

void sl_kube_cause_too_long(json_t *causes, const char *field, const char *detail)
{
    add_cause(causes, "FieldValueTooLong", field, body("Too long", NULL, detail));
}

void sl_kube_cause_invalid(json_t *causes, const char *field, json_t *value, const char *detail)
{
    char *v = render_value(value);
    add_cause(causes, "FieldValueInvalid", field, body("Invalid value", v, detail));
    free(v);
}

void sl_kube_cause_invalid_str(json_t *causes, const char *field, const char *value,
                               const char *detail)
{
    json_t *v = value ? json_string(value) : json_null();
    sl_kube_cause_invalid(causes, field, v, detail);
    json_decref(v);
}

void sl_kube_cause_not_supported(json_t *causes, const char *field, json_t *value,
                                 const char *const *supported)
{
    char *v = render_value(value);
    sl_buf_t d = SL_BUF_INIT;
    if (supported && supported[0]) {
        sl_buf_puts(&d, "supported values: ");
        for (size_t i = 0; supported[i]; i++)
            sl_buf_printf(&d, "%s\"%s\"", i ? ", " : "", supported[i]);
    }
    add_cause(causes, "FieldValueNotSupported", field,
              body("Unsupported value", v, d.data ? d.data : NULL));
    sl_buf_free(&d);
    free(v);
}

void sl_kube_cause_duplicate(json_t *causes, const char *field, json_t *value)
{
    char *v = render_value(value);
    add_cause(causes, "FieldValueDuplicate", field, body("Duplicate value", v, NULL));
    free(v);
}

json_t *sl_kube_status_forbidden(const char *resource, const char *group, const char *name,
                                 const char *why)
{
    char *msg;
    if (!resource || !*resource) {
        msg = sl_xasprintf("forbidden: %s", why);
    } else {
        char *q = qualified(resource, group);
        if (!name || !*name)
            msg = sl_xasprintf("%s is forbidden: %s", q, why);
        else
            msg = sl_xasprintf("%s \"%s\" is forbidden: %s", q, name, why);
        free(q);
    }
    return with_msg(403, "Forbidden", msg, details(name, group, resource));
}

json_t *sl_kube_status_unauthorized(const char *msg)
{
    return sl_kube_status(401, "Unauthorized", msg && *msg ? msg : "Unauthorized", NULL);
}

json_t *sl_kube_status_method_not_allowed(const char *resource, const char *group,
                                          const char *action)
{
    char *q = qualified(resource, group);
    char *msg = sl_xasprintf("%s is not supported on resources of kind \"%s\"", action, q);
    free(q);
    return with_msg(405, "MethodNotAllowed", msg, details(NULL, group, resource));
}

json_t *sl_kube_status_expired(long long rv, long long oldest)
{
    char *msg = sl_xasprintf("too old resource version: %lld (%lld)", rv, oldest);
    return with_msg(410, "Expired", msg, NULL);
}

json_t *sl_kube_status_gone(const char *message)
{
    return sl_kube_status(410, "Gone", message, NULL);
}

json_t *sl_kube_status_too_large(long long limit)
{
    char *msg = sl_xasprintf("Request entity too large: limit is %lld", limit);
    return with_msg(413, "RequestEntityTooLarge", msg, NULL);
}

json_t *sl_kube_status_internal(const char *why)
{
    char *msg = sl_xasprintf("Internal error occurred: %s", why);
    json_t *d = json_pack("{s:[{s:s}]}", "causes", "message", why);
    return with_msg(500, "InternalError", msg, d);
}

json_t *sl_kube_status_unavailable(const char *message)
{
    return sl_kube_status(503, "ServiceUnavailable", message, NULL);
}

json_t *sl_kube_status_timeout(const char *message, int retry_after_seconds)
{
    char *msg = sl_xasprintf("Timeout: %s", message);
    json_t *d = json_object();
    if (retry_after_seconds > 0)
        json_object_set_new(d, "retryAfterSeconds", json_integer(retry_after_seconds));
    return with_msg(504, "Timeout", msg, d);
}

json_t *sl_kube_status_not_acceptable(const char *message)
{
    return sl_kube_status(406, "NotAcceptable", message, NULL);
}

json_t *sl_kube_status_unsupported_media_type(const char *accepted)
{
    char *msg = sl_xasprintf("the body of the request was in an unknown format - accepted "
                             "media types include: %s",
                             accepted ? accepted : "application/json, application/yaml");
    return with_msg(415, "UnsupportedMediaType", msg, NULL);
}
