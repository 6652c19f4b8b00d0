/* src/kinds/mpijob/validate.c — an MPIJob's validation in kube-apiserver's order for
 * a custom resource: ObjectMeta, the CRD schema's types and required
 * fields (crd.h), then mpi-operator's ValidateMPIJob
 * (pkg/apis/kubeflow/validation/validation.go) with its texts, and
 * slurmlink's own: only the Launcher and Worker types, one Slurm task slot
 * or more per worker, each replica's template as the pod it becomes. */
#include "api/crd.h"
#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/kubeflow/api.h"
#include "kinds/mpijob/mpijob.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *api_mpijob_schema(void) { return api_crd_schema("kubeflow.org", "v2beta1", "MPIJob"); }

/* validateMPIJobName: the last worker's pod name is a DNS-1035 label */
static void validate_name(json_t *job, sl_error_t *err)
{
    const char *name = sl_kube_name(job);
    if (!name)
        return;
    json_t *w = sl_kube_path(job, MPI_RS ".Worker.replicas");
    long long n = json_is_integer(w) && json_integer_value(w) > 0 ? json_integer_value(w) : 1;
    char *host = sl_xasprintf("%s-worker-%lld", name, n - 1), why[512];
    if (!api_tj_dns1035(host, ", ", why, sizeof(why))) {
        char *d = sl_xasprintf("will not able to create pod and service with invalid DNS label "
                               "\"%s\": %s",
                               host, why);
        sl_err_field(err, SL_FE_INVALID, "metadata.name", name, d);
        free(d);
    }
    free(host);
}

static void nonnegative(json_t *o, const char *key, const char *field, sl_error_t *err)
{
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v) && json_integer_value(v) < 0)
        sl_err_field_int(err, SL_FE_INVALID, field, json_integer_value(v),
                         "must be greater than or equal to 0");
}

/* validateRunPolicy */
static void validate_run_policy(json_t *rp, sl_error_t *err)
{
    static const char *const cpp[] = {"All", "None", "Running", NULL};
    static const char *const mb[] = {"kubeflow.org/mpi-operator", "kueue.x-k8s.io/multikueue",
                                     NULL};
    const char *c = json_string_value(json_object_get(rp, "cleanPodPolicy"));
    if (!c)
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.runPolicy.cleanPodPolicy",
                          "must have clean Pod policy");
    else if (strcmp(c, "All") && strcmp(c, "None") && strcmp(c, "Running"))
        sl_err_not_supported(err, c, cpp, "spec.runPolicy.cleanPodPolicy");
    nonnegative(rp, "ttlSecondsAfterFinished", "spec.runPolicy.ttlSecondsAfterFinished", err);
    nonnegative(rp, "activeDeadlineSeconds", "spec.runPolicy.activeDeadlineSeconds", err);
    nonnegative(rp, "backoffLimit", "spec.runPolicy.backoffLimit", err);
    const char *m = json_string_value(json_object_get(rp, "managedBy"));
    if (m && strcmp(m, mb[0]) && strcmp(m, mb[1]))
        sl_err_not_supported(err, m, mb, "spec.runPolicy.managedBy");
    else if (m && strcmp(m, mb[0])) /* slurmlink's: no Kueue here reconciles it */
        sl_err_field_none(err, SL_FE_FORBIDDEN, "spec.runPolicy.managedBy",
                          "not supported: slurmlink runs the MPIJob itself");
}

/* validateReplicaSpec */
static void validate_replica(const char *type, json_t *rs, sl_error_t *err)
{
    static const char *const rps[] = {"Never", "OnFailure", NULL};
    char f[160];
    if (!json_object_get(rs, "replicas")) {
        snprintf(f, sizeof(f), MPI_RS "[%s].replicas", type);
        sl_err_field_none(err, SL_FE_REQUIRED, f, "must define number of replicas");
    }
    const char *rp = json_string_value(json_object_get(rs, "restartPolicy"));
    if (!rp || (strcmp(rp, "Never") && strcmp(rp, "OnFailure")))
        sl_err_not_supported(err, rp ? rp : "", rps, MPI_RS "[%s].restartPolicy", type);
    if (!json_array_size(sl_kube_path(rs, "template.spec.containers"))) {
        snprintf(f, sizeof(f), MPI_RS "[%s].template.spec.containers", type);
        sl_err_field_none(err, SL_FE_REQUIRED, f, "must define at least one container");
    }
}

/* validateMPIReplicaSpecs: the Launcher exactly 1, the Workers 1 or more;
 * slurmlink's: no other type (it would be ignored, never run) */
static void validate_specs(json_t *spec, sl_error_t *err)
{
    static const char *const types[] = {"Launcher", "Worker", NULL};
    json_t *specs = json_object_get(spec, "mpiReplicaSpecs");
    if (!json_is_object(specs)) {
        sl_err_field_none(err, SL_FE_REQUIRED, MPI_RS, "must have replica specs");
        return;
    }
    json_t *l = json_object_get(specs, "Launcher"), *w = json_object_get(specs, "Worker");
    if (!json_is_object(l))
        sl_err_field_none(err, SL_FE_REQUIRED, MPI_RS "[Launcher]",
                          "must have Launcher replica spec");
    const char *type;
    json_t *rs;
    json_object_foreach(specs, type, rs) if (strcmp(type, "Launcher") && strcmp(type, "Worker"))
        sl_err_not_supported(err, type, types, MPI_RS "[%s]", type);
    if (json_is_object(l)) {
        validate_replica("Launcher", l, err);
        json_t *n = json_object_get(l, "replicas");
        if (json_is_integer(n) && json_integer_value(n) != 1)
            sl_err_field_int(err, SL_FE_INVALID, MPI_RS "[Launcher].replicas",
                             json_integer_value(n), "must be 1");
    }
    if (json_is_object(w)) {
        validate_replica("Worker", w, err);
        json_t *n = json_object_get(w, "replicas");
        if (json_is_integer(n) && json_integer_value(n) <= 0)
            sl_err_field_int(err, SL_FE_INVALID, MPI_RS "[Worker].replicas", json_integer_value(n),
                             "must be greater than or equal to 1");
    }
}

/* validateMPIJobSpec's own fields; slurmlink's: a worker is a node of the
 * job with slotsPerWorker tasks (--ntasks-per-node), so at least 1; the
 * launcher is no worker (runLauncherAsWorker) */
static void validate_spec_fields(json_t *spec, sl_error_t *err)
{
    static const char *const impls[] = {"Intel", "MPICH", "OpenMPI", NULL};
    json_t *s = json_object_get(spec, "slotsPerWorker");
    if (!s)
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.slotsPerWorker",
                          "must have number of slots per worker");
    else if (json_integer_value(s) < 0)
        nonnegative(spec, "slotsPerWorker", "spec.slotsPerWorker", err);
    else if (json_integer_value(s) == 0)
        sl_err_field_int(err, SL_FE_INVALID, "spec.slotsPerWorker", 0,
                         "must be greater than or equal to 1: slurmlink gives each worker node "
                         "slotsPerWorker tasks (--ntasks-per-node)");
    const char *ssh = json_string_value(json_object_get(spec, "sshAuthMountPath"));
    if (!ssh || !*ssh)
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.sshAuthMountPath",
                          "must have a mount path for SSH credentials");
    const char *impl = json_string_value(json_object_get(spec, "mpiImplementation"));
    if (!impl || (strcmp(impl, "OpenMPI") && strcmp(impl, "Intel") && strcmp(impl, "MPICH")))
        sl_err_not_supported(err, impl ? impl : "", impls, "spec.mpiImplementation");
    if (json_is_true(json_object_get(spec, "runLauncherAsWorker")))
        sl_err_field_none(err, SL_FE_FORBIDDEN, "spec.runLauncherAsWorker",
                          "not supported: slurmlink runs the Launcher in the Slurm job's batch "
                          "step, the Workers on the job's nodes; the Launcher is no worker");
}

int api_mpijob_validate(json_t *job, sl_error_t *err)
{
    api_validate_meta(job, false, err);
    if (sl_err_nfields(err))
        return -1;
    api_crd_validate(api_mpijob_schema(), job, err);
    if (sl_err_nfields(err))
        return -1;
    validate_name(job, err);
    json_t *spec = json_object_get(job, "spec");
    validate_specs(spec, err);
    validate_spec_fields(spec, err);
    validate_run_policy(json_object_get(spec, "runPolicy"), err);
    if (sl_err_nfields(err))
        return -1;
    const char *type;
    json_t *rs;
    json_object_foreach(json_object_get(spec, "mpiReplicaSpecs"), type, rs)
        api_tj_validate_template(MPI_RS, type, rs, err);
    return api_fields_result(err);
}

/* The replica specs of a started gang are fixed (the Slurm job is
 * submitted with them); runPolicy.suspend may change. */
int api_mpijob_validate_update(json_t *job, json_t *old, sl_error_t *err)
{
    if (api_mpijob_validate(job, err) < 0)
        return -1;
    json_t *a = sl_kube_path(job, "spec.mpiReplicaSpecs"),
           *b = sl_kube_path(old, "spec.mpiReplicaSpecs");
    json_t *sa = sl_kube_path(job, "spec.slotsPerWorker"),
           *sb = sl_kube_path(old, "spec.slotsPerWorker");
    if ((a && b && !json_equal(a, b)) || !json_equal(sa, sb))
        sl_err_field_none(err, SL_FE_FORBIDDEN, MPI_RS,
                          "the replica specs and slotsPerWorker of an MPIJob are fixed: it runs "
                          "as one Slurm job submitted with them; delete and create it again");
    return api_fields_result(err);
}

int api_mpijob_validate_status(json_t *job, json_t *old, sl_error_t *err)
{
    (void)old;
    api_crd_validate(api_mpijob_schema(), job, err);
    return api_fields_result(err);
}
