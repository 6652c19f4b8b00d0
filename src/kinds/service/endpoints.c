/* endpoints.c — the endpoints controller: each Service with a selector gets
 * an Endpoints object of its name and EndpointSlices (discovery.k8s.io/v1,
 * labelled and owned as kube's EndpointSlice controller does) listing the
 * stored pods its selector matches that have an address (status.podIP, the
 * node's address the controller wrote), are neither finished nor being
 * deleted: the Ready ones as addresses (slice condition ready), the others
 * as notReadyAddresses. A port is the pod's by number, or by the name of
 * one of its containers' ports (targetPort "http"). Runs on the controller
 * thread; writes go through the store (the API serves them read-only).
 *
 * svc_ready_targets() answers the service proxy from the same rules, read
 * from the pods at the request: never from a stored Endpoints object. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kinds/service/service.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#define EPS "endpoints"
#define SLICES "endpointslices.discovery.k8s.io"

/* ---- pods of a Service ---- */

static bool selector_matches(json_t *sel, json_t *pod)
{
    json_t *labels = sl_kube_path(pod, "metadata.labels");
    const char *k;
    json_t *v;
    json_object_foreach(sel, k, v)
    {
        const char *have = json_string_value(json_object_get(labels, k));
        if (!have || !json_is_string(v) || strcmp(have, json_string_value(v)))
            return false;
    }
    return true;
}

/* ShouldPodBeInEndpoints: an address, not finished, not being deleted */
static bool pod_listed(json_t *pod)
{
    const char *ip = sl_kube_path_str(pod, "status.podIP");
    const char *phase = sl_kube_path_str(pod, "status.phase");
    if (!ip || !*ip || sl_kube_meta_str(pod, "deletionTimestamp"))
        return false;
    return !phase || (strcmp(phase, "Succeeded") && strcmp(phase, "Failed"));
}

static bool pod_ready(json_t *pod)
{
    return sl_kube_condition_true(sl_kube_path(pod, "status.conditions"), "Ready");
}

/* the pods svc's selector matches that belong in its endpoints (new ref);
 * a Service without a selector has none of the controller's */
static json_t *service_pods(sl_store_t *st, json_t *svc)
{
    json_t *sel = sl_kube_path(svc, "spec.selector"), *out = json_array();
    if (!json_object_size(sel))
        return out;
    json_t *pods = sl_store_list(st, "pods", sl_kube_namespace(svc), NULL);
    size_t i;
    json_t *p;
    json_array_foreach(pods, i, p) if (selector_matches(sel, p) && pod_listed(p))
        json_array_append(out, p);
    json_decref(pods);
    return out;
}

/* FindPort: targetPort's number in pod, -1 when the pod has no port of
 * that name and protocol */
static int resolve_port(json_t *pod, json_t *sp)
{
    json_t *tp = json_object_get(sp, "targetPort");
    if (json_is_integer(tp))
        return (int)json_integer_value(tp);
    const char *want = json_string_value(tp);
    const char *proto = json_string_value(json_object_get(sp, "protocol"));
    size_t i, j;
    json_t *c, *p;
    if (!want)
        return (int)json_integer_value(json_object_get(sp, "port"));
    json_array_foreach(sl_kube_path(pod, "spec.containers"), i, c)
        json_array_foreach(json_object_get(c, "ports"), j, p)
    {
        const char *name = json_string_value(json_object_get(p, "name"));
        const char *pp = json_string_value(json_object_get(p, "protocol"));
        if (name && !strcmp(name, want) && !strcmp(pp ? pp : "TCP", proto ? proto : "TCP"))
            return (int)json_integer_value(json_object_get(p, "containerPort"));
    }
    return -1;
}

/* the pod's ports of svc: [{name, port, protocol}] in the Service's order */
static json_t *pod_ports(json_t *svc, json_t *pod)
{
    json_t *out = json_array();
    size_t i;
    json_t *sp;
    json_array_foreach(sl_kube_path(svc, "spec.ports"), i, sp)
    {
        int n = resolve_port(pod, sp);
        if (n < 1 || n > 65535)
            continue;
        const char *name = json_string_value(json_object_get(sp, "name"));
        const char *proto = json_string_value(json_object_get(sp, "protocol"));
        json_array_append_new(out, json_pack("{s:s, s:i, s:s}", "name", name ? name : "", "port", n,
                                             "protocol", proto ? proto : "TCP"));
    }
    return out;
}

/* ---- the service proxy's targets ---- */

/* the Service port the proxy's port part names: its name, its number, or
 * "" for the unnamed (or only) one */
static json_t *proxy_port(json_t *svc, const char *port, sl_error_t *err)
{
    json_t *ports = sl_kube_path(svc, "spec.ports");
    char *end;
    long num = strtol(port, &end, 10);
    bool numeric = *port && !*end;
    size_t i;
    json_t *sp;
    json_array_foreach(ports, i, sp)
    {
        const char *name = json_string_value(json_object_get(sp, "name"));
        if (numeric ? json_integer_value(json_object_get(sp, "port")) == num
                    : !strcmp(name ? name : "", port) || (!*port && json_array_size(ports) == 1))
            return sp;
    }
    if (numeric)
        sl_errkindf(err, SL_ERR_UNAVAILABLE, "no service port %ld found for service \"%s\"", num,
                    sl_kube_name(svc));
    else
        sl_errkindf(err, SL_ERR_UNAVAILABLE, "no endpoints available for service \"%s\"",
                    sl_kube_name(svc));
    return NULL;
}

int svc_ready_targets(sl_store_t *st, json_t *svc, const char *port, svc_target_t *out, int max,
                      sl_error_t *err)
{
    json_t *sp = proxy_port(svc, port, err);
    if (!sp)
        return -1;
    json_t *pods = service_pods(st, svc);
    int n = 0;
    size_t i;
    json_t *p;
    json_array_foreach(pods, i, p)
    {
        int num = resolve_port(p, sp);
        if (n == max || !pod_ready(p) || num < 1 || num > 65535)
            continue;
        snprintf(out[n].ip, sizeof out[n].ip, "%s", sl_kube_path_str(p, "status.podIP"));
        snprintf(out[n].pod, sizeof out[n].pod, "%s", sl_kube_name(p));
        out[n++].port = num;
    }
    json_decref(pods);
    return n;
}

/* ---- the objects the controller keeps ---- */

/* the pod's spec.hostname when its subdomain is the Service's name (kube's
 * endpoints controller: the name kube's DNS serves for that address) */
static const char *pod_hostname(json_t *svc, json_t *pod)
{
    const char *h = sl_kube_path_str(pod, "spec.hostname");
    const char *sub = sl_kube_path_str(pod, "spec.subdomain");
    return h && *h && sub && !strcmp(sub, sl_kube_name(svc)) ? h : NULL;
}

static json_t *target_ref(json_t *pod)
{
    return json_pack("{s:s, s:s, s:s, s:s}", "kind", "Pod", "namespace", sl_kube_namespace(pod),
                     "name", sl_kube_name(pod), "uid", sl_kube_uid(pod) ?: "");
}

/* the Service's labels, and kube's headless label */
static json_t *base_labels(json_t *svc)
{
    json_t *l = json_object();
    json_t *have = sl_kube_path(svc, "metadata.labels");
    if (json_is_object(have))
        json_object_update(l, have);
    if (svc_is_headless(svc))
        json_object_set_new(l, "service.kubernetes.io/headless", json_string(""));
    return l;
}

/* groups: the pods by their port list (its JSON text → {ports, pods}) */
static json_t *group_by_ports(json_t *svc, json_t *pods)
{
    json_t *groups = json_object();
    size_t i;
    json_t *p;
    json_array_foreach(pods, i, p)
    {
        json_t *ports = pod_ports(svc, p);
        if (!json_array_size(ports) && json_array_size(sl_kube_path(svc, "spec.ports"))) {
            json_decref(ports); /* a named port the pod lacks: kube leaves it out */
            continue;
        }
        char *key = json_dumps(ports, JSON_COMPACT);
        json_t *g = json_object_get(groups, key);
        if (!g) {
            g = json_pack("{s:o, s:[]}", "ports", ports, "pods");
            json_object_set_new(groups, key, g);
        } else {
            json_decref(ports);
        }
        json_array_append(json_object_get(g, "pods"), p);
        free(key);
    }
    return groups;
}

/* core/v1 EndpointPort: the name left out when empty */
static json_t *core_ports(json_t *ports)
{
    json_t *out = json_deep_copy(ports);
    size_t i;
    json_t *p;
    json_array_foreach(out, i, p) if (!*json_string_value(json_object_get(p, "name")))
        json_object_del(p, "name");
    return out;
}

static json_t *build_endpoints(json_t *svc, json_t *groups)
{
    json_t *subsets = json_array();
    const char *key;
    json_t *g;
    json_object_foreach(groups, key, g)
    {
        json_t *ready = json_array(), *not_ready = json_array(), *ss = json_object();
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(g, "pods"), i, p)
        {
            json_t *a =
                json_pack("{s:s, s:s, s:o}", "ip", sl_kube_path_str(p, "status.podIP"), "nodeName",
                          sl_kube_path_str(p, "spec.nodeName") ?: "", "targetRef", target_ref(p));
            if (pod_hostname(svc, p))
                json_object_set_new(a, "hostname", json_string(pod_hostname(svc, p)));
            json_array_append_new(pod_ready(p) ? ready : not_ready, a);
        }
        if (json_array_size(ready))
            json_object_set(ss, "addresses", ready);
        if (json_array_size(not_ready))
            json_object_set(ss, "notReadyAddresses", not_ready);
        if (json_array_size(json_object_get(g, "ports")))
            json_object_set_new(ss, "ports", core_ports(json_object_get(g, "ports")));
        json_decref(ready);
        json_decref(not_ready);
        json_array_append_new(subsets, ss);
    }
    json_t *ep = json_pack("{s:s, s:s, s:{s:s, s:s, s:o}}", "apiVersion", "v1", "kind", "Endpoints",
                           "metadata", "name", sl_kube_name(svc), "namespace",
                           sl_kube_namespace(svc), "labels", base_labels(svc));
    if (json_array_size(subsets))
        json_object_set(ep, "subsets", subsets);
    json_decref(subsets);
    return ep;
}

/* a slice's name: the Service's, and five characters kube's generateName
 * alphabet takes from a hash of its uid and port list (stable per pair) */
static void slice_name(json_t *svc, const char *key, char *out, size_t len)
{
    static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
    uint64_t h = 1469598103934665603ULL;
    for (const char *s = sl_kube_uid(svc) ?: ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    for (const char *s = key; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    char sfx[6];
    for (int i = 0; i < 5; i++, h /= 27)
        sfx[i] = alpha[h % 27];
    sfx[5] = '\0';
    snprintf(out, len, "%.57s-%s", sl_kube_name(svc), sfx);
}

static json_t *slice_endpoint(json_t *svc, json_t *pod)
{
    bool ready = pod_ready(pod);
    json_t *e = json_pack("{s:[s], s:{s:b, s:b, s:b}, s:o}", "addresses",
                          sl_kube_path_str(pod, "status.podIP"), "conditions", "ready", ready,
                          "serving", ready, "terminating", 0, "targetRef", target_ref(pod));
    const char *node = sl_kube_path_str(pod, "spec.nodeName");
    if (node && *node)
        json_object_set_new(e, "nodeName", json_string(node));
    if (pod_hostname(svc, pod))
        json_object_set_new(e, "hostname", json_string(pod_hostname(svc, pod)));
    return e;
}

static json_t *build_slice(json_t *svc, const char *key, json_t *g)
{
    char name[80];
    slice_name(svc, key, name, sizeof name);
    json_t *labels = base_labels(svc);
    json_object_set_new(labels, SVC_LABEL_SERVICE_NAME, json_string(sl_kube_name(svc)));
    json_object_set_new(labels, SVC_LABEL_MANAGED_BY, json_string(SVC_MANAGED_BY));
    json_t *eps = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(g, "pods"), i, p)
        json_array_append_new(eps, slice_endpoint(svc, p));
    json_t *s = json_pack(
        "{s:s, s:s, s:{s:s, s:s, s:o, s:[{s:s, s:s, s:s, s:s, s:b, s:b}]}, s:s, s:o}", "apiVersion",
        "discovery.k8s.io/v1", "kind", "EndpointSlice", "metadata", "name", name, "namespace",
        sl_kube_namespace(svc), "labels", labels, "ownerReferences", "apiVersion", "v1", "kind",
        "Service", "name", sl_kube_name(svc), "uid", sl_kube_uid(svc) ?: "", "controller", 1,
        "blockOwnerDeletion", 1, "addressType", "IPv4", "endpoints", eps);
    if (json_array_size(json_object_get(g, "ports")))
        json_object_set(s, "ports", json_object_get(g, "ports"));
    return s;
}

/* ---- writes ---- */

static void put(sl_store_t *st, const char *res, json_t *obj)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *have = sl_store_get(st, res, sl_kube_namespace(obj), sl_kube_name(obj));
    int rc = have ? sl_store_update(st, res, obj, 0, &err) : sl_store_create(st, res, obj, &err);
    if (rc < 0)
        sl_log(LOG_WARNING, "endpoints: %s %s/%s: %s", res, sl_kube_namespace(obj),
               sl_kube_name(obj), err.text);
    json_decref(have);
    sl_error_clear(&err);
}

static void drop(sl_store_t *st, const char *res, const char *ns, const char *name)
{
    sl_store_delete(st, res, ns, name, 0, NULL, NULL); /* ENOENT: already gone */
}

/* the Service's slices not in keep (names → true; NULL: all of them) */
static void drop_slices(sl_store_t *st, const char *ns, const char *svc_name, json_t *keep)
{
    json_t *slices = sl_store_list(st, SLICES, ns, NULL);
    size_t i;
    json_t *s;
    json_array_foreach(slices, i, s)
    {
        const char *owner = sl_kube_label(s, SVC_LABEL_SERVICE_NAME);
        const char *by = sl_kube_label(s, SVC_LABEL_MANAGED_BY);
        if (owner && !strcmp(owner, svc_name) && by && !strcmp(by, SVC_MANAGED_BY) &&
            !(keep && json_object_get(keep, sl_kube_name(s))))
            drop(st, SLICES, ns, sl_kube_name(s));
    }
    json_decref(slices);
}

/* ---- the controller's hooks ---- */

/* services seen: uid → "service rv/pods rv" of the last reconcile
 * (controller thread only) */
static json_t *seen;

static bool unchanged(sl_store_t *st, json_t *svc)
{
    char key[64];
    snprintf(key, sizeof key, "%lld/%lld", (long long)sl_kube_rv(svc),
             (long long)sl_store_resource_rev(st, "pods"));
    if (!seen)
        seen = json_object();
    const char *uid = sl_kube_uid(svc) ?: "";
    const char *was = json_string_value(json_object_get(seen, uid));
    if (was && !strcmp(was, key))
        return true;
    json_object_set_new(seen, uid, json_string(key));
    return false;
}

static void reconcile_store(sl_store_t *st, json_t *svc)
{
    const char *ns = sl_kube_namespace(svc), *name = sl_kube_name(svc);
    if (!json_object_size(sl_kube_path(svc, "spec.selector"))) {
        drop(st, EPS, ns, name);
        drop_slices(st, ns, name, NULL);
        return;
    }
    json_t *pods = service_pods(st, svc);
    json_t *groups = group_by_ports(svc, pods);
    json_t *ep = build_endpoints(svc, groups);
    put(st, EPS, ep);
    json_decref(ep);
    if (!json_object_size(groups)) /* kube keeps one empty slice */
        json_object_set_new(groups, "", json_pack("{s:[], s:[]}", "ports", "pods"));
    json_t *keep = json_object();
    const char *key;
    json_t *g;
    json_object_foreach(groups, key, g)
    {
        json_t *slice = build_slice(svc, key, g);
        json_object_set_new(keep, sl_kube_name(slice), json_true());
        put(st, SLICES, slice);
        json_decref(slice);
    }
    drop_slices(st, ns, name, keep);
    json_decref(keep);
    json_decref(groups);
    json_decref(pods);
}

void svc_reconcile_all(struct sl_ctl *c, json_t *svcs)
{
    json_t *changed = json_object(), *svc;
    size_t i;
    json_array_foreach(svcs, i, svc)
    {
        if (unchanged(c->store, svc))
            continue;
        reconcile_store(c->store, svc);
        json_object_set_new(changed, sl_kube_namespace(svc), json_true());
    }
    const char *ns;
    json_t *v;
    json_object_foreach(changed, ns, v) svc_names_sync(c, ns);
    json_decref(changed);
}

void svc_gone(struct sl_ctl *c, json_t *svc)
{
    const char *ns = sl_kube_namespace(svc), *name = sl_kube_name(svc);
    if (seen)
        json_object_del(seen, sl_kube_uid(svc) ?: "");
    json_t *now = sl_store_get(c->store, "services", ns, name);
    if (!now) { /* not made again under the same name meanwhile */
        drop(c->store, EPS, ns, name);
        drop_slices(c->store, ns, name, NULL);
        svc_names_sync(c, ns);
    }
    json_decref(now);
}

/* an Endpoints whose Service is gone, or a slice whose owner is */
static bool orphan(sl_store_t *st, json_t *obj, const char *svc_name)
{
    json_t *svc = sl_store_get(st, "services", sl_kube_namespace(obj), svc_name);
    json_t *refs = sl_kube_path(obj, "metadata.ownerReferences");
    const char *owner = json_string_value(json_object_get(json_array_get(refs, 0), "uid"));
    bool gone = !svc || (owner && strcmp(owner, sl_kube_uid(svc) ?: ""));
    json_decref(svc);
    return gone;
}

void svc_collect_gone(struct sl_ctl *c)
{
    json_t *eps = sl_store_list(c->store, EPS, NULL, NULL);
    size_t i;
    json_t *o;
    json_array_foreach(eps, i, o) if (orphan(c->store, o, sl_kube_name(o)))
    {
        drop(c->store, EPS, sl_kube_namespace(o), sl_kube_name(o));
        svc_names_sync(c, sl_kube_namespace(o));
    }
    json_decref(eps);
    json_t *slices = sl_store_list(c->store, SLICES, NULL, NULL);
    json_array_foreach(slices, i, o)
    {
        const char *svc = sl_kube_label(o, SVC_LABEL_SERVICE_NAME);
        const char *by = sl_kube_label(o, SVC_LABEL_MANAGED_BY);
        if (svc && by && !strcmp(by, SVC_MANAGED_BY) && orphan(c->store, o, svc))
            drop(c->store, SLICES, sl_kube_namespace(o), sl_kube_name(o));
    }
    json_decref(slices);
}
