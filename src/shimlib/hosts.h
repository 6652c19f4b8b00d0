/* hosts.h — the pod's hosts file, written by slurmlink-shim on the node.
 *
 * shim.json's "hosts" (docs/shim-spec.md) names the file and what goes in
 * it: the pod's own names, the other members of its gang by rank, and
 * spec.hostAliases. Addresses are the node's to find: the pod's own names
 * get this node's address (status.podIP: a job shares the node's network);
 * member R runs on node R mod N of the job (src/ctl/gang.h), N the nodes of
 * $SLURM_JOB_NODELIST, whose name resolves here (getaddrinfo: the node's
 * /etc/hosts or DNS). Every shim of a gang computes the same map from what
 * Slurm gives each step, so no member waits for another and the daemon
 * never reads a file the tenant can write.
 *
 * The Services of the pod's namespace come from a file slurmlinkd keeps
 * (shim.json's hosts.services: {"entries": [{ip, hostnames}]}, the ready
 * endpoints' addresses, src/kinds/service/names.c); sl_hosts_refresh
 * rewrites the pod's file when it changes.
 *
 * The file: the node's /etc/hosts, then one line per pod (address, the
 * names fully qualified first, as the kubelet's managed hosts file), then
 * "# Entries added by HostAliases." and the aliases, then "# Service
 * names." and the Services' lines. */
#ifndef SL_SHIMLIB_HOSTS_H
#define SL_SHIMLIB_HOSTS_H

#include <jansson.h>
#include <stddef.h>

#include "common/err.h"

typedef struct sl_hosts_entry {
    long rank;    /* a member's rank; -1 for an alias */
    char *ip;     /* an alias's address; NULL for a member */
    char **names; /* NULL-terminated */
    size_t nnames;
} sl_hosts_entry_t;

typedef struct sl_hosts {
    char *path;     /* absolute: where the file is written */
    char *hostname; /* the pod's host name (a host-runtime container's UTS name) */
    char **names;   /* the pod's own names, NULL-terminated */
    size_t nnames;
    sl_hosts_entry_t *members; /* the gang's other members */
    size_t nmembers;
    sl_hosts_entry_t *aliases; /* spec.hostAliases */
    size_t naliases;
    char *services;        /* absolute: the namespace's Service names file; NULL: none */
    sl_hosts_entry_t *svc; /* its entries as last read */
    size_t nsvc;
    char svc_stamp[96]; /* its inode, size and mtime as last read ("" : none) */
} sl_hosts_t;

/* shim.json's "hosts" (field paths in errors start at "hosts"): 0 and *out
 * (NULL when v is absent or null), or -1 with err. */
int sl_hosts_parse(json_t *v, sl_hosts_t **out, sl_error_t *err);
void sl_hosts_free(sl_hosts_t *h); /* NULL is a no-op */

/* The file's text: base (the node's /etc/hosts; NULL: none), the pod's
 * line at own_ip, member i's at member_ip[i] (NULL: not resolved, left
 * out), the aliases. Caller frees. */
char *sl_hosts_render(const sl_hosts_t *h, const char *base, const char *own_ip,
                      const char *const *member_ip);

/* Read h->services into h->svc when its stamp changed: 1 when it did
 * (a missing file is no entries), 0 when not, -1 with err when it is not
 * a valid file (the entries are then kept as they were). */
int sl_hosts_services_load(sl_hosts_t *h, sl_error_t *err);

/* Node index rank mod nodes of the expanded node list (NULL when empty). */
const char *sl_hosts_member_node(char *const *nodes, long rank);

/* Everything on the node: the addresses found and the file written (a new
 * file renamed over h->path, mode 0644): 0, or -1 with err. A member whose
 * node has no address here is left out and logged (sl_warn). */
int sl_hosts_write(sl_hosts_t *h, sl_error_t *err);

/* The Services' file changed since the last read: the pod's file written
 * again, in place (the containers' bind mounts hold its inode): 1 when
 * rewritten, 0 when nothing changed, -1 with err. */
int sl_hosts_refresh(sl_hosts_t *h, sl_error_t *err);

#endif
