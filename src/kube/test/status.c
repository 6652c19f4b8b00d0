/* status: Status objects carry kube-apiserver's codes, reasons and texts. */
#include <stdlib.h>

#include "common/tap.h"
#include "kube/status.h"

static void check(json_t *st, int code, const char *reason, const char *msg, const char *details)
{
    is_int(json_integer_value(json_object_get(st, "code")), code, "%s: code", reason);
    is_str(json_string_value(json_object_get(st, "reason")), reason, "%s: reason", reason);
    is_str(json_string_value(json_object_get(st, "message")), msg, "%s: message", reason);
    is_str(json_string_value(json_object_get(st, "kind")), "Status", "%s: kind", reason);
    is_str(json_string_value(json_object_get(st, "apiVersion")), "v1", "%s: apiVersion", reason);
    is_str(json_string_value(json_object_get(st, "status")), "Failure", "%s: status", reason);
    ok(json_is_object(json_object_get(st, "metadata")), "%s: metadata {}", reason);
    char *d =
        json_dumps(json_object_get(st, "details"), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    is_str(d ? d : "null", details, "%s: details", reason);
    free(d);
    json_decref(st);
}

int main(void)
{
    check(sl_kube_status_not_found("pods", NULL, "p1"), 404, "NotFound", "pods \"p1\" not found",
          "{\"kind\":\"pods\",\"name\":\"p1\"}");
    check(sl_kube_status_not_found("jobs", "batch", "j"), 404, "NotFound",
          "jobs.batch \"j\" not found", "{\"group\":\"batch\",\"kind\":\"jobs\",\"name\":\"j\"}");
    check(sl_kube_status_not_found_url(), 404, "NotFound",
          "the server could not find the requested resource", "{}");
    check(sl_kube_status_already_exists("pods", "", "p1"), 409, "AlreadyExists",
          "pods \"p1\" already exists", "{\"kind\":\"pods\",\"name\":\"p1\"}");
    check(sl_kube_status_conflict("pods", NULL, "p1", NULL), 409, "Conflict",
          "Operation cannot be fulfilled on pods \"p1\": the object has been modified; please "
          "apply your changes to the latest version and try again",
          "{\"kind\":\"pods\",\"name\":\"p1\"}");
    check(sl_kube_status_bad_request("bad"), 400, "BadRequest", "bad", "null");

    sl_error_t ce = SL_ERROR_INIT, *c = &ce;
    sl_kube_cause_required(c, "spec.containers[0].image", NULL);
    check(sl_kube_status_invalid("Pod", NULL, "p1", c), 422, "Invalid",
          "Pod \"p1\" is invalid: spec.containers[0].image: Required value",
          "{\"causes\":[{\"field\":\"spec.containers[0].image\",\"message\":\"Required value\","
          "\"reason\":\"FieldValueRequired\"}],\"kind\":\"Pod\",\"name\":\"p1\"}");
    sl_error_clear(c);
    sl_kube_cause_invalid_str(c, "metadata.name", "P_1", "a lowercase RFC 1123 subdomain ...");
    json_t *v = json_string("Sometimes");
    const char *sup[] = {"Always", "OnFailure", "Never", NULL};
    sl_kube_cause_not_supported(c, "spec.restartPolicy", v, sup);
    json_decref(v);
    sl_kube_cause_forbidden(
        c, "spec", "pod updates may not change fields other than `spec.containers[*].image`");
    v = json_integer(-1);
    sl_kube_cause_invalid(c, "spec.activeDeadlineSeconds", v, "must be greater than or equal to 0");
    json_decref(v);
    v = json_string("c");
    sl_kube_cause_duplicate(c, "spec.containers[1].name", v);
    sl_kube_cause_duplicate(c, "spec.containers[1].name", v); /* dropped from the message */
    json_decref(v);
    json_t *st = sl_kube_status_invalid("Pod", NULL, "p1", c);
    is_str(
        json_string_value(json_object_get(st, "message")),
        "Pod \"p1\" is invalid: [metadata.name: Invalid value: \"P_1\": a lowercase RFC 1123 "
        "subdomain ..., spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: "
        "\"Always\", \"OnFailure\", \"Never\", spec: Forbidden: pod updates may not change fields "
        "other than `spec.containers[*].image`, spec.activeDeadlineSeconds: Invalid value: -1: "
        "must be greater than or equal to 0, spec.containers[1].name: Duplicate value: \"c\"]",
        "Invalid with several causes");
    is_int(json_array_size(json_object_get(json_object_get(st, "details"), "causes")), 6,
           "every cause kept in details");
    is_str(json_string_value(json_object_get(
               json_array_get(json_object_get(json_object_get(st, "details"), "causes"), 1),
               "reason")),
           "FieldValueNotSupported", "cause reason");
    json_decref(st);
    sl_error_clear(c);
    check(sl_kube_status_invalid("Job", "batch", "j", c), 422, "Invalid",
          "Job.batch \"j\" is invalid",
          "{\"causes\":[],\"group\":\"batch\",\"kind\":\"Job\",\"name\":\"j\"}");

    check(sl_kube_status_forbidden("pods", NULL, "p1", "User \"bob\" cannot get resource"), 403,
          "Forbidden", "pods \"p1\" is forbidden: User \"bob\" cannot get resource",
          "{\"kind\":\"pods\",\"name\":\"p1\"}");
    check(sl_kube_status_forbidden("pods", NULL, NULL, "no"), 403, "Forbidden",
          "pods is forbidden: no", "{\"kind\":\"pods\"}");
    check(sl_kube_status_unauthorized(NULL), 401, "Unauthorized", "Unauthorized", "null");
    check(sl_kube_status_method_not_allowed("nodes", NULL, "create"), 405, "MethodNotAllowed",
          "create is not supported on resources of kind \"nodes\"", "{\"kind\":\"nodes\"}");
    check(sl_kube_status_expired(5, 100), 410, "Expired", "too old resource version: 5 (100)",
          "null");
    check(sl_kube_status_gone("gone"), 410, "Gone", "gone", "null");
    check(sl_kube_status_too_large(3145728), 413, "RequestEntityTooLarge",
          "Request entity too large: limit is 3145728", "null");
    check(sl_kube_status_internal("disk on fire"), 500, "InternalError",
          "Internal error occurred: disk on fire", "{\"causes\":[{\"message\":\"disk on fire\"}]}");
    check(sl_kube_status_unavailable("slurmctld is down"), 503, "ServiceUnavailable",
          "slurmctld is down", "null");
    check(sl_kube_status_timeout("request did not complete within 60s", 2), 504, "Timeout",
          "Timeout: request did not complete within 60s", "{\"retryAfterSeconds\":2}");
    check(sl_kube_status_unsupported_media_type(NULL), 415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json, application/yaml",
          "null");
    check(sl_kube_status_not_acceptable("only json"), 406, "NotAcceptable", "only json", "null");

    st = sl_kube_status_success("pods", NULL, "p1", "u1");
    is_str(json_string_value(json_object_get(st, "status")), "Success", "success status");
    ok(json_object_get(st, "reason") == NULL, "success has no reason");
    json_decref(st);
    st = sl_kube_status(418, NULL, "teapot", NULL);
    ok(json_object_get(st, "reason") == NULL, "unknown code: no reason invented");
    json_decref(st);
    return tap_done();
}
