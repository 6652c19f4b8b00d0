/* info.c — the controller's configuration as slurmctld reports it,
 * Slurm's host lists (slurmlink doctor), and a node drained or resumed
 * (kubectl cordon, uncordon). */
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "slurmif/compat.h"

/* slurm.c: every RPC between these (counted and timed) */
double sl_slurm_rpc_begin(void);
void sl_slurm_rpc_end(const char *rpc, double t0, int failed);

static void copy(char *dst, size_t n, const char *src) { snprintf(dst, n, "%s", src ? src : ""); }

int sl_slurm_ctl_info(sl_slurm_ctl_info_t *out, sl_error_t *err)
{
    slurm_conf_t *conf = NULL;
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_load_ctl_conf(0, &conf);
    int e = rc != SLURM_SUCCESS ? slurm_get_errno() : 0;
    sl_slurm_rpc_end("load_ctl_conf", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        errno = e ? e : EIO;
        return sl_errprintf(err, "slurmctld: %s", slurm_strerror(e));
    }
    memset(out, 0, sizeof(*out));
    copy(out->version, sizeof(out->version), conf->version);
    copy(out->cluster, sizeof(out->cluster), conf->cluster_name);
    copy(out->accounting, sizeof(out->accounting), conf->accounting_storage_type);
    copy(out->authinfo, sizeof(out->authinfo), conf->authinfo);
    copy(out->gres_types, sizeof(out->gres_types), conf->gres_plugins);
    slurm_free_ctl_conf(conf);
    return 0;
}

int sl_slurm_hostlist_has(const char *hostlist, const char *name)
{
    hostlist_t hl = slurm_hostlist_create(hostlist);
    if (!hl)
        return 0;
    int r = slurm_hostlist_find(hl, name) >= 0;
    slurm_hostlist_destroy(hl);
    return r;
}

/* scontrol update nodename=NAME state=drain reason=... | state=resume */
int sl_slurm_node_set_drain(const char *name, int drain, const char *reason, sl_error_t *err)
{
    if (!name || !*name || (drain && (!reason || !*reason))) {
        errno = EINVAL;
        return sl_errprintf(err, "node update: no node name, or a drain without a reason");
    }
    update_node_msg_t m;
    slurm_init_update_node_msg(&m);
    m.node_names = (char *)name;
    m.node_state = drain ? NODE_STATE_DRAIN : NODE_RESUME;
    if (drain) {
        m.reason = (char *)reason;
        m.reason_uid = getuid();
    }
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_update_node(&m);
    int e = rc != SLURM_SUCCESS ? slurm_get_errno() : 0;
    sl_slurm_rpc_end("update_node", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        errno = e ? e : EIO;
        return sl_errprintf(err, "node %s: state=%s: %s", name, drain ? "drain" : "resume",
                            slurm_strerror(e));
    }
    return 0;
}
