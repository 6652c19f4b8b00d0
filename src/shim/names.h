/* names.h — the pod's hosts file at /etc/hosts for a container without a
 * mount namespace of its runtime's (the host runtime: spec "bindHosts").
 *
 * The forked child enters a user namespace that maps the job user to itself
 * (root needs none) with a mount and a UTS namespace of its own, binds the
 * pod's hosts file (src/shimlib/hosts.h) over /etc/hosts and takes the
 * pod's host name, so `getent hosts`, `hostname` and `hostname -f` answer
 * as in a Kubernetes pod. Nothing runs as root; the kernel must allow
 * unprivileged user namespaces (charliecloud needs them too). When it does
 * not, the run goes on with the node's /etc/hosts and host name, and says
 * so on its stderr (its log). */
#ifndef SL_SHIM_NAMES_H
#define SL_SHIM_NAMES_H

#include "shimlib/hosts.h"

typedef struct shim_names {
    const char *path;     /* the pod's hosts file */
    const char *hostname; /* the pod's host name */
    char uid_map[64], gid_map[64];
    int as_root; /* the job runs as root: a mount namespace is enough */
} shim_names_t;

/* In the shim, before fork (h must outlive n). */
void shim_names_init(shim_names_t *n, const sl_hosts_t *h);
/* In the forked child, before exec (system calls only): 0, or -1 with
 * errno and the failed step's text in *what. */
int shim_names_enter(const shim_names_t *n, const char **what);
/* In the forked child: a mount namespace (and the CLONE_ flags of extra),
 * in a user namespace mapping the job user to itself unless as_root, its
 * mounts private. 0, or -1 with errno and the failed step in *what. */
int shim_ns_enter(const char *uid_map, const char *gid_map, int as_root, int extra,
                  const char **what);

#endif
