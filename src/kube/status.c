/* status.c — metav1.Status objects with kube-apiserver's texts
 * (k8s.io/apimachinery/pkg/api/errors and .../util/validation/field). */
#include "kube/status.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/quote.h"
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

json_t *sl_kube_status_invalid(const char *kind, const char *group, const char *name,
                               const sl_error_t *err)
{
    char *qk = group && *group ? sl_xasprintf("%s.%s", kind, group) : sl_xstrdup(kind);
    char *qn = sl_go_quote(name ? name : "");
    char *agg = sl_err_fields_aggregate(err);
    char *msg = *agg ? sl_xasprintf("%s %s is invalid: %s", qk, qn, agg)
                     : sl_xasprintf("%s %s is invalid", qk, qn);
    free(qk);
    free(qn);
    free(agg);
    json_t *causes = json_array();
    for (size_t i = 0; i < sl_err_nfields(err); i++) {
        const sl_fielderr_t *e = sl_err_fieldat(err, i);
        char *body = sl_fielderr_body(e);
        json_array_append_new(causes, json_pack("{s:s,s:s,s:s}", "reason",
                                                e->reason ? e->reason : sl_fe_reason(e->type),
                                                "message", body, "field", e->field));
        free(body);
    }
    json_t *d = details(name, group, kind);
    json_object_set_new(d, "causes", causes);
    return with_msg(422, "Invalid", msg, d);
}

static json_t *status_by_kind(const sl_error_t *err, const char *resource, const char *group,
                              const char *name)
{
    const char *t = err->text;
    switch (err->kind) {
    case SL_ERR_NOT_FOUND: return sl_kube_status_not_found(resource, group, name);
    case SL_ERR_ALREADY_EXISTS: return sl_kube_status_already_exists(resource, group, name);
    case SL_ERR_CONFLICT: return sl_kube_status_conflict(resource, group, name, *t ? t : NULL);
    case SL_ERR_FORBIDDEN: return sl_kube_status_forbidden(resource, group, name, t);
    case SL_ERR_BAD_REQUEST: return sl_kube_status(400, NULL, t, NULL);
    case SL_ERR_UNAUTHORIZED: return sl_kube_status_unauthorized(t);
    case SL_ERR_METHOD_NOT_ALLOWED: return sl_kube_status(405, NULL, t, NULL);
    case SL_ERR_NOT_ACCEPTABLE: return sl_kube_status(406, NULL, t, NULL);
    case SL_ERR_GONE: return sl_kube_status(410, NULL, t, NULL);
    case SL_ERR_EXPIRED: return sl_kube_status(410, "Expired", t, NULL);
    case SL_ERR_TOO_LARGE: /* NewRequestEntityTooLargeError() */
        return with_msg(413, "RequestEntityTooLarge",
                        sl_xasprintf("Request entity too large: %s", t), NULL);
    case SL_ERR_UNSUPPORTED_MEDIA_TYPE: return sl_kube_status(415, NULL, t, NULL);
    case SL_ERR_TOO_MANY_REQUESTS: return sl_kube_status(429, NULL, t, NULL);
    case SL_ERR_UNAVAILABLE: return sl_kube_status(503, NULL, t, NULL);
    case SL_ERR_TIMEOUT: return sl_kube_status_timeout(t, err->retry_after);
    case SL_ERR_INVALID: /* handled by sl_kube_status_error() */
    case SL_ERR_GENERIC:
    case SL_ERR_INTERNAL: break;
    }
    return sl_kube_status_internal(t);
}

/* The causes of their own (sl_err_cause) in details.causes, for a kind
 * other than Invalid (whose field errors are its causes already; a
 * BadRequest's field errors are in its text). */
static void add_causes(json_t *st, const sl_error_t *err)
{
    json_t *causes = NULL;
    for (size_t i = 0; i < sl_err_nfields(err); i++) {
        const sl_fielderr_t *e = sl_err_fieldat(err, i);
        if (!e->reason)
            continue;
        if (!causes)
            causes = json_array();
        json_t *c = json_pack("{s:s,s:s}", "reason", e->reason, "message", e->detail);
        if (e->field && *e->field) /* omitempty */
            json_object_set_new(c, "field", json_string(e->field));
        json_array_append_new(causes, c);
    }
    if (!causes)
        return;
    json_t *d = json_object_get(st, "details");
    if (!json_is_object(d))
        json_object_set_new(st, "details", d = json_object());
    json_object_set_new(d, "causes", causes);
}

json_t *sl_kube_status_error(const sl_error_t *err, const char *resource, const char *group,
                             const char *kind, const char *name)
{
    if (!err)
        return sl_kube_status_internal("unknown error");
    const sl_errsubject_t *s = &err->subject;
    if (s->set) {
        resource = s->resource;
        group = s->group;
        kind = s->kind;
        name = s->name;
    }
    json_t *st;
    if (err->kind == SL_ERR_INVALID && sl_err_nfields(err))
        st = sl_kube_status_invalid(kind, group, name, err);
    else if (err->kind == SL_ERR_INVALID) /* a reason without field errors */
        st = sl_kube_status(422, "Invalid", err->text, NULL);
    else
        st = status_by_kind(err, resource, group, name);
    if (err->whole)
        json_object_set_new(st, "message", json_string(err->text));
    if (err->kind != SL_ERR_INVALID)
        add_causes(st, err);
    return st;
}

char *sl_kube_error_message(const sl_error_t *err, const char *resource, const char *group,
                            const char *kind, const char *name)
{
    json_t *st = sl_kube_status_error(err, resource, group, kind, name);
    const char *m = json_string_value(json_object_get(st, "message"));
    char *out = sl_xstrdup(m ? m : "");
    json_decref(st);
    return out;
}

/* Go's rendering of a bad value in field.Error.ErrorBody(). */
static char *render_value(json_t *v)
{
    if (!v || json_is_null(v))
        return sl_xstrdup("null");
    char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    return s ? s : sl_xstrdup("null");
}

void sl_kube_cause_required(sl_error_t *err, const char *field, const char *detail)
{
    sl_err_field_none(err, SL_FE_REQUIRED, field, detail);
}

void sl_kube_cause_forbidden(sl_error_t *err, const char *field, const char *detail)
{
    sl_err_field_none(err, SL_FE_FORBIDDEN, field, detail);
}

void sl_kube_cause_too_long(sl_error_t *err, const char *field, const char *detail)
{
    sl_err_field_none(err, SL_FE_TOO_LONG, field, detail);
}

void sl_kube_cause_invalid(sl_error_t *err, const char *field, json_t *value, const char *detail)
{
    char *v = render_value(value);
    sl_err_field_raw(err, SL_FE_INVALID, field, v, detail);
    free(v);
}

void sl_kube_cause_invalid_str(sl_error_t *err, const char *field, const char *value,
                               const char *detail)
{
    json_t *v = value ? json_string(value) : json_null();
    sl_kube_cause_invalid(err, field, v, detail);
    json_decref(v);
}

void sl_kube_cause_not_supported(sl_error_t *err, const char *field, json_t *value,
                                 const char *const *supported)
{
    char *v = render_value(value);
    sl_buf_t d = SL_BUF_INIT;
    if (supported && supported[0]) {
        sl_buf_puts(&d, "supported values: ");
        for (size_t i = 0; supported[i]; i++)
            sl_buf_printf(&d, "%s\"%s\"", i ? ", " : "", supported[i]);
    }
    sl_err_field_raw(err, SL_FE_NOT_SUPPORTED, field, v, d.data ? d.data : NULL);
    sl_buf_free(&d);
    free(v);
}

void sl_kube_cause_duplicate(sl_error_t *err, const char *field, json_t *value)
{
    char *v = render_value(value);
    sl_err_field_raw(err, SL_FE_DUPLICATE, field, v, NULL);
    free(v);
}

char *sl_kube_forbidden_message(const char *resource, const char *group, const char *name,
                                const char *why)
{
    if (!resource || !*resource)
        return sl_xasprintf("forbidden: %s", why);
    char *q = qualified(resource, group);
    char *msg;
    if (!name || !*name) {
        msg = sl_xasprintf("%s is forbidden: %s", q, why);
    } else {
        char *qn = sl_go_quote(name);
        msg = sl_xasprintf("%s %s is forbidden: %s", q, qn, why);
        free(qn);
    }
    free(q);
    return msg;
}

json_t *sl_kube_status_forbidden(const char *resource, const char *group, const char *name,
                                 const char *why)
{
    return with_msg(403, "Forbidden", sl_kube_forbidden_message(resource, group, name, why),
                    details(name, group, resource));
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
