/* submit.c — a new pod becomes a Slurm job: translate, write the pod folder
 * as the job's user, submit in-process, record the job id. The controller
 * thread checks and hands each pod to the submission workers (subpool.h),
 * which do the rest on their own copy of the pod (ctl_sub_t) and hand it
 * back; ctl_submit_collect writes the job ids the workers got onto their
 * pods, many in one store transaction (one commit), and applies what they
 * did to the pods table. */
#include "auth/policy.h"
#include "auth/shimtoken.h"
#include "common/fault.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/pwcache.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "ctl/subpool.h"
#include "image/image.h"
#include "kube/meta.h"
#include "metrics/metrics.h"
#include "pod/pod.h"
#include "podfs/podfs.h"
#include "runtime/runtime.h"
#include "translate/translate.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the submission's state (submission.h) */
struct ctl_submission {
    struct ctl_subpool *pool;       /* the workers; NULL: the controller thread submits */
    atomic_int paused;              /* a worker found slurmctld down or busy: the others do not
                                     * try (their pods wait); an answered job poll clears it */
    long long next_queue_metric_ms; /* c->lock: the submit queue's length is next counted then */
};

char *ctl_pod_dir(sl_ctl_t *c, const char *ns, const char *name, const char *uid)
{
    return sl_xasprintf("%s/%s/%s-%s", c->o.pods_root, ns, name, uid);
}

char *ctl_service_names_path(sl_ctl_t *c, const char *ns)
{
    char key[SL_AUTH_SHIM_TOKEN_LEN + 64], mac[SL_AUTH_SHIM_TOKEN_LEN + 1];
    snprintf(key, sizeof key, "service-names/%s", ns);
    sl_auth_shim_token(c->shim_key, key, mac);
    return sl_xasprintf("%s/%s/.service-names-%.32s.json", c->o.pods_root, ns, mac);
}

typedef struct mark {
    const char *message;
    int permanent;
    const char *reason; /* a wait an administrator must end (NULL: a failure) */
} mark_t;

/* s's job id onto the pod (a worker's draft, or record_job's mutation) */
static int sub_submitted(json_t *pod, void *arg)
{
    const ctl_sub_t *s = arg;
    return ctl_status_submitted(pod, s->job_id, sl_kube_now_ns());
}

static int mark_failed(json_t *pod, void *arg)
{
    mark_t *m = arg;
    if (ctl_pod_job_id(pod))
        return 0; /* a job exists after all: leave it */
    if (m->reason)
        return ctl_status_submit_waiting(pod, m->reason, m->message, sl_kube_now_ns());
    return ctl_status_submit_failed(pod, m->message, m->permanent, sl_kube_now_ns());
}

/* the pod's submission failed (permanent: for good), or waits on reason
 * (not NULL: an Event of that reason, the pod's condition and containers
 * say it); msg is what the tenant reads */
static void fail_with(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, int permanent, const char *reason,
                      const char *msg)
{
    char full[1200];
    if (!permanent) {
        p->tries++;
        long long delay = 1000LL << (p->tries > 6 ? 6 : p->tries - 1);
        if (delay > 60000)
            delay = 60000;
        p->next_try_ms = sl_now_ms() + delay;
        snprintf(full, sizeof(full), "%s; retrying in %llds", msg, (delay + 999) / 1000);
    } else {
        p->permanent = 1;
        snprintf(full, sizeof(full), "%s", msg);
    }
    mark_t m = {.message = full, .permanent = permanent, .reason = reason};
    sl_metrics_submission(0, 0);
    ctl_pod_mutate(c, p->ns, p->name, p->uid, mark_failed, &m, NULL, NULL);
    ctl_event(c, pod, "Warning", reason ? reason : "FailedCreate", "%s", msg);
    sl_info("pod %s/%s: %s", p->ns, p->name, full);
}

static void failed(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, int permanent, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void failed(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, int permanent, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fail_with(c, p, pod, permanent, NULL, msg);
}

/* the job's group: the pod's runAsGroup when the user may use it (its
 * primary group or one it belongs to), else the user's primary group *gid;
 * every container's runAsGroup must be that one group */
static int job_group(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const sl_pod_t *model,
                     const char *uname, gid_t *gid)
{
    int64_t want = model->run_as_group;
    if (want != SL_POD_UNSET) {
        if (want < 0 || want > 0x7fffffff || !sl_authz_unix_group_ok(uname, *gid, (gid_t)want)) {
            failed(c, p, pod, 1,
                   "spec.securityContext.runAsGroup: %lld is neither gid %u, the primary group of "
                   "%s, nor a group %s is a member of",
                   (long long)want, (unsigned)*gid, uname, uname);
            return -1;
        }
        *gid = (gid_t)want;
    }
    for (int init = 0; init < 2; init++) {
        const sl_pod_container_t *cs = init ? model->init_containers : model->containers;
        size_t n = init ? model->ninit : model->ncontainers;
        for (size_t i = 0; i < n; i++)
            if (cs[i].run_as_group != SL_POD_UNSET && cs[i].run_as_group != (int64_t)*gid) {
                failed(c, p, pod, 1,
                       "spec.%s[%zu].securityContext.runAsGroup: %lld is not gid %u, the one "
                       "group of the pod's job",
                       init ? "initContainers" : "containers", i, (long long)cs[i].run_as_group,
                       (unsigned)*gid);
                return -1;
            }
    }
    return 0;
}

/* who a pod's job runs as, and under which account */
typedef struct job_ident {
    uid_t uid;
    gid_t gid;
    char *uname, *account, *home;
} job_ident_t;

/* before the first full job list (adopt rather than resubmit), or while
 * slurmctld does not answer (each RPC would block for its timeout): 1, the
 * pod waits, and says so once */
static int submit_waits(sl_ctl_t *c, ctl_pod_t *p)
{
    if (ctl_poll_initial_done(c) && ctl_slurm_ok(c))
        return 0;
    if (!p->pending_submit) {
        mark_t m = {.message = ctl_slurm_ok(c) ? "waiting for the first Slurm job list"
                                               : "waiting for the Slurm controller, which does "
                                                 "not answer; the job is submitted when it does"};
        ctl_pod_mutate(c, p->ns, p->name, p->uid, mark_failed, &m, NULL, NULL);
    }
    p->pending_submit = 1;
    return 1;
}

/* securityContext.runAsUser may only name the job's user, unless the
 * container's runtime maps it to that user inside a user namespace (as
 * admission decides: src/api/admission.c) */
static int check_run_as_user(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const sl_pod_t *model,
                             const job_ident_t *id)
{
    const char *ann = sl_pod_annotation(model, SL_ANN_RUNTIME);
    for (int init = 0; init < 2; init++) {
        const sl_pod_container_t *cs = init ? model->init_containers : model->containers;
        size_t n = init ? model->ninit : model->ncontainers;
        for (size_t i = 0; i < n; i++) {
            int64_t want = cs[i].run_as_user;
            if (want != SL_POD_UNSET && want != (int64_t)id->uid &&
                !sl_runtime_maps_user(ann, cs[i].image, c->o.default_runtime)) {
                failed(c, p, pod, 1,
                       "spec.%s[%zu].securityContext.runAsUser: %lld is not uid %u (%s), the only "
                       "user this pod may run as",
                       init ? "initContainers" : "containers", i, (long long)want,
                       (unsigned)id->uid, id->uname);
                return -1;
            }
        }
    }
    return 0;
}

/* who the job runs as: the creator's mapped Unix user (policy), else the
 * default job user; which account: the namespace's. id holds c's uid and
 * gid on entry; what it holds is freed by the caller, also on -1. */
static int job_identity(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const sl_pod_t *model,
                        job_ident_t *id)
{
    const char *kuser = sl_kube_annotation(pod, SL_ANN_USER);
    sl_error_t ierr = SL_ERROR_INIT;
    struct sl_authz_policy *policy = atomic_load(&c->policy);
    if (policy) {
        id->account = sl_authz_account(policy, p->ns);
        if (kuser && sl_authz_unix_user(policy, kuser, &id->uid, &id->gid, &id->uname, &ierr) < 0) {
            failed(c, p, pod, 1, "user \"%s\" has no Unix user to run as: %s", kuser, ierr.text);
            return -1;
        }
    }
    if (!id->uname)
        id->uname = sl_xstrdup(c->o.run_as);
    sl_pwent_t pw = {0}; /* kept a few seconds (pwcache.h) */
    id->home = sl_xstrdup(sl_pwcache_uid(id->uid, &pw) == 0 ? pw.home : "/");
    sl_pwent_clear(&pw);
    if (check_run_as_user(c, p, pod, model, id) < 0)
        return -1;
    return job_group(c, p, pod, model, id->uname, &id->gid);
}

/* one ConfigMap or Secret the pod names, read once (seen: the names tried) */
static void add_ref(sl_ctl_t *c, const char *kind, const char *ns, const char *name, json_t *seen,
                    json_t *out)
{
    if (!name || json_object_get(seen, name))
        return;
    json_object_set_new(seen, name, json_true());
    json_t *obj = sl_store_get(c->store, kind, ns, name);
    if (obj)
        json_array_append_new(out, obj);
}

/* The ConfigMaps (secret 0) or Secrets (1) of ns that the pod names in env,
 * envFrom and volumes, those that exist: what translate looks up, and no
 * more (not the whole namespace for every pod). */
static json_t *referenced(sl_ctl_t *c, const sl_pod_t *m, const char *ns, int secret)
{
    const char *kind = secret ? "secrets" : "configmaps";
    json_t *seen = json_object(), *out = json_array();
    for (int init = 0; init < 2; init++) {
        const sl_pod_container_t *cs = init ? m->init_containers : m->containers;
        size_t n = init ? m->ninit : m->ncontainers;
        for (size_t i = 0; i < n; i++) {
            for (size_t k = 0; k < cs[i].nenv; k++)
                if (cs[i].env[k].src == (secret ? SL_ENV_SECRET_KEY : SL_ENV_CONFIGMAP_KEY))
                    add_ref(c, kind, ns, cs[i].env[k].ref, seen, out);
            for (size_t k = 0; k < cs[i].nenv_from; k++)
                if (cs[i].env_from[k].secret == secret)
                    add_ref(c, kind, ns, cs[i].env_from[k].ref, seen, out);
        }
    }
    for (size_t v = 0; v < m->nvolumes; v++)
        for (size_t k = 0; k < m->volumes[v].nsources; k++)
            if (m->volumes[v].sources[k].type == (secret ? SL_VOL_SECRET : SL_VOL_CONFIGMAP))
                add_ref(c, kind, ns, m->volumes[v].sources[k].ref, seen, out);
    json_decref(seen);
    return out;
}

/* The pod's volume claims (a list for translate) and its DRA claims as
 * GRES (NULL: none): 0, or -1 when the pod waits for one of them (the
 * reason written; it looks again within 4 s for a volume claim: a claim
 * binds in a pass of the controller). */
static int pod_claims(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const sl_pod_t *model,
                      json_t **claims, char **gres)
{
    sl_error_t err = SL_ERROR_INIT;
    *claims = ctl_storage_claims(c, model, p->ns, p->uid, &err);
    if (!*claims) {
        if (p->tries > 2)
            p->tries = 2;
        failed(c, p, pod, 0, "%s", err.text);
        sl_error_clear(&err);
        return -1;
    }
    *gres = ctl_claims_gres(c, pod, &err); /* DRA claims as GRES */
    if (!*gres && err.text[0]) {
        json_decref(*claims);
        *claims = NULL;
        failed(c, p, pod, 0, "%s", err.text);
        sl_error_clear(&err);
        return -1;
    }
    sl_error_clear(&err);
    return 0;
}

/* the pod's job script, options and pod folder contents into *out */
static int translate_pod(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const sl_pod_t *model,
                         sl_error_t *errs, const job_ident_t *id, sl_translate_result_t **out)
{
    char token[SL_AUTH_SHIM_TOKEN_LEN + 1];
    sl_auth_shim_token(c->shim_key, p->uid, token);
    ctl_pull_t *hold = p->pull ? NULL : ctl_pull_holder(); /* imported images' configs */
    sl_translate_config_t cfg = {
        .pods_root = c->o.pods_root,
        .shim_path = c->o.shim_path,
        .report_url = c->o.report_url,
        .report_ca_file = c->o.report_ca_file,
        .report_token = token,
        .default_cpu_milli = SL_TRANSLATE_DEFAULT_CPU_MILLI,
        .default_mem_bytes = SL_TRANSLATE_DEFAULT_MEM_BYTES,
        .default_runtime = c->o.default_runtime,
        .gpu_types = c->o.gpu_types,
        .gpu_shared = c->o.gpu_shared,
        .default_account = id->account,
        .image_store = c->o.image_store,
        .uid = id->uid,
        .gid = id->gid,
        .image_lookup = ctl_pull_image_lookup, /* pulled and imported images: their config */
        .image_lookup_arg = p->pull ? p->pull : hold,
        .image_dir = ctl_pull_image_dir,
        .image_has_path = sl_image_has_path, /* a mount point the image lacks: refused here */
        .gang_members = p->gang_members,
    };
    sl_error_t err = SL_ERROR_INIT;
    json_t *claims = NULL;
    char *claims_gres = NULL;
    if (pod_claims(c, p, pod, model, &claims, &claims_gres) < 0) {
        ctl_pull_release(hold);
        return -1;
    }
    cfg.claims = claims;
    cfg.claims_gres = claims_gres;
    char *names = ctl_service_names_path(c, p->ns);
    cfg.service_names = names;
    json_t *cms = referenced(c, model, p->ns, 0);
    json_t *secrets = referenced(c, model, p->ns, 1);
    sl_translate_result_t *r = NULL;
    int rc = sl_translate(model, cms, secrets, &cfg, &r, errs, &err);
    free(names);
    free(claims_gres);
    ctl_pull_release(hold);
    json_decref(cms);
    json_decref(secrets);
    json_decref(claims);
    if (rc == 0) {
        *out = r;
        return 0;
    }
    if (errno == ENOENT) {
        failed(c, p, pod, 0, "%s", err.text);
    } else {
        char *agg = sl_err_fields_aggregate(errs);
        failed(c, p, pod, 1, "%s", *agg ? agg : err.text);
        free(agg);
    }
    return -1;
}

/* the job's environment into env (8 slots): the count */
static int job_env(sl_ctl_t *c, ctl_sub_t *p, const job_ident_t *id, char *env[8])
{
    int ne = 0;
    env[ne++] = sl_slurm_job_path(c->o.slurm_bin_dir);
    env[ne++] = sl_xasprintf("HOME=%s", id->home);
    env[ne++] = sl_xasprintf("USER=%s", id->uname);
    env[ne++] = sl_xasprintf("LOGNAME=%s", id->uname);
    env[ne++] = sl_xasprintf("SLURMLINK_POD_UID=%s", p->uid);
    if (c->o.slurm_conf)
        env[ne++] = sl_xasprintf("SLURM_CONF=%s", c->o.slurm_conf);
    env[ne] = NULL;
    return ne;
}

/* the job submitted in-process and its id recorded on the pod */
/* slurm.create_accounts: the namespace's account and the user's
 * association made, said on the pod; 0, or -1 (the pod waits as without) */
static int account_made(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const job_ident_t *id)
{
    const char *account = id->account ? id->account : p->ns;
    sl_error_t err = SL_ERROR_INIT;
    int r = ctl_account_make(c, p->ns, account, id->uname, &err);
    if (r < 0)
        sl_warn("namespace %s: Slurm account %s for user %s: %s", p->ns, account, id->uname,
                err.text);
    else
        ctl_event(c, pod, "Normal", "SlurmAccountCreated",
                  "Slurm account %s and user %s's association with it made "
                  "(slurm.create_accounts)",
                  account, id->uname);
    sl_error_clear(&err);
    return r;
}

/* Slurm refused the job for its account: the pod waits (retried with
 * back-off, so an administrator's sacctmgr lets it go on), and so says the
 * namespace */
static void account_missing(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const job_ident_t *id,
                            const char *slurm_text)
{
    char *text = ctl_account_missing_text(id->account, id->uname, slurm_text);
    fail_with(c, p, pod, 0, CTL_NS_ACCOUNT_COND, text);
    ctl_account_ns_condition(c, p->ns, 1, text);
    free(text);
}

/* the pod waited for its account before this submission */
static int waited_for_account(json_t *pod)
{
    json_t *cond = sl_kube_condition(sl_kube_path(pod, "status.conditions"), "PodScheduled");
    const char *reason = json_string_value(json_object_get(cond, "reason"));
    return reason && !strcmp(reason, CTL_NS_ACCOUNT_COND);
}

static void submit_job(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const sl_translate_result_t *r,
                       const job_ident_t *id, sl_error_t *err)
{
    char *env[8];
    int ne = job_env(c, p, id, env);
    sl_slurm_submit_t req = {
        .script = r->script,
        .env = (const char *const *)env,
        .options = (const char *const *)r->options,
        .uid = id->uid,
        .gid = id->gid,
        .work_dir = r->pod_dir,
    };
    uint32_t job_id = 0;
    int retry = 0;
    long long t0 = sl_now_ms();
    int rc = sl_slurm_submit(&req, &job_id, &retry, err), e = errno;
    /* Slurm says the same of a partition closed to the account: only a
     * missing association is the namespace's account to wait for */
    int missing = rc < 0 && !retry && sl_slurm_invalid_account(e) &&
                  ctl_account_absent(c, id->account, id->uname);
    int made = missing && atomic_load(&c->create_accounts) && account_made(c, p, pod, id) == 0;
    /* slurmdbd hands slurmctld the new association a moment later */
    for (int i = 0; made && i < 10 && (i == 0 || (rc < 0 && sl_slurm_invalid_account(e))); i++) {
        if (i)
            sl_sleep_ms(100);
        rc = sl_slurm_submit(&req, &job_id, &retry, err);
        e = errno;
    }
    for (int i = 0; i < ne; i++)
        free(env[i]);
    if (rc < 0) {
        if (retry) {
            p->slurm_down = 1; /* no submitting until a poll gets an answer */
            atomic_store(&c->submission->paused, 1);
            failed(c, p, pod, 0, "Slurm job submission failed: %s", err->text);
        } else if (missing && sl_slurm_invalid_account(e)) {
            account_missing(c, p, pod, id, err->text);
        } else {
            failed(c, p, pod, 1, "Slurm refused the job: %s", err->text);
        }
        return;
    }
    if (made || waited_for_account(pod))
        ctl_account_ns_condition(c, p->ns, 0,
                                 made ? "made by slurmlinkd (slurm.create_accounts)"
                                      : "a pod of the namespace was submitted");
    SL_FAULT("after-submit"); /* the test build's crash between submit and record */
    sl_metrics_submission(1, (double)(sl_now_ms() - p->seen_ms) / 1000.0);
    p->job_id = job_id; /* recorded on the pod by ctl_submit_collect */
    /* that write drafted here, by each worker in parallel: the controller's
     * batch then holds the store's writer lock for its rows alone */
    p->draft = ctl_pod_draft_own(pod, p->uid, sub_submitted, p);
    p->tries = 0;
    sl_debug("pod %s/%s: Slurm job %u (%lld ms)", p->ns, p->name, job_id, sl_now_ms() - t0);
}

/* s's job id written onto its pod (once), from the worker's draft if it
 * made one (used up here) */
static void record_job(sl_ctl_t *c, ctl_sub_t *s)
{
    if (!s->job_id || s->recorded)
        return;
    s->recorded = 1;
    sl_error_t err = SL_ERROR_INIT;
    json_t *out = NULL;
    int rc = s->draft ? ctl_pod_draft_write_own(c, s->draft, &out, &err)
                      : ctl_pod_mutate_own(c, s->ns, s->name, s->uid, sub_submitted, s, &out, &err);
    ctl_pod_draft_free(s->draft);
    s->draft = NULL;
    if (rc < 0)
        sl_warn("pod %s/%s: job %u submitted but not recorded (%s); %s", s->ns, s->name, s->job_id,
                err.text, errno == ENOENT ? "the pod's deletion cancels it" : "it will be adopted");
    else
        s->stored = 1;
    if (s->stored && ctl_status_just_submitted(out, s->job_id))
        s->submitted_rv = sl_kube_rv(out);
    json_decref(out);
}

/* The job ids of finished submissions written onto their pods: up to
 * RECORD_BATCH in one store transaction, so a burst of pods pays one
 * commit, not one each (a transaction that fails to commit is written again
 * pod by pod). The workers drafted each pod's change (the copy, the status
 * and the dump), so the batch holds the store's writer lock for the rows
 * and the commit, not for that. Controller thread. */
#define RECORD_BATCH 64
static void record_jobs(sl_ctl_t *c, ctl_sub_t *list)
{
    while (list) {
        ctl_sub_t *end = list;
        size_t n = 0;
        for (; end && n < RECORD_BATCH; end = end->next)
            n += end->job_id != 0;
        sl_error_t err = SL_ERROR_INIT;
        int batch = n > 1 && sl_store_txn_begin(c->store, &err) == 0;
        uint64_t mark = ctl_own_mark(c);
        for (ctl_sub_t *s = list; s != end; s = s->next)
            record_job(c, s);
        if (batch && sl_store_txn_commit(c->store, &err) < 0) {
            sl_warn("the job ids of %zu pods were not written in one transaction (%s): "
                    "one by one",
                    n, err.text);
            ctl_own_undo(c, mark); /* those revisions were never used */
            for (ctl_sub_t *s = list; s != end; s = s->next) {
                s->recorded = s->stored = 0;
                s->submitted_rv = 0; /* that version was not committed */
                record_job(c, s);
            }
        }
        list = end;
    }
}

/* the pod folder written as the job's user, then the job submitted */
static void write_and_submit(sl_ctl_t *c, ctl_sub_t *p, json_t *pod, const sl_translate_result_t *r,
                             const job_ident_t *id)
{
    sl_error_t err = SL_ERROR_INIT;
    if (sl_podfs_write(r, 1, id->uid, id->gid, &err) < 0) {
        /* the tenant reads the reason; the paths stay in the daemon's log */
        int e = errno;
        sl_warn("pod %s/%s: cannot write the pod folder: %s", p->ns, p->name, err.text);
        failed(c, p, pod, 0, "cannot write the pod folder: %s", e ? strerror(e) : "error");
        return;
    }
    submit_job(c, p, pod, r, id, &err);
}

/* a submission on the controller thread that borrows p's strings and pull
 * (sub_done puts back what it changed) */
static ctl_sub_t sub_borrow(ctl_pod_t *p)
{
    return (ctl_sub_t){.uid = p->uid,
                       .ns = p->ns,
                       .name = p->name,
                       .pull = p->pull,
                       .seen_ms = p->seen_ms,
                       .tries = p->tries,
                       .next_try_ms = p->next_try_ms};
}

static void sub_done(ctl_pod_t *p, const ctl_sub_t *s)
{
    p->tries = s->tries;
    p->next_try_ms = s->next_try_ms;
    p->gave_up |= s->permanent;
}

/* the pod's model, identity and translation, the folder written: 0 with
 * *out (the caller destroys it) and the identity (uid, gid),
 * or -1 with the pod marked failed. Controller thread. */
int ctl_pod_prepare(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, sl_translate_result_t **out, uid_t *uid,
                    gid_t *gid)
{
    return ctl_pod_prepare_member(c, p, pod, NULL, out, uid, gid);
}

int ctl_pod_prepare_member(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, const json_t *members,
                           sl_translate_result_t **out, uid_t *uid, gid_t *gid)
{
    ctl_sub_t s = sub_borrow(p);
    s.gang_members = members;
    sl_error_t *errs = sl_error_new_invalid();
    sl_pod_t *model = sl_pod_parse(pod, errs);
    int rc = -1;
    if (!model) {
        char *agg = sl_err_fields_aggregate(errs);
        failed(c, &s, pod, 1, "invalid pod: %s", agg);
        free(agg);
        sl_error_free(errs);
        sub_done(p, &s);
        return -1;
    }
    job_ident_t id = {.uid = c->uid, .gid = c->gid};
    sl_translate_result_t *r = NULL;
    if (job_identity(c, &s, pod, model, &id) == 0 &&
        translate_pod(c, &s, pod, model, errs, &id, &r) == 0) {
        sl_error_t err = SL_ERROR_INIT;
        if (sl_podfs_write(r, 1, id.uid, id.gid, &err) < 0) {
            int e = errno;
            sl_warn("pod %s/%s: cannot write the pod folder: %s", p->ns, p->name, err.text);
            failed(c, &s, pod, 0, "cannot write the pod folder: %s", e ? strerror(e) : "error");
        } else {
            *out = r;
            r = NULL;
            *uid = id.uid;
            *gid = id.gid;
            rc = 0;
        }
    }
    sub_done(p, &s);
    pthread_mutex_lock(&c->lock);
    ctl_due_note(c, p);
    pthread_mutex_unlock(&c->lock);
    sl_translate_result_destroy(r);
    free(id.uname);
    free(id.account);
    free(id.home);
    sl_pod_destroy(model);
    sl_error_free(errs);
    return rc;
}

/* ---- the workers' side -------------------------------------------------- */

/* A submission queued behind SUB_PARSED_PER_WORKER per worker holds no
 * parsed pod (its stored object ~4.4 KB, its model ~1.2 KB): the worker
 * that takes it reads the pod again. So the memory of a burst the workers
 * fall behind is bounded by the workers, not by the burst. */
#define SUB_PARSED_PER_WORKER 2

static void sub_lighten(ctl_sub_t *s)
{
    sl_pod_destroy(s->model);
    json_decref(s->pod);
    s->model = NULL;
    s->pod = NULL;
}

/* a light submission's pod read from the store and parsed again (worker):
 * -1 when it is gone, replaced (another uid) or no longer parses */
static int sub_reload(ctl_sub_t *s)
{
    s->pod = ctl_pod_get(s->ctl, s->ns, s->name, s->uid);
    if (!s->pod)
        return -1;
    sl_error_t *errs = sl_error_new_invalid();
    s->model = sl_pod_parse(s->pod, errs);
    sl_error_free(errs);
    if (!s->model) {
        json_decref(s->pod);
        s->pod = NULL;
        return -1;
    }
    sl_metrics_submission_reread();
    return 0;
}

/* A worker: identity, translation, pod folder, submission, the job id
 * stored (or the failure). Touches no ctl_pod_t: only s. */
static void sub_run(sl_ctl_t *c, ctl_sub_t *s)
{
    if (atomic_load(&c->submission->paused)) {
        s->deferred = 1; /* each would fail the same way, and count a try */
        return;
    }
    if (!s->pod && sub_reload(s) < 0) {
        s->deferred = 1; /* the controller looks at the pod again */
        return;
    }
    sl_error_t *errs = sl_error_new_invalid();
    job_ident_t id = {.uid = c->uid, .gid = c->gid};
    sl_translate_result_t *r = NULL;
    if (job_identity(c, s, s->pod, s->model, &id) == 0 &&
        translate_pod(c, s, s->pod, s->model, errs, &id, &r) == 0)
        write_and_submit(c, s, s->pod, r, &id);
    sl_translate_result_destroy(r);
    free(id.uname);
    free(id.account);
    free(id.home);
    sl_error_free(errs);
}

static void sub_free(ctl_sub_t *s)
{
    if (!s)
        return;
    record_job(s->ctl, s); /* a submission finished but never collected */
    ctl_pod_draft_free(s->draft);
    ctl_pull_release(s->pull);
    sl_pod_destroy(s->model);
    json_decref(s->pod);
    free(s->uid);
    free(s->ns);
    free(s->name);
    free(s);
}

static void sub_apply(sl_ctl_t *c, ctl_sub_t *s);

/* p's submission, on its own copy, handed to the workers (without workers,
 * none could start, it runs here) */
static void hand_over(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, sl_pod_t *model)
{
    ctl_sub_t *s = sl_xcalloc(1, sizeof(*s));
    *s = sub_borrow(p);
    s->uid = sl_xstrdup(p->uid);
    s->ns = sl_xstrdup(p->ns);
    s->name = sl_xstrdup(p->name);
    s->ctl = c;
    s->pod = json_incref(pod);
    s->model = model;
    p->pull = NULL; /* used; a retry asks the registry again */
    p->submitting = 1;
    if (c->submission->pool) {
        ctl_subpool_t *pool = c->submission->pool;
        if (ctl_subpool_busy(pool) >= (size_t)ctl_subpool_workers(pool) * SUB_PARSED_PER_WORKER)
            sub_lighten(s);
        ctl_subpool_push(pool, s);
        SL_FAULT("submission-handed"); /* the test build: a worker's hand-back during the pass */
        return;
    }
    sub_run(c, s);
    record_job(c, s);
    sub_apply(c, s);
}

void ctl_submit(sl_ctl_t *c, ctl_pod_t *p, json_t *pod)
{
    if (p->submitting || submit_waits(c, p))
        return;
    if (atomic_load(&c->submission->paused)) { /* a worker found slurmctld down or busy */
        p->pending_submit = 1;
        return;
    }
    p->pending_submit = 0;
    sl_error_t *errs = sl_error_new_invalid();
    sl_pod_t *model = sl_pod_parse(pod, errs);
    if (!model) {
        char *agg = sl_err_fields_aggregate(errs);
        ctl_sub_t s = sub_borrow(p);
        failed(c, &s, pod, 1, "invalid pod: %s", agg);
        sub_done(p, &s);
        free(agg);
        sl_error_free(errs);
        return;
    }
    sl_error_free(errs);
    if (!ctl_pull_ready(c, p, pod, model)) { /* a worker pulls, or a back-off */
        sl_pod_destroy(model);
        return;
    }
    hand_over(c, p, pod, model);
}

/* a finished submission applied to its pod (controller thread) */
static void sub_apply(sl_ctl_t *c, ctl_sub_t *s)
{
    if (s->slurm_down)
        ctl_slurm_set(c, 0); /* stop submitting until a poll gets an answer */
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, s->uid);
    if (p) {
        p->submitting = 0;
        if (s->job_id)
            ctl_pod_set_job(c, p, s->job_id);
        p->job_recorded = s->job_id && s->stored;
        if (s->job_id && s->submitted_rv)
            ctl_view_submitted(p, s->job_id, s->submitted_rv);
        if (s->deferred)
            p->pending_submit = 1; /* again once a poll gets an answer */
        else
            sub_done(p, s);
        ctl_due_note(c, p); /* a back-off, or a deletion that waited */
    }
    pthread_mutex_unlock(&c->lock);
    if (!p && s->job_id)
        /* deleted (forced) while its job was being submitted: the deletion
         * found no job to cancel, nor the folder written after it */
        sl_info("pod %s/%s: deleted while Slurm job %u was submitted: cancelling it", s->ns,
                s->name, s->job_id);
    if (!p) /* the job (if any) cancelled, then the folder removed */
        ctl_removed_kill(c, s->ns, s->name, s->uid, s->uid, s->job_id, 0, 0);
    sub_free(s);
}

void ctl_submit_collect(sl_ctl_t *c)
{
    ctl_sub_t *s = c->submission->pool ? ctl_subpool_take(c->submission->pool) : NULL;
    record_jobs(c, s);
    while (s) {
        ctl_sub_t *next = s->next;
        sub_apply(c, s);
        s = next;
    }
}

static void kick_store(void *arg) { sl_store_kick(arg); }

void ctl_submit_start(sl_ctl_t *c)
{
    c->submission = sl_xcalloc(1, sizeof(*c->submission));
    c->submission->pool = ctl_subpool_create(c, c->o.submit_workers, sub_run, kick_store, c->store);
    if (!c->submission->pool)
        sl_warn("no submission worker could start: the controller thread submits");
    else
        sl_info("%d submission workers", ctl_subpool_workers(c->submission->pool));
}

int sl_ctl_set_workers(sl_ctl_t *c, int workers)
{
    if (!c->submission || !c->submission->pool)
        return -1;
    int old = ctl_subpool_workers(c->submission->pool);
    int n = ctl_subpool_resize(c->submission->pool, workers);
    sl_info("submission workers: %d -> %d", old, n);
    return n;
}

void ctl_submit_stop(sl_ctl_t *c)
{
    if (!c->submission)
        return;
    ctl_subpool_destroy(c->submission->pool, sub_free);
    free(c->submission);
    c->submission = NULL;
}

void ctl_submit_resume(sl_ctl_t *c) { atomic_store(&c->submission->paused, 0); }

void ctl_submit_queue_metric(sl_ctl_t *c, long long now)
{
    if (now < c->submission->next_queue_metric_ms)
        return;
    sl_metrics_queue_length(ctl_submit_queue_length(c)); /* a walk of the table */
    c->submission->next_queue_metric_ms = now + c->o.node_poll_ms;
}

size_t ctl_submit_queue_length(sl_ctl_t *c)
{
    size_t n = 0;
    for (ctl_pod_t *p = ctl_pod_next(c, NULL); p; p = ctl_pod_next(c, p))
        n += !p->job_id && !p->gave_up && !p->deleting && !p->terminal;
    return n;
}
