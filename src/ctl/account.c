/* account.c — a namespace's Slurm account (internal.h, ctl_account_*): the
 * condition a missing one sets on the Namespace, and with
 * slurm.create_accounts the account and its user's association made
 * through sacctmgr (src/slurmif/sacctmgr.c): at the namespace's creation
 * for its creator (a thread of its own, below), at a pod's first refusal
 * for the pod's user (submit.c). */
#include "auth/policy.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kube/meta.h"
#include "metrics/metrics.h"
#include "pod/pod.h"
#include "slurmif/slurmif.h"
#include "store/store.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

typedef struct ns_cond {
    const char *status, *reason, *message;
    int always; /* False written also where there was no condition */
} ns_cond_t;

/* status.conditions[type=SlurmAccountMissing] as given; 0 when it is so */
static int set_cond(json_t *obj, void *arg)
{
    const ns_cond_t *w = arg;
    json_t *st = json_object_get(obj, "status");
    json_t *c = sl_kube_condition(json_object_get(st, "conditions"), CTL_NS_ACCOUNT_COND);
    if (!c && !strcmp(w->status, "False") && !w->always)
        return 0; /* never missing: nothing to say */
    if (!json_is_object(st))
        json_object_set_new(obj, "status", st = json_object());
    sl_kube_cond_t cd = {CTL_NS_ACCOUNT_COND, w->status, w->reason, w->message, 0};
    return sl_kube_set_condition(st, &cd, NULL);
}

void ctl_account_ns_condition(sl_ctl_t *c, const char *ns, int missing, const char *message)
{
    ns_cond_t w = {missing ? "True" : "False", missing ? "InvalidAccount" : "AccountUsable",
                   message, 0};
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

/* ---- at the namespace's creation ------------------------------------------------------ */

#define ACCT_MADE "AccountCreated"
#define ACCT_FAILED "AccountCreateFailed"
#define ACCT_RETRY_MIN_MS 1000
#define ACCT_RETRY_MAX_MS 60000

typedef struct ctl_acct ctl_acct_t;
struct ctl_acct {
    sl_ctl_t *c;
    pthread_t thread;
    atomic_int stop;
    json_t *retry; /* namespace name -> [due ms, delay ms] after a failure */
};

/* the namespace's account is still to be made at its creation: it has a
 * creator, is not being deleted, and its condition is absent or says the
 * last try failed (any other is the pods' path's, submit.c) */
static int wants_account(json_t *ns)
{
    if (!sl_kube_annotation(ns, SL_ANN_USER) || sl_kube_meta_str(ns, "deletionTimestamp"))
        return 0;
    json_t *cd = sl_kube_condition(sl_kube_path(ns, "status.conditions"), CTL_NS_ACCOUNT_COND);
    const char *reason = json_string_value(json_object_get(cd, "reason"));
    return !cd || (reason && !strcmp(reason, ACCT_FAILED));
}

/* the Unix user of the namespace's creator, as a pod of theirs would run
 * (job_identity in submit.c): the policy's mapping, else the default job
 * user; NULL with why when the creator maps to none (caller frees both) */
static char *creator_user(sl_ctl_t *c, const char *kuser, char **why)
{
    struct sl_authz_policy *policy = atomic_load(&c->policy);
    if (!policy)
        return sl_xstrdup(c->o.run_as);
    sl_error_t err = SL_ERROR_INIT;
    uid_t uid;
    gid_t gid;
    char *uname = NULL;
    if (sl_authz_unix_user(policy, kuser, &uid, &gid, &uname, &err) < 0) {
        *why = sl_xasprintf("user \"%s\" has no Unix user: %s", kuser, err.text);
        free(uname);
        uname = NULL;
    }
    sl_error_clear(&err);
    return uname;
}

static void set_ns_cond(sl_ctl_t *c, const char *ns, const ns_cond_t *w)
{
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_mutate(c->store, "namespaces", NULL, ns, set_cond, (void *)w, NULL, &err) < 0 &&
        errno != ENOENT)
        sl_warn("namespace %s: condition %s: %s", ns, CTL_NS_ACCOUNT_COND, err.text);
    sl_error_clear(&err);
}

/* a failed try: said, and retried later (the delay doubles) */
static void acct_failed(ctl_acct_t *a, json_t *ns, const char *name, const char *text)
{
    json_t *r = json_object_get(a->retry, name);
    long long delay = r ? json_integer_value(json_array_get(r, 1)) * 2 : ACCT_RETRY_MIN_MS;
    if (delay > ACCT_RETRY_MAX_MS)
        delay = ACCT_RETRY_MAX_MS;
    json_object_set_new(a->retry, name,
                        json_pack("[I, I]", (json_int_t)(sl_now_ms() + delay), (json_int_t)delay));
    char *msg = sl_xasprintf("slurm.create_accounts: %s; retried in %lld s", text, delay / 1000);
    ns_cond_t w = {"True", ACCT_FAILED, msg, 1};
    set_ns_cond(a->c, name, &w);
    ctl_event(a->c, ns, "Warning", "SlurmAccountCreateFailed", "%s", msg);
    sl_warn("namespace %s: %s", name, msg);
    free(msg);
}

/* the account, and the creator's association, of one new namespace */
static void acct_make(ctl_acct_t *a, json_t *ns)
{
    sl_ctl_t *c = a->c;
    const char *name = sl_kube_name(ns);
    json_t *r = json_object_get(a->retry, name);
    if (!name || (r && json_integer_value(json_array_get(r, 0)) > sl_now_ms()))
        return;
    struct sl_authz_policy *policy = atomic_load(&c->policy);
    char *account = sl_authz_account(policy, name), *why = NULL;
    char *user = creator_user(c, sl_kube_annotation(ns, SL_ANN_USER), &why);
    sl_error_t err = SL_ERROR_INIT;
    if (ctl_account_make(c, name, account, user, &err) < 0) {
        acct_failed(a, ns, name, err.text);
    } else {
        json_object_del(a->retry, name);
        char *msg = user ? sl_xasprintf("Slurm account %s and user %s's association with it made "
                                        "(slurm.create_accounts)",
                                        account, user)
                         : sl_xasprintf("Slurm account %s made (slurm.create_accounts); no "
                                        "association: the namespace's creator %s",
                                        account, why);
        ns_cond_t w = {"False", ACCT_MADE, msg, 1};
        set_ns_cond(c, name, &w);
        ctl_event(c, ns, "Normal", "SlurmAccountCreated", "%s", msg);
        free(msg);
    }
    sl_error_clear(&err);
    free(account);
    free(user);
    free(why);
}

/* one pass: every namespace that wants its account; the retry entries of
 * those that no longer do dropped; the next retry's time (0: none) */
static long long acct_pass(ctl_acct_t *a)
{
    json_t *all = sl_store_list(a->c->store, "namespaces", NULL, NULL), *ns, *keep = json_object();
    size_t i;
    json_array_foreach(all, i, ns)
    {
        if (atomic_load(&a->stop) || !wants_account(ns))
            continue;
        acct_make(a, ns);
        json_t *r = json_object_get(a->retry, sl_kube_name(ns));
        if (r)
            json_object_set(keep, sl_kube_name(ns), r);
    }
    json_decref(all);
    json_decref(a->retry);
    a->retry = keep;
    long long next = 0;
    const char *k;
    json_t *r;
    json_object_foreach(keep, k, r)
    {
        long long due = json_integer_value(json_array_get(r, 0));
        if (!next || due < next)
            next = due;
    }
    sl_metrics_loop_pass("namespace-accounts");
    return next;
}

/* a pass whenever a namespace changed, the option was turned on, or a
 * retry is due; the store's commits wake it */
static void *acct_main(void *arg)
{
    ctl_acct_t *a = arg;
    sl_ctl_t *c = a->c;
    pthread_setname_np(pthread_self(), "sl-acct");
    int64_t seen = -1;
    long long next = 0;
    while (!atomic_load(&a->stop)) {
        sl_store_mark_t m = sl_store_mark(c->store);
        int on = atomic_load(&c->create_accounts);
        int64_t rv = sl_store_resource_rev(c->store, "namespaces");
        if (!on) {
            seen = -1; /* turned on later: a pass at once */
        } else if (rv != seen || (next && sl_now_ms() >= next)) {
            seen = rv;
            next = acct_pass(a);
        }
        long long wait = next && on ? next - sl_now_ms() : 1000;
        sl_store_wait_mark(c->store, m, (int)(wait < 10 ? 10 : wait > 1000 ? 1000 : wait));
    }
    return NULL;
}

int ctl_account_start(sl_ctl_t *c)
{
    ctl_acct_t *a = sl_xcalloc(1, sizeof(*a));
    a->c = c;
    a->retry = json_object();
    if (pthread_create(&a->thread, NULL, acct_main, a) != 0) {
        json_decref(a->retry);
        free(a);
        return -1;
    }
    c->acct = a;
    return 0;
}

void ctl_account_stop(sl_ctl_t *c)
{
    ctl_acct_t *a = c->acct;
    if (!a)
        return;
    atomic_store(&a->stop, 1);
    sl_store_kick(c->store);
    pthread_join(a->thread, NULL);
    json_decref(a->retry);
    free(a);
    c->acct = NULL;
}
