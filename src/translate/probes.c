/* probes.c — a container's probes in the shim spec: kube's Probe with its
 * defaults filled in (timeoutSeconds 1, periodSeconds 10, successThreshold
 * 1, failureThreshold 3, httpGet's path "/" and scheme HTTP) and a named
 * port resolved to the container's port of that name. The pod parser has
 * validated them (src/pod/probe.c). */
#include "translate/internal.h"

#include <jansson.h>
#include <string.h>

static const char *const shim_names[SL_POD_NPROBES] = {"readiness", "liveness", "startup"};

static json_int_t int_or(const json_t *o, const char *key, json_int_t def)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 ? v : def;
}

/* a port by number, or the container port of that name (0: none) */
static json_int_t port_of(const json_t *ctr, const json_t *v)
{
    if (json_is_integer(v))
        return json_integer_value(v);
    const char *name = json_string_value(v);
    const json_t *ports = json_object_get(ctr, "ports");
    for (size_t i = 0; name && i < json_array_size(ports); i++) {
        const json_t *p = json_array_get(ports, i);
        const char *pn = json_string_value(json_object_get(p, "name"));
        if (pn && !strcmp(pn, name))
            return json_integer_value(json_object_get(p, "containerPort"));
    }
    return 0;
}

/* host: the probe's (absent: the pod's address, which the shim knows) */
static json_t *with_host(json_t *g, const json_t *h)
{
    const char *host = json_string_value(json_object_get(h, "host"));
    if (host && *host)
        json_object_set_new(g, "host", json_string(host));
    return g;
}

static json_t *handler_json(const json_t *ctr, const json_t *pr)
{
    const json_t *h;
    if ((h = json_object_get(pr, "exec")))
        return json_pack("{s:{s:O}}", "exec", "command", json_object_get(h, "command"));
    json_t *o = json_object();
    if ((h = json_object_get(pr, "httpGet"))) {
        const char *path = json_string_value(json_object_get(h, "path"));
        const char *scheme = json_string_value(json_object_get(h, "scheme"));
        json_t *g =
            json_pack("{s:s, s:s, s:I}", "scheme", scheme ? scheme : "HTTP", "path",
                      path && *path ? path : "/", "port", port_of(ctr, json_object_get(h, "port")));
        const json_t *hs = json_object_get(h, "httpHeaders");
        if (json_array_size(hs))
            json_object_set(g, "httpHeaders", (json_t *)hs);
        json_object_set_new(o, "httpGet", with_host(g, h));
    } else if ((h = json_object_get(pr, "tcpSocket"))) {
        json_t *g = json_pack("{s:I}", "port", port_of(ctr, json_object_get(h, "port")));
        json_object_set_new(o, "tcpSocket", with_host(g, h));
    }
    return o;
}

json_t *tr_probes_json(const sl_pod_container_t *k, const json_t *ctr)
{
    json_t *all = NULL;
    for (int i = 0; i < SL_POD_NPROBES; i++) {
        const json_t *pr = k->probes[i];
        if (!pr)
            continue;
        json_t *o = handler_json(ctr, pr);
        json_object_set_new(o, "initialDelaySeconds",
                            json_integer(int_or(pr, "initialDelaySeconds", 0)));
        json_object_set_new(o, "timeoutSeconds", json_integer(int_or(pr, "timeoutSeconds", 1)));
        json_object_set_new(o, "periodSeconds", json_integer(int_or(pr, "periodSeconds", 10)));
        json_object_set_new(o, "successThreshold", json_integer(int_or(pr, "successThreshold", 1)));
        json_object_set_new(o, "failureThreshold", json_integer(int_or(pr, "failureThreshold", 3)));
        json_int_t g = int_or(pr, "terminationGracePeriodSeconds", 0);
        if (g > 0)
            json_object_set_new(o, "terminationGracePeriodSeconds", json_integer(g));
        if (!all)
            all = json_object();
        json_object_set_new(all, shim_names[i], o);
    }
    return all;
}
