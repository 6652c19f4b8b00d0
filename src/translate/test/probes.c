/* probes: a container's probes as the shim spec carries them
 * (src/translate/probes.c): kube's defaults filled in, a named port
 * resolved, the handler's fields kept. */
#include "common/tap.h"
#include "pod/pod.h"
#include "translate/internal.h"

#include <stdlib.h>

static char *probes_of(const char *ctr)
{
    char *doc = NULL;
    if (asprintf(&doc, "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[%s]}}", ctr) < 0)
        return NULL;
    json_t *j = json_loads(doc, 0, NULL);
    free(doc);
    sl_pod_t *p = j ? sl_pod_parse(j, NULL) : NULL;
    json_t *o =
        p ? tr_probes_json(
                &p->containers[0],
                json_array_get(json_object_get(json_object_get(j, "spec"), "containers"), 0))
          : NULL;
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : strdup("(none)");
    json_decref(o);
    sl_pod_destroy(p);
    json_decref(j);
    return s;
}

static void check(const char *ctr, const char *want, const char *label)
{
    char *got = probes_of(ctr);
    is_str(got, want, "%s", label);
    free(got);
}

int main(void)
{
    check("{\"name\":\"c\",\"image\":\"busybox\"}", "(none)", "no probes: no \"probes\" field");
    check("{\"name\":\"c\",\"image\":\"busybox\",\"ports\":[{\"name\":\"http\",\"containerPort\":"
          "8080}],\"readinessProbe\":{\"httpGet\":{\"port\":\"http\",\"host\":\"h\","
          "\"httpHeaders\":[{\"name\":\"A\",\"value\":\"b\"}]}}}",
          "{\"readiness\":{\"failureThreshold\":3,\"httpGet\":{\"host\":\"h\",\"httpHeaders\":[{"
          "\"name\":\"A\",\"value\":\"b\"}],\"path\":\"/\",\"port\":8080,\"scheme\":\"HTTP\"},"
          "\"initialDelaySeconds\":0,\"periodSeconds\":10,\"successThreshold\":1,"
          "\"timeoutSeconds\":1}}",
          "httpGet: the named port resolved, path / and HTTP, kube's timing defaults");
    check("{\"name\":\"c\",\"image\":\"busybox\",\"livenessProbe\":{\"tcpSocket\":{\"port\":22},"
          "\"periodSeconds\":0,\"failureThreshold\":7,\"terminationGracePeriodSeconds\":4},"
          "\"startupProbe\":{\"exec\":{\"command\":[\"cat\",\"/x\"]},\"initialDelaySeconds\":5}}",
          "{\"liveness\":{\"failureThreshold\":7,\"initialDelaySeconds\":0,\"periodSeconds\":10,"
          "\"successThreshold\":1,\"tcpSocket\":{\"port\":22},\"terminationGracePeriodSeconds\":4,"
          "\"timeoutSeconds\":1},\"startup\":{\"exec\":{\"command\":[\"cat\",\"/x\"]},"
          "\"failureThreshold\":3,\"initialDelaySeconds\":5,\"periodSeconds\":10,"
          "\"successThreshold\":1,\"timeoutSeconds\":1}}",
          "tcpSocket and exec; 0 is the default (periodSeconds 10); the probe's grace period");
    return tap_done();
}
