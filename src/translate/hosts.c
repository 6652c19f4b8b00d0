/* hosts.c — the pod's hosts file: what slurmlink-shim writes into it on the
 * node (the node's /etc/hosts, the pod's names, a gang's members' names by
 * rank, spec.hostAliases) and which containers see it at /etc/hosts.
 *
 * Only the shim knows the addresses: a gang member's node is known once
 * Slurm starts the job. The spec carries names and ranks, never addresses. */
#include "translate/internal.h"

#include "common/xalloc.h"

#include <string.h>

char *tr_hosts_path(const tr_ctx_t *c) { return sl_xasprintf("%s/hosts", c->pod_dir); }

int tr_hosts_asked(const tr_ctx_t *c)
{
    const sl_pod_t *p = c->pod;
    return (p->hostname && *p->hostname) || (p->subdomain && *p->subdomain) || p->nhost_aliases > 0;
}

int tr_hosts_mounted(const sl_pod_container_t *k)
{
    for (size_t i = 0; i < k->nmounts; i++)
        if (!strcmp(k->mounts[i].mount_path, "/etc/hosts"))
            return 1;
    return 0;
}

static json_t *names_json(const sl_argv_t *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(a, json_string(v->v[i]));
    return a;
}

/* the other members of the pod's gang with a subdomain (kube resolves no
 * other pod's bare hostname): [{rank, names}] */
static json_t *members_json(const tr_ctx_t *c, const char *own)
{
    json_t *out = json_array(), *m;
    size_t i;
    json_array_foreach(c->cfg->gang_members, i, m)
    {
        char h[64];
        sl_pod_host_name(json_string_value(json_object_get(m, "hostname")),
                         json_string_value(json_object_get(m, "name")), h);
        sl_argv_t names = SL_ARGV_INIT;
        sl_pod_dns_names(h, json_string_value(json_object_get(m, "subdomain")), c->pod->namespace_,
                         0, &names);
        json_t *rank = json_object_get(m, "rank");
        if (names.n && json_is_integer(rank) && json_integer_value(rank) >= 0 &&
            strcmp(names.v[0], own))
            json_array_append_new(
                out, json_pack("{s:O, s:o}", "rank", rank, "names", names_json(&names)));
        sl_argv_free(&names);
    }
    return out;
}

static json_t *aliases_json(const sl_pod_t *p)
{
    json_t *out = json_array();
    for (size_t i = 0; i < p->nhost_aliases; i++) {
        const sl_pod_host_alias_t *a = &p->host_aliases[i];
        json_t *hs = json_array();
        for (size_t k = 0; k < a->nhostnames; k++)
            json_array_append_new(hs, json_string(a->hostnames[k]));
        json_array_append_new(out,
                              json_pack("{s:s, s:o}", "ip", a->ip ? a->ip : "", "hostnames", hs));
    }
    return out;
}

json_t *tr_hosts_json(const tr_ctx_t *c)
{
    const sl_pod_t *p = c->pod;
    char h[64];
    sl_pod_host_name(p->hostname, p->name, h);
    sl_argv_t own = SL_ARGV_INIT;
    sl_pod_dns_names(h, p->subdomain, p->namespace_, 1, &own);
    char *path = tr_hosts_path(c);
    json_t *j = json_pack("{s:s, s:s, s:o, s:o, s:o}", "path", path, "hostname", h, "names",
                          names_json(&own), "members", members_json(c, own.v ? own.v[0] : ""),
                          "aliases", aliases_json(p));
    if (c->cfg->service_names)
        json_object_set_new(j, "services", json_string(c->cfg->service_names));
    free(path);
    sl_argv_free(&own);
    return j;
}
