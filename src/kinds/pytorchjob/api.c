/* src/kinds/pytorchjob/api.c — kubeflow.org/v1 PyTorchJob's hooks, as the Kubeflow
 * Training Operator v1.8 serves it: strict decoding and the type checks
 * of its published CRD schema (crd.h), the operator's defaults
 * (SetDefaults_PyTorchJob), its validating webhook's rules and texts
 * (validatePyTorchJob), each replica's pod template through the pod
 * module (what slurmlink cannot run is refused here, not half-created
 * later), the status subresource and the CRD's Table (NAME STATE AGE).
 * The controller that runs a PyTorchJob as one Slurm job is src/ctl/gang*.c. */
#include "kinds/kubeflow/api.h"
#include "api/crd.h"
#include "api/internal.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/pytorchjob/pytorchjob.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "translate/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define RS "spec.pytorchReplicaSpecs"

static const char *const replica_types[] = {"Master", "Worker", NULL};

static int ptj_decode(json_t *job, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)err;
    api_crd_unknown(api_ptj_schema(), job, unknown);
    api_tj_template_warnings(job, RS, warnings);
    return 0;
}

/* setPyTorchTypeNamesToCamelCase: "master", "WORKER" → "Master", "Worker" */
static void camel_case_types(json_t *specs)
{
    for (int t = 0; replica_types[t]; t++) {
        const char *k;
        json_t *v;
        json_object_foreach(specs, k,
                            v) if (!strcasecmp(k, replica_types[t]) && strcmp(k, replica_types[t]))
        {
            json_object_set(specs, replica_types[t], v);
            json_object_del(specs, k);
            break;
        }
    }
}

/* setPyTorchDefaultPort: pytorchjob-port 23456 on the container named
 * pytorch (the first container when none is) unless it has that port */
static void default_port(json_t *pod_spec)
{
    json_t *ctrs = json_object_get(pod_spec, "containers");
    if (!json_array_size(ctrs))
        return;
    json_t *c = json_array_get(ctrs, 0);
    size_t i;
    json_t *x;
    json_array_foreach(ctrs, i, x)
    {
        const char *n = json_string_value(json_object_get(x, "name"));
        if (n && !strcmp(n, PTJ_CONTAINER)) {
            c = x;
            break;
        }
    }
    json_t *ports = json_object_get(c, "ports");
    json_array_foreach(ports, i, x)
    {
        const char *n = json_string_value(json_object_get(x, "name"));
        if (n && !strcmp(n, PTJ_PORT_NAME))
            return;
    }
    if (!json_is_array(ports))
        json_object_set_new(c, "ports", ports = json_array());
    /* the CRD's schema default of protocol (TCP) comes with it */
    json_array_append_new(ports, json_pack("{s:s, s:i, s:s}", "name", PTJ_PORT_NAME,
                                           "containerPort", PTJ_PORT, "protocol", "TCP"));
}

/* setElasticPolicy: min and max from each other, else the Worker replicas */
static void elastic_defaults(json_t *spec)
{
    json_t *ep = json_object_get(spec, "elasticPolicy");
    if (!json_is_object(ep))
        return;
    json_t *mn = json_object_get(ep, "minReplicas"), *mx = json_object_get(ep, "maxReplicas");
    json_t *w = sl_kube_path(spec, "pytorchReplicaSpecs.Worker.replicas");
    if (json_is_integer(mn) && !json_is_integer(mx))
        json_object_set(ep, "maxReplicas", mn);
    else if (!json_is_integer(mn) && json_is_integer(mx))
        json_object_set(ep, "minReplicas", mx);
    else if (!json_is_integer(mn) && json_is_integer(w)) {
        json_object_set(ep, "minReplicas", w);
        json_object_set(ep, "maxReplicas", w);
    }
}

/* SetDefaults_PyTorchJob, and the CRD schema's own defaults (runPolicy.suspend
 * false, a port's protocol TCP) */
static void ptj_defaults(json_t *job)
{
    json_t *spec = api_tj_obj_child(job, "spec");
    json_t *rp = api_tj_obj_child(spec, "runPolicy");
    api_tj_default(rp, "cleanPodPolicy", json_string("None"));
    api_tj_default(rp, "suspend", json_false());
    json_t *specs = json_object_get(spec, "pytorchReplicaSpecs");
    if (json_is_object(specs))
        camel_case_types(specs);
    const char *k;
    json_t *rs;
    json_object_foreach(specs, k, rs)
    {
        if (!json_is_object(rs))
            continue;
        api_tj_default(rs, "replicas", json_integer(1));
        api_tj_default(rs, "restartPolicy", json_string("OnFailure"));
        json_t *ps = sl_kube_path(rs, "template.spec");
        if (json_is_object(ps))
            default_port(ps);
    }
    elastic_defaults(spec);
    json_t *ep = json_object_get(spec, "elasticPolicy");
    if (!json_is_object(ep) || !json_object_get(ep, "nProcPerNode"))
        api_tj_default(spec, "nprocPerNode", json_string("auto"));
}

const api_kind_ops_t api_pytorchjob_ops = {
    .decode_check = ptj_decode,
    .defaults = ptj_defaults,
    .prepare_create = api_tj_prepare_create,
    .prepare_update = api_tj_prepare_update,
    .validate_create = api_ptj_validate,
    .validate_update = api_ptj_validate_update,
    .validate_status = api_ptj_validate_status,
    .table_columns = api_ptj_columns,
    .table_cells = api_ptj_cells,
};
