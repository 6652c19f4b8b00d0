/* printers — READY / STATUS / RESTARTS of `kubectl get pods`, as printPod
 * (kubernetes/pkg/printers/internalversion) computes them. */
#include "api/printers.h"
#include "common/tap.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long now;

static void check(const char *pod_json, const char *want, const char *name)
{
    json_error_t e;
    json_t *pod = json_loads(pod_json, 0, &e);
    if (!pod) {
        ok(0, "%s: bad test JSON: %s", name, e.text);
        return;
    }
    char ready[32], reason[128], restarts[64], got[256];
    api_pod_status_cells(pod, now, ready, sizeof(ready), reason, sizeof(reason), restarts,
                         sizeof(restarts));
    snprintf(got, sizeof(got), "%s %s %s", ready, reason, restarts);
    is_str(got, want, "%s", name);
    json_decref(pod);
}

#define ONE "\"spec\":{\"containers\":[{\"name\":\"c\"}]}"
#define TWO "\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}"

int main(void)
{
    now = sl_kube_now_ns();
    char *five_min_ago = sl_kube_rfc3339(now - 300LL * 1000000000LL, 0);
    char buf[2048];

    check("{" ONE ",\"status\":{\"phase\":\"Pending\"}}", "0/1 Pending 0", "pending");
    check("{" ONE ",\"status\":{\"phase\":\"Pending\",\"containerStatuses\":[{\"name\":\"c\","
          "\"state\":{\"waiting\":{\"reason\":\"ContainerCreating\"}}}]}}",
          "0/1 ContainerCreating 0", "container creating");
    check("{" ONE ",\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\","
          "\"ready\":true,\"state\":{\"running\":{}}}]}}",
          "1/1 Running 0", "running and ready");
    check("{" TWO ",\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"a\","
          "\"ready\":true,\"state\":{\"running\":{}}},{\"name\":\"b\",\"ready\":false,"
          "\"state\":{\"running\":{}}}]}}",
          "1/2 Running 0", "one of two ready");
    check("{" ONE ",\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":[{\"name\":\"c\","
          "\"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\"}}}]}}",
          "0/1 Completed 0", "completed");
    check("{" ONE ",\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"c\","
          "\"state\":{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\"}}}]}}",
          "0/1 Error 0", "error");
    check("{" ONE ",\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"c\","
          "\"state\":{\"terminated\":{\"exitCode\":137,\"reason\":\"OOMKilled\"}}}]}}",
          "0/1 OOMKilled 0", "OOMKilled");
    check("{" ONE ",\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"c\","
          "\"state\":{\"terminated\":{\"exitCode\":3}}}]}}",
          "0/1 ExitCode:3 0", "exit code without reason");
    check("{" ONE ",\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"name\":\"c\","
          "\"state\":{\"terminated\":{\"exitCode\":137,\"signal\":9}}}]}}",
          "0/1 Signal:9 0", "signal without reason");
    snprintf(buf, sizeof(buf),
             "{" ONE ",\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\","
             "\"restartCount\":5,\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},"
             "\"lastState\":{\"terminated\":{\"exitCode\":1,\"finishedAt\":\"%s\"}}}]}}",
             five_min_ago);
    check(buf, "0/1 CrashLoopBackOff 5 (5m ago)", "crash loop with restarts and when");
    check("{\"spec\":{\"initContainers\":[{\"name\":\"i\"}],\"containers\":[{\"name\":\"c\"}]},"
          "\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":[{\"name\":\"i\","
          "\"state\":{\"running\":{}}}]}}",
          "0/1 Init:0/1 0", "init container running");
    check("{\"spec\":{\"initContainers\":[{\"name\":\"i\"}],\"containers\":[{\"name\":\"c\"}]},"
          "\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":[{\"name\":\"i\","
          "\"state\":{\"terminated\":{\"exitCode\":1,\"reason\":\"Error\"}}}]}}",
          "0/1 Init:Error 0", "init container failed");
    check("{\"spec\":{\"initContainers\":[{\"name\":\"i\"}],\"containers\":[{\"name\":\"c\"}]},"
          "\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":[{\"name\":\"i\","
          "\"restartCount\":2,\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}}}]}}",
          "0/1 Init:CrashLoopBackOff 2", "init container crash looping");
    check("{\"metadata\":{\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"}," ONE
          ",\"status\":{\"phase\":\"Running\"}}",
          "0/1 Terminating 0", "terminating");
    check("{\"metadata\":{\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"}," ONE
          ",\"status\":{\"phase\":\"Succeeded\"}}",
          "0/1 Succeeded 0", "a finished pod being deleted is not Terminating");
    check("{" ONE ",\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
          "\"status\":\"False\",\"reason\":\"SchedulingGated\"}]}}",
          "0/1 SchedulingGated 0", "scheduling gated");

    /* whole rows */
    json_t *pod = json_loads("{\"metadata\":{\"name\":\"p\",\"creationTimestamp\":\"2020-01-01T00:00:00Z\"},"
                             ONE ",\"status\":{\"phase\":\"Succeeded\",\"podIP\":\"10.0.0.1\"}}",
                             0, NULL);
    json_t *cells = api_pod_cells(pod, now);
    ok(json_is_object(cells) && json_object_get(cells, "conditions"),
       "a Succeeded pod's row carries the Completed condition");
    char *s = json_dumps(json_object_get(cells, "cells"), JSON_COMPACT);
    has_str(s, "\"p\",\"0/1\",\"Succeeded\",\"0\",", "pod cells");
    has_str(s, "\"10.0.0.1\",\"<none>\",\"<none>\",\"<none>\"]", "wide cells");
    free(s);
    json_decref(cells);
    json_decref(pod);
    json_t *cols = api_pod_columns();
    is_int(json_array_size(cols), 9, "9 pod columns");
    json_decref(cols);

    json_t *node = json_loads("{\"metadata\":{\"name\":\"n1\",\"labels\":{\"node-role.kubernetes.io/gpu\":\"\","
                              "\"kubernetes.io/role\":\"worker\"}},\"spec\":{\"unschedulable\":true},"
                              "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
                              "\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.9\"}],"
                              "\"nodeInfo\":{\"kubeletVersion\":\"v1.32.0-slurmlink\"}}}",
                              0, NULL);
    cells = api_node_cells(node, now);
    s = json_dumps(cells, JSON_COMPACT);
    has_str(s, "[\"n1\",\"Ready,SchedulingDisabled\",\"gpu,worker\",", "node status and roles");
    has_str(s, "\"v1.32.0-slurmlink\",\"10.0.0.9\",\"<none>\",\"<unknown>\"", "node version and addresses");
    free(s);
    json_decref(cells);
    json_decref(node);

    json_t *ev = json_loads("{\"metadata\":{\"name\":\"e\"},\"involvedObject\":{\"kind\":\"Pod\",\"name\":\"p\"},"
                            "\"reason\":\"Started\",\"message\":\" hi \\n\",\"type\":\"Normal\","
                            "\"source\":{\"component\":\"slurmlink\",\"host\":\"n1\"}}",
                            0, NULL);
    cells = api_event_cells(ev, now);
    s = json_dumps(cells, JSON_COMPACT);
    is_str(s, "[\"<unknown>\",\"Normal\",\"Started\",\"pod/p\",\"\",\"slurmlink, n1\",\"hi\",\"<unknown>\",1,\"e\"]",
           "event cells (object, source, trimmed message, count 1)");
    free(s);
    json_decref(cells);
    json_decref(ev);
    free(five_min_ago);
    return tap_done();
}
