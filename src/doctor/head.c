/* head.c — the checks made on the head node itself: root, slurm.conf and
 * slurmctld, munge, accounting, the nodes, GPU GRES, the pods root. */
#include "doctor/internal.h"

#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <fcntl.h>
#include <munge.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void dr_check_root(dr_ctx_t *c)
{
    if (geteuid() != 0)
        dr_report(c, DR_FAIL, "root", "run slurmlink doctor as root on the head node",
                  "running as uid %u: the probes need root to act as the job user %s",
                  (unsigned)geteuid(), c->user);
    else if (!c->user_ok)
        dr_report(c, DR_FAIL, "root", "name a job user with --probe-user (or set slurm.run_as)",
                  "the probe user %s is not a Unix user here", c->user);
    else
        dr_report(c, DR_OK, "root", NULL, "root; probes run as %s (uid %u)", c->user,
                  (unsigned)c->uid);
}

void dr_check_slurm(dr_ctx_t *c)
{
    const char *fix = "set slurm.conf (slurm.conf in slurmlinkd.conf) to the cluster's file";
    sl_error_t e = SL_ERROR_INIT;
    if (access(c->slurm_conf, R_OK) != 0) {
        dr_report(c, DR_FAIL, "slurm", fix, "%s: cannot read: %s", c->slurm_conf, strerror(errno));
        return;
    }
    if (sl_slurm_init(c->slurm_conf, &e) < 0) {
        dr_report(c, DR_FAIL, "slurm", fix, "%s", e.text);
        return;
    }
    sl_slurm_ctl_info_t info;
    if (sl_slurm_ctl_info(&info, &e) < 0) {
        int rpc_errno = errno;
        char why[640], *bin_dir = NULL;
        sl_slurm_bin_dir(NULL, &bin_dir, NULL);
        int refused = sl_slurm_release_refusal(rpc_errno, bin_dir, why, sizeof(why));
        free(bin_dir);
        if (refused > 0) {
            dr_report(c, DR_FAIL, "slurm",
                      "make SLURM=PREFIX of the cluster's Slurm, then reinstall", "%s readable; %s",
                      c->slurm_conf, why);
            return;
        }
        dr_report(c, DR_FAIL, "slurm",
                  "start slurmctld, or check SlurmctldHost/SlurmctldPort and the firewall",
                  "%s readable; %s (slurmlink's libslurm: %s)", c->slurm_conf, e.text,
                  sl_slurm_built_version());
        return;
    }
    c->slurm_ok = 1;
    snprintf(c->authinfo, sizeof(c->authinfo), "%s", info.authinfo);
    snprintf(c->accounting, sizeof(c->accounting), "%s", info.accounting);
    snprintf(c->ctl_version, sizeof(c->ctl_version), "%s", info.version);
    char differs[512];
    if (sl_slurm_release_differs(info.version, differs, sizeof(differs)) > 0)
        dr_report(c, DR_WARN, "slurm", "make SLURM=PREFIX of the cluster's Slurm, then reinstall",
                  "%s readable; slurmctld of cluster %s answers; %s", c->slurm_conf, info.cluster,
                  differs);
    else
        dr_report(c, DR_OK, "slurm", NULL, "%s readable; slurmctld %s of cluster %s answers",
                  c->slurm_conf, info.version, info.cluster);
}

/* munged's socket as Slurm's AuthInfo names it ("socket=PATH,..."), NULL: the default */
static char *munge_socket(const char *authinfo)
{
    const char *s = strstr(authinfo, "socket=");
    if (!s)
        return NULL;
    s += strlen("socket=");
    return sl_xstrndup(s, strcspn(s, ","));
}

void dr_check_munge(dr_ctx_t *c)
{
    const char *fix = "start munged with the cluster's munge.key (the same key on every node)";
    char *sock = munge_socket(c->authinfo);
    munge_ctx_t ctx = munge_ctx_create();
    char *cred = NULL;
    void *back = NULL;
    int len = 0;
    munge_err_t rc = ctx ? EMUNGE_SUCCESS : EMUNGE_NO_MEMORY;
    if (rc == EMUNGE_SUCCESS && sock)
        rc = munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock);
    if (rc == EMUNGE_SUCCESS)
        rc = munge_encode(&cred, ctx, c->nonce, (int)strlen(c->nonce));
    if (rc == EMUNGE_SUCCESS)
        rc = munge_decode(cred, ctx, &back, &len, NULL, NULL);
    if (rc != EMUNGE_SUCCESS)
        dr_report(c, DR_FAIL, "munge", fix, "munge round trip (socket %s): %s",
                  sock ? sock : "default", munge_strerror(rc));
    else if (len != (int)strlen(c->nonce) || memcmp(back, c->nonce, (size_t)len))
        dr_report(c, DR_FAIL, "munge", fix, "munge round trip: the payload came back changed");
    else
        dr_report(c, DR_OK, "munge", NULL, "a credential encoded and decoded (socket %s)",
                  sock ? sock : "default");
    free(cred);
    free(back);
    free(sock);
    if (ctx)
        munge_ctx_destroy(ctx);
}

/* 1 when slurmctld refuses the jobs of slurm.run_as (nobody from Slurm
 * 25.11 with accounting), reported as the accounting line's FAIL */
static int job_user_refused(dr_ctx_t *c)
{
    char why[512];
    struct passwd *pw = c->run_as ? getpwnam(c->run_as) : NULL;
    if (sl_slurm_job_user_refused(c->ctl_version, c->accounting, c->run_as,
                                  pw ? (long)pw->pw_uid : -1, why, sizeof(why)) <= 0)
        return 0;
    dr_report(c, DR_FAIL, "accounting",
              "set slurm.run_as to an unprivileged user of its own that has an association "
              "(useradd --system NAME; sacctmgr add user NAME DefaultAccount=ACCOUNT)",
              "%s", why);
    return 1;
}

void dr_check_accounting(dr_ctx_t *c)
{
    if (!c->slurm_ok)
        dr_report(c, DR_WARN, "accounting", NULL, "unknown: slurmctld does not answer");
    else if (!strcmp(c->accounting, "accounting_storage/slurmdbd")) {
        if (!job_user_refused(c))
            dr_report(c, DR_OK, "accounting", NULL, "%s: finished jobs keep their records",
                      c->accounting);
    } else
        dr_report(c, DR_WARN, "accounting",
                  "run slurmdbd and set AccountingStorageType=accounting_storage/slurmdbd",
                  "%s: a pod whose job slurmctld has purged (MinJobAge) before slurmlinkd "
                  "saw its end cannot learn how it ended",
                  c->accounting[0] ? c->accounting : "none");
}
