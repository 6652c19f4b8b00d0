/* nodeops.c — kubectl cordon and uncordon: a PATCH of a node's
 * spec.unschedulable (kubectl sends a strategic merge patch) becomes a
 * Slurm drain or resume of that node through libslurm (slurmif), as
 * `scontrol update nodename=N state=drain reason="cordoned by U via
 * kubectl"` or `state=resume`. Nodes mirror Slurm's (src/ctl/nodes.c
 * writes them from each poll), so nothing else of a node may change here:
 * a patch that touches any other field is refused. The router has
 * authorized the patch (nodes are written by adminGroups only). A drain
 * lets the running jobs go on and starts no new ones: HPC jobs keep their
 * own course; kubectl drain evicts the pods (eviction.c). */
#include "api/nodeops.h"
#include "api/decode.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "api/jsonpatch.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/patch.h"
#include "kube/status.h"
#include "slurmif/slurmif.h"
#include "store/store.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

static bool ct_is(const char *ct, const char *want)
{
    size_t n = strcspn(ct, ";");
    while (n && ct[n - 1] == ' ')
        n--;
    return n == strlen(want) && !strncasecmp(ct, want, n);
}

/* old patched by the request's body; NULL with err (415 for an apply or
 * unknown patch type) */
static json_t *patched(api_req_t *r, json_t *old, sl_error_t *err)
{
    const char *ct = api_header(r, "Content-Type");
    json_t *patch = api_parse_body(r->body.data, r->body.len, false, err);
    if (!patch)
        return NULL;
    json_t *out = NULL;
    if (ct && ct_is(ct, "application/strategic-merge-patch+json"))
        out = sl_kube_strategic_merge("v1", "Node", old, patch, err);
    else if (ct && ct_is(ct, "application/merge-patch+json"))
        out = sl_kube_merge_patch(old, patch);
    else if (ct && ct_is(ct, "application/json-patch+json"))
        out = api_json_patch(old, patch, r->api->max_body, err);
    else
        sl_errkindf(err, SL_ERR_UNSUPPORTED_MEDIA_TYPE,
                    "the body of a node patch must be a JSON, merge or strategic merge patch");
    json_decref(patch);
    if (out && !json_is_object(out)) {
        json_decref(out);
        out = NULL;
    }
    if (!out && !err->kind)
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "the patch does not apply to the node");
    return out;
}

/* Does new differ from old in anything but spec.unschedulable and the
 * taint that mirrors it? */
static bool other_change(json_t *old, json_t *new)
{
    json_t *a = json_deep_copy(old), *b = json_deep_copy(new);
    sl_kube_node_set_unschedulable(a, false);
    sl_kube_node_set_unschedulable(b, false);
    bool differ = !json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return differ;
}

static int set_unsched(json_t *obj, void *arg)
{
    bool on = *(bool *)arg;
    if (json_is_true(sl_kube_path(obj, "spec.unschedulable")) == on)
        return 0;
    sl_kube_node_set_unschedulable(obj, on);
    return 1;
}

/* Slurm first, then the stored node (the next poll writes the same) */
static json_t *apply_to_slurm(api_req_t *r, const char *name, bool on, sl_error_t *err)
{
    const char *who = r->user ? r->user->name : "a client";
    char *reason = sl_xasprintf("cordoned by %s via kubectl", who);
    int rc = sl_slurm_node_set_drain(name, on, reason, err);
    free(reason);
    if (rc < 0) {
        char *why = sl_xstrdup(err->text); /* not formatted from err into err */
        sl_errkindf(err, SL_ERR_INTERNAL, "Slurm refused the %s of node %s: %s",
                    on ? "drain" : "resume", name, why);
        free(why);
        return NULL;
    }
    sl_info("node %s %s by %s", name, on ? "drained (cordon)" : "resumed (uncordon)", who);
    json_t *out = NULL;
    if (sl_store_mutate(r->api->store, "nodes", NULL, name, set_unsched, &on, &out, err) < 0)
        return NULL;
    return out;
}

enum MHD_Result api_handle_node_patch(api_req_t *r, const api_path_t *p)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *old = sl_store_get(r->api->store, "nodes", NULL, p->name);
    if (!old)
        return api_reply_status(r, api_store_error_status(p->res, p->name, ENOENT, NULL));
    json_t *new = patched(r, old, &err);
    json_t *out = NULL;
    if (new &&other_change(old, new)) {
        char *m = sl_xasprintf("Node \"%s\" is invalid: only spec.unschedulable of a node may "
                               "change (kubectl cordon, uncordon): the rest mirrors Slurm's node",
                               p->name);
        json_decref(new);
        json_decref(old);
        enum MHD_Result res = api_reply_status(r, sl_kube_status(422, "Invalid", m, json_object()));
        free(m);
        return res;
    }
    bool on = new &&json_is_true(sl_kube_path(new, "spec.unschedulable"));
    bool dry = api_query(r, "dryRun") != NULL;
    if (new && (dry || on == json_is_true(sl_kube_path(old, "spec.unschedulable"))))
        out = json_incref(new); /* nothing to do in Slurm */
    else if (new)
        out = apply_to_slurm(r, p->name, on, &err);
    json_decref(new);
    json_decref(old);
    if (!out)
        return api_reply_error(r, p->res, p->name, &err);
    return api_reply_object(r, p->res, 200, out);
}
