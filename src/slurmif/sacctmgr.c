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

/* what every sacctmgr run for one account gets: the program (in Slurm's
 * bin_dir when set) and its environment (the jobs' PATH, sl_slurm_job_path) */
typedef struct acct_run {
    char *prog, *path, *conf;
    const char *envp[4];
} acct_run_t;

static void run_init(acct_run_t *r, const sl_slurm_account_t *a)
{
    r->prog = a->bin_dir ? sl_xasprintf("%s/sacctmgr", a->bin_dir) : sl_xstrdup("sacctmgr");
    r->path = sl_slurm_job_path(a->bin_dir);
    r->conf = a->slurm_conf ? sl_xasprintf("SLURM_CONF=%s", a->slurm_conf) : NULL;
    r->envp[0] = r->path;
    r->envp[1] = "LC_ALL=C";
    r->envp[2] = r->conf;
    r->envp[3] = NULL;
}

static void run_free(acct_run_t *r)
{
    free(r->prog);
    free(r->path);
    free(r->conf);
}

int sl_slurm_sacctmgr_unchanged(const char *out)
{
    static const char *const said[] = {"Nothing new added", "already exists", "Already existing",
                                       "Request didn't affect anything", "Not adding"};
    for (size_t i = 0; out && i < sizeof(said) / sizeof(said[0]); i++)
        if (strstr(out, said[i]))
            return 1;
    return 0;
}

/* sacctmgr -i ARGS...: 0 when done or already so, else -1 with err */
static int sacctmgr(const acct_run_t *r, const char *const *args, sl_error_t *err)
{
    const char *argv[12] = {r->prog, "-i"};
    size_t n = 2;
    for (; *args && n < 11; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    char *out = NULL;
    int rc = sl_run(argv, r->envp, 1, SACCTMGR_TIMEOUT_MS, &out, err);
    /* an account or association that exists already is what we want */
    if (rc > 0 && sl_slurm_sacctmgr_unchanged(out))
        rc = 0;
    if (rc > 0) {
        char *tail = sl_run_tail(out, 600);
        sl_errprintf(err, "sacctmgr %s %s %s: %s", argv[2], argv[3], argv[4],
                     *tail ? tail : "failed");
        free(tail);
    }
    free(out);
    if (rc > 0)
        errno = EPERM;
    return rc == 0 ? 0 : -1;
}

int sl_slurm_assoc_exists(const sl_slurm_account_t *a, sl_error_t *err)
{
    acct_run_t r;
    run_init(&r, a);
    char *user = sl_xasprintf("user=%s", a->user);
    char *acct = a->account ? sl_xasprintf("account=%s", a->account) : NULL;
    const char *argv[] = {r.prog, "-n", "-P", "show", "assoc", "format=account", user, acct, NULL};
    char *out = NULL;
    int rc = sl_run(argv, r.envp, 0, SACCTMGR_TIMEOUT_MS, &out, err);
    int ret = rc == 0 ? (out && *out && *out != '\n') : -1;
    if (rc > 0)
        sl_errprintf(err, "sacctmgr show assoc: exit %d", rc);
    free(out);
    free(acct);
    free(user);
    run_free(&r);
    return ret;
}

int sl_slurm_account_add(const sl_slurm_account_t *a, sl_error_t *err)
{
    acct_run_t r;
    run_init(&r, a);
    char *descr = sl_xasprintf("Description=%s", a->description);
    char *acct = sl_xasprintf("Account=%s", a->account);
    const char *add_account[] = {"add", "account", a->account, descr, "Organization=slurmlink",
                                 NULL};
    const char *add_user[] = {"add", "user", a->user, acct, NULL};
    int ret = sacctmgr(&r, add_account, err);
    if (ret == 0 && a->user)
        ret = sacctmgr(&r, add_user, err);
    free(descr);
    free(acct);
    run_free(&r);
    return ret;
}
