/* runuser.c — the Unix user a cluster's pods run as by default: its
 * slurmlinkd's slurm.run_as and the policy's admin. nobody (slurmlinkd's
 * own default) where the cluster's Slurm runs nobody's jobs; from Slurm
 * 25.11 with accounting slurmctld refuses them (no association matches
 * nobody: sl_slurm_job_user_refused), so there a system user of the
 * cluster's own, CL_RUN_USER, made once as the pull user is (pulluser.c). */
#include "internal.h"

#include "common/proc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the release of the slurmctld `up` starts (PATH's): "25.11.7" from
 * "slurm 25.11.7" or "slurm-wlm 22.05.8"; "" when it does not say */
static void slurmctld_release(char *out, size_t n)
{
    const char *argv[] = {"slurmctld", "-V", NULL};
    char *text = NULL;
    unsigned a, b, c;
    const char *sp;
    out[0] = '\0';
    if (sl_run(argv, NULL, 1, 10000, &text, NULL) == 0 && text && (sp = strchr(text, ' ')) &&
        sscanf(sp + 1, "%u.%u.%u", &a, &b, &c) == 3)
        snprintf(out, n, "%u.%02u.%u", a, b, c);
    free(text);
}

const char *cl_run_as_user(int accounting, sl_error_t *err)
{
    char rel[32], why[512];
    slurmctld_release(rel, sizeof(rel));
    const char *acct = accounting ? "accounting_storage/slurmdbd" : "accounting_storage/none";
    if (sl_slurm_job_user_refused(rel, acct, "nobody", 65534, why, sizeof(why)) <= 0)
        return "nobody";
    return cl_ensure_system_user(CL_RUN_USER, "slurmlink pods", err) < 0 ? NULL : CL_RUN_USER;
}
