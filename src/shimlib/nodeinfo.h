/* nodeinfo.h — what only the node knows, for Kubernetes fieldRefs
 * (spec.nodeName, status.hostIP(s), status.podIP(s)) a Pod's env may use.
 *
 * A Slurm job shares the node's network, so the pod's IPs are the node's.
 */
#ifndef SL_SHIMLIB_NODEINFO_H
#define SL_SHIMLIB_NODEINFO_H

#include "shimlib/spec.h"

/* $SLURMD_NODENAME (Slurm's name of the node), else the host name. Caller frees. */
char *sl_node_name(void);

/* The node's addresses as Kubernetes reports them: the first up,
 * non-loopback IPv4 address, then the first such global IPv6 address;
 * all = 0 gives the first of those alone, all = 1 both, comma-separated.
 * "127.0.0.1" when the node has no other address. Caller frees. */
char *sl_node_ips(int all);

/* The value for one field. Caller frees. */
char *sl_node_field(sl_shim_field_t f);

#endif
