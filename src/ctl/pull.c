/* pull.c — registry images of a pod pulled before it becomes a Slurm job
 * (docs/images.md), on a worker thread: the controller thread never waits
 * for a registry, and no GPU is held while an image is fetched.
 *
 * A pod needs a pull when a container runs under charliecloud, apptainer,
 * singularity or enroot (the slurmlink.io/runtime annotation or the default
 * runtime) with a registry reference that is not an imported image of the
 * store; for the last three the pulled tree is converted once per digest
 * (a SIF, a squashfs: src/image/convert.c) and the pod runs that file.
 * ctl_pull_ready() starts one worker per pod; the worker pulls the images in order, records
 * the Pulling / Pulled / Failed events and sets done; the event it stores
 * wakes the controller, whose next due pass (due_of) calls ctl_submit again,
 * which takes the result. The struct is shared by two owners (refs): the
 * pod's entry (ctl_pod_remove cancels it: the worker's tools are killed)
 * and the worker. Workers run at most images.max_pulls at once, and
 * images.max_pulls_per_namespace of one namespace (pullpool.h); a pod that
 * finds no slot asks again POOL_RETRY_MS later. A pod with credentials pulls
 * into its job user's private part of the store (sl_image_private_store),
 * one without into the shared store; either way a failed manifest request
 * that is not a registry's answer reads "cannot reach registry HOST". */
#include "ctl/internal.h"

#include "auth/policy.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/b64.h"
#include "common/xalloc.h"
#include "ctl/podstatus.h"
#include "ctl/pullpool.h"
#include "image/image.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "podfs/podfs.h"
#include "runtime/runtime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BACKOFF_FIRST_MS 10000
#define BACKOFF_MAX_MS 300000
#define POOL_RETRY_MS 500

/* the pulls' state (submission.h) */
struct ctl_pulls {
    ctl_pullpool_t *pool; /* how many pulls run at once (pullpool.h) */
    atomic_int running;   /* pull workers; sl_ctl_destroy waits for them (ctl_pull_drain) */
};

void ctl_pull_start(sl_ctl_t *c)
{
    c->pulls = sl_xcalloc(1, sizeof(*c->pulls));
    c->pulls->pool = ctl_pullpool_create(c->o.image_max_pulls, c->o.image_max_pulls_per_ns);
}

void ctl_pull_drain(sl_ctl_t *c)
{
    while (c->pulls && atomic_load(&c->pulls->running) > 0) /* their tools have time limits */
        sl_sleep_ms(50);
}

void ctl_pull_stop(sl_ctl_t *c)
{
    if (!c->pulls)
        return;
    ctl_pullpool_destroy(c->pulls->pool);
    free(c->pulls);
    c->pulls = NULL;
}

struct ctl_pull {
    atomic_int refs;
    atomic_int done;
    atomic_int cancel; /* the pod is gone: the tools are killed (ctl_pull_cancel) */
    sl_ctl_t *c;
    char *ns, *name, *uid;
    char *store;    /* the shared store, or the job user's private part (pulls with credentials) */
    char *authfile; /* the pod's pull secrets merged (NULL: none); removed at the end */
    int site_auth;  /* authfile holds the site's credentials (images.credentials) */
    uid_t job_uid;  /* with authfile: the job's user and group, who run the pull's tools
                       unless site_auth (the site's credentials are not the tenant's) */
    gid_t job_gid;
    size_t n;
    char **images;             /* as the pod names them */
    char **policies;           /* Always, IfNotPresent, Never */
    sl_image_pulled_t *pulled; /* [n] */
    char **converted;          /* [n] the SIF or squashfs the pod's runtime runs (NULL: the tree) */
    const char *runtime;       /* the pod's runtime (c->o's or a static name) */
    int failed;                /* index of the image that failed, or -1 */
    json_t *meta_keep;         /* image.json documents the translate meta points into */
    const char ***vecs;        /* their string vectors (each its own allocation) */
    size_t nvecs;
    char *error; /* why the failed image failed */
};

static void pull_free(ctl_pull_t *w)
{
    if (w->authfile)
        unlink(w->authfile);
    for (size_t i = 0; i < w->n; i++) {
        free(w->images[i]);
        free(w->policies[i]);
        sl_image_pulled_free(&w->pulled[i]);
        free(w->converted[i]);
    }
    free(w->converted);
    free(w->images);
    free(w->policies);
    json_decref(w->meta_keep);
    for (size_t i = 0; i < w->nvecs; i++)
        free(w->vecs[i]);
    free(w->vecs);
    free(w->pulled);
    free(w->authfile);
    free(w->error);
    free(w->ns);
    free(w->name);
    free(w->uid);
    free(w->store);
    free(w);
}

void ctl_pull_release(ctl_pull_t *w)
{
    if (w && atomic_fetch_sub(&w->refs, 1) == 1)
        pull_free(w);
}

void ctl_pull_cancel(ctl_pull_t *w)
{
    if (!w)
        return;
    atomic_store(&w->cancel, 1);
    ctl_pull_release(w);
}

int ctl_pull_done(const ctl_pull_t *w) { return w && atomic_load(&w->done); }

const char *ctl_pull_error(const ctl_pull_t *w)
{
    return ctl_pull_done(w) && w->failed >= 0 ? w->error : NULL;
}

/* the pod's runtime: its annotation, else the default */
static const char *pod_runtime(sl_ctl_t *c, const sl_pod_t *model)
{
    const char *rt = sl_pod_annotation(model, SL_ANN_RUNTIME);
    return rt ? rt : c->o.default_runtime;
}

/* what the puller makes for runtime rt (its ops' pull; NONE for an unknown one) */
static sl_rt_pull_t pull_of(const char *rt)
{
    const sl_runtime_ops_t *ops = rt ? sl_runtime_get(rt) : NULL;
    return ops ? ops->pull : SL_RT_PULL_NONE;
}

/* the file a runtime runs a pulled image from: 1 with *f, or 0 (a tree) */
static int format_of(const char *rt, sl_image_format_t *f)
{
    sl_rt_pull_t p = pull_of(rt);
    if (p != SL_RT_PULL_SIF && p != SL_RT_PULL_SQUASHFS)
        return 0;
    if (f)
        *f = p == SL_RT_PULL_SIF ? SL_IMAGE_SIF : SL_IMAGE_SQUASHFS;
    return 1;
}

/* Does container k need a pull: charliecloud, apptainer, singularity or
 * enroot, a registry reference, not imported? */
static int needs_pull(sl_ctl_t *c, const sl_pod_t *model, const sl_pod_container_t *k)
{
    if (!k->image || !c->o.image_store || sl_runtime_image_has_scheme(k->image) ||
        sl_image_ref_reason(k->image))
        return 0;
    const char *rt = pod_runtime(c, model);
    if (pull_of(rt) == SL_RT_PULL_NONE)
        return 0;
    char *dir = sl_runtime_image_dir(c->o.image_store, k->image);
    int imported = dir && access(dir, F_OK) == 0;
    free(dir);
    return !imported;
}

/* the auths of one kubernetes.io/dockerconfigjson secret into auths */
static void add_secret(sl_ctl_t *c, const char *ns, const char *name, json_t *auths)
{
    json_t *s = name ? sl_store_get(c->store, "secrets", ns, name) : NULL;
    const char *type = json_string_value(json_object_get(s, "type"));
    const char *b64 =
        json_string_value(json_object_get(json_object_get(s, "data"), ".dockerconfigjson"));
    size_t n = 0;
    char *dec = type && !strcmp(type, "kubernetes.io/dockerconfigjson") && b64
                    ? sl_b64_decode(b64, strlen(b64), &n)
                    : NULL;
    if (dec) {
        json_t *cfg = json_loadb(dec, n, 0, NULL);
        json_t *a = json_object_get(cfg, "auths");
        if (json_is_object(a))
            json_object_update_missing(auths, a); /* the first secret naming a registry wins */
        json_decref(cfg);
        free(dec);
    }
    json_decref(s);
}

/* the pod's pull secrets, then its service account's, then the site's
 * (images.credentials), as one authfile (NULL: none); *has_site: an entry
 * of the site's is in it */
static char *pod_authfile(sl_ctl_t *c, json_t *pod, const char *ns, const char *uid,
                          int *has_site)
{
    json_t *spec = json_object_get(pod, "spec"), *auths = json_object(), *e;
    size_t i;
    json_array_foreach(json_object_get(spec, "imagePullSecrets"), i, e)
        add_secret(c, ns, json_string_value(json_object_get(e, "name")), auths);
    const char *san = json_string_value(json_object_get(spec, "serviceAccountName"));
    json_t *sa = sl_store_get(c->store, "serviceaccounts", ns, san ? san : "default");
    json_array_foreach(json_object_get(sa, "imagePullSecrets"), i, e)
        add_secret(c, ns, json_string_value(json_object_get(e, "name")), auths);
    json_decref(sa);
    /* the site's credentials last: a tenant's own secret for a registry wins */
    json_t *site = c->o.image_credentials ? json_load_file(c->o.image_credentials, 0, NULL) : NULL;
    size_t own = json_object_size(auths);
    if (json_is_object(json_object_get(site, "auths")))
        json_object_update_missing(auths, json_object_get(site, "auths"));
    else if (c->o.image_credentials)
        sl_warn("images.credentials %s: no \"auths\" object; not used", c->o.image_credentials);
    json_decref(site);
    *has_site = json_object_size(auths) > own;
    char *path = NULL;
    if (json_object_size(auths) && c->o.state_dir) {
        json_t *doc = json_pack("{s:O}", "auths", auths);
        char *text = json_dumps(doc, 0);
        path = sl_xasprintf("%s/pull-auth-%s.json", c->o.state_dir, uid);
        if (sl_write_file(path, text, strlen(text), 0600, NULL) < 0) {
            free(path);
            path = NULL;
        }
        free(text);
        json_decref(doc);
    }
    json_decref(auths);
    return path;
}

/* the pod, for an event the worker records (NULL when it is gone) */
static json_t *pod_of(const ctl_pull_t *w) { return ctl_pod_get(w->c, w->ns, w->name, w->uid); }

/* Kubernetes' default: Always for :latest or no tag, else IfNotPresent */
static const char *policy_of(const char *image, const char *given)
{
    if (given)
        return given;
    sl_image_ref_t r;
    if (sl_image_ref_parse(image, &r, NULL) < 0)
        return "IfNotPresent";
    int latest = !r.digest && (!r.explicit_tag || !strcmp(r.tag, "latest"));
    sl_image_ref_free(&r);
    return latest ? "Always" : "IfNotPresent";
}

/* one image for the worker: 0, or -1 with w->error */
static int pull_one(ctl_pull_t *w, size_t i)
{
    const char *img = w->images[i], *policy = w->policies[i];
    sl_image_pulled_t *out = &w->pulled[i];
    sl_error_t err = SL_ERROR_INIT;
    json_t *pod = pod_of(w);
    int rc;
    /* a recorded tag is used unasked only when it was resolved without any
     * credential (a public image) and this pod has none: a private image in
     * the store is checked with the registry with this pod's own ones */
    if (!strcmp(policy, "Never") || (!strcmp(policy, "IfNotPresent") && !w->authfile)) {
        rc = sl_image_lookup_pulled(w->store, img, out, &err);
        int usable = rc == 0 && out->anonymous;
        if (usable) {
            ctl_event(w->c, pod, "Normal", "Pulled",
                      "Container image \"%s\" already present on machine", img);
            json_decref(pod);
            return 0;
        }
        if (!strcmp(policy, "Never")) {
            w->error = rc == 0 ? sl_xasprintf("Container image \"%s\" is present but was pulled "
                                              "with credentials; with pull policy Never they "
                                              "cannot be checked for this pod",
                                              img)
                               : sl_xasprintf("Container image \"%s\" is not present with pull "
                                              "policy of Never",
                                              img);
            ctl_event(w->c, pod, "Warning", "ErrImageNeverPull", "%s", w->error);
            json_decref(pod);
            return -1;
        }
        sl_image_pulled_free(out);
    }
    ctl_event(w->c, pod, "Normal", "Pulling", "Pulling image \"%s\"", img);
    sl_image_pull_opts_t o = {.authfile = w->authfile,
                              .cert_dir = w->c->o.image_ca_dir,
                              .store_limit = w->c->o.image_store_limit,
                              .image_limit = w->c->o.image_max_size,
                              .unpack_user = w->c->o.image_unpack_user,
                              .cred_uid = w->site_auth ? 0 : w->job_uid,
                              .cred_gid = w->site_auth ? 0 : w->job_gid,
                              .resolve_timeout_s = w->c->o.image_manifest_timeout,
                              .cancel = &w->cancel,
                              .tenant_errors = 1};
    long long t0 = sl_now_ms();
    rc = sl_image_pull(w->store, img, &o, out, &err);
    double s = (double)(sl_now_ms() - t0) / 1000.0;
    if (rc == 0) {
        ctl_event(w->c, pod, "Normal", "Pulled",
                  "Successfully pulled image \"%s\" in %.3fs (%.3fs including waiting). Image "
                  "size: %llu bytes.",
                  img, s, s, out->size);
    } else {
        w->error = sl_xasprintf("Failed to pull image \"%s\": %s", img, err.text);
        ctl_event(w->c, pod, "Warning", "Failed", "%s", w->error);
        ctl_event(w->c, pod, "Warning", "Failed", "Error: ErrImagePull");
    }
    json_decref(pod);
    return rc;
}

/* the SIF or squashfs of image i when the pod's runtime runs one: once per
 * digest, under its lock (sl_image_convert); 0, or -1 with w->error */
static int convert_one(ctl_pull_t *w, size_t i)
{
    sl_image_format_t f;
    if (!format_of(w->runtime, &f))
        return 0;
    sl_error_t err = SL_ERROR_INIT;
    const char *tool = f == SL_IMAGE_SIF ? w->runtime : NULL;
    if (sl_image_convert(w->store, w->pulled[i].digest, f, tool, 0, &w->converted[i], NULL, &err) ==
        0)
        return 0;
    w->error = sl_xasprintf("Failed to pull image \"%s\": %s", w->images[i], err.text);
    json_t *pod = pod_of(w);
    ctl_event(w->c, pod, "Warning", "Failed", "%s", w->error);
    ctl_event(w->c, pod, "Warning", "Failed", "Error: ErrImagePull");
    json_decref(pod);
    return -1;
}

/* pull_one, then the pod's use record under the digest's lock: an image
 * removed between the two (slurmlink image rm / prune, the store limit) is
 * pulled again, so the pod is never submitted with a folder that is gone */
static int pull_and_claim(ctl_pull_t *w, size_t i)
{
    for (int tries = 0; tries < 3; tries++) {
        if (pull_one(w, i) < 0)
            return -1;
        sl_error_t err = SL_ERROR_INIT;
        if (sl_image_use_claim(w->store, w->pulled[i].digest, w->uid, w->ns, w->name, &err) == 0)
            return convert_one(w, i);
        if (errno != ENOENT) {
            w->error = sl_xasprintf("Failed to pull image \"%s\": %s", w->images[i], err.text);
            json_t *pod = pod_of(w);
            ctl_event(w->c, pod, "Warning", "Failed", "%s", w->error);
            json_decref(pod);
            return -1;
        }
        sl_image_pulled_free(&w->pulled[i]); /* removed meanwhile: once more */
    }
    w->error = sl_xasprintf("Failed to pull image \"%s\": removed from the store while pulled",
                            w->images[i]);
    return -1;
}

static void *pull_main(void *arg)
{
    ctl_pull_t *w = arg;
    for (size_t i = 0; i < w->n; i++)
        if (!w->store || pull_and_claim(w, i) < 0) {
            w->failed = (int)i;
            break;
        }
    ctl_pullpool_give(w->c->pulls->pool, w->ns);
    atomic_store(&w->done, 1);
    sl_store_kick(w->c->store); /* the controller takes the result */
    atomic_fetch_sub(&w->c->pulls->running, 1);
    ctl_pull_release(w);
    return NULL;
}

/* The job's user and group as submit.c's job_identity will find them: the
 * creator's mapped Unix user (else the default job user), the pod's
 * runAsGroup when that user may use it. 0, or -1 with err. */
static int job_owner(sl_ctl_t *c, json_t *pod, const sl_pod_t *model, uid_t *uid, gid_t *gid,
                     sl_error_t *err)
{
    const char *kuser = sl_kube_annotation(pod, SL_ANN_USER);
    struct sl_authz_policy *policy = atomic_load(&c->policy);
    char *uname = NULL;
    *uid = c->uid;
    *gid = c->gid;
    if (policy && kuser && sl_authz_unix_user(policy, kuser, uid, gid, &uname, err) < 0)
        return -1;
    int64_t want = model->run_as_group;
    if (want >= 0 && want <= 0x7fffffff &&
        sl_authz_unix_group_ok(uname ? uname : c->o.run_as, *gid, (gid_t)want))
        *gid = (gid_t)want;
    free(uname);
    return 0;
}

/* where w's images go: the shared store without credentials, else the
 * private part of the job's user and group, which no other tenant reads,
 * the pull's tools run as them (NULL, and w->error, when it cannot be made) */
static char *pull_store(sl_ctl_t *c, ctl_pull_t *w, json_t *pod, const sl_pod_t *model)
{
    if (!w->authfile)
        return sl_xstrdup(c->o.image_store);
    sl_error_t err = SL_ERROR_INIT;
    char *store = job_owner(c, pod, model, &w->job_uid, &w->job_gid, &err) == 0
                      ? sl_image_private_store(c->o.image_store, w->job_uid, w->job_gid, &err)
                      : NULL;
    if (!store) {
        sl_warn("pod %s/%s: no private image store: %s", w->ns, w->name, err.text);
        w->error = sl_xasprintf("Failed to pull image \"%s\": no private image store for the "
                                "pod's user",
                                w->images[0]);
    }
    sl_error_clear(&err);
    return store;
}

/* does any container of model need a pull? */
static int pull_wanted(sl_ctl_t *c, const sl_pod_t *model)
{
    for (size_t i = 0; i < model->ninit + model->ncontainers; i++)
        if (needs_pull(c, model,
                       i < model->ninit ? &model->init_containers[i]
                                        : &model->containers[i - model->ninit]))
            return 1;
    return 0;
}

/* a worker for the images of model that need a pull (none: NULL) */
static ctl_pull_t *pull_new(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, const sl_pod_t *model)
{
    ctl_pull_t *w = NULL;
    for (size_t i = 0; i < model->ninit + model->ncontainers; i++) {
        const sl_pod_container_t *k =
            i < model->ninit ? &model->init_containers[i] : &model->containers[i - model->ninit];
        if (!needs_pull(c, model, k))
            continue;
        if (!w) {
            w = sl_xcalloc(1, sizeof(*w));
            size_t cap = model->ninit + model->ncontainers;
            w->images = sl_xcalloc(cap, sizeof(char *));
            w->policies = sl_xcalloc(cap, sizeof(char *));
            w->pulled = sl_xcalloc(cap, sizeof(*w->pulled));
            w->converted = sl_xcalloc(cap, sizeof(char *));
        }
        size_t j = 0;
        while (j < w->n && strcmp(w->images[j], k->image))
            j++;
        if (j < w->n)
            continue; /* one pull per image */
        w->images[w->n] = sl_xstrdup(k->image);
        w->policies[w->n++] = sl_xstrdup(policy_of(k->image, k->image_pull_policy));
    }
    if (!w)
        return NULL;
    atomic_init(&w->refs, 2);
    atomic_init(&w->done, 0);
    atomic_init(&w->cancel, 0);
    w->c = c;
    w->failed = -1;
    w->ns = sl_xstrdup(p->ns);
    w->name = sl_xstrdup(p->name);
    w->uid = sl_xstrdup(p->uid);
    w->authfile = pod_authfile(c, pod, p->ns, p->uid, &w->site_auth);
    w->store = pull_store(c, w, pod, model);
    const char *rt = pod_runtime(c, model);
    w->runtime = pull_of(rt) != SL_RT_PULL_NONE ? sl_runtime_get(rt)->name : "charliecloud";
    return w;
}

/* container statuses of one image: waiting reason/message, or imageID */
typedef struct mark {
    const char *image, *reason, *message, *image_id;
} mark_t;

static int mark_status(json_t *pod, void *arg)
{
    const mark_t *m = arg;
    int changed = ctl_status_init(pod, sl_kube_now_ns()); /* statuses before submission */
    const char *lists[] = {"initContainerStatuses", "containerStatuses"};
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *cs;
        json_array_foreach(json_object_get(json_object_get(pod, "status"), lists[l]), i, cs)
        {
            const char *img = json_string_value(json_object_get(cs, "image"));
            if (!img || strcmp(img, m->image))
                continue;
            if (m->image_id) {
                json_object_set_new(cs, "imageID", json_string(m->image_id));
            } else {
                json_t *w = json_pack("{s:s, s:s}", "reason", m->reason, "message", m->message);
                json_object_set_new(cs, "state", json_pack("{s:o}", "waiting", w));
            }
            changed = 1;
        }
    }
    return changed;
}

static void set_waiting(sl_ctl_t *c, ctl_pod_t *p, const char *image, const char *reason,
                        const char *message)
{
    mark_t m = {image, reason, message, NULL};
    ctl_pod_mutate(c, p->ns, p->name, p->uid, mark_status, &m, NULL, NULL);
}

void ctl_pull_record_ids(sl_ctl_t *c, ctl_pod_t *p)
{
    for (size_t i = 0; p->pull && i < p->pull->n; i++) {
        mark_t m = {p->pull->images[i], NULL, NULL, p->pull->pulled[i].image_id};
        if (m.image_id)
            ctl_pod_mutate(c, p->ns, p->name, p->uid, mark_status, &m, NULL, NULL);
    }
}

/* the pull failed: ErrImagePull now, ImagePullBackOff while the back-off runs */
static void pull_failed(sl_ctl_t *c, ctl_pod_t *p, json_t *pod)
{
    ctl_pull_t *w = p->pull;
    const char *img = w->images[w->failed];
    int never = !strcmp(w->policies[w->failed], "Never");
    set_waiting(c, p, img, never ? "ErrImageNeverPull" : "ErrImagePull", w->error);
    p->pull_backoff_ms = p->pull_backoff_ms ? p->pull_backoff_ms * 2 : BACKOFF_FIRST_MS;
    if (p->pull_backoff_ms > BACKOFF_MAX_MS)
        p->pull_backoff_ms = BACKOFF_MAX_MS;
    if (!never) {
        char *msg = sl_xasprintf("Back-off pulling image \"%s\"", img);
        ctl_event(c, pod, "Normal", "BackOff", "%s", msg);
        set_waiting(c, p, img, "ImagePullBackOff", msg);
        free(msg);
    }
    p->pull_wait = 1;
    p->next_try_ms = sl_now_ms() + p->pull_backoff_ms;
    ctl_pull_release(p->pull);
    p->pull = NULL;
}

/* the pulled digest folders are all still complete */
static int pulled_present(const ctl_pull_t *w)
{
    for (size_t i = 0; i < w->n; i++) {
        char *info = sl_xasprintf("%s/image.json", w->pulled[i].dir ? w->pulled[i].dir : "/");
        int there = access(info, F_OK) == 0;
        free(info);
        if (!there)
            return 0;
    }
    return 1;
}

static int pod_live(void *arg, const char *uid)
{
    sl_ctl_t *c = arg;
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, uid);
    int live = p && !p->terminal;
    pthread_mutex_unlock(&c->lock);
    return live;
}

void ctl_pull_sweep(sl_ctl_t *c)
{
    size_t n = c->o.image_store ? sl_image_use_sweep(c->o.image_store, pod_live, c) : 0;
    if (n)
        sl_debug("images: %zu use record(s) of pods no longer live dropped", n);
}

int ctl_pull_ready(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, const sl_pod_t *model)
{
    if (p->pull && !ctl_pull_done(p->pull))
        return 0;
    if (p->pull && p->pull->failed >= 0) {
        pull_failed(c, p, pod);
        return 0;
    }
    if (p->pull && !pulled_present(p->pull)) { /* removed by hand since: pull again */
        ctl_pull_release(p->pull);
        p->pull = NULL;
    }
    if (p->pull) {
        ctl_pull_record_ids(c, p);
        return 1; /* pulled: translate takes the folders (ctl_pull_image_dir) */
    }
    if (p->pull_wait && sl_now_ms() < p->next_try_ms)
        return 0;
    p->pull_wait = 0;
    if (!pull_wanted(c, model))
        return 1;
    if (!ctl_pullpool_take(c->pulls->pool, p->ns)) { /* as many pulls as may run: ask again soon */
        p->pull_wait = 1;
        p->next_try_ms = sl_now_ms() + POOL_RETRY_MS;
        return 0;
    }
    ctl_pull_t *w = pull_new(c, p, pod, model);
    if (!w) {
        ctl_pullpool_give(c->pulls->pool, p->ns);
        return 1;
    }
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add(&c->pulls->running, 1);
    if (pthread_create(&t, &a, pull_main, w) != 0) {
        atomic_fetch_sub(&c->pulls->running, 1);
        ctl_pullpool_give(c->pulls->pool, p->ns);
        w->error = sl_xasprintf("cannot start a pull: %s", strerror(errno));
        w->failed = 0;
        atomic_store(&w->done, 1);
        atomic_fetch_sub(&w->refs, 1);
    }
    pthread_attr_destroy(&a);
    p->pull = w;
    return 0;
}

const char *ctl_pull_image_dir(void *arg, const char *image)
{
    const ctl_pull_t *w = arg;
    for (size_t i = 0; w && i < w->n; i++)
        if (!strcmp(w->images[i], image) && w->pulled[i].rootfs)
            return w->converted[i] ? w->converted[i] : w->pulled[i].rootfs;
    return NULL;
}

/* the strings of a JSON array, kept in w->vecs (valid while w lives) */
static const char *const *vec(ctl_pull_t *w, json_t *a, size_t *n)
{
    *n = json_array_size(a);
    const char **v = sl_xcalloc(*n + 1, sizeof(char *));
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e) v[i] = json_string_value(e) ? json_string_value(e) : "";
    w->vecs = sl_xrealloc(w->vecs, (w->nvecs + 1) * sizeof(*w->vecs));
    w->vecs[w->nvecs++] = v;
    return v;
}

/* the image's USER as ids from its own passwd and group files (kept in w) */
static void image_user(ctl_pull_t *w, const char *rootfs, const char *user, sl_image_meta_t *meta)
{
    if (!user || !*user)
        return;
    long uid, gid;
    sl_error_t err = SL_ERROR_INIT;
    int found = sl_image_user_ids(rootfs, user, &uid, &gid, &err) == 0;
    json_t *s = found ? json_sprintf("%ld:%ld", uid, gid) : json_string(err.text);
    json_array_append_new(w->meta_keep, s);
    if (found)
        meta->user = json_string_value(s);
    else
        meta->user_error = json_string_value(s);
}

/* meta from an image.json document j (kept in w) of the tree rootfs */
static int meta_of(ctl_pull_t *w, json_t *j, const char *rootfs, sl_image_meta_t *meta)
{
    if (!w->meta_keep)
        w->meta_keep = json_array();
    json_array_append_new(w->meta_keep, j);
    json_t *cfg = json_object_get(j, "config");
    meta->entrypoint = vec(w, json_object_get(cfg, "Entrypoint"), &meta->nentrypoint);
    meta->cmd = vec(w, json_object_get(cfg, "Cmd"), &meta->ncmd);
    meta->env = vec(w, json_object_get(cfg, "Env"), &meta->nenv);
    const char *wd = json_string_value(json_object_get(cfg, "WorkingDir"));
    meta->working_dir = wd && *wd ? wd : NULL;
    image_user(w, rootfs, json_string_value(json_object_get(cfg, "User")), meta);
    return 1;
}

ctl_pull_t *ctl_pull_holder(void)
{
    ctl_pull_t *w = sl_xcalloc(1, sizeof(*w));
    atomic_init(&w->refs, 1);
    atomic_init(&w->done, 1);
    atomic_init(&w->cancel, 0);
    w->failed = -1;
    return w;
}

int ctl_pull_image_lookup(void *arg, const char *dir, sl_image_meta_t *meta)
{
    ctl_pull_t *w = arg;
    size_t i = 0;
    while (w && i < w->n && (!w->pulled[i].rootfs || strcmp(w->pulled[i].rootfs, dir)) &&
           (!w->converted[i] || strcmp(w->converted[i], dir)))
        i++;
    if (!w || i == w->n) { /* an imported image: its config if its import kept one */
        int there = sl_podfs_image_exists(NULL, dir, meta);
        char *path = there && w ? sl_image_config_file(dir) : NULL;
        json_t *j = path ? json_load_file(path, 0, NULL) : NULL;
        free(path);
        return j ? meta_of(w, j, dir, meta) : there;
    }
    memset(meta, 0, sizeof(*meta));
    char *path = sl_xasprintf("%s/image.json", w->pulled[i].dir);
    json_t *j = json_load_file(path, 0, NULL);
    free(path);
    return j ? meta_of(w, j, w->pulled[i].rootfs, meta) : 0;
}
