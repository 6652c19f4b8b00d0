/* delete.c — DELETE of one object or a collection, with DeleteOptions
 * (gracePeriodSeconds, preconditions, dryRun) from the body or the query.
 *
 * Pods are deleted gracefully, as kube-apiserver does: the first DELETE
 * sets metadata.deletionTimestamp (now + grace period) and
 * deletionGracePeriodSeconds; the pod stays (kubectl shows Terminating)
 * until the lifecycle controller has seen its Slurm job end and removes it,
 * which sends DELETED to watchers. A pod is removed at once instead when
 *   - gracePeriodSeconds is 0 (kubectl delete --grace-period=0 --force), or
 *   - it is in a terminal phase (Succeeded or Failed: nothing is running), or
 *   - it never got a Slurm job: no `slurmlink.io/job-id` annotation and a
 *     phase no further than Pending (nothing could be running).
 * Finalizers keep any object (with deletionTimestamp set) until they are
 * removed. A namespace with spec.finalizers (all have "kubernetes" from
 * creation) only turns Terminating here; the namespace controller
 * (namespace.c) empties and removes it, as kube's does. */
#include "api/delete.h"
#include "api/decode.h"
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "api/lifecycle.h"
#include "api/protobuf.h"
#include "common/xalloc.h"
#include "kinds/kind.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "pod/pod.h"
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool protected_namespace(const char *name)
{
    return !strcmp(name, "default") || !strcmp(name, "kube-system") || !strcmp(name, "kube-public");
}

/* Parse DeleteOptions from the body (may be empty) and the query; -1 with
 * err (SL_ERR_BAD_REQUEST) when they do not parse. */
static int parse_opts(api_req_t *r, api_delopts_t *o, sl_error_t *err)
{
    memset(o, 0, sizeof(*o));
    json_t *body = NULL;
    if (r->body.len) {
        sl_error_t perr = SL_ERROR_INIT;
        const char *ct = api_header(r, "Content-Type"); /* client-go's typed clients: protobuf */
        body = ct && !strncmp(ct, "application/vnd.kubernetes.protobuf", 35)
                   ? api_pb_decode(r->body.data, r->body.len, &perr)
                   : api_parse_body(r->body.data, r->body.len, false, &perr);
        if (!body || !json_is_object(body)) {
            sl_errkindf(err, SL_ERR_BAD_REQUEST,
                        "the body of the request could not be decoded as DeleteOptions: %s",
                        body ? "not a JSON object" : perr.text);
            json_decref(body);
            return -1;
        }
        json_t *g = json_object_get(body, "gracePeriodSeconds");
        if (json_is_integer(g)) {
            o->has_grace = true;
            o->grace = json_integer_value(g);
        }
        json_t *pre = json_object_get(body, "preconditions");
        const char *u = json_string_value(json_object_get(pre, "uid"));
        const char *v = json_string_value(json_object_get(pre, "resourceVersion"));
        const char *pp = json_string_value(json_object_get(body, "propagationPolicy"));
        if (pp)
            snprintf(o->propagation, sizeof(o->propagation), "%s", pp);
        else if (json_is_boolean(json_object_get(body, "orphanDependents")))
            snprintf(o->propagation, sizeof(o->propagation), "%s",
                     json_is_true(json_object_get(body, "orphanDependents")) ? "Orphan"
                                                                             : "Background");
        if (u)
            snprintf(o->pre_uid, sizeof(o->pre_uid), "%s", u);
        if (v)
            snprintf(o->pre_rv, sizeof(o->pre_rv), "%s", v);
        json_t *dr = json_object_get(body, "dryRun");
        size_t i;
        json_t *x;
        json_array_foreach(dr, i, x) if (json_is_string(x) && !strcmp(json_string_value(x), "All"))
            o->dry = true;
        json_decref(body);
    }
    const char *g = api_query(r, "gracePeriodSeconds");
    if (g && *g) {
        char *end;
        long long v = strtoll(g, &end, 10);
        if (*end)
            return sl_errkindf(err, SL_ERR_BAD_REQUEST, "gracePeriodSeconds must be an integer");
        o->has_grace = true;
        o->grace = v;
    }
    const char *d = api_query(r, "dryRun");
    if (d && !strcmp(d, "All"))
        o->dry = true;
    const char *pp = api_query(r, "propagationPolicy");
    if (pp && *pp)
        snprintf(o->propagation, sizeof(o->propagation), "%s", pp);
    return 0;
}

/* The garbage collector's finalizer of a workload deleted in the
 * foreground ("foregroundDeletion": gone once what it owns is) or orphaning
 * what it owns ("orphan"), as kube-apiserver adds them, for the kinds whose
 * row says delete_finalizers (src/kinds/kind.h); their controllers do the
 * rest (a Job's pods, a CronJob's Jobs). */
static void job_propagation(const api_resource_t *res, json_t *obj, const api_delopts_t *o)
{
    const char *f = !strcmp(o->propagation, "Foreground") ? "foregroundDeletion"
                    : !strcmp(o->propagation, "Orphan")   ? "orphan"
                                                          : NULL;
    const sl_kind_t *k = sl_kind_by_resource(res);
    if (!k || !k->delete_finalizers || !f)
        return;
    json_t *m = sl_kube_meta(obj);
    json_t *fin = json_object_get(m, "finalizers");
    if (!json_is_array(fin))
        json_object_set_new(m, "finalizers", fin = json_array());
    size_t i;
    json_t *x;
    json_array_foreach(fin, i, x) if (json_is_string(x) && !strcmp(json_string_value(x), f)) return;
    json_array_append_new(fin, json_string(f));
}

/* Set deletionTimestamp = now + grace unless an earlier one is set. */
static int mark_deleting(sl_api_t *api, const api_resource_t *res, json_t *obj, long long grace,
                         bool dry, sl_error_t *err)
{
    long long now_ns = sl_kube_now_ns();
    long long when = now_ns + grace * 1000000000LL;
    const char *cur = sl_kube_meta_str(obj, "deletionTimestamp");
    int64_t cur_ns = 0;
    if (cur && sl_kube_parse_rfc3339(cur, &cur_ns) == 0 && cur_ns <= when)
        return 0; /* already deleting, at least as soon */
    char *ts = sl_kube_rfc3339(when, 0);
    sl_kube_meta_set_str(obj, "deletionTimestamp", ts);
    free(ts);
    if (strcmp(res->name, "namespaces")) /* kube sets none on a namespace */
        json_object_set_new(sl_kube_meta(obj), "deletionGracePeriodSeconds",
                            json_integer((json_int_t)grace));
    else {
        json_t *st = json_object_get(obj, "status");
        if (!json_is_object(st))
            json_object_set_new(obj, "status", st = json_object());
        json_object_set_new(st, "phase", json_string("Terminating"));
    }
    if (dry)
        return 0;
    if (sl_store_update(api->store, res->store_name, obj, sl_kube_rv(obj), err) < 0)
        return api_store_error(errno, err->text, err);
    return 0;
}

bool api_pod_delete_now(json_t *pod, long long grace)
{
    if (grace == 0)
        return true;
    const char *phase = sl_kube_path_str(pod, "status.phase");
    if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
        return true;
    bool pending = !phase || !*phase || !strcmp(phase, "Pending");
    return pending && !sl_kube_annotation(pod, SL_ANN_JOB_ID);
}

/* What may refuse a delete before anything is written: the preconditions,
 * a protected namespace, one being finalized. 0, or -1 with err. */
static int check_delete(const api_resource_t *res, json_t *old, const api_delopts_t *o,
                        sl_error_t *err)
{
    const char *name = sl_kube_name(old);
    const char *uid = sl_kube_uid(old) ? sl_kube_uid(old) : "";
    if (o->pre_uid[0] && strcmp(o->pre_uid, uid))
        return sl_errkindf(err, SL_ERR_CONFLICT,
                           "Precondition failed: UID in precondition: %s, UID in object meta: %s",
                           o->pre_uid, uid);
    const char *orv = sl_kube_meta_str(old, "resourceVersion");
    if (o->pre_rv[0] && strcmp(o->pre_rv, orv ? orv : ""))
        return sl_errkindf(err, SL_ERR_CONFLICT,
                           "Precondition failed: ResourceVersion in precondition: %s, "
                           "ResourceVersion in object meta: %s",
                           o->pre_rv, orv ? orv : "");
    bool is_ns = !strcmp(res->name, "namespaces");
    if (is_ns && protected_namespace(name))
        return sl_errkindf(err, SL_ERR_FORBIDDEN, "this namespace may not be deleted");
    if (is_ns && sl_kube_meta_str(old, "deletionTimestamp") &&
        api_namespace_has_spec_finalizers(old))
        return sl_errkindf(err, SL_ERR_CONFLICT,
                           "The system is ensuring all content is removed from this namespace.  "
                           "Upon completion, this namespace will automatically be purged by the "
                           "system.");
    return 0;
}

int api_delete_object(sl_api_t *api, const api_resource_t *res, json_t *old, const api_delopts_t *o,
                      json_t **result, sl_error_t *err)
{
    const char *name = sl_kube_name(old);
    const char *ns = sl_kube_namespace(old);
    *result = NULL;
    if (check_delete(res, old, o, err) < 0)
        return -1;
    bool is_pod = !strcmp(res->name, "pods");
    bool is_ns = !strcmp(res->name, "namespaces");
    json_t *obj = json_deep_copy(old);
    job_propagation(res, obj, o);
    bool finalizers = json_array_size(json_object_get(sl_kube_meta(obj), "finalizers")) > 0;
    long long grace = 0;
    bool now = true;
    if (is_pod) {
        json_t *tg = sl_kube_path(obj, "spec.terminationGracePeriodSeconds");
        grace = o->has_grace ? o->grace : json_is_integer(tg) ? json_integer_value(tg) : 30;
        if (grace < 0)
            grace = 1;
        now = api_pod_delete_now(obj, grace);
        if (!now && sl_kube_meta_str(obj, "deletionTimestamp") && o->has_grace == false)
            grace = json_integer_value(
                json_object_get(sl_kube_meta(obj), "deletionGracePeriodSeconds"));
    }
    if (is_ns) /* with spec.finalizers: Terminating until namespace.c empties it */
        now = !api_namespace_has_spec_finalizers(obj);
    if (!now || finalizers) {
        if (mark_deleting(api, res, obj, now ? 0 : grace, o->dry, err) < 0) {
            json_decref(obj);
            return -1;
        }
        *result = obj;
        return 1; /* still there */
    }
    if (o->dry) {
        *result = obj;
        return 0;
    }
    json_decref(obj);
    json_t *gone = NULL;
    if (sl_store_delete(api->store, res->store_name, ns, name, sl_kube_rv(old), &gone, err) < 0)
        return api_store_error(errno, err->text, err);
    *result = gone;
    return 0;
}

enum MHD_Result api_handle_delete(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    api_delopts_t o;
    json_t *result = NULL;
    sl_error_t err = SL_ERROR_INIT;
    if (parse_opts(r, &o, &err) < 0)
        return api_reply_error(r, res, p->name, &err);
    int rc = -1;
    for (int attempt = 0; attempt < 5; attempt++) {
        json_t *old = sl_store_get(r->api->store, res->store_name, p->ns, p->name);
        if (!old) {
            api_store_error(errno, NULL, &err);
            return api_reply_error(r, res, p->name, &err);
        }
        sl_error_clear(&err);
        rc = api_delete_object(r->api, res, old, &o, &result, &err);
        json_decref(old);
        /* a concurrent write (the controller updating status) is not the
         * client's conflict unless it gave a precondition (409s: Conflict
         * and AlreadyExists) */
        bool stale = rc < 0 && (err.kind == SL_ERR_CONFLICT || err.kind == SL_ERR_ALREADY_EXISTS) &&
                     !o.pre_rv[0] && !o.pre_uid[0];
        if (!stale)
            break;
    }
    if (rc < 0)
        return api_reply_error(r, res, p->name, &err);
    if (rc == 0 && strcmp(res->name, "pods") && strcmp(res->name, "namespaces")) {
        /* most kinds answer a Success Status (ReturnDeletedObject false) */
        json_t *s = sl_kube_status_success(res->name, res->group, p->name, sl_kube_uid(result));
        json_decref(result);
        return api_reply_json(r, 200, s);
    }
    return api_reply_object(r, res, 200, result);
}

/* The deleted objects are the reply's items, as kube-apiserver's: each is
 * kept as its JSON text, not parsed, and the collection is read name by
 * name (a collection of 10,000 pods held twice parsed was ~70 MB). */
enum MHD_Result api_handle_delete_collection(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    api_delopts_t o;
    sl_kube_selector_t *ls = NULL, *fs = NULL;
    sl_error_t err = SL_ERROR_INIT;
    if (parse_opts(r, &o, &err) < 0 || api_parse_selectors(r, res, &ls, &fs, &err) < 0)
        return api_reply_error(r, res, NULL, &err);
    sl_argv_t names = SL_ARGV_INIT;
    api_store_names(r->api, res, p->ns, &names);
    /* one buffer, no second copy: metadata (the revision after the
     * deletions) comes after the items, which JSON readers take alike */
    char gv[128];
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_printf(&b, "{\"kind\":\"%s\",\"apiVersion\":\"%s\",\"items\":[", res->list_kind,
                  api_resource_api_version(res, gv, sizeof(gv)));
    size_t n = 0;
    for (size_t i = 0; i < names.n; i++) {
        /* the router sends a namespaced kind's collection only with its
         * namespace; a cluster-scoped kind's objects are stored under "" */
        json_t *old = sl_store_get(r->api->store, res->store_name, p->ns ? p->ns : "", names.v[i]);
        if (!old || !sl_kube_selector_match(ls, old) || !sl_kube_selector_match(fs, old)) {
            json_decref(old);
            continue;
        }
        json_t *result = NULL;
        sl_error_t derr = SL_ERROR_INIT;
        if (api_delete_object(r->api, res, old, &o, &result, &derr) >= 0 && result) {
            char *t = json_dumps(result, JSON_COMPACT);
            if (t) {
                if (n++)
                    sl_buf_putc(&b, ',');
                sl_buf_puts(&b, t);
                free(t);
            }
        }
        json_decref(result);
        json_decref(old);
        sl_error_clear(&derr);
    }
    sl_argv_free(&names);
    sl_kube_selector_destroy(ls);
    sl_kube_selector_destroy(fs);
    sl_buf_printf(&b, "],\"metadata\":{\"resourceVersion\":\"%lld\"}}\n",
                  (long long)sl_store_revision(r->api->store));
    size_t len = b.len;
    return api_reply_owned(r, 200, "application/json", sl_buf_steal(&b), len);
}
