/* info.c — the controller's configuration as slurmctld reports it,
 * Slurm's host lists (slurmlink doctor), and a node drained or resumed
 * (kubectl cordon, uncordon). */
#include "common/proc.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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
    int e = rc != SLURM_SUCCESS ? sl_compat_errno() : 0;
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
    sl_compat_free_conf(conf);
    return 0;
}

const char *sl_slurm_built_version(void)
{
    static char v[24];
    if (!v[0])
        snprintf(v, sizeof(v), "%u.%02u.%u", (unsigned)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
                 (unsigned)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
                 (unsigned)SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
    return v;
}

int sl_slurm_release_differs(const char *ctl, char *line, size_t n)
{
    unsigned major, minor;
    int used = 0;
    if (!ctl || sscanf(ctl, "%u.%u%n", &major, &minor, &used) != 2 || used == 0)
        return -1;
    if (major == SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) &&
        minor == SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER))
        return 0;
    snprintf(line, n,
             "slurmlink is built against libslurm %s but slurmctld runs Slurm %s: another major "
             "release; rebuild with make SLURM=PREFIX of the cluster's Slurm",
             sl_slurm_built_version(), ctl);
    return 1;
}

/* what the Slurm commands of bin_dir say they are ("slurm 25.11.7" from
 * scontrol --version, with the slurm.conf libslurm loaded): 0 with the
 * release in out, or -1 */
static int commands_release(const char *bin_dir, char *out, size_t n)
{
    if (!bin_dir || !slurm_conf.slurm_conf)
        return -1;
    char *prog = sl_xasprintf("%s/scontrol", bin_dir);
    char *conf = sl_xasprintf("SLURM_CONF=%s", slurm_conf.slurm_conf);
    const char *argv[] = {prog, "--version", NULL};
    const char *envp[] = {conf, "PATH=/usr/bin:/bin", NULL};
    char *text = NULL;
    unsigned a, b, c;
    int r = -1;
    if (sl_run(argv, envp, 0, 5000, &text, NULL) == 0 && text &&
        sscanf(text, "slurm %u.%u.%u", &a, &b, &c) == 3) {
        snprintf(out, n, "%u.%02u.%u", a, b, c);
        r = 0;
    }
    free(text);
    free(conf);
    free(prog);
    return r;
}

int sl_slurm_release_refusal(int e, const char *bin_dir, char *line, size_t n)
{
    if (e != SLURM_PROTOCOL_VERSION_ERROR && e != SLURM_PROTOCOL_AUTHENTICATION_ERROR)
        return 0;
    char rel[32];
    if (commands_release(bin_dir, rel, sizeof(rel)) == 0) {
        unsigned major, minor;
        if (sscanf(rel, "%u.%u", &major, &minor) != 2 ||
            (major == SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER) &&
             minor == SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER)))
            return 0; /* the same release: not the reason */
        snprintf(line, n,
                 "slurmlink is built against libslurm %s but %s/scontrol is Slurm %s and slurmctld "
                 "refuses libslurm's RPCs (%s): another major release; rebuild with make "
                 "SLURM=PREFIX of the cluster's Slurm",
                 sl_slurm_built_version(), bin_dir, rel, slurm_strerror(e));
        return 1;
    }
    if (e != SLURM_PROTOCOL_VERSION_ERROR)
        return 0; /* an authentication error of its own (munge) as far as is known */
    snprintf(line, n,
             "slurmlink is built against libslurm %s and slurmctld refuses its protocol: another "
             "major release; rebuild with make SLURM=PREFIX of the cluster's Slurm",
             sl_slurm_built_version());
    return 1;
}

int sl_slurm_release_check(const char *bin_dir, char *line, size_t n, sl_error_t *err)
{
    sl_slurm_ctl_info_t info;
    if (sl_slurm_ctl_info(&info, err) < 0) {
        int e = errno;
        if (sl_slurm_release_refusal(e, bin_dir, line, n) > 0)
            return 1;
        errno = e;
        return -1;
    }
    int r = sl_slurm_release_differs(info.version, line, n);
    if (r < 0) {
        errno = EPROTO;
        return sl_errprintf(err, "slurmctld reports no release number (\"%s\")", info.version);
    }
    return r;
}

int sl_slurm_job_user_refused(const char *ctl, const char *accounting, const char *user, long uid,
                              char *line, size_t n)
{
    unsigned major, minor;
    if (!ctl || sscanf(ctl, "%u.%u", &major, &minor) != 2 || major * 100 + minor < 2511)
        return 0;
    if (!accounting || strcmp(accounting, "accounting_storage/slurmdbd") != 0)
        return 0;
    if (!(user && !strcmp(user, "nobody")) && uid != 65534)
        return 0;
    snprintf(line, n,
             "slurm.run_as is nobody (%s): slurmctld %s with accounting refuses its jobs (from "
             "Slurm 25.11 the user nobody matches no association: \"Invalid account or "
             "account/partition combination\")",
             user ? user : "uid 65534", ctl);
    return 1;
}

int sl_slurm_hostlist_has(const char *hostlist, const char *name)
{
    sl_hostlist_t *hl = slurm_hostlist_create(hostlist);
    if (!hl)
        return 0;
    int r = slurm_hostlist_find(hl, name) >= 0;
    slurm_hostlist_destroy(hl);
    return r;
}

/* node updates asked of slurmctld by this process, counted after each
 * (answered or not: a timed-out update may still be applied) */
static atomic_ulong node_updates;

unsigned long sl_slurm_node_updates(void) { return atomic_load(&node_updates); }

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
        sl_compat_node_reason_uid(&m, getuid());
    }
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_update_node(&m);
    int e = rc != SLURM_SUCCESS ? sl_compat_errno() : 0;
    atomic_fetch_add(&node_updates, 1);
    sl_slurm_rpc_end("update_node", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        errno = e ? e : EIO;
        return sl_errprintf(err, "node %s: state=%s: %s", name, drain ? "drain" : "resume",
                            slurm_strerror(e));
    }
    return 0;
}
