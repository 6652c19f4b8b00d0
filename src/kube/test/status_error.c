/* status_error: the Status built at the API edge from an sl_error_t. */
#include <stdlib.h>
#include <string.h>

#include "common/tap.h"
#include "kube/status.h"

static void check(json_t *st, int code, const char *reason, const char *msg, const char *details)
{
    is_int(json_integer_value(json_object_get(st, "code")), code, "%s: code", msg);
    is_str(json_string_value(json_object_get(st, "reason")), reason, "%s: reason", msg);
    is_str(json_string_value(json_object_get(st, "message")), msg, "%s: message", msg);
    char *d =
        json_dumps(json_object_get(st, "details"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    is_str(d ? d : "null", details, "%s: details", msg);
    free(d);
    json_decref(st);
}

int main(void)
{
    tap_plan(76);
    sl_error_t e = SL_ERROR_INIT;
    sl_err_field_none(&e, SL_FE_REQUIRED, "spec.containers[0].image", NULL);
    sl_err_field(&e, SL_FE_DUPLICATE, "spec.containers[1].name", "a", NULL);
    check(sl_kube_status_error(&e, "pods", "", "Pod", "p"), 422, "Invalid",
          "Pod \"p\" is invalid: [spec.containers[0].image: Required value, "
          "spec.containers[1].name: Duplicate value: \"a\"]",
          "{\"causes\":[{\"field\":\"spec.containers[0].image\",\"message\":\"Required value\","
          "\"reason\":\"FieldValueRequired\"},{\"field\":\"spec.containers[1].name\",\"message\":"
          "\"Duplicate value: \\\"a\\\"\",\"reason\":\"FieldValueDuplicate\"}],\"kind\":\"Pod\","
          "\"name\":\"p\"}");
    /* kube's NewInvalid prints the name with %q; details.name is omitempty */
    check(sl_kube_status_invalid("Pod", NULL, "", &e), 422, "Invalid",
          "Pod \"\" is invalid: [spec.containers[0].image: Required value, "
          "spec.containers[1].name: Duplicate value: \"a\"]",
          "{\"causes\":[{\"field\":\"spec.containers[0].image\",\"message\":\"Required value\","
          "\"reason\":\"FieldValueRequired\"},{\"field\":\"spec.containers[1].name\",\"message\":"
          "\"Duplicate value: \\\"a\\\"\",\"reason\":\"FieldValueDuplicate\"}],\"kind\":\"Pod\"}");
    sl_error_clear(&e);

    sl_errkindf(&e, SL_ERR_INVALID, "testing value /a failed: test failed");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", "p"), 422, "Invalid",
          "testing value /a failed: test failed", "null");
    sl_errkindf(&e, SL_ERR_NOT_FOUND, "ignored");
    check(sl_kube_status_error(&e, "jobs", "batch", "Job", "j"), 404, "NotFound",
          "jobs.batch \"j\" not found", "{\"group\":\"batch\",\"kind\":\"jobs\",\"name\":\"j\"}");
    sl_errkindf(&e, SL_ERR_CONFLICT, "%s", "");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", "p"), 409, "Conflict",
          "Operation cannot be fulfilled on pods \"p\": the object has been modified; please "
          "apply your changes to the latest version and try again",
          "{\"kind\":\"pods\",\"name\":\"p\"}");
    sl_errkindf(&e, SL_ERR_FORBIDDEN, "User \"bob\" cannot get resource");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", "p"), 403, "Forbidden",
          "pods \"p\" is forbidden: User \"bob\" cannot get resource",
          "{\"kind\":\"pods\",\"name\":\"p\"}");
    sl_errkindf(&e, SL_ERR_BAD_REQUEST, "unexpected EOF");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", NULL), 400, "BadRequest", "unexpected EOF",
          "null");
    sl_errkindf(&e, SL_ERR_TOO_LARGE,
                "The allowed maximum operations in a JSON patch is 10000, "
                "got 10001");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", NULL), 413, "RequestEntityTooLarge",
          "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
          "got 10001",
          "null");
    sl_errprintf(&e, "disk on fire");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", NULL), 500, "InternalError",
          "Internal error occurred: disk on fire", "{\"causes\":[{\"message\":\"disk on fire\"}]}");
    sl_errkindf(&e, SL_ERR_UNAVAILABLE, "slurmctld is down");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", NULL), 503, "ServiceUnavailable",
          "slurmctld is down", "null");
    sl_error_clear(&e);

    /* a whole text: the kind's code, reason and details, the text as it is */
    sl_errwholef(&e, SL_ERR_TOO_LARGE, "the object is too large to store: 9 bytes, at most 8");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", "p"), 413, "RequestEntityTooLarge",
          "the object is too large to store: 9 bytes, at most 8", "null");
    sl_errkindf(&e, SL_ERR_ALREADY_EXISTS, "%s", "");
    char *m = sl_kube_error_message(&e, "configmaps", "", "ConfigMap", "c");
    is_str(m, "configmaps \"c\" already exists", "the message a kind builds");
    sl_errwholef(&e, SL_ERR_ALREADY_EXISTS, "object is being deleted: %s", m);
    free(m);
    check(sl_kube_status_error(&e, "configmaps", "", "ConfigMap", "c"), 409, "AlreadyExists",
          "object is being deleted: configmaps \"c\" already exists",
          "{\"kind\":\"configmaps\",\"name\":\"c\"}");
    sl_errkindf(&e, SL_ERR_NOT_FOUND, "%s", "");
    ok(!e.whole, "sl_errkindf ends a whole text");
    /* a subject: the namespace, not the pod the edge names */
    sl_err_subject(&e, "namespaces", "", NULL, "ns1");
    check(sl_kube_status_error(&e, "pods", "", "Pod", "p"), 404, "NotFound",
          "namespaces \"ns1\" not found", "{\"kind\":\"namespaces\",\"name\":\"ns1\"}");
    sl_error_clear(&e);
    ok(!e.subject.set && !e.subject.resource, "sl_error_clear frees the subject");
    /* a cause of its own on a Forbidden */
    sl_errkindf(&e, SL_ERR_FORBIDDEN, "unable to create new content in namespace n");
    sl_err_cause(&e, "NamespaceTerminating", "metadata.namespace",
                 "namespace n is being terminated");
    is_int(e.kind, SL_ERR_FORBIDDEN, "a cause keeps the kind");
    check(sl_kube_status_error(&e, "configmaps", "", "ConfigMap", ""), 403, "Forbidden",
          "configmaps is forbidden: unable to create new content in namespace n",
          "{\"causes\":[{\"field\":\"metadata.namespace\",\"message\":\"namespace n is being "
          "terminated\",\"reason\":\"NamespaceTerminating\"}],\"kind\":\"configmaps\"}");
    sl_error_clear(&e);
    /* a BadRequest's field errors stay in its text, no causes */
    sl_err_field(&e, SL_FE_INVALID, "values[0][a]", "-y", NULL);
    sl_errkindf(&e, SL_ERR_BAD_REQUEST, "unable to parse requirement");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", NULL), 400, "BadRequest",
          "unable to parse requirement", "null");
    sl_error_clear(&e);
    /* NewForbidden() prints the name with %q, as sl_authz_message() did:
     * the API's 403 wrote it between bare quotes */
    sl_errkindf(&e, SL_ERR_FORBIDDEN, "User \"bob\" cannot get resource");
    check(sl_kube_status_error(&e, "pods", "", "Pod", "a\"b"), 403, "Forbidden",
          "pods \"a\\\"b\" is forbidden: User \"bob\" cannot get resource",
          "{\"kind\":\"pods\",\"name\":\"a\\\"b\"}");
    /* a retry and a cause with no field (omitempty) */
    sl_errkindf(&e, SL_ERR_TIMEOUT, "Too large resource version: 9, current: 3");
    e.retry_after = 1;
    sl_err_cause(&e, "ResourceVersionTooLarge", NULL, "Too large resource version");
    check(sl_kube_status_error(&e, "pods", "", "Pod", NULL), 504, "Timeout",
          "Timeout: Too large resource version: 9, current: 3",
          "{\"causes\":[{\"message\":\"Too large resource version\",\"reason\":"
          "\"ResourceVersionTooLarge\"}],\"retryAfterSeconds\":1}");
    sl_error_clear(&e);
    sl_errkindf(&e, SL_ERR_EXPIRED, "The resourceVersion for the provided list is too old.");
    check(sl_kube_status_error(&e, "pods", NULL, "Pod", NULL), 410, "Expired",
          "The resourceVersion for the provided list is too old.", "null");
    return tap_done();
}
