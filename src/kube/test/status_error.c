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
    tap_plan(40);
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
    return tap_done();
}
