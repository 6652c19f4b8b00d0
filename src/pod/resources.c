/* resources.c — container resources: names, quantities, requests vs limits
 * (ValidateResourceRequirements), converted to the units Slurm takes. */
#include "kube/quantity.h"
#include "pod/internal.h"

#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int is_standard_container_resource(const char *n)
{
    return !strcmp(n, "cpu") || !strcmp(n, "memory") || !strcmp(n, "ephemeral-storage") ||
           !strncmp(n, "hugepages-", 10);
}

/* Extended resources (anything with a domain outside kubernetes.io) are
 * integers and cannot be overcommitted: requests must equal limits. */
static int is_extended(const char *n)
{
    const char *slash = strchr(n, '/');
    if (!slash)
        return 0;
    size_t dl = (size_t)(slash - n);
    if ((dl == 13 && !strncmp(n, "kubernetes.io", 13)) ||
        (dl > 14 && !strncmp(slash - 14, ".kubernetes.io", 14)))
        return 0;
    return strncmp(n, "requests.", 9) != 0;
}

static int is_gpu(const char *n)
{
    return !strcmp(n, "nvidia.com/gpu") || !strcmp(n, "amd.com/gpu");
}

typedef struct rq {
    const char *name;
    sl_quantity_t q;
    int ok;
} rq_t;

static rq_t *parse_list(pod_ctx_t *c, const json_t *m, const char *path, size_t *n)
{
    *n = 0;
    if (!m)
        return NULL;
    rq_t *v = sl_xcalloc(json_object_size(m) + 1, sizeof(rq_t));
    const char *k;
    json_t *val;
    json_object_foreach((json_t *)m, k, val)
    {
        rq_t *r = &v[(*n)++];
        char *fp = sl_xasprintf("%s[%s]", path, k);
        sl_error_t qerr;
        char *text = NULL;
        r->name = k;
        sl_validate_qualified_name(c->errs, fp, k);
        if (!strchr(k, '/')) {
            if (!is_standard_container_resource(k))
                sl_err_invalid(c->errs, k, "must be a standard resource for containers", "%s", fp);
        }
        if (sl_quantity_from_json(val, &r->q, &text, &qerr) < 0) {
            char *raw = json_is_string(val) ? sl_xstrdup(json_string_value(val))
                                            : json_dumps(val, JSON_ENCODE_ANY);
            sl_err_invalid(c->errs, raw, qerr.text, "%s", fp);
            free(raw);
        } else {
            char *canon = sl_quantity_string(&r->q);
            r->ok = 1;
            if (sl_quantity_sign(&r->q) < 0) {
                sl_err_invalid(c->errs, canon, "must be greater than or equal to 0", "%s", fp);
                r->ok = 0;
            } else if (is_extended(k) && !sl_quantity_is_integer(&r->q)) {
                sl_err_invalid(c->errs, canon, "must be an integer", "%s", fp);
                r->ok = 0;
            }
            free(canon);
        }
        free(text);
        free(fp);
    }
    return v;
}

static const rq_t *find(const rq_t *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

static void to_units(pod_ctx_t *c, const rq_t *r, const char *path, const char *which, int64_t *cpu,
                     int64_t *mem)
{
    if (!r || !r->ok)
        return;
    int64_t v;
    if (!strcmp(r->name, "cpu")) {
        if (sl_quantity_milli(&r->q, &v) == 0)
            *cpu = v;
        else
            sl_err_invalid(c->errs, "", "is too large", "%s.%s[cpu]", path, which);
    } else if (!strcmp(r->name, "memory")) {
        if (sl_quantity_ceil_div(&r->q, 1, &v) == 0)
            *mem = v;
        else
            sl_err_invalid(c->errs, "", "is too large", "%s.%s[memory]", path, which);
    }
}

void pod_parse_resources(pod_ctx_t *c, const json_t *ctr, const char *cpath,
                         sl_pod_resources_t *res)
{
    char *path = sl_xasprintf("%s.resources", cpath);
    char *limpath = sl_xasprintf("%s.limits", path);
    char *reqpath = sl_xasprintf("%s.requests", path);
    const json_t *rj = pod_obj(c, ctr, "resources", cpath);
    const json_t *lim = rj ? pod_obj(c, rj, "limits", path) : NULL;
    const json_t *req = rj ? pod_obj(c, rj, "requests", path) : NULL;
    size_t nl = 0, nr = 0;
    res->cpu_req_milli = res->cpu_lim_milli = SL_POD_UNSET;
    res->mem_req_bytes = res->mem_lim_bytes = SL_POD_UNSET;
    res->gpus = 0;
    res->limits = lim;
    res->requests = req;
    rq_t *lv = parse_list(c, lim, limpath, &nl);
    rq_t *rv = parse_list(c, req, reqpath, &nr);
    for (size_t i = 0; i < nr; i++) {
        const rq_t *r = &rv[i], *l = find(lv, nl, r->name);
        if (!r->ok)
            continue;
        if (l && l->ok) {
            char *rs = sl_quantity_string(&r->q), *ls = sl_quantity_string(&l->q);
            char *d = NULL;
            int cmp = sl_quantity_cmp(&r->q, &l->q);
            if (cmp != 0 && is_extended(r->name))
                d = sl_xasprintf("must be equal to %s limit of %s", r->name, ls);
            else if (cmp > 0)
                d = sl_xasprintf("must be less than or equal to %s limit of %s", r->name, ls);
            if (d)
                sl_err_invalid(c->errs, rs, d, "%s", reqpath);
            free(d);
            free(rs);
            free(ls);
        } else if (!l && is_extended(r->name)) {
            sl_err_forbidden(c->errs, "Limit must be set for non overcommitable resources", "%s",
                             limpath);
        }
    }
    /* requests default to limits (SetDefaults_Pod) */
    to_units(c, find(lv, nl, "cpu"), path, "limits", &res->cpu_lim_milli, &res->mem_lim_bytes);
    to_units(c, find(lv, nl, "memory"), path, "limits", &res->cpu_lim_milli, &res->mem_lim_bytes);
    const rq_t *x = find(rv, nr, "cpu");
    to_units(c, x ? x : find(lv, nl, "cpu"), path, "requests", &res->cpu_req_milli,
             &res->mem_req_bytes);
    x = find(rv, nr, "memory");
    to_units(c, x ? x : find(lv, nl, "memory"), path, "requests", &res->cpu_req_milli,
             &res->mem_req_bytes);
    int64_t gl = 0, gr = 0;
    for (size_t i = 0; i < nl; i++)
        if (is_gpu(lv[i].name) && lv[i].ok) {
            int64_t v;
            if (sl_quantity_ceil_div(&lv[i].q, 1, &v) == 0 && v < 1000000)
                gl += v;
        }
    for (size_t i = 0; i < nr; i++)
        if (is_gpu(rv[i].name) && rv[i].ok) {
            int64_t v;
            if (sl_quantity_ceil_div(&rv[i].q, 1, &v) == 0 && v < 1000000)
                gr += v;
        }
    res->gpus = gl > gr ? gl : gr;
    free(lv);
    free(rv);
    free(path);
    free(limpath);
    free(reqpath);
}
