/* service.c — core/v1 Service: defaults, validation and update rules as
 * kube-apiserver's (pkg/apis/core/validation ValidateService, 1.32), with
 * what slurmlink cannot give refused by name: no cluster IP is allocated
 * (spec.clusterIP stays empty, or "None" for a headless Service), and the
 * types that need a virtual network or the nodes' ports (NodePort,
 * LoadBalancer, ExternalName) are a 422 on spec.type saying why. The
 * Endpoints and EndpointSlice rows are read-only; their hooks only check
 * what an admin's dry run could send. */
#include "kinds/service/service.h"

#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/kind.h"
#include "kinds/kubeflow/api.h" /* api_tj_dns1035: DNS-1035 names */
#include "kube/meta.h"
#include "pod/pod.h"

#include <stdio.h>
#include <string.h>

#define NO_VIP                                                                                     \
    "slurmlink has no virtual network: pods run on their node's network, a Service gets no "       \
    "cluster IP and is reached through the API's service proxy or kubectl port-forward"

bool svc_is_headless(json_t *svc)
{
    const char *ip = sl_kube_path_str(svc, "spec.clusterIP");
    return ip && !strcmp(ip, "None");
}

/* ---- defaults ---- */

static void port_defaults(json_t *p)
{
    if (!json_is_object(p))
        return;
    if (!json_string_value(json_object_get(p, "protocol")))
        json_object_set_new(p, "protocol", json_string("TCP"));
    json_t *tp = json_object_get(p, "targetPort");
    bool unset = !tp || (json_is_integer(tp) && json_integer_value(tp) == 0) ||
                 (json_is_string(tp) && !*json_string_value(tp));
    json_t *port = json_object_get(p, "port");
    if (unset && json_is_integer(port))
        json_object_set(p, "targetPort", port);
}

static void set_default(json_t *o, const char *key, json_t *v)
{
    if (!json_object_get(o, key))
        json_object_set_new(o, key, v);
    else
        json_decref(v);
}

static void service_defaults(json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec");
    if (!json_is_object(spec))
        json_object_set_new(obj, "spec", spec = json_object());
    set_default(spec, "type", json_string("ClusterIP"));
    set_default(spec, "sessionAffinity", json_string("None"));
    const char *aff = json_string_value(json_object_get(spec, "sessionAffinity"));
    if (aff && !strcmp(aff, "ClientIP"))
        set_default(spec, "sessionAffinityConfig",
                    json_pack("{s:{s:i}}", "clientIP", "timeoutSeconds", 10800));
    set_default(spec, "internalTrafficPolicy", json_string("Cluster"));
    set_default(spec, "ipFamilies", json_pack("[s]", "IPv4"));
    set_default(spec, "ipFamilyPolicy", json_string("SingleStack"));
    const char *ip = json_string_value(json_object_get(spec, "clusterIP"));
    if (ip && !strcmp(ip, "None"))
        set_default(spec, "clusterIPs", json_pack("[s]", "None"));
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(spec, "ports"), i, p) port_defaults(p);
}

static void service_prepare_create(json_t *obj)
{
    json_object_set_new(obj, "status", json_pack("{s:{}}", "loadBalancer"));
}

static void service_prepare_update(json_t *obj, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    json_object_set(obj, "status", s ? s : json_pack("{s:{}}", "loadBalancer"));
}

/* ---- validation ---- */

/* apimachinery's IsValidPortName (an IANA_SVC_NAME) */
static const char *port_name_problem(const char *s)
{
    size_t n = strlen(s);
    bool letter = false;
    if (n > 15)
        return "must be no more than 15 characters";
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)";
        letter |= s[i] >= 'a' && s[i] <= 'z';
        if (s[i] == '-' && i + 1 < n && s[i + 1] == '-')
            return "must not contain consecutive hyphens";
    }
    if (!letter)
        return "must contain at least one letter (a-z)";
    if (n && (s[0] == '-' || s[n - 1] == '-'))
        return "must not begin or end with a hyphen";
    return NULL;
}

#define PORT_RANGE "must be between 1 and 65535, inclusive"

static void validate_port_number(json_t *v, const char *field, sl_error_t *err)
{
    json_int_t n = json_integer_value(v);
    if (!json_is_integer(v))
        sl_err_field(err, SL_FE_REQUIRED, field, NULL, NULL);
    else if (n < 1 || n > 65535)
        sl_err_field_int(err, SL_FE_INVALID, field, n, PORT_RANGE);
}

static void validate_target_port(json_t *tp, const char *field, sl_error_t *err)
{
    if (json_is_integer(tp)) {
        validate_port_number(tp, field, err);
    } else if (json_is_string(tp)) {
        const char *why = port_name_problem(json_string_value(tp));
        if (why)
            sl_err_field(err, SL_FE_INVALID, field, json_string_value(tp), why);
    }
}

static void validate_port(json_t *p, size_t i, size_t n, sl_error_t *err)
{
    static const char *const protocols[] = {"TCP", "UDP", "SCTP", NULL};
    const char *name = json_string_value(json_object_get(p, "name"));
    char f[64];
    if ((!name || !*name) && n > 1) {
        sl_err_required(err, NULL, "spec.ports[%zu].name", i);
    } else if (name && *name) {
        snprintf(f, sizeof f, "spec.ports[%zu].name", i);
        sl_validate_dns1123_label(err, f, name);
    }
    snprintf(f, sizeof f, "spec.ports[%zu].port", i);
    validate_port_number(json_object_get(p, "port"), f, err);
    const char *proto = json_string_value(json_object_get(p, "protocol"));
    if (!proto || !*proto)
        sl_err_required(err, NULL, "spec.ports[%zu].protocol", i);
    else if (strcmp(proto, "TCP") && strcmp(proto, "UDP") && strcmp(proto, "SCTP"))
        sl_err_not_supported(err, proto, protocols, "spec.ports[%zu].protocol", i);
    snprintf(f, sizeof f, "spec.ports[%zu].targetPort", i);
    validate_target_port(json_object_get(p, "targetPort"), f, err);
    json_t *np = json_object_get(p, "nodePort");
    if (np && json_integer_value(np) != 0)
        sl_err_forbidden(err, "may not be used when `type` is 'ClusterIP'",
                         "spec.ports[%zu].nodePort", i);
}

/* names unique, and (port, protocol) pairs */
static void validate_port_duplicates(json_t *ports, sl_error_t *err)
{
    size_t i, j;
    json_t *a, *b;
    json_array_foreach(ports, i, a)
    {
        for (j = 0; j < i; j++) {
            b = json_array_get(ports, j);
            const char *na = json_string_value(json_object_get(a, "name"));
            const char *nb = json_string_value(json_object_get(b, "name"));
            if (na && nb && *na && !strcmp(na, nb)) {
                sl_err_duplicate(err, na, "spec.ports[%zu].name", i);
                break;
            }
            const char *pa = json_string_value(json_object_get(a, "protocol"));
            const char *pb = json_string_value(json_object_get(b, "protocol"));
            if (json_integer_value(json_object_get(a, "port")) ==
                    json_integer_value(json_object_get(b, "port")) &&
                pa && pb && !strcmp(pa, pb)) {
                char v[64];
                snprintf(v, sizeof v, "core.ServicePort{Port:%lld, Protocol:\"%s\"}",
                         (long long)json_integer_value(json_object_get(a, "port")), pa);
                sl_err_duplicate(err, v, "spec.ports[%zu]", i);
                break;
            }
        }
    }
}

static void validate_type(json_t *spec, sl_error_t *err)
{
    const char *type = json_string_value(json_object_get(spec, "type"));
    if (!type || !*type) {
        sl_err_required(err, NULL, "spec.type");
    } else if (!strcmp(type, "NodePort") || !strcmp(type, "LoadBalancer")) {
        sl_err_invalid(err, type,
                       "not served: " NO_VIP "; no node ports or load balancers are opened "
                       "(supported: \"ClusterIP\")",
                       "spec.type");
    } else if (!strcmp(type, "ExternalName")) {
        sl_err_invalid(err, type,
                       "not served: slurmlink runs no cluster DNS to answer its CNAME "
                       "(supported: \"ClusterIP\")",
                       "spec.type");
    } else if (strcmp(type, "ClusterIP")) {
        static const char *const types[] = {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort",
                                            NULL};
        sl_err_not_supported(err, type, types, "spec.type");
    }
}

/* spec.clusterIP(s): empty (no cluster IP is allocated) or "None" (headless) */
static void validate_cluster_ip(json_t *spec, sl_error_t *err)
{
    const char *ip = json_string_value(json_object_get(spec, "clusterIP"));
    if (ip && *ip && strcmp(ip, "None"))
        sl_err_invalid(err, ip, "must be empty or \"None\": " NO_VIP, "spec.clusterIP");
    json_t *ips = json_object_get(spec, "clusterIPs");
    size_t i;
    json_t *v;
    json_array_foreach(ips, i, v)
    {
        const char *s = json_string_value(v);
        if (i > 0 || !s || (strcmp(s, "None") && *s) || (ip && strcmp(s, ip)))
            sl_err_invalid(err, s ? s : "", "must be empty or [\"None\"] with spec.clusterIP",
                           "spec.clusterIPs[%zu]", i);
    }
}

static void validate_spec_rest(json_t *spec, sl_error_t *err)
{
    static const char *const affinities[] = {"ClientIP", "None", NULL};
    const char *aff = json_string_value(json_object_get(spec, "sessionAffinity"));
    if (aff && strcmp(aff, "None") && strcmp(aff, "ClientIP"))
        sl_err_not_supported(err, aff, affinities, "spec.sessionAffinity");
    if (json_array_size(json_object_get(spec, "externalIPs")))
        sl_err_forbidden(err, "not served: " NO_VIP, "spec.externalIPs");
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(spec, "ipFamilies"), i, v)
    {
        const char *s = json_string_value(v);
        if (!s || strcmp(s, "IPv4") || i > 0)
            sl_err_invalid(err, s ? s : "", "the nodes' addresses are IPv4: only \"IPv4\"",
                           "spec.ipFamilies[%zu]", i);
    }
    const char *pol = json_string_value(json_object_get(spec, "ipFamilyPolicy"));
    if (pol && !strcmp(pol, "RequireDualStack"))
        sl_err_invalid(err, pol, "the nodes' addresses are IPv4 only", "spec.ipFamilyPolicy");
    const char *k;
    json_object_foreach(json_object_get(spec, "selector"), k, v)
    {
        sl_validate_qualified_name(err, "spec.selector", k);
        if (json_is_string(v))
            sl_validate_label_value(err, "spec.selector", json_string_value(v));
    }
}

/* the name is a DNS-1035 label (a letter first), labels and annotations as
 * every object's */
static void validate_service_meta(json_t *obj, sl_error_t *err)
{
    const char *name = sl_kube_name(obj);
    char why[512];
    if (name && *name && !api_tj_dns1035(name, "; ", why, sizeof why)) {
        sl_err_field(err, SL_FE_INVALID, "metadata.name", name, why);
        json_t *copy = json_deep_copy(obj);
        sl_kube_meta_set_str(copy, "name", "x");
        api_validate_meta(copy, true, err);
        json_decref(copy);
        return;
    }
    api_validate_meta(obj, true, err);
}

static int service_validate(json_t *obj, sl_error_t *err)
{
    validate_service_meta(obj, err);
    json_t *spec = json_object_get(obj, "spec");
    validate_type(spec, err);
    validate_cluster_ip(spec, err);
    json_t *ports = json_object_get(spec, "ports");
    if (!json_array_size(ports) && !svc_is_headless(obj))
        sl_err_required(err, NULL, "spec.ports");
    size_t i;
    json_t *p;
    json_array_foreach(ports, i, p) validate_port(p, i, json_array_size(ports), err);
    validate_port_duplicates(ports, err);
    validate_spec_rest(spec, err);
    return api_fields_result(err);
}

static int service_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    const char *was = sl_kube_path_str(old, "spec.clusterIP");
    const char *now = sl_kube_path_str(obj, "spec.clusterIP");
    if (strcmp(was ? was : "", now ? now : ""))
        sl_err_invalid(err, now ? now : "", "field is immutable", "spec.clusterIP");
    return service_validate(obj, err);
}

static int service_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("Service", obj, unknown);
}

const api_kind_ops_t svc_service_ops = {
    .decode_check = service_decode,
    .defaults = service_defaults,
    .prepare_create = service_prepare_create,
    .prepare_update = service_prepare_update,
    .validate_create = service_validate,
    .validate_update = service_validate_update,
    .table_columns = svc_service_columns,
    .table_cells = svc_service_cells,
};

/* ---- Endpoints, EndpointSlices: read-only, the controller's ---- */

static int endpoints_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("Endpoints", obj, unknown);
}

static int slice_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("EndpointSlice", obj, unknown);
}

const api_kind_ops_t svc_endpoints_ops = {
    .decode_check = endpoints_decode,
    .table_columns = svc_endpoints_columns,
    .table_cells = svc_endpoints_cells,
};

const api_kind_ops_t svc_endpointslice_ops = {
    .decode_check = slice_decode,
    .table_columns = svc_slice_columns,
    .table_cells = svc_slice_cells,
};

/* ---- the kinds' rows (src/kinds/registry.c lists them) ---- */

const sl_kind_t sl_kind_service = {
    .api = SVC_SERVICE_ROW,
    .ctl = {.reconcile_all = svc_reconcile_all, .gone = svc_gone, .collect_gone = svc_collect_gone},
};
const sl_kind_t sl_kind_endpoints = {.api = SVC_ENDPOINTS_ROW};
const sl_kind_t sl_kind_endpointslice = {.api = SVC_ENDPOINTSLICE_ROW};
