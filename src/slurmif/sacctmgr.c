/* sacctmgr.c — a namespace's Slurm account and its users' associations
 * (slurm.create_accounts), through sacctmgr run as an argv vector: the
 * same records an administrator's `sacctmgr add` makes, idempotent. */
#include "common/proc.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <slurm/slurm_errno.h>
#include <stdlib.h>
#include <string.h>

#define SACCTMGR_TIMEOUT_MS 30000

int sl_slurm_invalid_account(int e) { return e == ESLURM_INVALID_ACCOUNT; }

/* sacctmgr -i ARGS...: 0 when done or already so, else -1 with err */
static int sacctmgr(const char *bin_dir, const char *const *envp, const char *const *args,
                    sl_error_t *err)
{
    char *prog = bin_dir ? sl_xasprintf("%s/sacctmgr", bin_dir) : sl_xstrdup("sacctmgr");
    const char *argv[12] = {prog, "-i"};
    size_t n = 2;
    for (; *args && n < 11; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    char *out = NULL;
    int rc = sl_run(argv, envp, 1, SACCTMGR_TIMEOUT_MS, &out, err);
    /* an account or association that exists already is what we want */
    if (rc > 0 && out &&
        (strstr(out, "Nothing new added") || strstr(out, "already exists") ||
         strstr(out, "Not adding")))
        rc = 0;
    if (rc > 0) {
        char *nl = out ? strchr(out, '\n') : NULL;
        if (nl && !nl[1])
            *nl = '\0';
        sl_errprintf(err, "sacctmgr %s %s %s: %.300s", argv[2], argv[3], argv[4],
                     out && *out ? out : "failed");
    }
    free(out);
    free(prog);
    if (rc > 0)
        errno = EPERM;
    return rc == 0 ? 0 : -1;
}

#define SACCTMGR_PATH "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

int sl_slurm_assoc_exists(const sl_slurm_account_t *a, sl_error_t *err)
{
    char *env_conf = a->slurm_conf ? sl_xasprintf("SLURM_CONF=%s", a->slurm_conf) : NULL;
    const char *envp[] = {SACCTMGR_PATH, "LC_ALL=C", env_conf, NULL};
    char *prog = a->bin_dir ? sl_xasprintf("%s/sacctmgr", a->bin_dir) : sl_xstrdup("sacctmgr");
    char *user = sl_xasprintf("user=%s", a->user);
    char *acct = a->account ? sl_xasprintf("account=%s", a->account) : NULL;
    const char *argv[] = {prog, "-n", "-P", "show", "assoc", "format=account", user, acct, NULL};
    char *out = NULL;
    int rc = sl_run(argv, envp, 0, SACCTMGR_TIMEOUT_MS, &out, err);
    int r = rc == 0 ? (out && *out && *out != '\n') : -1;
    if (rc > 0)
        sl_errprintf(err, "sacctmgr show assoc: exit %d", rc);
    free(out);
    free(acct);
    free(user);
    free(prog);
    free(env_conf);
    return r;
}

int sl_slurm_account_add(const sl_slurm_account_t *a, sl_error_t *err)
{
    char *env_conf = a->slurm_conf ? sl_xasprintf("SLURM_CONF=%s", a->slurm_conf) : NULL;
    const char *envp[] = {SACCTMGR_PATH, "LC_ALL=C", env_conf, NULL};
    char *descr = sl_xasprintf("Description=%s", a->description);
    char *acct = sl_xasprintf("Account=%s", a->account);
    const char *add_account[] = {"add", "account", a->account, descr, "Organization=slurmlink",
                                 NULL};
    const char *add_user[] = {"add", "user", a->user, acct, NULL};
    int r = sacctmgr(a->bin_dir, envp, add_account, err);
    if (r == 0 && a->user)
        r = sacctmgr(a->bin_dir, envp, add_user, err);
    free(descr);
    free(acct);
    free(env_conf);
    return r;
}
