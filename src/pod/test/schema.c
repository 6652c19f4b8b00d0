/* schema: unknown fields, ignored-field warnings, defaults, update rules. */
#include "pod/schema.h"
#include "common/tap.h"

#include <stdlib.h>

static char *joined(char **v)
{
    size_t n = 0;
    for (size_t i = 0; v && v[i]; i++)
        n += strlen(v[i]) + 1;
    char *s = calloc(1, n + 1);
    for (size_t i = 0; v && v[i]; i++) {
        strcat(s, v[i]);
        strcat(s, "\n");
    }
    return s;
}

static void unknown(const char *kind, const char *json, const char *want, const char *label)
{
    json_t *j = json_loads(json, 0, NULL);
    char **v = sl_schema_unknown_fields(kind, j, NULL);
    char *s = joined(v);
    is_str(s, want, "%s", label);
    free(s);
    sl_strv_free(v);
    json_decref(j);
}

static char *update(const char *old, const char *new_)
{
    json_t *o = json_loads(old, 0, NULL), *n = json_loads(new_, 0, NULL);
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_spec_update_errors(o, n, e);
    char *s = sl_err_fields_lines(e);
    sl_error_free(e);
    json_decref(o);
    json_decref(n);
    return s;
}

int main(void)
{
    const char *full =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"x\":"
        "\"y\"},"
        "\"managedFields\":[{\"manager\":\"kubectl\",\"fieldsV1\":{\"f:spec\":{}}}],"
        "\"ownerReferences\":[{\"kind\":\"Job\",\"name\":\"j\",\"uid\":\"u\",\"apiVersion\":"
        "\"batch/v1\"}]},"
        "\"spec\":{\"affinity\":{\"nodeAffinity\":{}},\"tolerations\":[{\"key\":\"k\"}],"
        "\"topologySpreadConstraints\":[{\"maxSkew\":1,\"labelSelector\":{\"matchLabels\":{}}}],"
        "\"hostNetwork\":true,\"priorityClassName\":\"high\",\"dnsConfig\":{\"nameservers\":[]},"
        "\"os\":{\"name\":\"linux\"},\"resourceClaims\":[],\"schedulingGates\":[],"
        "\"securityContext\":{\"runAsUser\":1000,\"fsGroup\":1,\"seccompProfile\":{\"type\":"
        "\"RuntimeDefault\"}},"
        "\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"ports\":[{\"containerPort\":80,"
        "\"hostPort\":80}],"
        "\"readinessProbe\":{\"httpGet\":{\"port\":80,\"path\":\"/"
        "\"}},\"lifecycle\":{\"preStop\":{\"exec\":{\"command\":[\"x\"]}}},"
        "\"resources\":{\"limits\":{\"cpu\":\"1\"},\"claims\":[{\"name\":\"x\"}]},"
        "\"securityContext\":{\"capabilities\":{\"add\":[\"NET_ADMIN\"]}},"
        "\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/"
        "v\",\"recursiveReadOnly\":\"Disabled\"}]}],"
        "\"volumes\":[{\"name\":\"v\",\"projected\":{\"sources\":[{\"serviceAccountToken\":{"
        "\"path\":\"t\"}},"
        "{\"clusterTrustBundle\":{\"path\":\"b\",\"signerName\":\"s\"}}]}},{\"name\":\"w\","
        "\"image\":{\"reference\":\"r\"}},"
        "{\"name\":\"e\",\"ephemeral\":{\"volumeClaimTemplate\":{\"spec\":{\"accessModes\":["
        "\"ReadWriteOnce\"]}}}}]},"
        "\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}"
        "]}}";
    unknown("Pod", full, "", "every Kubernetes 1.32 field is known");
    unknown(
        "Pod",
        "{\"spec\":{\"containers\":[{\"name\":\"c\",\"imagee\":\"x\"},{\"name\":\"d\","
        "\"env\":[{\"name\":\"A\",\"valu\":\"1\"}]}],\"restartPolicyy\":\"Never\"},\"extra\":1}",
        "unknown field \"spec.containers[0].imagee\"\n"
        "unknown field \"spec.containers[1].env[0].valu\"\n"
        "unknown field \"spec.restartPolicyy\"\n"
        "unknown field \"extra\"\n",
        "unknown fields with their paths");
    unknown("ConfigMap",
            "{\"data\":{\"any key\":\"v\"},\"binaryData\":{},\"immutable\":true,\"date\":{}}",
            "unknown field \"date\"\n", "ConfigMap");
    unknown("Secret", "{\"data\":{},\"stringData\":{},\"type\":\"Opaque\",\"immutable\":false}", "",
            "Secret");
    unknown("Namespace", "{\"spec\":{\"finalizers\":[]},\"status\":{\"phase\":\"Active\"}}", "",
            "Namespace");
    unknown("ServiceAccount",
            "{\"secrets\":[{\"name\":\"s\"}],\"automountServiceAccountToken\":true,"
            "\"imagePullSecrets\":[]}",
            "", "ServiceAccount");
    unknown("Event",
            "{\"involvedObject\":{\"kind\":\"Pod\"},\"reason\":\"x\",\"series\":{\"count\":1},"
            "\"source\":{\"component\":\"c\"},\"reportingComponent\":\"r\",\"eventTime\":null}",
            "", "Event");
    ok(sl_schema_unknown_fields("DaemonSet", NULL, NULL) == NULL, "unknown kind");

    json_t *p = json_loads(full, 0, NULL);
    char **w = sl_schema_pod_warnings(p, NULL);
    char *s = joined(w);
    has_str(s,
            "spec.affinity is ignored: Slurm places the job; use nodeSelector (→ --constraint) "
            "or the slurmlink.io/partition annotation; only a required nodeAffinity term on "
            "nvidia.com/gpu.product is read (the GPU type)\n",
            "affinity warning");
    has_str(s, "spec.tolerations is ignored", "tolerations warning");
    has_str(s, "spec.hostNetwork is ignored", "hostNetwork warning");
    has_str(s, "spec.priorityClassName is ignored", "priorityClassName warning");
    has_str(s, "spec.topologySpreadConstraints is ignored", "topology warning");
    has_str(s, "spec.dnsConfig is ignored", "dnsConfig warning");
    ok(!strstr(s, "readinessProbe"), "no warning for a probe (slurmlink-shim runs them)");
    has_str(s, "spec.containers[0].lifecycle is ignored", "lifecycle warning");
    has_str(s, "spec.containers[0].ports[0].hostPort is ignored", "hostPort warning");
    has_str(s, "spec.containers[0].securityContext.capabilities is ignored", "capabilities");
    ok(!strstr(s, "schedulingGates"), "empty lists give no warning");
    free(s);
    sl_strv_free(w);
    json_decref(p);

    p = json_loads(
        "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"busybox\","
        "\"resources\":{\"limits\":{\"cpu\":\"1\"}},\"ports\":[{\"containerPort\":1}],"
        "\"env\":[{\"name\":\"N\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}]}"
        ","
        "{\"name\":\"b\",\"image\":\"reg:5000/x:1.2\"},{\"name\":\"c\",\"image\":\"x@sha256:ab\"},"
        "{\"name\":\"d\",\"image\":\"x:latest\",\"imagePullPolicy\":\"Never\"}],"
        "\"restartPolicy\":\"Never\",\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"s\"}"
        "}]}}",
        0, NULL);
    sl_pod_apply_defaults(p);
    json_t *spec = json_object_get(p, "spec"), *cs = json_object_get(spec, "containers");
    is_str(json_string_value(json_object_get(spec, "restartPolicy")), "Never",
           "kept restartPolicy");
    is_int(json_integer_value(json_object_get(spec, "terminationGracePeriodSeconds")), 30,
           "grace 30");
    is_str(json_string_value(json_object_get(spec, "dnsPolicy")), "ClusterFirst", "dnsPolicy");
    is_str(json_string_value(json_object_get(spec, "schedulerName")), "default-scheduler",
           "scheduler");
    ok(json_is_true(json_object_get(spec, "enableServiceLinks")), "enableServiceLinks");
    is_str(json_string_value(json_object_get(spec, "serviceAccountName")), "default", "SA");
    is_str(json_string_value(json_object_get(spec, "serviceAccount")), "default", "deprecated SA");
    is_int(json_integer_value(json_object_get(spec, "priority")), 0, "priority");
    is_str(json_string_value(json_object_get(spec, "preemptionPolicy")), "PreemptLowerPriority",
           "preemption");
    ok(json_is_object(json_object_get(spec, "securityContext")), "securityContext {}");
    json_t *a = json_array_get(cs, 0);
    is_str(json_string_value(json_object_get(a, "imagePullPolicy")), "Always", "no tag: Always");
    is_str(json_string_value(json_object_get(json_array_get(cs, 1), "imagePullPolicy")),
           "IfNotPresent", "tag: IfNotPresent (registry port is not a tag)");
    is_str(json_string_value(json_object_get(json_array_get(cs, 2), "imagePullPolicy")),
           "IfNotPresent", "digest: IfNotPresent");
    is_str(json_string_value(json_object_get(json_array_get(cs, 3), "imagePullPolicy")), "Never",
           "kept");
    is_str(json_string_value(json_object_get(a, "terminationMessagePath")), "/dev/termination-log",
           "tmp");
    is_str(json_string_value(json_object_get(a, "terminationMessagePolicy")), "File", "tmpolicy");
    is_str(json_string_value(json_object_get(
               json_object_get(json_object_get(a, "resources"), "requests"), "cpu")),
           "1", "requests default to limits");
    ok(json_is_object(json_object_get(json_array_get(cs, 1), "resources")), "resources {}");
    is_str(json_string_value(
               json_object_get(json_array_get(json_object_get(a, "ports"), 0), "protocol")),
           "TCP", "TCP");
    is_int(json_integer_value(json_object_get(
               json_object_get(json_array_get(json_object_get(spec, "volumes"), 0), "secret"),
               "defaultMode")),
           420, "secret defaultMode 420");
    json_decref(p);

    const char *base = "{\"spec\":{\"activeDeadlineSeconds\":100,\"tolerations\":[{\"key\":\"a\"}],"
                       "\"containers\":[{\"name\":\"c\",\"image\":\"x:1\"}]}}";
    s = update(
        base,
        "{\"spec\":{\"activeDeadlineSeconds\":50,\"tolerations\":[{\"key\":\"a\"},{\"key\":\"b\"}],"
        "\"containers\":[{\"name\":\"c\",\"image\":\"x:2\"}]}}");
    is_str(s, "", "image, lower deadline and added toleration may change");
    free(s);
    s = update(base, "{\"spec\":{\"activeDeadlineSeconds\":200,\"tolerations\":[{\"key\":\"a\"}],"
                     "\"containers\":[{\"name\":\"c\",\"image\":\"x:1\"}]}}");
    is_str(s,
           "spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous "
           "value\n",
           "deadline may not grow");
    free(s);
    s = update(base, "{\"spec\":{\"tolerations\":[{\"key\":\"a\"}],\"containers\":[{\"name\":\"c\","
                     "\"image\":\"x:1\"}]}}");
    is_str(s,
           "spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive "
           "integer to nil value\n",
           "deadline may not be unset");
    free(s);
    s = update(base, "{\"spec\":{\"activeDeadlineSeconds\":100,\"tolerations\":[{\"key\":\"a\"}],"
                     "\"containers\":[{\"name\":\"c\",\"image\":\"x:1\",\"command\":[\"sh\"]}]}}");
    is_str(
        s,
        "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
        "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
        "additions "
        "to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if "
        "it "
        "was previously negative)\nchanged: spec.containers\n",
        "other changes are forbidden");
    free(s);
    s = update(base, "{\"spec\":{\"activeDeadlineSeconds\":100,\"tolerations\":[],"
                     "\"containers\":[{\"name\":\"c\",\"image\":\"\"}]}}");
    has_str(s, "spec.containers[0].image: Required value\n", "image may not be emptied");
    has_str(s, "changed: spec.tolerations", "removing a toleration is forbidden");
    free(s);
    return tap_done();
}
