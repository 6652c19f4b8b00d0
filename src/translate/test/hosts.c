/* Unit tests: the pod's hosts file in shim.json (translate/hosts.c): its
 * names, its gang's members, which containers see it at /etc/hosts. */
#include "common/tap.h"
#include "translate/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *spec_of(const char *pod_json, const json_t *members)
{
    sl_translate_config_t cfg = {.pods_root = "/pods",
                                 .shim_path = "/bin/shim",
                                 .default_cpu_milli = 1000,
                                 .default_mem_bytes = 1LL << 30,
                                 .gang_members = members};
    json_t *j = json_loads(pod_json, 0, NULL);
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_t *p = sl_pod_parse(j, e);
    sl_translate_result_t *r = NULL;
    sl_error_t err = SL_ERROR_INIT;
    json_t *spec = NULL;
    if (p && sl_translate(p, NULL, NULL, &cfg, &r, e, &err) == 0)
        spec = json_loads(r->shim_json, 0, NULL);
    else
        printf("# translate: %s\n", err.text);
    sl_translate_result_destroy(r);
    sl_pod_destroy(p);
    sl_error_free(e);
    json_decref(j);
    return spec;
}

static char *dump(const json_t *v) { return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY); }

#define META(ann)                                                                                  \
    "{\"metadata\":{\"name\":\"w-1\",\"namespace\":\"ns\",\"uid\":\"u-1\",\"annotations\":{" ann   \
    "}},"

int main(void)
{
    json_t *members = json_loads("[{\"rank\":0,\"name\":\"j-master-0\",\"hostname\":\"boss\","
                                 "\"subdomain\":\"j\"},"
                                 "{\"rank\":1,\"name\":\"w-1\",\"hostname\":\"w1\","
                                 "\"subdomain\":\"j\"},"
                                 "{\"rank\":2,\"name\":\"loner\"}]",
                                 0, NULL);
    json_t *s = spec_of(
        META("\"slurmlink.io/runtime\":\"podman\"") "\"spec\":{"
                                                    "\"hostname\":\"w1\",\"subdomain\":\"j\","
                                                    "\"containers\":[{\"name\":"
                                                    "\"c\",\"image\":\"i\",\"command\":[\"x\"]}]}}",
        members);
    ok(s != NULL, "a gang member translates");
    char *m = dump(json_object_get(json_object_get(s, "hosts"), "members"));
    is_str(m,
           "[{\"rank\":0,\"names\":[\"boss.j.ns.svc.cluster.local\",\"boss.j.ns.svc\","
           "\"boss.j.ns\",\"boss.j\"]}]",
           "members: the other one with a subdomain, by rank; not itself, not one without a "
           "subdomain (kube gives it no name)");
    free(m);
    char *n = dump(json_object_get(json_object_get(s, "hosts"), "names"));
    is_str(n, "[\"w1.j.ns.svc.cluster.local\",\"w1.j.ns.svc\",\"w1.j.ns\",\"w1.j\",\"w1\"]",
           "its own names, the FQDN first, then the bare hostname");
    free(n);
    char *argv = dump(json_object_get(json_array_get(json_object_get(s, "containers"), 0), "argv"));
    has_str(argv, "--volume=/pods/ns/w-1-u-1/hosts:/etc/hosts:ro", "podman binds it read-only");
    free(argv);
    json_decref(s);

    s = spec_of(META("\"slurmlink.io/runtime\":\"host\"") "\"spec\":{\"subdomain\":\"j\","
                                                          "\"containers\":[{\"name\":\"c\","
                                                          "\"command\":[\"x\"]}]}}",
                NULL);
    json_t *c0 = json_array_get(json_object_get(s, "containers"), 0);
    ok(json_is_true(json_object_get(c0, "bindHosts")),
       "host runtime with a subdomain: the shim binds it (bindHosts)");
    is_str(json_string_value(json_object_get(json_object_get(s, "hosts"), "hostname")), "w-1",
           "no spec.hostname: the pod's name is its hostname");
    json_decref(s);

    s = spec_of(META("\"slurmlink.io/runtime\":\"host\"") "\"spec\":{\"containers\":[{\"name\":"
                                                          "\"c\",\"command\":[\"x\"]}]}}",
                NULL);
    c0 = json_array_get(json_object_get(s, "containers"), 0);
    ok(!json_object_get(c0, "bindHosts"),
       "host runtime, no hostname, subdomain or hostAliases: the node's /etc/hosts as before");
    json_decref(s);

    s = spec_of(META("\"slurmlink.io/runtime\":\"podman\"") "\"spec\":{\"volumes\":[{\"name\":"
                                                            "\"h\",\"hostPath\":{\"path\":\"/x\"}}"
                                                            "],\"containers\":[{\"name\":\"c\","
                                                            "\"image\":\"i\",\"command\":[\"x\"],"
                                                            "\"volumeMounts\":[{\"name\":\"h\","
                                                            "\"mountPath\":\"/etc/hosts\"}]}]}}",
                NULL);
    argv = dump(json_object_get(json_array_get(json_object_get(s, "containers"), 0), "argv"));
    ok(argv && !strstr(argv, "hosts:/etc/hosts:ro") && strstr(argv, "--volume=/x:/etc/hosts"),
       "a container that mounts its own /etc/hosts keeps it (as the kubelet leaves it)");
    free(argv);
    json_decref(s);
    json_decref(members);
    return tap_done();
}
