/* claims.c — a pod's DRA claims (spec.resourceClaims) as Slurm GRES, and
 * the claims' status once Slurm placed the pod's job (docs/gpus.md, "DRA").
 *
 * Each entry names a ResourceClaim (resourceClaimName) or a
 * ResourceClaimTemplate (resourceClaimTemplateName: the claim POD-NAME is
 * made from it, owned by the pod, as Kubernetes' resourceclaim controller
 * does). Each request of a claim is `exactly` count devices of a class;
 * the class's and the request's selectors (the CEL subset of gpu/gpu.h) may
 * name a productName, whose GRES type comes from the policy table:
 * gpu[:TYPE]:count. */
#include "ctl/internal.h"

#include "common/buf.h"
#include "common/xalloc.h"
#include "gpu/gpu.h"
#include "kube/meta.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CLAIMS "resourceclaims.resource.k8s.io"
#define TEMPLATES "resourceclaimtemplates.resource.k8s.io"
#define CLASSES "deviceclasses.resource.k8s.io"

/* the productName the selectors at sels name, into *prod (kept if none) */
static void selected_product(const json_t *sels, char **prod)
{
    size_t i;
    json_t *s;
    json_array_foreach(sels, i, s)
    {
        char *p = NULL;
        const char *why;
        if (sl_gpu_cel(sl_kube_path_str((json_t *)s, "cel.expression"), &p, &why) == 0 && p) {
            free(*prod);
            *prod = p;
        }
    }
}

/* the claim the pod's entry e refers to: a new reference, or NULL with err */
static json_t *entry_claim(sl_ctl_t *c, const json_t *pod, const json_t *e, sl_error_t *err)
{
    const char *ns = sl_kube_namespace((json_t *)pod), *pn = sl_kube_name((json_t *)pod);
    const char *en = json_string_value(json_object_get(e, "name"));
    const char *cn = json_string_value(json_object_get(e, "resourceClaimName"));
    const char *tn = json_string_value(json_object_get(e, "resourceClaimTemplateName"));
    if (cn) {
        json_t *cl = sl_store_get(c->store, CLAIMS, ns, cn);
        if (!cl)
            sl_errprintf(err, "resourceclaim %s/%s not found", ns, cn);
        return cl;
    }
    char *name = sl_xasprintf("%s-%s", pn, en ? en : "claim");
    json_t *cl = sl_store_get(c->store, CLAIMS, ns, name);
    json_t *t = cl || !tn ? NULL : sl_store_get(c->store, TEMPLATES, ns, tn);
    if (!cl && t) {
        char uid[37];
        sl_kube_uuid4(uid);
        char *now = sl_kube_now_rfc3339();
        cl = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:{s:s}, s:[{s:s, s:s, s:s, s:s, s:b}]},"
                       " s:O}",
                       "apiVersion", "resource.k8s.io/v1", "kind", "ResourceClaim", "metadata",
                       "name", name, "namespace", ns, "uid", uid, "creationTimestamp", now,
                       "annotations", "resource.kubernetes.io/pod-claim-name", en ? en : "",
                       "ownerReferences", "apiVersion", "v1", "kind", "Pod", "name", pn, "uid",
                       sl_kube_uid((json_t *)pod), "controller", 1, "spec",
                       sl_kube_path(t, "spec.spec"));
        free(now);
        if (!cl) /* a template without spec.spec (validation requires one) */
            sl_errprintf(err, "resourceclaimtemplate %s/%s has no spec.spec", ns, tn);
        else if (sl_store_create(c->store, CLAIMS, cl, err) < 0 && errno != EEXIST) {
            json_decref(cl);
            cl = NULL;
        }
    } else if (!cl) {
        sl_errprintf(err, "resourceclaimtemplate %s/%s not found", ns, tn ? tn : "");
    }
    json_decref(t);
    free(name);
    return cl;
}

/* the GRES of one claim's requests appended to b; -1 with err */
static int claim_gres(sl_ctl_t *c, const json_t *cl, sl_buf_t *b, sl_error_t *err)
{
    size_t i;
    json_t *rq;
    json_array_foreach(sl_kube_path((json_t *)cl, "spec.devices.requests"), i, rq)
    {
        const char *cls = sl_kube_path_str(rq, "exactly.deviceClassName");
        json_t *dc = cls ? sl_store_get(c->store, CLASSES, NULL, cls) : NULL;
        if (!dc) {
            errno = ENOENT;
            return sl_errprintf(err, "deviceclass %s not found", cls ? cls : "");
        }
        char *prod = NULL;
        selected_product(sl_kube_path(dc, "spec.selectors"), &prod);
        selected_product(sl_kube_path(rq, "exactly.selectors"), &prod);
        json_decref(dc);
        char *type = prod ? sl_gpu_type_for_dra_product(c->o.gpu_types, prod) : NULL;
        json_int_t n = json_integer_value(sl_kube_path(rq, "exactly.count"));
        sl_buf_printf(b, "%sgpu:%s%s%lld", b->len ? "," : "", type ? type : "", type ? ":" : "",
                      (long long)(n > 0 ? n : 1));
        free(type);
        free(prod);
    }
    return 0;
}

char *ctl_claims_gres(sl_ctl_t *c, const json_t *pod, sl_error_t *err)
{
    const json_t *rcs = sl_kube_path((json_t *)pod, "spec.resourceClaims");
    if (!json_array_size(rcs))
        return NULL;
    sl_buf_t b = SL_BUF_INIT;
    size_t i;
    json_t *e;
    json_array_foreach(rcs, i, e)
    {
        json_t *cl = entry_claim(c, pod, e, err);
        int r = cl ? claim_gres(c, cl, &b, err) : -1;
        json_decref(cl);
        if (r < 0) {
            errno = ENOENT;
            sl_buf_free(&b);
            return NULL;
        }
    }
    return sl_buf_steal(&b);
}

typedef struct alloc {
    const json_t *pod, *gpus;
    const char *node;
    size_t next; /* the next index of gpus.indexes to hand out */
} alloc_t;

/* the claim's status: each request's devices from the job's GPUs, in
 * order; reservedFor the pod */
static int allocate_fn(json_t *cl, void *arg)
{
    alloc_t *a = arg;
    json_t *results = json_array(), *ix = json_object_get(a->gpus, "indexes");
    size_t i;
    json_t *rq;
    json_array_foreach(sl_kube_path(cl, "spec.devices.requests"), i, rq)
    {
        json_int_t n = json_integer_value(sl_kube_path(rq, "exactly.count"));
        for (json_int_t k = 0; k < (n > 0 ? n : 1) && a->next < json_array_size(ix); k++) {
            char *dev = sl_xasprintf("gpu%lld", json_integer_value(json_array_get(ix, a->next++)));
            json_array_append_new(results, json_pack("{s:s, s:s, s:s, s:s}", "request",
                                                     json_string_value(json_object_get(rq, "name")),
                                                     "driver", SL_GPU_DRA_DRIVER, "pool", a->node,
                                                     "device", dev));
            free(dev);
        }
    }
    json_t *st = json_pack("{s:{s:{s:o}}, s:[{s:s, s:s, s:s}]}", "allocation", "devices", "results",
                           results, "reservedFor", "resource", "pods", "name",
                           sl_kube_name((json_t *)a->pod), "uid", sl_kube_uid((json_t *)a->pod));
    if (json_equal(json_object_get(cl, "status"), st)) {
        json_decref(st);
        return 0;
    }
    json_object_set_new(cl, "status", st);
    return 1;
}

/* fn applied to each claim of pod's spec.resourceClaims in the store: the
 * one named by resourceClaimName, or the one made for the pod's template
 * ("<pod>-<name>") */
static void mutate_claims(sl_ctl_t *c, const json_t *pod, sl_store_mutate_fn fn, void *arg)
{
    const json_t *rcs = sl_kube_path((json_t *)pod, "spec.resourceClaims");
    const char *ns = sl_kube_namespace((json_t *)pod), *pn = sl_kube_name((json_t *)pod);
    size_t i;
    json_t *e;
    json_array_foreach(rcs, i, e)
    {
        const char *cn = json_string_value(json_object_get(e, "resourceClaimName"));
        const char *en = json_string_value(json_object_get(e, "name"));
        char *name = cn ? sl_xstrdup(cn) : sl_xasprintf("%s-%s", pn, en ? en : "claim");
        sl_error_t err = SL_ERROR_INIT;
        sl_store_mutate(c->store, CLAIMS, ns, name, fn, arg, NULL, &err);
        sl_error_clear(&err);
        free(name);
    }
}

void ctl_claims_allocate(sl_ctl_t *c, const json_t *pod, const json_t *ev)
{
    const json_t *g = json_object_get(ev, "gpus");
    const char *node = json_string_value(json_object_get(ev, "node"));
    const json_t *rcs = sl_kube_path((json_t *)pod, "spec.resourceClaims");
    if (!json_array_size(rcs) || !json_is_object(g) || !node)
        return;
    alloc_t a = {pod, g, node, 0};
    mutate_claims(c, pod, allocate_fn, &a);
}

/* the claim's allocation dropped with its last reservation (the pod is done) */
static int release_fn(json_t *cl, void *arg)
{
    const char *uid = arg;
    json_t *res = sl_kube_path(cl, "status.reservedFor");
    size_t i;
    json_t *r;
    json_array_foreach(res, i, r)
    {
        const char *u = json_string_value(json_object_get(r, "uid"));
        if (u && !strcmp(u, uid)) {
            json_array_remove(res, i);
            if (!json_array_size(res))
                json_object_del(cl, "status");
            return 1;
        }
    }
    return 0;
}

void ctl_claims_release(sl_ctl_t *c, const json_t *pod)
{
    const char *uid = sl_kube_uid((json_t *)pod);
    if (uid)
        mutate_claims(c, pod, release_fn, (void *)uid);
}

void ctl_claims_delete_owned(sl_ctl_t *c, const char *ns, const char *uid)
{
    if (sl_store_resource_rev(c->store, CLAIMS) <= 0)
        return; /* no claim was ever stored: no list read per deleted pod */
    json_t *all = sl_store_list(c->store, CLAIMS, ns, NULL);
    size_t i, k;
    json_t *cl, *o;
    json_array_foreach(all, i, cl)
    {
        json_array_foreach(sl_kube_path(cl, "metadata.ownerReferences"), k, o)
        {
            const char *u = json_string_value(json_object_get(o, "uid"));
            if (u && !strcmp(u, uid)) {
                sl_error_t err = SL_ERROR_INIT;
                sl_store_delete(c->store, CLAIMS, ns, sl_kube_name(cl), 0, NULL, &err);
                break;
            }
        }
    }
    json_decref(all);
}
