/* account.c — a namespace's Slurm account (internal.h, ctl_account_*): the
 * condition a missing one sets on the Namespace, and with
 * slurm.create_accounts the account and its user's association made
 * through sacctmgr (src/slurmif/sacctmgr.c). */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kube/meta.h"
#include "slurmif/slurmif.h"
#include "store/store.h"

#include <errno.h>
#include <string.h>

typedef struct ns_cond {
    const char *status, *reason, *message;
} ns_cond_t;

/* status.conditions[type=SlurmAccountMissing] as given; 0 when it is so */
static int set_cond(json_t *obj, void *arg)
{
    const ns_cond_t *w = arg;
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st))
        json_object_set_new(obj, "status", st = json_object());
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds))
        json_object_set_new(st, "conditions", conds = json_array());
    json_t *c = sl_kube_condition(conds, CTL_NS_ACCOUNT_COND);
    const char *os = c ? json_string_value(json_object_get(c, "status")) : NULL;
    const char *om = c ? json_string_value(json_object_get(c, "message")) : NULL;
    if (!c && !strcmp(w->status, "False"))
        return 0; /* never missing: nothing to say */
    if (os && om && !strcmp(os, w->status) && !strcmp(om, w->message))
        return 0;
    if (!c)
        json_array_append_new(conds, c = json_pack("{s:s}", "type", CTL_NS_ACCOUNT_COND));
    if (!os || strcmp(os, w->status)) {
        char *now = sl_kube_now_rfc3339();
        json_object_set_new(c, "lastTransitionTime", json_string(now));
        free(now);
    }
    json_object_set_new(c, "status", json_string(w->status));
    json_object_set_new(c, "reason", json_string(w->reason));
    json_object_set_new(c, "message", json_string(w->message));
    return 1;
}

void ctl_account_ns_condition(sl_ctl_t *c, const char *ns, int missing, const char *message)
{
    ns_cond_t w = {missing ? "True" : "False", missing ? "InvalidAccount" : "AccountUsable",
                   message};
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_mutate(c->store, "namespaces", NULL, ns, set_cond, &w, NULL, &err) < 0 &&
        errno != ENOENT)
        sl_warn("namespace %s: condition %s: %s", ns, CTL_NS_ACCOUNT_COND, err.text);
    sl_error_clear(&err);
}

char *ctl_account_missing_text(const char *account, const char *user, const char *slurm_text)
{
    if (!account)
        return sl_xasprintf("Slurm refused the job (%s): user %s has no Slurm association; an "
                            "administrator can run: sacctmgr add user %s Account=ACCOUNT",
                            slurm_text, user, user);
    return sl_xasprintf("Slurm refused the job (%s): Slurm account %s does not exist or user %s "
                        "has no association with it; an administrator can run: sacctmgr add "
                        "account %s; sacctmgr add user %s Account=%s (or set "
                        "slurm.create_accounts)",
                        slurm_text, account, user, account, user, account);
}

int ctl_account_absent(sl_ctl_t *c, const char *account, const char *user)
{
    sl_slurm_account_t a = {.account = account,
                            .user = user,
                            .bin_dir = c->o.slurm_bin_dir,
                            .slurm_conf = c->o.slurm_conf};
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_slurm_assoc_exists(&a, &err);
    if (r < 0)
        sl_warn("Slurm account %s of user %s: %s", account ? account : "(default)", user, err.text);
    sl_error_clear(&err);
    return r == 0;
}

int ctl_account_make(sl_ctl_t *c, const char *ns, const char *account, const char *user,
                     sl_error_t *err)
{
    if (!strcmp(account, "root")) { /* the top of Slurm's tree is no namespace's */
        errno = EPERM;
        return sl_errprintf(err, "slurm.create_accounts never uses Slurm's root account");
    }
    char *descr = sl_xasprintf("namespace %s", ns);
    sl_slurm_account_t a = {.account = account,
                            .user = user,
                            .description = descr,
                            .bin_dir = c->o.slurm_bin_dir,
                            .slurm_conf = c->o.slurm_conf};
    int r = sl_slurm_account_add(&a, err);
    free(descr);
    if (r == 0)
        sl_info("namespace %s: Slurm account %s and user %s's association made", ns, account, user);
    return r;
}

void sl_ctl_set_create_accounts(sl_ctl_t *c, int on) { atomic_store(&c->create_accounts, on); }
