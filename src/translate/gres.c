/* gres.c — a pod's GPUs as Slurm GRES: whole GPUs (nvidia.com/gpu, typed
 * by the nvidia.com/gpu.product the pod selects through the policy table),
 * MIG profiles (nvidia.com/mig-PROFILE: gpu:PROFILE:N) and shares of a GPU
 * (the site's shared resource, nvidia.com/gpu.shared: shard:N). */
#include "translate/internal.h"

#include "common/buf.h"
#include "common/xalloc.h"
#include "gpu/gpu.h"
#include "kube/quantity.h"

#include <stdlib.h>
#include <string.h>

#define AFF_TERMS "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

/* a container's count of an extended resource: its limit, else request */
static int64_t ctr_count(const sl_pod_container_t *k, const char *name)
{
    const json_t *v = json_object_get(k->res.limits, name);
    if (!v)
        v = json_object_get(k->res.requests, name);
    sl_quantity_t q;
    int64_t n = 0;
    if (!v || sl_quantity_from_json(v, &q, NULL, NULL) < 0 || sl_quantity_ceil_div(&q, 1, &n) < 0 ||
        n < 0 || n > 1000000)
        return 0;
    return n;
}

/* Kubernetes' effective request of name: max(sum(app + sidecars), max(init)) */
static int64_t eff_count(const sl_pod_t *p, const char *name)
{
    int64_t app = 0, init = 0;
    for (size_t i = 0; i < p->ncontainers; i++)
        app += ctr_count(&p->containers[i], name);
    for (size_t i = 0; i < p->ninit; i++) {
        int64_t n = ctr_count(&p->init_containers[i], name);
        if (tr_is_sidecar(&p->init_containers[i]))
            app += n;
        else if (n > init)
            init = n;
    }
    return app > init ? app : init;
}

static void add_mig_names(const json_t *m, json_t *seen)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)m, k, v)
    {
        if (!strncmp(k, SL_GPU_MIG_PREFIX, strlen(SL_GPU_MIG_PREFIX)))
            json_object_set_new(seen, k, json_true());
    }
}

/* every nvidia.com/mig-* name the pod's containers ask for */
static json_t *mig_names(const sl_pod_t *p)
{
    json_t *seen = json_object();
    for (size_t i = 0; i < p->ncontainers + p->ninit; i++) {
        const sl_pod_container_t *k =
            i < p->ncontainers ? &p->containers[i] : &p->init_containers[i - p->ncontainers];
        add_mig_names(k->res.limits, seen);
        add_mig_names(k->res.requests, seen);
    }
    return seen;
}

int64_t tr_ctr_gpus(const tr_ctx_t *c, const sl_pod_container_t *k)
{
    const char *shared = c->cfg->gpu_shared ? c->cfg->gpu_shared : SL_GPU_DEFAULT_SHARED;
    int64_t n = k->res.gpus + ctr_count(k, shared);
    const json_t *spec = json_object_get(c->pod->json, "spec");
    const json_t *cj = json_array_get(
        json_object_get(spec, k->init ? "initContainers" : "containers"), (size_t)k->index);
    const json_t *claims = json_object_get(json_object_get(cj, "resources"), "claims");
    if (c->cfg->claims_gres && json_array_size(claims)) /* a DRA claim's GPUs */
        n++;
    json_t *seen = json_object();
    add_mig_names(k->res.limits, seen);
    add_mig_names(k->res.requests, seen);
    const char *name;
    json_t *v;
    json_object_foreach(seen, name, v) { n += ctr_count(k, name); }
    json_decref(seen);
    return n;
}

/* the product a required nodeAffinity term selects (one term, operator In,
 * one value); NULL when none; *bad set when the key is used otherwise */
static const char *affinity_product(const sl_pod_t *p, const char **bad)
{
    const json_t *terms = json_object_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(p->json, "spec"), "affinity"),
                            "nodeAffinity"),
            "requiredDuringSchedulingIgnoredDuringExecution"),
        "nodeSelectorTerms");
    const char *found = NULL;
    size_t i, j;
    json_t *t, *x;
    json_array_foreach(terms, i, t)
    {
        json_array_foreach(json_object_get(t, "matchExpressions"), j, x)
        {
            const char *key = json_string_value(json_object_get(x, "key"));
            if (!key || strcmp(key, SL_GPU_PRODUCT_LABEL))
                continue;
            const char *op = json_string_value(json_object_get(x, "operator"));
            const json_t *vals = json_object_get(x, "values");
            if (found || json_array_size(terms) != 1 || !op || strcmp(op, "In") ||
                json_array_size(vals) != 1 || !json_is_string(json_array_get(vals, 0))) {
                *bad = "only one nodeSelectorTerm with operator In and one value is supported "
                       "for " SL_GPU_PRODUCT_LABEL " (Slurm's --gres takes one GPU type)";
                return NULL;
            }
            found = json_string_value(json_array_get(vals, 0));
        }
    }
    return found;
}

/* the product the pod selects: nodeSelector, else required nodeAffinity */
const char *tr_gpu_product(const sl_pod_t *p)
{
    for (size_t i = 0; i < p->nnode_selector; i++)
        if (!strcmp(p->node_selector[i].key, SL_GPU_PRODUCT_LABEL))
            return p->node_selector[i].value;
    const char *bad = NULL;
    return affinity_product(p, &bad);
}

/* spec.resourceClaims: each a DNS-label name and exactly one of a claim's
 * or a template's name (ValidatePodResourceClaim's texts) */
static void claims_validate(const sl_pod_t *p, sl_error_t *e)
{
    size_t i;
    json_t *rc;
    json_array_foreach(json_object_get(json_object_get(p->json, "spec"), "resourceClaims"), i, rc)
    {
        const char *n = json_string_value(json_object_get(rc, "name"));
        const char *cn = json_string_value(json_object_get(rc, "resourceClaimName"));
        const char *tn = json_string_value(json_object_get(rc, "resourceClaimTemplateName"));
        char *f = sl_xasprintf("spec.resourceClaims[%zu].name", i);
        if (!n || !*n)
            sl_err_required(e, "", "%s", f);
        else
            sl_validate_dns1123_label(e, f, n);
        free(f);
        if (!cn == !tn)
            sl_err_invalid(e, "",
                           "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
                           "spec.resourceClaims[%zu]", i);
        f = sl_xasprintf(cn ? "spec.resourceClaims[%zu].resourceClaimName"
                            : "spec.resourceClaims[%zu].resourceClaimTemplateName",
                         i);
        if (cn || tn)
            sl_validate_dns1123_subdomain(e, f, cn ? cn : tn);
        free(f);
    }
}

void tr_gpu_validate(const sl_pod_t *p, const sl_translate_config_t *cfg, sl_error_t *e)
{
    claims_validate(p, e);
    const char *bad = NULL;
    affinity_product(p, &bad);
    if (bad)
        sl_err_invalid(e, SL_GPU_PRODUCT_LABEL, bad, "%s.nodeSelectorTerms", AFF_TERMS);
    const char *prod = tr_gpu_product(p);
    char *type = prod ? sl_gpu_type_for_product(cfg ? cfg->gpu_types : NULL, prod) : NULL;
    if (prod && !type)
        sl_err_invalid(e, prod,
                       "names no Slurm GRES type: the gpus.types table has no row for it and "
                       "it is not a type name (letters, digits, '.', '_', '-')",
                       "spec.nodeSelector[%s]", SL_GPU_PRODUCT_LABEL);
    free(type);
    json_t *mig = mig_names(p);
    const char *k;
    json_t *v;
    json_object_foreach(mig, k, v)
    {
        if (!sl_gpu_type_ok(k + strlen(SL_GPU_MIG_PREFIX)))
            sl_err_invalid(e, k,
                           "a MIG profile must be a Slurm GRES type name (letters, digits, '.', "
                           "'_', '-'), as in nvidia.com/mig-1g.10gb",
                           "spec.containers[*].resources.limits[%s]", k);
    }
    json_decref(mig);
}

/* "gpu[:TYPE]:N,gpu:PROFILE:N,shard[:TYPE]:N" for the pod, NULL when it asks for no GPU */
char *tr_gres(tr_ctx_t *c, int64_t gpus)
{
    const sl_pod_t *p = c->pod;
    sl_buf_t b = SL_BUF_INIT;
    const char *prod = tr_gpu_product(p);
    char *type = prod ? sl_gpu_type_for_product(c->cfg->gpu_types, prod) : NULL;
    const char *shared = c->cfg->gpu_shared ? c->cfg->gpu_shared : SL_GPU_DEFAULT_SHARED;
    int64_t shards = eff_count(p, shared);
    if (gpus > 0)
        sl_buf_printf(&b, "gpu:%s%s%lld", type ? type : "", type ? ":" : "", (long long)gpus);
    else if (prod && shards <= 0)
        tr_warn(c, "nodeSelector %s=%s: the pod asks for no nvidia.com/gpu; ignored",
                SL_GPU_PRODUCT_LABEL, prod);
    json_t *mig = mig_names(p);
    const char *k;
    json_t *v;
    json_object_foreach(mig, k, v)
    {
        int64_t n = eff_count(p, k);
        if (n > 0)
            sl_buf_printf(&b, "%sgpu:%s:%lld", b.len ? "," : "", k + strlen(SL_GPU_MIG_PREFIX),
                          (long long)n);
    }
    json_decref(mig);
    if (c->cfg->claims_gres && *c->cfg->claims_gres) /* DRA claims (src/ctl/claims.c) */
        sl_buf_printf(&b, "%s%s", b.len ? "," : "", c->cfg->claims_gres);
    /* Slurm gives a GPU's shards its type: shard:h100:N */
    if (shards > 0)
        sl_buf_printf(&b, "%sshard:%s%s%lld", b.len ? "," : "", type ? type : "", type ? ":" : "",
                      (long long)shards);
    free(type);
    if (!b.len) {
        sl_buf_free(&b);
        return NULL;
    }
    char *merged = sl_gpu_gres_merge(b.data); /* Slurm takes no typed + untyped mix */
    sl_buf_free(&b);
    return merged;
}
