/* status: validation of a pod status (the status subresource), with
 * kube-apiserver's texts. */
#include "pod/status.h"
#include "common/tap.h"

#include <stdlib.h>

/* the error lines of a pod whose status is the given JSON text */
static char *errs_of(const char *status)
{
    json_error_t je;
    json_t *st = json_loads(status, JSON_DECODE_ANY, &je);
    if (!st) {
        printf("# bad test JSON: %s: %s\n", je.text, status);
        return strdup("<bad json>");
    }
    json_t *pod =
        json_pack("{s:{s:s}, s:{s:[{s:s}], s:[{s:s}]}, s:o}", "metadata", "name", "p", "spec",
                  "containers", "name", "main", "initContainers", "name", "init", "status", st);
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_status_errors(pod, e);
    char *s = sl_err_fields_lines(e);
    sl_error_free(e);
    json_decref(pod);
    return s;
}

static void check(const char *status, const char *want, const char *label)
{
    char *got = errs_of(status);
    is_str(got, want, "%s", label);
    free(got);
}

/* the errors of a status write from phase was to phase now (NULL: none) */
static char *update_errs(const char *was, const char *now)
{
    json_t *old = json_pack("{s:{s:s}}", "status", "phase", was);
    json_t *pod =
        now ? json_pack("{s:{s:s}}", "status", "phase", now) : json_pack("{s:{}}", "status");
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_status_update_errors(pod, old, e);
    char *s = sl_err_fields_lines(e);
    sl_error_free(e);
    json_decref(pod);
    json_decref(old);
    return s;
}

static void check_update(const char *was, const char *now, const char *want)
{
    char *got = update_errs(was, now);
    is_str(got, want, "status write %s -> %s", was, now ? now : "(no phase)");
    free(got);
}

int main(void)
{
    /* a terminal phase is final */
    check_update("Pending", "Running", "");
    check_update("Running", "Succeeded", "");
    check_update("Running", "Failed", "");
    check_update("Succeeded", "Succeeded", "");
    check_update("Failed", "Failed", "");
    check_update("Succeeded", "Pending",
                 "status.phase: Forbidden: a pod in a terminal phase (Succeeded) may not change "
                 "phase\n");
    check_update("Succeeded", "Failed",
                 "status.phase: Forbidden: a pod in a terminal phase (Succeeded) may not change "
                 "phase\n");
    check_update("Failed", "Running",
                 "status.phase: Forbidden: a pod in a terminal phase (Failed) may not change "
                 "phase\n");
    check_update("Failed", NULL,
                 "status.phase: Forbidden: a pod in a terminal phase (Failed) may not change "
                 "phase\n");

    check("null", "", "no status");
    check("{}", "", "empty status");
    check("{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
          "\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-12-01T10:00:00Z\"}],"
          "\"hostIP\":\"10.0.0.1\",\"hostIPs\":[{\"ip\":\"10.0.0.1\"}],\"podIP\":\"::1\","
          "\"podIPs\":[{\"ip\":\"::1\"}],\"qosClass\":\"BestEffort\",\"startTime\":null,"
          "\"containerStatuses\":[{\"name\":\"main\",\"restartCount\":0,\"ready\":true,"
          "\"started\":true,\"image\":\"busybox\",\"imageID\":\"\",\"state\":{\"running\":"
          "{\"startedAt\":\"2026-12-01T10:00:00Z\"}},\"lastState\":{}}],"
          "\"initContainerStatuses\":[{\"name\":\"init\",\"state\":{\"terminated\":"
          "{\"exitCode\":0,\"reason\":\"Completed\"}}}]}",
          "", "a status as the controller writes it");
    check("[]", "status: Invalid value: \"[]\": must be an object\n", "status not an object");
    check("{\"phase\":\"Exploded\"}",
          "status.phase: Unsupported value: \"Exploded\": supported values: \"Pending\", "
          "\"Running\", \"Succeeded\", \"Failed\", \"Unknown\"\n",
          "unknown phase");
    check("{\"phase\":3}", "status.phase: Invalid value: \"3\": must be a string\n",
          "phase not a string");
    check("{\"conditions\":[{\"type\":\"PodScheduled\"}]}",
          "status.conditions[0].status: Required value\n", "condition without status");
    check("{\"conditions\":[{\"status\":\"True\"},{\"type\":\"\",\"status\":\"Maybe\"}]}",
          "status.conditions[0].type: Required value\n"
          "status.conditions[1].type: Required value\n"
          "status.conditions[1].status: Unsupported value: \"Maybe\": supported values: "
          "\"False\", \"True\", \"Unknown\"\n",
          "condition without type, status not True/False/Unknown");
    check("{\"conditions\":{\"type\":\"Ready\"}}",
          "status.conditions: Invalid value: \"{\\\"type\\\":\\\"Ready\\\"}\": must be an array\n",
          "conditions not an array");
    check("{\"conditions\":[\"Ready\",{\"type\":\"Ready\",\"status\":true}]}",
          "status.conditions[0]: Invalid value: \"\\\"Ready\\\"\": must be an object\n"
          "status.conditions[1].status: Invalid value: \"true\": must be a string\n",
          "a condition not an object, a status not a string");
    check("{\"hostIP\":\"10.0.0.300\",\"podIP\":\"\",\"podIPs\":[{\"ip\":\"x\"},{}]}",
          "status.hostIP: Invalid value: \"10.0.0.300\": must be a valid IP address, (e.g. "
          "10.9.8.7 or 2001:db8::ffff)\n"
          "status.podIPs[0].ip: Invalid value: \"x\": must be a valid IP address, (e.g. "
          "10.9.8.7 or 2001:db8::ffff)\n"
          "status.podIPs[1].ip: Required value\n",
          "IPs");
    check("{\"qosClass\":\"Platinum\"}",
          "status.qosClass: Unsupported value: \"Platinum\": supported values: \"Guaranteed\", "
          "\"Burstable\", \"BestEffort\"\n",
          "qosClass");
    check("{\"containerStatuses\":[{\"restartCount\":-1},{\"name\":\"other\",\"ready\":\"yes\"},"
          "7]}",
          "status.containerStatuses[0].name: Required value\n"
          "status.containerStatuses[0].restartCount: Invalid value: -1: must be greater than or "
          "equal to 0\n"
          "status.containerStatuses[1].name: Not found: \"other\"\n"
          "status.containerStatuses[1].ready: Invalid value: \"\\\"yes\\\"\": must be a boolean\n"
          "status.containerStatuses[2]: Invalid value: \"7\": must be an object\n",
          "container statuses");
    check("{\"initContainerStatuses\":[{\"name\":\"main\"}]}",
          "status.initContainerStatuses[0].name: Not found: \"main\"\n",
          "an init status names an init container");
    check("{\"containerStatuses\":[{\"name\":\"main\",\"state\":{\"running\":{},\"terminated\":"
          "{\"exitCode\":\"0\"}},\"lastState\":\"x\"}]}",
          "status.containerStatuses[0].state.terminated.exitCode: Invalid value: \"\\\"0\\\"\": "
          "must be an integer\n"
          "status.containerStatuses[0].state: Forbidden: may not specify more than 1 of "
          "waiting, running and terminated\n"
          "status.containerStatuses[0].lastState: Invalid value: \"\\\"x\\\"\": must be an "
          "object\n",
          "container states");
    return tap_done();
}
