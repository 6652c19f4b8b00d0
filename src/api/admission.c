/* admission.c — what the API decides about a pod because of who sent it
 * (kube-apiserver's admission plugins, for slurmlink's identity rules):
 *
 *   - the server-owned annotations (server_owned[] below) are the server's
 *     on every write path: a client's value is dropped at create; on an
 *     update (PUT, every kind of PATCH, server-side apply) a value left out
 *     is kept as stored and a changed one is 422 naming the field.
 *       slurmlink.io/user: set at create to the authenticated user. The
 *       controller runs the pod's job as the Unix user the policy maps that
 *       user to (src/ctl/submit.c), so a client that could write it could
 *       run jobs as someone else.
 *       slurmlink.io/job-id: set by the controller when it submits. The
 *       controller signals and cancels that job as root, so a client that
 *       could write it could name anyone's job.
 *       slurmlink.io/job-uid, slurmlink.io/array-task: set by the Job
 *       controller on a Job's pods (src/kinds/job/controller.c); for the same reason.
 *   - the creator must map to a Unix user (exists, not root unless
 *     allowed, ...): 403 otherwise, before anything is stored;
 *   - securityContext.runAsUser, of the pod and of every container, may
 *     only name that user's uid (422 naming the field); the same in the
 *     pod templates of a Job, CronJob, PyTorchJob or MPIJob at create
 *     (their pods run as their creator), so they are refused then, not
 *     when their pods are submitted;
 *   - the pod's runAsGroup may name the user's primary group or a group it
 *     belongs to (the job's group); a container's runAsGroup only that one
 *     group, since a job has one (422 naming the field).
 *
 * The controller checks the same things again when it submits (a policy
 * edited in between, a Unix user removed): this is the early, clear answer. */
#include "api/admission.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "api/quota.h"
#include "auth/policy.h"
#include "common/err.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "kinds/kind.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "pod/pod.h"
#include "runtime/runtime.h"
#include "store/store.h"

#include <errno.h>
#include <string.h>

/* The pod annotations only the server writes, and who sets them (the 422's
 * detail). */
static const struct {
    const char *key;
    const char *why;
} server_owned[] = {
    {SL_ANN_USER, "the server sets it to the user who created the pod"},
    {SL_ANN_JOB_ID, "the server sets it to the pod's own Slurm job"},
    {SL_ANN_JOB_UID, "the server sets it on the pods of a Job"},
    {SL_ANN_ARRAY_TASK, "the server sets it to the Slurm array task of a Job's pod"},
    {SL_ANN_GPUS, "the server sets it to the GPUs Slurm bound to the pod's job"},
    {SL_ANN_RESTARTS, "the server sets it on a gang's replica that replaces a failed one"},
};
#define N_SERVER_OWNED (sizeof(server_owned) / sizeof(server_owned[0]))

void api_admit_pod_identity(api_req_t *r, json_t *pod)
{
    json_t *m = sl_kube_meta(pod);
    json_t *ann = json_object_get(m, "annotations");
    if (json_is_object(ann)) {
        for (size_t i = 0; i < N_SERVER_OWNED; i++)
            json_object_del(ann, server_owned[i].key);
        if (!json_object_size(ann) && !r->user)
            json_object_del(m, "annotations");
    }
    if (r->user)
        sl_kube_set_annotation(pod, SL_ANN_USER, r->user->name);
}

/* runAsUser (or runAsGroup) of one securityContext against id */
static void check_run_as(json_t *sc, const char *key, unsigned id, const char *detail,
                         sl_error_t *errs, const char *field)
{
    json_t *v = json_object_get(sc, key);
    if (!v || json_is_null(v))
        return;
    if (!json_is_integer(v) || json_integer_value(v) != (json_int_t)id)
        sl_err_field_int(errs, SL_FE_INVALID, field,
                         json_is_integer(v) ? (long long)json_integer_value(v) : -1, detail);
}

/* the pod's runAsGroup (field prefix + "securityContext.runAsGroup"): a
 * group of the user, which becomes the job's group (*job_gid); else the
 * user's primary group */
static void check_pod_group(json_t *psc, const char *prefix, const char *uname, const char *qunix,
                            gid_t primary, gid_t *job_gid, sl_error_t *errs)
{
    *job_gid = primary;
    json_t *v = json_object_get(psc, "runAsGroup");
    if (!v || json_is_null(v))
        return;
    json_int_t g = json_is_integer(v) ? json_integer_value(v) : -1;
    if (g >= 0 && g <= 0x7fffffff && sl_authz_unix_group_ok(uname, primary, (gid_t)g)) {
        *job_gid = (gid_t)g;
        return;
    }
    char *d = sl_xasprintf("must be %u, the primary group of Unix user %s, or a group %s is a "
                           "member of",
                           (unsigned)primary, qunix, qunix);
    char *f = sl_xasprintf("%ssecurityContext.runAsGroup", prefix);
    sl_err_field_int(errs, SL_FE_INVALID, f, (long long)g, d);
    free(f);
    free(d);
}

/* the Unix identity the creator's jobs run as */
typedef struct ident {
    uid_t uid;
    gid_t gid;
    char *uname, *qunix, *detail;
} ident_t;

/* 1 with *id; 0 when nothing is checked (no policy, no user); -1 (403) when
 * the creator maps to no Unix user */
static int ident_of(api_req_t *r, ident_t *id, sl_error_t *errs)
{
    if (!r->api->policy || !r->user)
        return 0;
    memset(id, 0, sizeof(*id));
    sl_error_t uerr = SL_ERROR_INIT;
    if (sl_authz_unix_user(r->api->policy, r->user->name, &id->uid, &id->gid, &id->uname, &uerr) <
        0) {
        sl_errkindf(errs, SL_ERR_FORBIDDEN, "no Unix user to run its jobs as: %s", uerr.text);
        sl_error_clear(&uerr);
        return -1;
    }
    char *quser = sl_go_quote(r->user->name);
    id->qunix = sl_go_quote(id->uname);
    id->detail = sl_xasprintf("must be %u, the uid of Unix user %s, which the jobs of user %s "
                              "run as",
                              (unsigned)id->uid, id->qunix, quser);
    free(quser);
    return 1;
}

static void ident_free(ident_t *id)
{
    free(id->uname);
    free(id->qunix);
    free(id->detail);
}

/* a container's runAsUser (the pod's: c NULL, every container without its
 * own) in a runtime that runs the job user's own ids: only that uid; the
 * detail says which runtime and which ones map a uid inside */
static void check_user(json_t *sc, const char *ann, json_t *c, const ident_t *id, sl_error_t *errs,
                       const char *field)
{
    const char *image = json_string_value(json_object_get(c, "image"));
    if (sl_runtime_maps_user(ann, image, sl_runtime_default()))
        return;
    const char *rt = sl_runtime_choose(ann, image, 0, sl_runtime_default());
    char *maps = sl_runtime_mapping_list();
    char *d = sl_xasprintf(
        "%s (the %s runtime %s; runAsUser names a uid inside the container, "
        "mapped to that user, with %s)",
        id->detail, rt, strcmp(rt, "host") ? "runs the process as that user" : "runs no container",
        maps);
    check_run_as(sc, "runAsUser", id->uid, d, errs, field);
    free(d);
    free(maps);
}

/* the pod's runAsUser: checked against each container that has none of
 * its own (the first whose runtime runs the job user's ids names the rule);
 * a spec without containers (a TrainJob's runtimePatches) against the
 * runtime its annotation alone names (none: host) */
static void check_pod_user(json_t *spec, const char *ann, const ident_t *id, sl_error_t *errs,
                           const char *prefix)
{
    json_t *psc = json_object_get(spec, "securityContext");
    json_t *v = json_object_get(psc, "runAsUser");
    if (!v || json_is_null(v))
        return;
    static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
    char *f = sl_xasprintf("%ssecurityContext.runAsUser", prefix);
    if (!json_array_size(json_object_get(spec, "containers"))) /* a patch's: no image known */
        check_user(psc, ann, NULL, id, errs, f);
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
        size_t i, before = sl_err_nfields(errs);
        json_t *c;
        json_array_foreach(json_object_get(spec, lists[l]), i, c)
        {
            json_t *own = json_object_get(json_object_get(c, "securityContext"), "runAsUser");
            if (own && !json_is_null(own))
                continue;
            check_user(psc, ann, c, id, errs, f);
            if (sl_err_nfields(errs) != before)
                break;
        }
        if (sl_err_nfields(errs) != before)
            break;
    }
    free(f);
}

/* runAsUser and runAsGroup of a pod spec against id, its fields named from
 * prefix ("spec." for a pod, "spec.template.spec." for a Job's template);
 * ann: the pod's (template's) slurmlink.io/runtime, which with each
 * container's image says whether runAsUser is a uid inside a container */
static void check_spec(json_t *spec, const char *ann, const char *prefix, const ident_t *id,
                       sl_error_t *errs)
{
    json_t *psc = json_object_get(spec, "securityContext");
    check_pod_user(spec, ann, id, errs, prefix);
    gid_t job_gid;
    check_pod_group(psc, prefix, id->uname, id->qunix, id->gid, &job_gid, errs);
    char *gdetail = sl_xasprintf("must be %u, the group of the pod's job (spec.securityContext."
                                 "runAsGroup, else the primary group of Unix user %s)",
                                 (unsigned)job_gid, id->qunix);
    static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
    for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, lists[l]), i, c)
        {
            json_t *sc = json_object_get(c, "securityContext");
            char *f = sl_xasprintf("%s%s[%zu].securityContext.runAsUser", prefix, lists[l], i);
            check_user(sc, ann, c, id, errs, f);
            free(f);
            f = sl_xasprintf("%s%s[%zu].securityContext.runAsGroup", prefix, lists[l], i);
            check_run_as(sc, "runAsGroup", job_gid, gdetail, errs, f);
            free(f);
        }
    }
    free(gdetail);
}

/* a pod's (template's) slurmlink.io/runtime annotation, NULL when none */
static const char *runtime_ann(json_t *obj)
{
    return json_string_value(
        json_object_get(sl_kube_path(obj, "metadata.annotations"), SL_ANN_RUNTIME));
}

int api_admit_pod_create(api_req_t *r, json_t *pod, sl_error_t *errs)
{
    ident_t id;
    int rc = ident_of(r, &id, errs);
    if (rc <= 0)
        return rc;
    check_spec(json_object_get(pod, "spec"), runtime_ann(pod), "spec.", &id, errs);
    ident_free(&id);
    return api_fields_result(errs);
}

/* The pod templates of a registered kind's object below node, at path
 * (dotted; '*' for every key of a map or index of an array), each checked
 * with its field path ("spec.replicatedJobs[0].template.spec.template.spec."); up:
 * node's parent, the template whose metadata names the pods' runtime */
static void check_templates(json_t *node, json_t *up, const char *path, const char *at,
                            const ident_t *id, sl_error_t *errs)
{
    if (!node)
        return;
    if (!*path) {
        char *prefix = sl_xasprintf("%s.", at);
        check_spec(node, runtime_ann(up), prefix, id, errs);
        free(prefix);
        return;
    }
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    const char *rest = dot ? dot + 1 : "";
    char *sub;
    if (len == 1 && *path == '*') {
        const char *key;
        json_t *v;
        size_t i;
        json_object_foreach(node, key, v)
        {
            sub = sl_xasprintf("%s[%s]", at, key);
            check_templates(v, node, rest, sub, id, errs);
            free(sub);
        }
        json_array_foreach(node, i, v)
        {
            sub = sl_xasprintf("%s[%zu]", at, i);
            check_templates(v, node, rest, sub, id, errs);
            free(sub);
        }
        return;
    }
    char *seg = sl_xstrndup(path, len);
    sub = *at ? sl_xasprintf("%s.%s", at, seg) : sl_xstrdup(seg);
    check_templates(json_object_get(node, seg), node, rest, sub, id, errs);
    free(sub);
    free(seg);
}

int api_admit_workload_create(api_req_t *r, const api_resource_t *rs, json_t *obj, sl_error_t *errs)
{
    const sl_kind_t *k = sl_kind_by_resource(rs);
    if (!k || !k->pod_templates[0])
        return 0;
    ident_t id;
    int rc = ident_of(r, &id, errs);
    if (rc <= 0)
        return rc;
    for (size_t i = 0;
         i < sizeof k->pod_templates / sizeof *k->pod_templates && k->pod_templates[i]; i++)
        check_templates(obj, NULL, k->pod_templates[i], "", &id, errs);
    ident_free(&id);
    return api_fields_result(errs);
}

int api_admit_pod_update(api_req_t *r, json_t *pod, json_t *old, sl_error_t *errs)
{
    (void)r;
    for (size_t i = 0; i < N_SERVER_OWNED; i++) {
        const char *key = server_owned[i].key;
        const char *nv = sl_kube_annotation(pod, key);
        const char *ov = sl_kube_annotation(old, key);
        if (!nv) { /* left out (kubectl replace of a manifest, a removal): kept */
            if (ov)
                sl_kube_set_annotation(pod, key, ov);
            continue;
        }
        if (ov && !strcmp(nv, ov))
            continue;
        char *detail = sl_xasprintf("field is immutable: %s", server_owned[i].why);
        sl_err_invalid(errs, nv, detail, "metadata.annotations[%s]", key);
        free(detail);
    }
    return api_fields_result(errs);
}

int api_check_object_size(sl_api_t *api, json_t *obj, sl_error_t *err)
{
    size_t n = json_dumpb(obj, NULL, 0, JSON_COMPACT);
    if (n <= api->max_object)
        return 0;
    /* no "Request entity too large: " before it: a text of our own */
    return sl_errwholef(err, SL_ERR_TOO_LARGE,
                        "the object is too large to store: %zu bytes, at most %zu", n,
                        api->max_object);
}

/* ---- the pods a controller makes ---- */

/* a pod named from its generateName (a controller's): name = prefix +
 * five random characters */
static void name_from_prefix(json_t *pod)
{
    const char *gen = sl_kube_meta_str(pod, "generateName");
    if (!gen || !*gen)
        return;
    char sfx[6], *name;
    sl_kube_rand_suffix(sfx, 5);
    name = sl_xasprintf("%s%s", gen, sfx);
    sl_kube_meta_set_str(pod, "name", name);
    free(name);
}

/* the admission of one controller-made pod, before the quota: the
 * namespace (exists, not terminating), its service account, the identity
 * of the workload's creator and the object's size */
static int admit_one(api_req_t *r, const api_resource_t *res, json_t *pod, sl_error_t *err)
{
    if (!sl_kube_name(pod) || !*sl_kube_name(pod))
        name_from_prefix(pod);
    if (api_check_namespace(r, res, sl_kube_namespace(pod), sl_kube_name(pod), err) < 0 ||
        api_check_service_account(r, pod, err) < 0 || api_admit_pod_create(r, pod, err) < 0 ||
        api_check_object_size(r->api, pod, err) < 0) {
        if (!err->subject.set)
            sl_err_subject(err, "pods", "", "Pod", sl_kube_name(pod));
        return -1;
    }
    return 0;
}

/* each pod stored (a generated name drawn again on a collision): 0, or -1
 * with err at the first that cannot be */
static int store_all(sl_api_t *api, json_t *pods, sl_error_t *err)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        int rc = -1;
        for (int t = 0; t < 8 && rc < 0; t++) {
            rc = sl_store_create(api->store, "pods", pod, err);
            if (rc < 0 && (errno != EEXIST || !sl_kube_meta_str(pod, "generateName")))
                break;
            if (rc < 0)
                name_from_prefix(pod);
        }
        if (rc < 0) {
            sl_err_subject(err, "pods", "", "Pod", sl_kube_name(pod));
            return -1;
        }
    }
    return 0;
}

int sl_api_create_pods(sl_api_t *api, json_t *pods, sl_error_t *err)
{
    size_t n = json_array_size(pods);
    if (!n)
        return 0;
    const api_resource_t *res = api_resource_find("", "v1", "pods");
    const char *ns = sl_kube_namespace(json_array_get(pods, 0));
    const char *user = sl_kube_annotation(json_array_get(pods, 0), SL_ANN_USER);
    api_req_t r = {.api = api, .method = "POST"};
    r.user = user ? sl_auth_user_create(user, NULL, NULL) : NULL;
    int rc = 0;
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        const char *u = sl_kube_annotation(pod, SL_ANN_USER);
        if (strcmp(sl_kube_namespace(pod) ? sl_kube_namespace(pod) : "", ns ? ns : "") ||
            (!u) != (!user) || (u && strcmp(u, user)))
            rc = sl_errkindf(err, SL_ERR_BAD_REQUEST,
                             "the pods admitted together must share a namespace and a creator");
        if (!rc)
            rc = admit_one(&r, res, pod, err);
        if (rc)
            break;
    }
    if (!rc)
        rc = api_quota_begin_pods(&r, ns, pods, n > 1, err);
    if (!rc) {
        rc = store_all(api, pods, err);
        int e = errno;
        if (api_quota_end_pods(&r, ns, pods, rc == 0, rc == 0 ? err : NULL) < 0)
            rc = -1;
        else
            errno = e;
    }
    sl_auth_user_destroy(r.user);
    return rc;
}
