/* src/kinds/pytorchjob/validate.c — a PyTorchJob's validation in kube-apiserver's order for
 * a custom resource: ObjectMeta, the CRD schema's types and required
 * fields (crd.h), then the Training Operator's validating webhook
 * (pkg/webhooks/pytorch/pytorchjob_webhook.go, v1.8.1) with its texts, and
 * slurmlink's own: each replica's pod template as the pod it becomes
 * (the pod module and the translator), the restart policies the
 * controller knows, elasticPolicy as one Slurm job can hold it (a range
 * of Workers: a node range). */
#include "api/crd.h"
#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/kubeflow/api.h"
#include "kinds/pytorchjob/pytorchjob.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "translate/translate.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RS "spec.pytorchReplicaSpecs"
#define CTL_GANG_NODES_MAX 256 /* ctl/internal.h CTL_GANG_MAX: a gang's nodes */
json_t *api_ptj_schema(void) { return api_crd_schema("kubeflow.org", "v1", "PyTorchJob"); }

/* NameIsDNS1035Label, as the webhook words it: "should match: ERRS" */
static void validate_name(json_t *job, sl_error_t *err)
{
    const char *name = sl_kube_name(job);
    if (!name)
        return;
    char why[512] = "";
    api_tj_dns1035(name, ",", why, sizeof(why));
    if (*why) {
        char *d = sl_xasprintf("should match: %s", why);
        sl_err_field(err, SL_FE_INVALID, "metadata.name", name, d);
        free(d);
    }
}

/* the webhook's containers rules of one replica type */
static void validate_containers(const char *type, json_t *rs, sl_error_t *err)
{
    char f[160];
    snprintf(f, sizeof(f), RS "[%s].template.spec.containers", type);
    json_t *ctrs = sl_kube_path(rs, "template.spec.containers");
    if (!json_is_object(rs) || !json_array_size(ctrs))
        sl_err_field_none(err, SL_FE_REQUIRED, f, "must be specified");
    bool named = false;
    size_t i;
    json_t *c;
    json_array_foreach(ctrs, i, c)
    {
        const char *img = json_string_value(json_object_get(c, "image"));
        const char *n = json_string_value(json_object_get(c, "name"));
        if (!img || !*img) {
            char fi[200];
            snprintf(fi, sizeof(fi), "%s[%zu].image", f, i);
            sl_err_field_none(err, SL_FE_REQUIRED, fi, "must be required");
        }
        named |= n && !strcmp(n, PTJ_CONTAINER);
    }
    if (!named)
        sl_err_field_none(err, SL_FE_REQUIRED, f,
                          "must have at least one container with name " PTJ_CONTAINER);
}

/* restartPolicy: the four the operator knows (common_types.go) */
static void validate_restart(const char *type, json_t *rs, sl_error_t *err)
{
    static const char *const rps[] = {"Always", "OnFailure", "Never", "ExitCode", NULL};
    const char *rp = json_string_value(json_object_get(rs, "restartPolicy"));
    for (int i = 0; rp && rps[i]; i++)
        if (!strcmp(rp, rps[i]))
            return;
    if (rp)
        sl_err_not_supported(err, rp, rps, RS "[%s].restartPolicy", type);
}

/* validatePyTorchReplicaSpecs */
static void validate_specs(json_t *spec, sl_error_t *err)
{
    static const char *const types[] = {"Master", "Worker", NULL};
    json_t *specs = json_object_get(spec, "pytorchReplicaSpecs");
    if (!json_is_object(specs)) {
        sl_err_field_none(err, SL_FE_REQUIRED, RS, "must be required");
        return;
    }
    const char *type;
    json_t *rs;
    json_object_foreach(specs, type, rs)
    {
        if (strcmp(type, "Master") && strcmp(type, "Worker"))
            sl_err_not_supported(err, type, types, RS "[%s]", type);
        validate_containers(type, rs, err);
        validate_restart(type, rs, err);
        json_t *n = json_object_get(rs, "replicas");
        char f[160];
        snprintf(f, sizeof(f), RS "[%s].replicas", type);
        if (!strcmp(type, "Master") && !(json_is_integer(n) && json_integer_value(n) == 1))
            sl_err_field_none(err, SL_FE_FORBIDDEN, f, "must be 1");
        else if (json_is_integer(n) && json_integer_value(n) < 0)
            sl_err_field_int(err, SL_FE_INVALID, f, json_integer_value(n),
                             "must be greater than or equal to 0");
    }
}

/* a range of Workers (minReplicas < maxReplicas) is one Slurm job with a
 * node range (--nodes=MIN-MAX, docs/jobs.md): what Slurm cannot express is
 * refused. metrics (the operator's HorizontalPodAutoscaler, which scales
 * the Worker replicas of a running job): Slurm sizes an allocation once,
 * when it starts the job. minReplicas 0: worker-0 is the rendezvous. */
static void validate_range(json_t *spec, json_t *ep, long long mn, long long mx, sl_error_t *err)
{
    long long lead = json_is_object(sl_kube_path(spec, "pytorchReplicaSpecs.Master")) ? 1 : 0;
    if (mn < 1)
        sl_err_field_int(err, SL_FE_INVALID, "spec.elasticPolicy.minReplicas", mn,
                         "must be at least 1: worker-0's node is the rendezvous endpoint");
    if (mx + lead > CTL_GANG_NODES_MAX)
        sl_err_field_int(err, SL_FE_INVALID, "spec.elasticPolicy.maxReplicas", mx,
                         lead ? "must be at most 255: a gang's job has at most 256 nodes, the "
                                "Master's one of them"
                              : "must be at most 256: a gang's job has at most 256 nodes");
    if (mn < mx && json_array_size(json_object_get(ep, "metrics")))
        sl_err_field_none(err, SL_FE_FORBIDDEN, "spec.elasticPolicy.metrics",
                          "not supported with a range: Slurm sizes a job once, when it starts it "
                          "(--nodes=MIN-MAX, as many nodes as are free), and no autoscaler can "
                          "grow or shrink a running Slurm job");
}

/* elasticPolicy: the webhook's rule on the deprecated nProcPerNode; then
 * slurmlink's: minReplicas <= Worker replicas <= maxReplicas (the range the
 * operator's autoscaler keeps them in; a fixed size: all three equal) */
static void validate_elastic(json_t *spec, sl_error_t *err)
{
    json_t *ep = json_object_get(spec, "elasticPolicy");
    if (!json_is_object(ep))
        return;
    if (json_object_get(ep, "nProcPerNode") && json_object_get(spec, "nprocPerNode"))
        sl_err_field_none(err, SL_FE_FORBIDDEN, "spec.elasticPolicy.nProcPerNode",
                          "must not be used with spec.nprocPerNode");
    json_t *jmn = json_object_get(ep, "minReplicas"), *jmx = json_object_get(ep, "maxReplicas");
    json_t *w = sl_kube_path(spec, "pytorchReplicaSpecs.Worker.replicas");
    if (!json_is_integer(jmn) || !json_is_integer(jmx))
        return; /* no Worker replicas to default them from (src/kinds/pytorchjob/api.c): nothing to
                   scale */
    long long mn = json_integer_value(jmn), mx = json_integer_value(jmx);
    if (mn > mx) {
        char d[96];
        snprintf(d, sizeof(d), "must be less than or equal to maxReplicas (%lld)", mx);
        sl_err_field_int(err, SL_FE_INVALID, "spec.elasticPolicy.minReplicas", mn, d);
        return;
    }
    validate_range(spec, ep, mn, mx, err);
    if (!json_is_integer(w))
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.pytorchReplicaSpecs[Worker]",
                          "an elasticPolicy scales the Worker replicas");
    else if (json_integer_value(w) < mn || json_integer_value(w) > mx) {
        char d[128];
        snprintf(d, sizeof(d), "must be within elasticPolicy.minReplicas..maxReplicas (%lld..%lld)",
                 mn, mx);
        sl_err_field_int(err, SL_FE_INVALID, RS "[Worker].replicas", json_integer_value(w), d);
    }
}

/* what becomes the Slurm job's per-node request (the containers'
 * resources, nodeSelector) */
static json_t *shape(json_t *rs)
{
    json_t *ps = sl_kube_path(rs, "template.spec"), *res = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(ps, "containers"), i, c) json_array_append(
        res, json_object_get(c, "resources") ? json_object_get(c, "resources") : json_null());
    return json_pack("{s:o, s:O?}", "resources", res, "nodeSelector",
                     json_object_get(ps, "nodeSelector"));
}

/* one Slurm job of alike nodes (docs/jobs.md: why not a heterogeneous job):
 * the Worker requests what the Master does */
static void validate_alike(json_t *spec, sl_error_t *err)
{
    json_t *m = sl_kube_path(spec, "pytorchReplicaSpecs.Master"),
           *w = sl_kube_path(spec, "pytorchReplicaSpecs.Worker");
    if (!json_is_object(m) || !json_is_object(w))
        return;
    json_t *a = shape(m), *b = shape(w);
    if (!json_equal(a, b))
        sl_err_field_none(err, SL_FE_FORBIDDEN, RS "[Worker].template.spec",
                          "must request the resources and nodeSelector of " RS
                          "[Master].template.spec: slurmlink runs every replica in one Slurm job "
                          "of alike nodes (--nodes=N --ntasks-per-node=1)");
    json_decref(a);
    json_decref(b);
}

int api_ptj_validate(json_t *job, sl_error_t *err)
{
    api_validate_meta(job, false, err);
    if (sl_err_nfields(err))
        return -1;
    api_crd_validate(api_ptj_schema(), job, err);
    if (sl_err_nfields(err))
        return -1;
    validate_name(job, err);
    json_t *spec = json_object_get(job, "spec");
    validate_specs(spec, err);
    validate_elastic(spec, err);
    if (sl_err_nfields(err))
        return -1;
    const char *type;
    json_t *rs;
    json_object_foreach(json_object_get(spec, "pytorchReplicaSpecs"), type, rs)
        api_tj_validate_template(RS, type, rs, err);
    if (!sl_err_nfields(err))
        validate_alike(spec, err);
    return api_fields_result(err);
}

/* The webhook's ValidateUpdate is its ValidateCreate; the replica specs
 * and the run policy of a started gang are fixed (slurmlink's: the Slurm
 * job is submitted with them), but suspend may change. */
int api_ptj_validate_update(json_t *job, json_t *old, sl_error_t *err)
{
    if (api_ptj_validate(job, err) < 0)
        return -1;
    json_t *a = sl_kube_path(job, "spec.pytorchReplicaSpecs"),
           *b = sl_kube_path(old, "spec.pytorchReplicaSpecs");
    if (a && b && !json_equal(a, b))
        sl_err_field_none(err, SL_FE_FORBIDDEN, RS,
                          "the replica specs of a PyTorchJob are fixed: it runs as one Slurm job "
                          "submitted with them; delete and create it again");
    return api_fields_result(err);
}

int api_ptj_validate_status(json_t *job, json_t *old, sl_error_t *err)
{
    (void)old;
    api_crd_validate(api_ptj_schema(), job, err);
    return api_fields_result(err);
}
