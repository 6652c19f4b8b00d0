/* src/kinds/mpijob/api.c — kubeflow.org/v2beta1 MPIJob's hooks: strict decoding
 * against its published CRD schema (crd.h), mpi-operator's defaults
 * (SetDefaults_MPIJob) with the CRD schema's own, the status subresource
 * and the Table of a CRD without printer columns (NAME AGE). */
#include "kinds/kubeflow/api.h"
#include "api/crd.h"
#include "api/internal.h"
#include "kinds/mpijob/mpijob.h"
#include "kube/meta.h"

#include <string.h>
#include <strings.h>

/* mpi-operator's examples run sshd in the Workers, for the Launcher's ssh:
 * slurmlink makes no ssh Secret and reaches the Workers through Slurm, so
 * in containers a Worker waits for the Launcher instead (pods.c); on the
 * host runtime sshd would find no host key and end the Worker, whose
 * container the Launcher's daemons run in */
static void sshd_warnings(json_t *job, json_t *warnings)
{
    size_t i;
    json_t *c;
    bool rsh = api_mpijob_rsh(job);
    json_array_foreach(sl_kube_path(job, MPI_RS ".Worker.template.spec.containers"), i, c)
    {
        if (!api_mpijob_sshd(c))
            continue;
        if (rsh)
            json_array_append_new(
                warnings,
                json_sprintf(MPI_RS "[Worker].template.spec.containers[%zu].command: sshd is not "
                                    "run: slurmlink starts the Launcher's MPI daemons in the "
                                    "Workers through Slurm (the rsh agent at /etc/mpi/rsh), so "
                                    "this Worker waits for the Launcher instead and stays up "
                                    "until it ends",
                             i));
        else
            json_array_append_new(
                warnings, json_sprintf(MPI_RS "[Worker].template.spec.containers[%zu].command: "
                                              "sshd is not needed: slurmlink starts the Launcher's "
                                              "MPI daemons in the Workers through Slurm and makes "
                                              "no ssh Secret; give the Workers a command that "
                                              "keeps running (e.g. sleep)",
                                       i));
    }
}

static int mpijob_decode(json_t *job, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)err;
    api_crd_unknown(api_mpijob_schema(), job, unknown);
    api_tj_template_warnings(job, MPI_RS, warnings);
    sshd_warnings(job, warnings);
    return 0;
}

/* SetDefaults_MPIJob (setDefaultsRunPolicy, setDefaultsTypeLauncher,
 * setDefaultsTypeWorker) and the CRD schema's defaults (runPolicy.suspend,
 * runLauncherAsWorker false; launcherCreationPolicy, mpiImplementation,
 * slotsPerWorker, sshAuthMountPath) */
static void mpijob_defaults(json_t *job)
{
    json_t *spec = api_tj_obj_child(job, "spec");
    json_t *rp = api_tj_obj_child(spec, "runPolicy");
    api_tj_default(rp, "cleanPodPolicy", json_string("None"));
    api_tj_default(rp, "suspend", json_false());
    api_tj_default(spec, "slotsPerWorker", json_integer(1));
    api_tj_default(spec, "sshAuthMountPath", json_string("/root/.ssh"));
    api_tj_default(spec, "mpiImplementation", json_string("OpenMPI"));
    api_tj_default(spec, "launcherCreationPolicy", json_string("AtStartup"));
    api_tj_default(spec, "runLauncherAsWorker", json_false());
    json_t *specs = json_object_get(spec, "mpiReplicaSpecs");
    json_t *l = json_object_get(specs, "Launcher"), *w = json_object_get(specs, "Worker");
    if (json_is_object(l)) {
        api_tj_default(l, "restartPolicy", json_string("OnFailure"));
        api_tj_default(l, "replicas", json_integer(1));
    }
    if (json_is_object(w)) {
        api_tj_default(w, "restartPolicy", json_string("Never"));
        api_tj_default(w, "replicas", json_integer(0));
    }
}

const api_kind_ops_t api_mpijob_ops = {
    .decode_check = mpijob_decode,
    .defaults = mpijob_defaults,
    .prepare_create = api_tj_prepare_create,
    .prepare_update = api_tj_prepare_update,
    .validate_create = api_mpijob_validate,
    .validate_update = api_mpijob_validate_update,
    .validate_status = api_mpijob_validate_status,
    .table_columns = api_tj_columns_name_age,
    .table_cells = api_tj_cells_name_age,
};
