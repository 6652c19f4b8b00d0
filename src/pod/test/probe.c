/* probe: the probes' validation (src/pod/probe.c), kube-apiserver's texts. */
#include "common/tap.h"
#include "pod/pod.h"

#include <stdlib.h>

static char *errs_of(const char *json)
{
    json_error_t je;
    json_t *j = json_loads(json, 0, &je);
    if (!j)
        return strdup("<bad json>");
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_t *p = sl_pod_parse(j, e);
    char *s = sl_err_fields_lines(e);
    sl_pod_destroy(p);
    sl_error_free(e);
    json_decref(j);
    return s;
}

#define CTR(extra)                                                                                 \
    "{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"          \
    "\"busybox\",\"ports\":[{\"name\":\"web\",\"containerPort\":80}]" extra "}]}}"
#define F "spec.containers[0]."

static void check(const char *json, const char *want, const char *label)
{
    char *got = errs_of(json);
    is_str(got, want, "%s", label);
    free(got);
}

int main(void)
{
    check(CTR(",\"readinessProbe\":{\"httpGet\":{\"port\":\"web\",\"path\":\"/\"}},"
              "\"livenessProbe\":{\"tcpSocket\":{\"port\":80},\"successThreshold\":1},"
              "\"startupProbe\":{\"exec\":{\"command\":[\"true\"]},\"failureThreshold\":30}"),
          "", "the three probes, a named port: valid");
    check(CTR(",\"readinessProbe\":{}"),
          F "readinessProbe: Required value: must specify a handler type\n", "no handler");
    check(CTR(",\"readinessProbe\":{\"exec\":{\"command\":[\"x\"]},\"tcpSocket\":{\"port\":1}}"),
          F "readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type\n",
          "two handlers");
    check(CTR(",\"livenessProbe\":{\"exec\":{}}"), F "livenessProbe.exec.command: Required value\n",
          "exec without a command");
    check(CTR(",\"livenessProbe\":{\"httpGet\":{\"port\":0}}"),
          F "livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, "
            "inclusive\n",
          "port 0");
    check(CTR(",\"livenessProbe\":{\"tcpSocket\":{\"port\":\"Web\"}}"),
          F "livenessProbe.tcpSocket.port: Invalid value: \"Web\": must contain only "
            "alpha-numeric characters (a-z, 0-9), and hyphens (-)\n",
          "a port name in capitals");
    check(CTR(",\"livenessProbe\":{\"tcpSocket\":{\"port\":\"metrics\"}}"),
          F "livenessProbe.tcpSocket.port: Not found: \"metrics\"\n",
          "a port name the container does not have");
    check(CTR(",\"readinessProbe\":{\"httpGet\":{\"port\":80,\"scheme\":\"FTP\"}}"),
          F "readinessProbe.httpGet.scheme: Unsupported value: \"FTP\": supported values: "
            "\"HTTP\", \"HTTPS\"\n",
          "scheme");
    check(CTR(",\"readinessProbe\":{\"httpGet\":{\"port\":80,\"httpHeaders\":[{\"name\":\"a b\","
              "\"value\":\"x\"}]}}"),
          F "readinessProbe.httpGet.httpHeaders: Invalid value: \"a b\": a valid HTTP header "
            "must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used "
            "for validation is '[-A-Za-z0-9]+')\n",
          "a header name");
    check(CTR(",\"livenessProbe\":{\"tcpSocket\":{\"port\":1},\"successThreshold\":3}"),
          F "livenessProbe.successThreshold: Invalid value: 3: must be 1\n",
          "liveness successThreshold");
    check(CTR(",\"startupProbe\":{\"tcpSocket\":{\"port\":1},\"successThreshold\":2}"),
          F "startupProbe.successThreshold: Invalid value: 2: must be 1\n",
          "startup successThreshold");
    check(CTR(",\"readinessProbe\":{\"tcpSocket\":{\"port\":1},\"successThreshold\":2}"), "",
          "readiness successThreshold 2 is fine");
    check(CTR(",\"readinessProbe\":{\"tcpSocket\":{\"port\":1},\"timeoutSeconds\":-1}"),
          F "readinessProbe.timeoutSeconds: Invalid value: -1: must be greater than or equal to "
            "0\n",
          "a negative timeout");
    check(CTR(",\"readinessProbe\":{\"tcpSocket\":{\"port\":1},"
              "\"terminationGracePeriodSeconds\":5}"),
          F "readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set "
            "for readinessProbes\n",
          "a readiness probe's grace period");
    check(CTR(",\"livenessProbe\":{\"tcpSocket\":{\"port\":1},"
              "\"terminationGracePeriodSeconds\":0}"),
          F "livenessProbe.terminationGracePeriodSeconds: Invalid value: 0: must be greater "
            "than 0\n",
          "a liveness probe's grace period of 0");
    check(CTR(",\"readinessProbe\":{\"grpc\":{\"port\":9000}}"),
          F "readinessProbe.grpc: Forbidden: grpc probes are not supported: slurmlink-shim has "
            "no gRPC client (use exec with a health-check command, httpGet or tcpSocket)\n",
          "grpc refused, naming the field");
    check("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":[{\"name\":\"i\",\"image\":"
          "\"busybox\",\"readinessProbe\":{\"tcpSocket\":{\"port\":1}}}],\"containers\":[{\"name\":"
          "\"c\",\"image\":\"busybox\"}]}}",
          "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers "
          "without restartPolicy=Always\n",
          "an init container's probe");
    check("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"initContainers\":[{\"name\":\"i\",\"image\":"
          "\"busybox\",\"restartPolicy\":\"Always\",\"readinessProbe\":{\"tcpSocket\":{\"port\":1}"
          "}}],\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}",
          "", "a sidecar's probe is fine");
    return tap_done();
}
