/* hosts.c — the names a pod answers to (kube's pod DNS and the kubelet's
 * managed hosts file) and spec.hostAliases, its extra hosts entries. */
#include "pod/internal.h"

#include "common/xalloc.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#define IP_MSG "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"

int sl_pod_is_ip(const char *v)
{
    unsigned char buf[16];
    return v && (inet_pton(AF_INET, v, buf) == 1 || inet_pton(AF_INET6, v, buf) == 1);
}

/* spec.hostAliases[i]: {ip, hostnames[]}, as kube's ValidateHostAliases */
static void parse_alias(pod_ctx_t *c, const json_t *o, size_t i, sl_pod_host_alias_t *a)
{
    char path[48];
    snprintf(path, sizeof(path), "spec.hostAliases[%zu]", i);
    if (!json_is_object(o)) {
        pod_type_error(c, o, "", path, "object");
        return;
    }
    a->ip = pod_str(c, o, "ip", path);
    if (!a->ip)
        sl_err_required(c->errs, NULL, "%s.ip", path);
    else if (!sl_pod_is_ip(a->ip))
        sl_err_invalid(c->errs, a->ip, IP_MSG, "%s.ip", path);
    const json_t *hs = pod_arr(c, o, "hostnames", path);
    size_t n = hs ? json_array_size(hs) : 0;
    a->hostnames = pod_alloc(c->pod, n + 1, sizeof(char *));
    for (size_t k = 0; k < n; k++) {
        const json_t *h = json_array_get(hs, k);
        char hp[80];
        snprintf(hp, sizeof(hp), "%s.hostnames[%zu]", path, k);
        if (!json_is_string(h)) {
            pod_type_error(c, h, "", hp, "string");
            continue;
        }
        a->hostnames[a->nhostnames++] = json_string_value(h);
        sl_validate_dns1123_subdomain(c->errs, hp, json_string_value(h));
    }
}

void pod_parse_host_aliases(pod_ctx_t *c, const json_t *spec)
{
    const json_t *a = pod_arr(c, spec, "hostAliases", "spec");
    size_t n = a ? json_array_size(a) : 0;
    c->pod->host_aliases = pod_alloc(c->pod, n + 1, sizeof(sl_pod_host_alias_t));
    c->pod->nhost_aliases = n;
    for (size_t i = 0; i < n; i++)
        parse_alias(c, json_array_get(a, i), i, &c->pod->host_aliases[i]);
}

void sl_pod_host_name(const char *hostname, const char *name, char out[64])
{
    /* the kubelet's GeneratePodHostNameAndDomain: a pod name longer than a
     * label is cut to 63 bytes, then trailing '-' and '.' dropped */
    snprintf(out, 64, "%s", hostname && *hostname ? hostname : name ? name : "");
    size_t n = strlen(out);
    while (n && (out[n - 1] == '-' || out[n - 1] == '.'))
        out[--n] = '\0';
}

void sl_pod_dns_names(const char *hostname, const char *subdomain, const char *ns, int own,
                      sl_argv_t *out)
{
    if (!hostname || !*hostname)
        return;
    if (subdomain && *subdomain && ns && *ns) {
        sl_argv_addf(out, "%s.%s.%s.svc.%s", hostname, subdomain, ns, SL_POD_CLUSTER_DOMAIN);
        sl_argv_addf(out, "%s.%s.%s.svc", hostname, subdomain, ns);
        sl_argv_addf(out, "%s.%s.%s", hostname, subdomain, ns);
        sl_argv_addf(out, "%s.%s", hostname, subdomain);
    }
    if (own)
        sl_argv_add(out, hostname);
}
