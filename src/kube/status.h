/* status.h — Kubernetes `Status` objects (metav1.Status) with the texts
 * kube-apiserver produces (k8s.io/apimachinery/pkg/api/errors).
 *
 * Every function returns a new json_t reference the caller owns:
 *   {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
 *    "message":...,"reason":...,"details":{...},"code":N}
 *
 * `resource` is the plural resource name ("pods"), `group` its API group
 * ("" or NULL for the core group, "batch", "kubeflow.org"); kube-apiserver
 * prints the qualified resource as "pods" or "jobs.batch" and puts the plain
 * plural in details.kind and the group in details.group (omitted when empty).
 */
#ifndef SL_KUBE_STATUS_H
#define SL_KUBE_STATUS_H

#include <jansson.h>

#include "common/err.h"

/* Generic: status "Failure" (or "Success" when code is 2xx), reason and
 * message as given (NULL: omitted), details stolen (NULL: omitted). */
json_t *sl_kube_status(int code, const char *reason, const char *message, json_t *details);
/* {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"} plus
 * details {name, group, kind, uid} as DELETE returns for some resources. */
json_t *sl_kube_status_success(const char *resource, const char *group, const char *name,
                               const char *uid);

/* 404: `pods "p1" not found`, details {name, group, kind}. */
json_t *sl_kube_status_not_found(const char *resource, const char *group, const char *name);
/* 404 for an unknown URL/resource: "the server could not find the requested
 * resource", details {} as kube-apiserver answers unknown paths. */
json_t *sl_kube_status_not_found_url(void);
/* 409 AlreadyExists: `pods "p1" already exists`. */
json_t *sl_kube_status_already_exists(const char *resource, const char *group, const char *name);
/* 409 Conflict: `Operation cannot be fulfilled on pods "p1": the object has
 * been modified; please apply your changes to the latest version and try
 * again`. why NULL gives that optimistic-lock text; otherwise it replaces it. */
json_t *sl_kube_status_conflict(const char *resource, const char *group, const char *name,
                                const char *why);
/* 400 BadRequest with message. */
json_t *sl_kube_status_bad_request(const char *message);

/* 422 Invalid from the field errors of err (borrowed; src/common/err.h):
 * `Pod "p1" is invalid: spec.containers[0].image: Required value` (one
 * error) or `Pod "p1" is invalid: [a: ..., b: ...]` (several, duplicates
 * dropped), details {name (omitted when empty), group, kind: <Kind>,
 * causes: [{reason, message: ErrorBody(), field}]}. kind is the Kind
 * ("Pod"); the name prints with Go's %q. This is the one place a field
 * error list becomes a Status. */
json_t *sl_kube_status_invalid(const char *kind, const char *group, const char *name,
                               const sl_error_t *err);

/* The Status for any sl_error_t, at the API edge: its kind picks the code
 * and reason (SL_ERR_INVALID: sl_kube_status_invalid() with kind/name, or
 * with no field errors 422 Invalid with err's text as the message;
 * SL_ERR_TOO_LARGE: `Request entity too large: <text>`; SL_ERR_NOT_FOUND, _ALREADY_EXISTS,
 * _CONFLICT, _FORBIDDEN: the texts above for resource/group/name, err's text as the reason where
 * they take one; SL_ERR_GENERIC and _INTERNAL: 500 `Internal error occurred: <text>`; the others:
 * their code and reason with err's text as the message; SL_ERR_EXPIRED: 410 Expired).
 * err's subject (sl_err_subject), when set, replaces resource, group, kind
 * and name; a whole text (sl_errwholef) is the message as it is; the causes
 * of its own (sl_err_cause) go to details.causes; SL_ERR_TIMEOUT carries
 * err's retry_after in details.retryAfterSeconds. */
json_t *sl_kube_status_error(const sl_error_t *err, const char *resource, const char *group,
                             const char *kind, const char *name);
/* The message of that Status (for a text that kube builds on it, such as
 * "object is being deleted: <AlreadyExists message>"). Caller frees. */
char *sl_kube_error_message(const sl_error_t *err, const char *resource, const char *group,
                            const char *kind, const char *name);

/* Field errors for Invalid whose bad value is a JSON value, appended to err
 * (field.Error of k8s.io/apimachinery/.../validation/field). The body is
 * what field.Error.ErrorBody() prints:
 *   required:      "Required value" [": detail"]
 *   forbidden:     "Forbidden" [": detail"]
 *   invalid:       "Invalid value: <value>" [": detail"]
 *   not_supported: "Unsupported value: <value>" [": supported values: \"a\", \"b\""]
 *   duplicate:     "Duplicate value: <value>"
 *   too_long:      "Too long: may not be more than N bytes" (detail given)
 * <value> is rendered like Go's %#v for JSON scalars: strings quoted
 * ("x"), numbers and booleans bare, null as "null"; objects/arrays as JSON.
 * value is borrowed. supported is a NULL-terminated list (may be NULL). */
void sl_kube_cause_required(sl_error_t *err, const char *field, const char *detail);
void sl_kube_cause_forbidden(sl_error_t *err, const char *field, const char *detail);
void sl_kube_cause_invalid(sl_error_t *err, const char *field, json_t *value, const char *detail);
void sl_kube_cause_invalid_str(sl_error_t *err, const char *field, const char *value,
                               const char *detail);
void sl_kube_cause_not_supported(sl_error_t *err, const char *field, json_t *value,
                                 const char *const *supported);
void sl_kube_cause_duplicate(sl_error_t *err, const char *field, json_t *value);
void sl_kube_cause_too_long(sl_error_t *err, const char *field, const char *detail);

/* 403: `pods "p1" is forbidden: <why>` (name NULL/"": `pods is forbidden:
 * <why>`; resource NULL/"": `forbidden: <why>`). */
/* NewForbidden()'s message, the one writer of the 403 text (the API's
 * Status, sl_authz_message() for the CLI): `pods "p1" is forbidden: why`
 * (the name with Go's %q), `jobs.batch is forbidden: why` without a name,
 * `forbidden: why` without a resource (a non-resource URL). Caller frees. */
char *sl_kube_forbidden_message(const char *resource, const char *group, const char *name,
                                const char *why);
json_t *sl_kube_status_forbidden(const char *resource, const char *group, const char *name,
                                 const char *why);
/* 401: message "Unauthorized" when msg is NULL (what kube-apiserver sends
 * for a bad token). */
json_t *sl_kube_status_unauthorized(const char *msg);
/* 405: `<action> is not supported on resources of kind "pods"`
 * (action e.g. "create", "update"). */
json_t *sl_kube_status_method_not_allowed(const char *resource, const char *group,
                                          const char *action);
/* 410 Expired (watch from a trimmed revision): `too old resource version:
 * <rv> (<oldest>)`. */
json_t *sl_kube_status_expired(long long rv, long long oldest);
/* 410 Gone with message. */
json_t *sl_kube_status_gone(const char *message);
/* 413: `Request entity too large: limit is <limit>`. */
json_t *sl_kube_status_too_large(long long limit);
/* 500: `Internal error occurred: <why>`, details.causes [{message: why}]. */
json_t *sl_kube_status_internal(const char *why);
/* 503 ServiceUnavailable with message. */
json_t *sl_kube_status_unavailable(const char *message);
/* 504 Timeout: `Timeout: <message>`, details.retryAfterSeconds if > 0. */
json_t *sl_kube_status_timeout(const char *message, int retry_after_seconds);
/* 406 NotAcceptable with message. 415 UnsupportedMediaType: "the body of
 * the request was in an unknown format - accepted media types include:
 * <accepted>" (NULL: "application/json, application/yaml"). */
json_t *sl_kube_status_not_acceptable(const char *message);
json_t *sl_kube_status_unsupported_media_type(const char *accepted);

#endif
