/* validate: every Pod validation error, with kube-apiserver's exact text. */
#include "common/quote.h"
#include "common/tap.h"
#include "kube/status.h"
#include "pod/pod.h"

#include <stdlib.h>

/* Parse a pod given as JSON text; return all error lines ("" when valid). */
static char *errs_of(const char *json)
{
    json_error_t je;
    json_t *j = json_loads(json, 0, &je);
    if (!j) {
        printf("# bad test JSON: %s: %s\n", je.text, json);
        return strdup("<bad json>");
    }
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_t *p = sl_pod_parse(j, e);
    char *s = sl_err_fields_lines(e);
    if (!p != (sl_err_nfields(e) > 0))
        printf("# pod/NULL disagrees with the error count\n");
    sl_pod_destroy(p);
    sl_error_free(e);
    json_decref(j);
    return s;
}

#define POD(spec) "{\"metadata\":{\"name\":\"p\"},\"spec\":" spec "}"
#define CTR(extra) POD("{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"" extra "}]}")

static void check(const char *json, const char *want, const char *label)
{
    char *got = errs_of(json);
    is_str(got, want, "%s", label);
    free(got);
}

int main(void)
{
    check(CTR(""), "", "minimal pod is valid");
    check(POD("{\"hostAliases\":[{\"ip\":\"10.0.0.1\",\"hostnames\":[\"a\",\"b.example\"]},"
              "{\"ip\":\"2001:db8::ffff\",\"hostnames\":[\"c\"]}],"
              "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}"),
          "", "hostAliases: IPv4 and IPv6 addresses, DNS names");
    check(POD("{\"hostAliases\":[{\"hostnames\":[\"a\"]},{\"ip\":\"1.2.3.4.5\"},"
              "{\"ip\":\"::1\",\"hostnames\":[\"x y\"]},\"s\"],"
              "\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}"),
          "spec.hostAliases[0].ip: Required value\n"
          "spec.hostAliases[1].ip: Invalid value: \"1.2.3.4.5\": must be a valid IP address, "
          "(e.g. 10.9.8.7 or 2001:db8::ffff)\n"
          "spec.hostAliases[2].hostnames[0]: Invalid value: \"x y\": a lowercase RFC 1123 "
          "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
          "start and end with an alphanumeric character (e.g. 'example.com', regex used for "
          "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
          "spec.hostAliases[3]: Invalid value: \"\\\"s\\\"\": must be of type object\n",
          "hostAliases: a missing ip, one that is no IP, a hostname that is no DNS subdomain, "
          "an entry that is no object: each names its field");
    check("{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
          "metadata.name: Required value: name or generateName is required\n", "name required");
    check("{\"metadata\":{\"generateName\":\"p-\"},\"spec\":{\"containers\":[{\"name\":\"c\","
          "\"image\":\"i\"}]}}",
          "", "generateName is enough");
    check("{\"metadata\":{\"name\":\"Bad_Name\"},\"spec\":{\"containers\":[{\"name\":\"c\","
          "\"image\":\"i\"}]}}",
          "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must "
          "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
          "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n",
          "pod name must be a DNS-1123 subdomain");
    {
        char name[300], json[600];
        memset(name, 'a', 254);
        name[254] = 0;
        snprintf(json, sizeof(json),
                 "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"containers\":"
                 "[{\"name\":\"c\",\"image\":\"i\"}]}}",
                 name);
        char *got = errs_of(json);
        has_str(got, "Invalid value: \"aaaa", "long pod name");
        has_str(got, ": must be no more than 253 characters\n", "pod name max 253");
        free(got);
    }
    check(POD("{\"containers\":[]}"), "spec.containers: Required value\n", "containers required");
    check(POD("{\"containers\":[{\"name\":\"c\"}]}"), "spec.containers[0].image: Required value\n",
          "image required");
    check("{\"metadata\":{\"name\":\"p\",\"annotations\":{\"slurmlink.io/runtime\":\"host\"}},"
          "\"spec\":{\"containers\":[{\"name\":\"c\",\"command\":[\"true\"]}]}}",
          "", "image may be missing with the host runtime");
    check(POD("{\"containers\":[{\"image\":\"i\"}]}"), "spec.containers[0].name: Required value\n",
          "container name required");
    check(POD("{\"containers\":[{\"name\":\"A.b\",\"image\":\"i\"}]}"),
          "spec.containers[0].name: Invalid value: \"A.b\": a lowercase RFC 1123 label must "
          "consist of lower case alphanumeric characters or '-', and must start and end with an "
          "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n",
          "container name must be a DNS-1123 label");
    check(POD("{\"containers\":[{\"name\":\"a.b\",\"image\":\"i\"}]}"),
          "spec.containers[0].name: Invalid value: \"a.b\": must not contain dots\n",
          "a subdomain is not a label");
    check(
        POD("{\"containers\":[{\"name\":\"a\",\"image\":\"i\"},{\"name\":\"a\",\"image\":\"i\"}]}"),
        "spec.containers[1].name: Duplicate value: \"a\"\n", "duplicate container names");
    check(POD("{\"initContainers\":[{\"name\":\"a\",\"image\":\"i\"}],"
              "\"containers\":[{\"name\":\"a\",\"image\":\"i\"}]}"),
          "spec.initContainers[0].name: Duplicate value: \"a\"\n",
          "init and app container names are unique together");
    check(CTR(",\"resources\":{\"limits\":{\"memory\":\"1.5.3Gi\"}}"),
          "spec.containers[0].resources.limits[memory]: Invalid value: \"1.5.3Gi\": quantities "
          "must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n",
          "invalid quantity");
    check(CTR(",\"resources\":{\"requests\":{\"cpu\":\"-1\"}}"),
          "spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater "
          "than or equal to 0\n",
          "negative quantity");
    check(CTR(",\"resources\":{\"requests\":{\"cpu\":\"2\"},\"limits\":{\"cpu\":\"1500m\"}}"),
          "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or "
          "equal to cpu limit of 1500m\n",
          "requests > limits");
    check(CTR(",\"resources\":{\"requests\":{\"nvidia.com/gpu\":1},\"limits\":{\"nvidia.com/"
              "gpu\":2}}"),
          "spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to "
          "nvidia.com/gpu limit of 2\n",
          "extended resources: requests == limits");
    check(CTR(",\"resources\":{\"requests\":{\"nvidia.com/gpu\":1}}"),
          "spec.containers[0].resources.limits: Forbidden: Limit must be set for non "
          "overcommitable resources\n",
          "extended resources need a limit");
    check(CTR(",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"500m\"}}"),
          "spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: \"500m\": must be "
          "an integer\n",
          "extended resources are integers");
    check(CTR(",\"resources\":{\"limits\":{\"gpu\":1}}"),
          "spec.containers[0].resources.limits[gpu]: Invalid value: \"gpu\": must be a standard "
          "resource for containers\n",
          "unknown unqualified resource");
    check(CTR(",\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/x\"}]"),
          "spec.containers[0].volumeMounts[0].name: Not found: \"v\"\n", "mount of unknown volume");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"volumeMounts\":[{\"name\":\"v\","
              "\"mountPath\":\"/x\"},{\"name\":\"v\",\"mountPath\":\"/x\",\"subPath\":\"../a\"}]}],"
              "\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}"),
          "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/x\": must be unique\n"
          "spec.containers[0].volumeMounts[1].subPath: Invalid value: \"../a\": must not contain "
          "'..'\n",
          "mount paths unique, subPath without ..");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\"}]}"),
          "spec.volumes[0]: Required value: must specify a volume type\n", "volume type required");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"emptyDir\":{}},{\"name\":\"v\",\"emptyDir\":{}}]}"),
          "spec.volumes[1].name: Duplicate value: \"v\"\n", "duplicate volume names");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"emptyDir\":{},\"hostPath\":{\"path\":\"/x\"}}]}"),
          "spec.volumes[0].emptyDir: Forbidden: may not specify more than 1 volume type\n",
          "one volume type only");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"persistentVolumeClaim\":{\"claimName\":\"x\"}}]}"),
          "", "a PVC volume is accepted");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"persistentVolumeClaim\":{\"claimName\":\"\"}}]}"),
          "spec.volumes[0].persistentVolumeClaim.claimName: Required value\n",
          "a PVC volume names its claim");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"nfs\":{\"server\":\"x\",\"path\":\"/\"}}]}"),
          "spec.volumes[0].nfs: Forbidden: nfs volumes are not supported by slurmlink; use a "
          "hostPath on the shared filesystem\n",
          "other storage volumes are forbidden");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"secret\":{\"defaultMode\":1000,\"items\":[{\"key\":\"\",\"path\":\"/abs\"}]}}]}"),
          "spec.volumes[0].secret.defaultMode: Invalid value: 1000: must be a number between 0 "
          "and 0777 (octal), both inclusive\n"
          "spec.volumes[0].secret.secretName: Required value\n"
          "spec.volumes[0].secret.items[0].key: Required value\n"
          "spec.volumes[0].secret.items[0].path: Invalid value: \"/abs\": must be a relative "
          "path\n",
          "secret volume checks");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"configMap\":{\"name\":\"cm\",\"items\":[{\"key\":\"a\",\"path\":\"t\"},"
              "{\"key\":\"b\",\"path\":\"t/x\"},{\"key\":\"c\",\"path\":\"u/y\"},"
              "{\"key\":\"d\",\"path\":\"u\"},{\"key\":\"e\",\"path\":\"tt/x\"}]}}]}"),
          "spec.volumes[0].configMap.items[1].path: Invalid value: \"t/x\": must not be inside "
          "the file of items[0].path \"t\"\n"
          "spec.volumes[0].configMap.items[3].path: Invalid value: \"u\": must not be the folder "
          "of items[2].path \"u/y\"\n",
          "configMap item paths that cannot both be in the folder");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"projected\":{\"sources\":[{\"serviceAccountToken\":{\"path\":\"a/../../x\"}},"
              "{\"downwardAPI\":{\"items\":[{\"path\":\"n\",\"fieldRef\":{\"fieldPath\":"
              "\"metadata.name\"}},{\"path\":\"n/m\",\"fieldRef\":{\"fieldPath\":"
              "\"metadata.name\"}}]}}]}}]}"),
          "spec.volumes[0].projected.sources[0].serviceAccountToken.path: Invalid value: "
          "\"a/../../x\": must not contain '..'\n"
          "spec.volumes[0].projected.sources[1].downwardAPI.items[1].path: Invalid value: "
          "\"n/m\": must not be inside the file of items[0].path \"n\"\n",
          "serviceAccountToken path with '..', downwardAPI paths that collide");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"volumes\":[{\"name\":\"v\","
              "\"hostPath\":{\"path\":\"/x\",\"type\":\"Dir\"}}]}"),
          "spec.volumes[0].hostPath.type: Unsupported value: \"Dir\": supported values: \"\", "
          "\"BlockDevice\", \"CharDevice\", \"Directory\", \"DirectoryOrCreate\", \"File\", "
          "\"FileOrCreate\", \"Socket\"\n",
          "hostPath type");
    check(
        POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"restartPolicy\":\"Sometimes\"}"),
        "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
        "\"OnFailure\", \"Never\"\n",
        "restartPolicy");
    check(POD("{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}],\"activeDeadlineSeconds\":0,"
              "\"terminationGracePeriodSeconds\":-1}"),
          "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
          "inclusive\n"
          "spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal "
          "to 0\n",
          "deadline and grace");
    check(CTR(",\"env\":[{\"name\":\"\"},{\"name\":\"A=B\",\"value\":\"x\"},{\"name\":\"X\","
              "\"value\":\"v\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"spec.foo\"}}},"
              "{\"name\":\"Y\",\"valueFrom\":{}}]"),
          "spec.containers[0].env[0].name: Required value\n"
          "spec.containers[0].env[1].name: Invalid value: \"A=B\": a valid environment variable "
          "name must consist only of printable ASCII characters other than '='\n"
          "spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Unsupported value: "
          "\"spec.foo\": supported values: \"metadata.name\", \"metadata.namespace\", "
          "\"metadata.uid\", \"spec.nodeName\", \"spec.serviceAccountName\", \"status.hostIP\", "
          "\"status.hostIPs\", \"status.podIP\", \"status.podIPs\"\n"
          "spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when "
          "`value` is not empty\n"
          "spec.containers[0].env[3].valueFrom: Invalid value: \"\": must specify one of: "
          "`fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`\n",
          "env checks");
    check(CTR(",\"securityContext\":{\"runAsUser\":-5}"),
          "spec.containers[0].securityContext.runAsUser: Invalid value: -5: must be between 0 "
          "and 2147483647, inclusive\n",
          "runAsUser range");
    check("{\"metadata\":{\"name\":\"p\",\"labels\":{\"a/b/c\":\"x\",\"ok\":\"-bad\"}},"
          "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
          "metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of "
          "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
          "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
          "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
          "'/' (e.g. 'example.com/MyName')\n"
          "metadata.labels: Invalid value: \"-bad\": a valid label must be an empty string or "
          "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
          "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
          "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\n",
          "labels");
    check(CTR(",\"command\":\"sh\""),
          "spec.containers[0].command: Invalid value: \"\\\"sh\\\"\": must be of type array\n",
          "wrong JSON type");

    /* the model */
    json_t *j = json_loads(
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u1\",\"annotations\":{\"a\":"
        "\"b\"}},"
        "\"spec\":{\"restartPolicy\":\"Never\",\"activeDeadlineSeconds\":90,"
        "\"initContainers\":[{\"name\":\"i\",\"image\":\"x\",\"resources\":{\"limits\":{\"cpu\":"
        "\"3\","
        "\"memory\":\"2Gi\"}}}],"
        "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"sh\",\"-c\"],"
        "\"args\":[\"echo hi\"],\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\","
        "\"valueFrom\":{\"secretKeyRef\":{\"name\":\"s\",\"key\":\"k\",\"optional\":true}}}],"
        "\"envFrom\":[{\"prefix\":\"P_\",\"configMapRef\":{\"name\":\"cm\"}}],"
        "\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"100Mi\"},\"limits\":{"
        "\"nvidia.com/gpu\":2}},\"volumeMounts\":[{\"name\":\"v\",\"mountPath\":\"/v\","
        "\"readOnly\":true}]}],"
        "\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"medium\":\"Memory\",\"sizeLimit\":\"64Mi\"}}]"
        "}}",
        0, NULL);
    sl_pod_t *p = sl_pod_parse(j, NULL);
    json_decref(j);
    ok(p != NULL, "model pod parses");
    if (p) {
        is_str(p->namespace_, "ns", "namespace");
        is_str(p->uid, "u1", "uid");
        is_str(sl_pod_annotation(p, "a"), "b", "annotation");
        is_str(p->restart_policy, "Never", "restartPolicy");
        is_int(p->active_deadline_seconds, 90, "activeDeadlineSeconds");
        is_int(p->termination_grace_seconds, 30, "grace default 30");
        is_str(p->service_account, "default", "service account default");
        is_int(p->ninit, 1, "one init container");
        is_int(p->init_containers[0].res.cpu_req_milli, 3000, "init requests default to limits");
        is_int(p->init_containers[0].res.mem_req_bytes, 2147483648LL, "init memory request");
        const sl_pod_container_t *c = &p->containers[0];
        is_int(c->ncommand, 2, "command");
        is_str(c->args[0], "echo hi", "args");
        is_int(c->res.cpu_req_milli, 250, "cpu request");
        is_int(c->res.cpu_lim_milli, SL_POD_UNSET, "no cpu limit");
        is_int(c->res.mem_req_bytes, 104857600, "memory request");
        is_int(c->res.gpus, 2, "gpus");
        is_int(c->nenv, 2, "env");
        ok(c->env[1].src == SL_ENV_SECRET_KEY && !strcmp(c->env[1].ref, "s") &&
               !strcmp(c->env[1].key, "k") && c->env[1].optional,
           "secretKeyRef");
        ok(c->nenv_from == 1 && !c->env_from[0].secret && !strcmp(c->env_from[0].prefix, "P_"),
           "envFrom");
        ok(c->nmounts == 1 && c->mounts[0].read_only && !strcmp(c->mounts[0].mount_path, "/v"),
           "mount");
        const sl_pod_volume_t *v = sl_pod_volume(p, "v");
        ok(v && v->type == SL_VOL_EMPTYDIR && v->memory && v->size_limit == 67108864,
           "emptyDir Memory with sizeLimit");
        ok(sl_pod_container(p, "i") == &p->init_containers[0], "container lookup");
    }
    sl_pod_destroy(p);
    sl_pod_destroy(NULL);

    /* Status */
    sl_error_t *e = sl_error_new_invalid();
    sl_err_required(e, NULL, "spec.containers[%d].image", 0);
    sl_err_duplicate(e, "a", "spec.containers[1].name");
    sl_err_duplicate(e, "a", "spec.containers[1].name");
    json_t *st = sl_kube_status_invalid("Pod", NULL, "p", e);
    is_str(json_string_value(json_object_get(st, "message")),
           "Pod \"p\" is invalid: [spec.containers[0].image: Required value, "
           "spec.containers[1].name: Duplicate value: \"a\"]",
           "Status message aggregates and dedups");
    is_int(json_integer_value(json_object_get(st, "code")), 422, "code 422");
    json_t *cause = json_array_get(json_object_get(json_object_get(st, "details"), "causes"), 1);
    is_str(json_string_value(json_object_get(cause, "reason")), "FieldValueDuplicate",
           "cause reason");
    is_str(json_string_value(json_object_get(cause, "message")), "Duplicate value: \"a\"",
           "cause message is the body");
    is_str(json_string_value(json_object_get(cause, "field")), "spec.containers[1].name",
           "cause field");
    json_decref(st);
    sl_error_free(e);
    char *q = sl_go_quote("a\"b\\c\n\x01\xff\xc3\xa9");
    is_str(q, "\"a\\\"b\\\\c\\n\\x01\\xff\xc3\xa9\"", "Go %%q quoting");
    free(q);
    return tap_done();
}
