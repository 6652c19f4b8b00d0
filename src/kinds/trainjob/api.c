/* api.c — the API's hooks of trainer.kubeflow.org/v1alpha1 TrainJob,
 * TrainingRuntime and ClusterTrainingRuntime as Kubeflow Trainer v2.3.0
 * serves them: strict decoding and the type checks of its published CRDs
 * (api/crd.h; src/api/gen/crds/trainer.kubeflow.org_*.yaml), the CRDs'
 * defaults and CEL rules with their texts, the torch plugin's webhook rule
 * on reserved environment names, and slurmlink's own: a TrainJob's nodes
 * are one Slurm job's (at most 256). Tables as the CRDs print them
 * (TrainJob: NAME STATE AGE; the runtimes: NAME AGE). */
#include "kinds/kubeflow/api.h"
#include "api/crd.h"
#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/pytorchjob/pytorchjob.h"
#include "kinds/trainjob/internal.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANAGER "trainer.kubeflow.org/trainjob-controller"
#define MULTIKUEUE "kueue.x-k8s.io/multikueue"

static json_t *schema_of(json_t *obj)
{
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    return api_crd_schema(TJ_GROUP, "v1alpha1", kind ? kind : "TrainJob");
}

static int tj_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    api_crd_unknown(schema_of(obj), obj, unknown);
    return 0;
}

/* the CRD's defaults */
static void tj_defaults(json_t *tj)
{
    json_t *spec = api_tj_obj_child(tj, "spec");
    json_t *ref = api_tj_obj_child(spec, "runtimeRef");
    api_tj_default(ref, "apiGroup", json_string(TJ_GROUP));
    api_tj_default(ref, "kind", json_string("ClusterTrainingRuntime"));
    api_tj_default(spec, "suspend", json_false());
    api_tj_default(spec, "managedBy", json_string(MANAGER));
}

/* a CEL rule's failure as kube-apiserver words it: PATH: Invalid value: "TYPE": MESSAGE */
static void cel(sl_error_t *err, const char *path, const char *type, const char *msg)
{
    sl_err_field(err, SL_FE_INVALID, path, type, msg);
}

static bool dns1035(const char *s)
{
    size_t n = strlen(s);
    if (!n || s[0] < 'a' || s[0] > 'z' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

/* the torch plugin's Validate: no reserved torchrun variable in trainer.env */
static void reserved_env(json_t *spec, sl_error_t *err)
{
    static const char *const reserved[] = {"PET_MASTER_ADDR", "PET_MASTER_PORT", "PET_NNODES",
                                           "PET_NODE_RANK", "PET_NPROC_PER_NODE"};
    char found[160] = "";
    for (size_t r = 0; r < sizeof(reserved) / sizeof(reserved[0]); r++) {
        size_t i;
        json_t *e;
        json_array_foreach(sl_kube_path(spec, "trainer.env"), i, e)
        {
            const char *n = json_string_value(json_object_get(e, "name"));
            if (n && !strcmp(n, reserved[r])) {
                snprintf(found + strlen(found), sizeof(found) - strlen(found), "%s%s",
                         *found ? " " : "", n);
                break;
            }
        }
    }
    if (!*found)
        return;
    char *env = json_dumps(sl_kube_path(spec, "trainer.env"), JSON_COMPACT);
    char *d = sl_xasprintf("must not have reserved envs, invalid envs configured: [%s]", found);
    sl_err_field_raw(err, SL_FE_INVALID, "spec.trainer.env", env, d);
    free(d);
    free(env);
}

/* what one Slurm job of numNodes nodes can hold */
static void nodes(json_t *spec, sl_error_t *err)
{
    json_t *n = sl_kube_path(spec, "trainer.numNodes");
    if (json_is_integer(n) && json_integer_value(n) < 1)
        sl_err_field_int(err, SL_FE_INVALID, "spec.trainer.numNodes", json_integer_value(n),
                         "must be greater than or equal to 1");
    else if (json_is_integer(n) && json_integer_value(n) > TJ_MAX_NODES)
        sl_err_field_int(err, SL_FE_INVALID, "spec.trainer.numNodes", json_integer_value(n),
                         "must be at most 256: a TrainJob runs as one Slurm job of at most 256 "
                         "nodes");
    json_t *p = sl_kube_path(spec, "trainer.numProcPerNode");
    if (json_is_integer(p) && json_integer_value(p) < 1)
        sl_err_field_int(err, SL_FE_INVALID, "spec.trainer.numProcPerNode", json_integer_value(p),
                         "must be greater than or equal to 1");
}

/* runtimePatches may not set the node container's env (trainer.env does) */
static void patches(json_t *spec, sl_error_t *err)
{
    size_t i, k, j;
    json_t *p, *rj, *c;
    json_array_foreach(json_object_get(spec, "runtimePatches"), i, p)
        json_array_foreach(sl_kube_path(p, "trainingRuntimeSpec.template.spec.replicatedJobs"), k,
                           rj) json_array_foreach(sl_kube_path(rj, "template.spec.template.spec."
                                                                   "containers"),
                                                  j, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && !strcmp(n, TJ_NODE) && json_array_size(json_object_get(c, "env"))) {
            char f[200];
            snprintf(
                f, sizeof(f),
                "spec.runtimePatches[%zu].trainingRuntimeSpec.template.spec.replicatedJobs[%zu]"
                ".template.spec.template.spec.containers[%zu].env",
                i, k, j);
            sl_err_field_none(err, SL_FE_FORBIDDEN, f,
                              "the env of the node container is set by spec.trainer.env");
        }
    }
}

static int tj_validate(json_t *tj, sl_error_t *err)
{
    api_validate_meta(tj, false, err);
    if (sl_err_nfields(err))
        return -1;
    api_crd_validate(schema_of(tj), tj, err);
    if (sl_err_nfields(err))
        return -1;
    const char *name = sl_kube_name(tj);
    if (name && !dns1035(name))
        cel(err, "metadata.name", name, "metadata.name must match RFC 1035 DNS label format");
    if (name && strlen(name) > 63)
        cel(err, "metadata.name", name, "metadata.name must be no more than 63 characters");
    json_t *spec = json_object_get(tj, "spec");
    const char *mb = sl_kube_path_str(spec, "managedBy");
    if (mb && strcmp(mb, MANAGER) && strcmp(mb, MULTIKUEUE))
        cel(err, "spec.managedBy", mb, "ManagedBy must be " MANAGER " or " MULTIKUEUE " if set");
    reserved_env(spec, err);
    nodes(spec, err);
    patches(spec, err);
    return api_fields_result(err);
}

/* the CRD's `self == oldSelf` rules */
static int tj_validate_update(json_t *tj, json_t *old, sl_error_t *err)
{
    if (tj_validate(tj, err) < 0)
        return -1;
    static const char *const fixed[] = {"runtimeRef", "trainer", "initializer",
                                        "activeDeadlineSeconds", "managedBy"};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        json_t *a = sl_kube_path(json_object_get(tj, "spec"), fixed[i]);
        json_t *b = sl_kube_path(json_object_get(old, "spec"), fixed[i]);
        if ((a || b) && !(a && b && json_equal(a, b))) {
            char f[64];
            snprintf(f, sizeof(f), "spec.%s", fixed[i]);
            cel(err, f,
                json_is_object(a)   ? "object"
                : json_is_string(a) ? json_string_value(a)
                                    : "integer",
                "field is immutable");
        }
    }
    return api_fields_result(err);
}

static int validate_status(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    api_crd_validate(schema_of(obj), obj, err);
    return api_fields_result(err);
}

const api_kind_ops_t trainjob_ops = {
    .decode_check = tj_decode,
    .defaults = tj_defaults,
    .prepare_create = api_tj_prepare_create,
    .prepare_update = api_tj_prepare_update,
    .validate_create = tj_validate,
    .validate_update = tj_validate_update,
    .validate_status = validate_status,
    .table_columns = api_ptj_columns, /* the same printer columns: State, Age */
    .table_cells = api_ptj_cells,
};

/* ---- (Cluster)TrainingRuntime ---- */

/* the CRDs' defaults of mlPolicy.mpi and of each replicated job */
static void rt_defaults(json_t *rt)
{
    json_t *mpi = sl_kube_path(rt, "spec.mlPolicy.mpi");
    if (json_is_object(mpi)) {
        api_tj_default(mpi, "mpiImplementation", json_string("OpenMPI"));
        api_tj_default(mpi, "numProcPerNode", json_integer(1));
        api_tj_default(mpi, "runLauncherAsNode", json_false());
        api_tj_default(mpi, "sshAuthMountPath", json_string("/root/.ssh"));
    }
    size_t i;
    json_t *rj;
    json_array_foreach(sl_kube_path(rt, "spec.template.spec.replicatedJobs"), i, rj)
    {
        if (!json_is_object(rj))
            continue;
        api_tj_default(rj, "replicas", json_integer(1));
        api_tj_default(rj, "groupName", json_string("default"));
    }
}

static int rt_validate(json_t *rt, sl_error_t *err)
{
    api_validate_meta(rt, false, err);
    if (sl_err_nfields(err))
        return -1;
    api_crd_validate(schema_of(rt), rt, err);
    if (sl_err_nfields(err))
        return -1;
    json_t *ml = sl_kube_path(rt, "spec.mlPolicy");
    static const char *const pol[] = {"torch", "mpi", "jax", "xgboost", "flux"};
    int n = 0;
    for (size_t i = 0; i < sizeof(pol) / sizeof(pol[0]); i++)
        n += json_object_get(ml, pol[i]) != NULL;
    if (n > 1)
        cel(err, "spec.mlPolicy", "object", "Only one of the policy can be configured");
    return api_fields_result(err);
}

static int rt_validate_update(json_t *rt, json_t *old, sl_error_t *err)
{
    (void)old;
    return rt_validate(rt, err);
}

static void rt_prepare_create(json_t *rt)
{
    json_object_set_new(sl_kube_meta(rt), "generation", json_integer(1));
}

static void rt_prepare_update(json_t *rt, json_t *old)
{
    long long gen = json_integer_value(sl_kube_path(old, "metadata.generation"));
    bool same = json_equal(json_object_get(rt, "spec"), json_object_get(old, "spec"));
    json_object_set_new(sl_kube_meta(rt), "generation", json_integer(same ? gen : gen + 1));
}

const api_kind_ops_t trainjob_runtime_ops = {
    .decode_check = tj_decode,
    .defaults = rt_defaults,
    .prepare_create = rt_prepare_create,
    .prepare_update = rt_prepare_update,
    .validate_create = rt_validate,
    .validate_update = rt_validate_update,
    .table_columns = api_tj_columns_name_age,
    .table_cells = api_tj_cells_name_age,
};
