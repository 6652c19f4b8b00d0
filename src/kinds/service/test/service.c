/* service — a Service's defaults, validation (kube's field errors, the
 * refused types and cluster IPs), update rules, the three Tables, and the
 * proxy's targets computed from stored pods (ready only, named ports per
 * pod, a missing port number). */
#include "kinds/service/service.h"
#include "common/err.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *svc(const char *spec)
{
    char *text = NULL;
    if (asprintf(&text,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\","
                 "\"namespace\":\"ns\"},\"spec\":%s}",
                 spec) < 0)
        abort();
    json_t *o = json_loads(text, 0, NULL);
    free(text);
    svc_service_ops.defaults(o);
    return o;
}

/* the aggregate of field errors validation gives, "" when valid (caller frees) */
static char *errors_of(json_t *o, json_t *old)
{
    sl_error_t err = SL_ERROR_INIT;
    int rc = old ? svc_service_ops.validate_update(o, old, &err)
                 : svc_service_ops.validate_create(o, &err);
    char *s = rc < 0 ? sl_err_fields_aggregate(&err) : strdup("");
    sl_error_clear(&err);
    json_decref(o);
    json_decref(old);
    return s;
}

static void check_error(const char *spec, const char *want, const char *what)
{
    char *got = errors_of(svc(spec), NULL);
    has_str(got, want, "%s", what);
    free(got);
}

static void defaults_and_validation(void)
{
    json_t *o = svc("{\"selector\":{\"app\":\"web\"},\"ports\":[{\"port\":80}]}");
    is_str(sl_kube_path_str(o, "spec.type"), "ClusterIP", "type defaults to ClusterIP");
    is_str(sl_kube_path_str(o, "spec.sessionAffinity"), "None", "sessionAffinity None");
    json_t *p = json_array_get(sl_kube_path(o, "spec.ports"), 0);
    is_str(json_string_value(json_object_get(p, "protocol")), "TCP", "protocol TCP");
    is_int(json_integer_value(json_object_get(p, "targetPort")), 80, "targetPort = port");
    ok(!sl_kube_path(o, "spec.clusterIP"), "no cluster IP allocated");
    char *e = errors_of(o, NULL);
    is_str(e, "", "a plain Service is valid");
    free(e);
    check_error("{\"type\":\"LoadBalancer\",\"ports\":[{\"port\":80}]}",
                "spec.type: Invalid value: \"LoadBalancer\": not served: slurmlink has no virtual",
                "LoadBalancer refused on spec.type, saying why");
    check_error("{\"type\":\"ExternalName\",\"ports\":[{\"port\":80}]}", "no cluster DNS",
                "ExternalName refused");
    check_error("{\"clusterIP\":\"10.0.0.1\",\"ports\":[{\"port\":80}]}",
                "spec.clusterIP: Invalid value: \"10.0.0.1\"", "a cluster IP asked for");
    check_error("{}", "spec.ports: Required value", "ports required");
    check_error("{\"ports\":[{\"port\":70000}]}",
                "spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535",
                "port out of range");
    check_error("{\"ports\":[{\"port\":80,\"protocol\":\"FOO\"}]}",
                "spec.ports[0].protocol: Unsupported value: \"FOO\"", "protocol not supported");
    check_error("{\"ports\":[{\"port\":80},{\"port\":81}]}", "spec.ports[0].name: Required value",
                "several ports need names");
    check_error("{\"ports\":[{\"name\":\"a\",\"port\":80},{\"name\":\"a\",\"port\":81}]}",
                "spec.ports[1].name: Duplicate value: \"a\"", "duplicate names");
    check_error("{\"ports\":[{\"port\":80,\"targetPort\":\"a--b\"}]}",
                "spec.ports[0].targetPort: Invalid value: \"a--b\": must not contain consecutive",
                "a bad targetPort name");
    check_error("{\"ports\":[{\"port\":80,\"nodePort\":30000}]}",
                "spec.ports[0].nodePort: Forbidden", "nodePort forbidden");
    char *u = errors_of(svc("{\"clusterIP\":\"None\",\"ports\":[{\"port\":80}]}"),
                        svc("{\"ports\":[{\"port\":80}]}"));
    has_str(u, "spec.clusterIP: Invalid value: \"None\": field is immutable",
            "clusterIP immutable");
    free(u);
    char *h = errors_of(svc("{\"clusterIP\":\"None\"}"), NULL);
    is_str(h, "", "a headless Service needs no ports");
    free(h);
}

static void tables(void)
{
    json_t *o =
        svc("{\"selector\":{\"b\":\"2\",\"a\":\"1\"},\"ports\":[{\"name\":\"h\",\"port\":80},"
            "{\"name\":\"s\",\"port\":443}]}");
    json_t *cells = svc_service_cells(o, 0);
    char *s = json_dumps(cells, JSON_COMPACT);
    has_str(s, "[\"web\",\"ClusterIP\",\"<none>\",\"<none>\",\"80/TCP,443/TCP\",",
            "Service row: type, no IPs, ports");
    has_str(s, "\"a=1,b=2\"]", "... the selector sorted");
    free(s);
    json_decref(cells);
    json_decref(o);
    json_t *ep = json_loads("{\"metadata\":{\"name\":\"web\"},\"subsets\":[{\"addresses\":[{\"ip\":"
                            "\"10.0.0.1\"},{\"ip\":\"10.0.0.2\"},{\"ip\":\"10.0.0.3\"},{\"ip\":"
                            "\"10.0.0.4\"}],\"ports\":[{\"port\":8080}]}]}",
                            0, NULL);
    cells = svc_endpoints_cells(ep, 0);
    is_str(json_string_value(json_array_get(cells, 1)),
           "10.0.0.1:8080,10.0.0.2:8080,10.0.0.3:8080 + 1 more...", "Endpoints: three and more");
    json_decref(cells);
    json_decref(ep);
    json_t *sl = json_loads("{\"metadata\":{\"name\":\"web-x\"},\"addressType\":\"IPv4\","
                            "\"ports\":[{\"port\":8080}],\"endpoints\":[]}",
                            0, NULL);
    cells = svc_slice_cells(sl, 0);
    s = json_dumps(cells, JSON_COMPACT);
    has_str(s, "[\"web-x\",\"IPv4\",\"8080\",\"<unset>\",", "EndpointSlice row: an empty slice");
    free(s);
    json_decref(cells);
    json_decref(sl);
}

static void put_pod(sl_store_t *st, const char *name, const char *ip, bool ready, int port)
{
    char text[1024];
    snprintf(
        text, sizeof text,
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"namespace\":"
        "\"ns\",\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
        "\"ports\":[{\"name\":\"http\",\"containerPort\":%d}]}]},\"status\":{\"phase\":"
        "\"Running\",\"podIP\":\"%s\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"%s\"}]}}",
        name, port, ip, ready ? "True" : "False");
    json_t *pod = json_loads(text, 0, NULL);
    sl_store_create(st, "pods", pod, NULL);
    json_decref(pod);
}

static void targets(void)
{
    char dir[] = "/tmp/svc-test.XXXXXX";
    if (!mkdtemp(dir))
        abort();
    char path[64];
    snprintf(path, sizeof path, "%s/store.db", dir);
    sl_store_t *st = sl_store_open(path, NULL);
    put_pod(st, "a", "10.0.0.1", true, 8080);
    put_pod(st, "b", "10.0.0.2", false, 8081);
    put_pod(st, "c", "10.0.0.3", true, 9090);
    json_t *o = svc("{\"selector\":{\"app\":\"web\"},\"ports\":[{\"name\":\"web\",\"port\":80,"
                    "\"targetPort\":\"http\"}]}");
    svc_target_t t[4];
    sl_error_t err = SL_ERROR_INIT;
    int n = svc_ready_targets(st, o, "80", t, 4, &err);
    is_int(n, 2, "two ready pods of three");
    ok(n == 2 && !strcmp(t[0].ip, "10.0.0.1") && t[0].port == 8080 &&
           !strcmp(t[1].ip, "10.0.0.3") && t[1].port == 9090,
       "the named targetPort resolved per pod");
    is_int(svc_ready_targets(st, o, "web", t, 4, &err), 2, "by the port's name too");
    is_int(svc_ready_targets(st, o, "81", t, 4, &err), -1, "a port number the Service lacks");
    has_str(err.text, "no service port 81 found for service \"web\"", "... kube's words");
    is_int(err.kind, SL_ERR_UNAVAILABLE, "... a 503");
    sl_error_clear(&err);
    json_decref(o);
    sl_store_close(st);
    sl_rm_rf(dir);
}

int main(void)
{
    tap_plan(28);
    defaults_and_validation();
    tables();
    targets();
    return tap_done();
}
