/* printers.c — the Tables of Services, Endpoints and EndpointSlices
 * (printService, printEndpoints, printEndpointSlice of kubernetes/pkg/
 * printers/internalversion/printers.go, 1.32). */
#include "common/buf.h"
#include "kinds/service/service.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LISTED 3

static json_t *col(const char *name, const char *desc, int priority)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", "string", "format", "",
                     "description", desc, "priority", priority);
}

static json_t *age_cell(json_t *obj, long long now)
{
    char buf[32];
    return json_string(
        sl_kube_age(sl_kube_meta_str(obj, "creationTimestamp"), now, buf, sizeof(buf)));
}

static json_t *col_name(void)
{
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:i}", "name", "Name", "type", "string", "format", "name",
        "description",
        "Name must be unique within a namespace. Is required when creating resources, although "
        "some resources may allow a client to request the generation of an appropriate name "
        "automatically. Name is primarily intended for creation idempotence and configuration "
        "definition. Cannot be updated. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
        "priority", 0);
}

static json_t *col_age(void)
{
    return col("Age",
               "CreationTimestamp is a timestamp representing the server time when this object "
               "was created. It is not guaranteed to be set in happens-before order across "
               "separate operations. Clients may not set this value. It is represented in "
               "RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for "
               "lists. More info: https://git.k8s.io/community/contributors/devel/"
               "sig-architecture/api-conventions.md#metadata",
               0);
}

/* "a, b, c + N more..." as listWithMoreString, empty → none */
static json_t *listed(sl_buf_t *b, size_t count, const char *none)
{
    if (count > MAX_LISTED) {
        char more[48];
        snprintf(more, sizeof more, " + %zu more...", count - MAX_LISTED);
        sl_buf_puts(b, more);
    }
    json_t *s = json_string(b->len ? b->data : none);
    sl_buf_free(b);
    return s;
}

static void list_add(sl_buf_t *b, size_t *count, const char *item)
{
    if (*count < MAX_LISTED) {
        if (b->len)
            sl_buf_putc(b, ',');
        sl_buf_puts(b, item);
    }
    (*count)++;
}

/* ---- Services ---- */

json_t *svc_service_columns(void)
{
    return json_pack("[o, o, o, o, o, o, o]", col_name(),
                     col("Type", "type determines how the Service is exposed.", 0),
                     col("Cluster-IP", "clusterIP is the IP address of the service.", 0),
                     col("External-IP",
                         "externalIPs is a list of IP addresses for which nodes in the "
                         "cluster will also accept traffic for this service.",
                         0),
                     col("Port(s)", "The list of ports that are exposed by this service.", 0),
                     col_age(),
                     col("Selector",
                         "Route service traffic to pods with label keys and values matching "
                         "this selector.",
                         1));
}

static json_t *ports_cell(json_t *svc)
{
    sl_buf_t b = SL_BUF_INIT;
    size_t i;
    json_t *p;
    json_array_foreach(sl_kube_path(svc, "spec.ports"), i, p)
    {
        char one[64];
        const char *proto = json_string_value(json_object_get(p, "protocol"));
        snprintf(one, sizeof one, "%s%lld/%s", i ? "," : "",
                 (long long)json_integer_value(json_object_get(p, "port")), proto ? proto : "TCP");
        sl_buf_puts(&b, one);
    }
    json_t *s = json_string(b.len ? b.data : "<none>");
    sl_buf_free(&b);
    return s;
}

/* labels.FormatLabels: sorted key=value pairs, "<none>" when empty */
static json_t *selector_cell(json_t *svc)
{
    json_t *sel = sl_kube_path(svc, "spec.selector");
    if (!json_object_size(sel))
        return json_string("<none>");
    char *keys = json_dumps(sel, JSON_SORT_KEYS | JSON_COMPACT);
    json_t *sorted = json_loads(keys, 0, NULL);
    free(keys);
    sl_buf_t b = SL_BUF_INIT;
    const char *k;
    json_t *v;
    json_object_foreach(sorted, k, v)
    {
        if (b.len)
            sl_buf_putc(&b, ',');
        sl_buf_puts(&b, k);
        sl_buf_putc(&b, '=');
        sl_buf_puts(&b, json_is_string(v) ? json_string_value(v) : "");
    }
    json_decref(sorted);
    json_t *s = json_string(b.data);
    sl_buf_free(&b);
    return s;
}

json_t *svc_service_cells(json_t *svc, long long now)
{
    const char *type = sl_kube_path_str(svc, "spec.type");
    const char *ip = sl_kube_path_str(svc, "spec.clusterIP");
    sl_buf_t ext = SL_BUF_INIT;
    size_t n = 0, i;
    json_t *v;
    json_array_foreach(sl_kube_path(svc, "spec.externalIPs"), i, v)
        list_add(&ext, &n, json_string_value(v) ? json_string_value(v) : "");
    const char *name = sl_kube_name(svc);
    return json_pack("[s, s, s, o, o, o, o]", name ? name : "", type ? type : "",
                     ip && *ip ? ip : "<none>", listed(&ext, n, "<none>"), ports_cell(svc),
                     age_cell(svc, now), selector_cell(svc));
}

/* ---- Endpoints ---- */

json_t *svc_endpoints_columns(void)
{
    return json_pack("[o, o, o]", col_name(),
                     col("Endpoints", "Endpoints is the list of endpoints.", 0), col_age());
}

static void subset_entries(json_t *ss, sl_buf_t *b, size_t *n)
{
    json_t *addrs = json_object_get(ss, "addresses"), *ports = json_object_get(ss, "ports");
    size_t i, j;
    json_t *a, *p;
    if (!json_array_size(ports)) {
        json_array_foreach(addrs, i, a)
            list_add(b, n, json_string_value(json_object_get(a, "ip")) ?: "");
        return;
    }
    json_array_foreach(ports, j, p) json_array_foreach(addrs, i, a)
    {
        char hp[96];
        snprintf(hp, sizeof hp, "%s:%lld", json_string_value(json_object_get(a, "ip")) ?: "",
                 (long long)json_integer_value(json_object_get(p, "port")));
        list_add(b, n, hp);
    }
}

json_t *svc_endpoints_cells(json_t *ep, long long now)
{
    sl_buf_t b = SL_BUF_INIT;
    size_t n = 0, i;
    json_t *ss;
    json_array_foreach(json_object_get(ep, "subsets"), i, ss) subset_entries(ss, &b, &n);
    const char *name = sl_kube_name(ep);
    return json_pack("[s, o, o]", name ? name : "", listed(&b, n, "<none>"), age_cell(ep, now));
}

/* ---- EndpointSlices ---- */

json_t *svc_slice_columns(void)
{
    return json_pack("[o, o, o, o, o]", col_name(),
                     col("AddressType",
                         "addressType specifies the type of address carried by this "
                         "EndpointSlice.",
                         0),
                     col("Ports",
                         "ports specifies the list of network ports exposed by each endpoint in "
                         "this slice.",
                         0),
                     col("Endpoints", "endpoints is a list of unique endpoints in this slice.", 0),
                     col_age());
}

json_t *svc_slice_cells(json_t *slice, long long now)
{
    sl_buf_t ports = SL_BUF_INIT, eps = SL_BUF_INIT;
    size_t np = 0, ne = 0, i, j;
    json_t *p, *e, *a;
    json_array_foreach(json_object_get(slice, "ports"), i, p)
    {
        char num[32];
        json_t *port = json_object_get(p, "port");
        const char *pname = json_string_value(json_object_get(p, "name"));
        if (json_is_integer(port))
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(port));
        else
            snprintf(num, sizeof num, "%s", pname ? pname : "*");
        list_add(&ports, &np, num);
    }
    json_array_foreach(json_object_get(slice, "endpoints"), i, e)
        json_array_foreach(json_object_get(e, "addresses"), j, a)
            list_add(&eps, &ne, json_string_value(a) ?: "");
    const char *name = sl_kube_name(slice),
               *at = json_string_value(json_object_get(slice, "addressType"));
    return json_pack("[s, s, o, o, o]", name ? name : "", at ? at : "",
                     listed(&ports, np, "<unset>"), listed(&eps, ne, "<unset>"),
                     age_cell(slice, now));
}
