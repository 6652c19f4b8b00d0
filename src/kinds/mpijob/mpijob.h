/* mpijob.h — kubeflow.org/v2beta1 MPIJob as mpi-operator defines it
 * (pkg/apis/kubeflow/v2beta1: types.go, default.go; validation.go), in
 * src/api/: src/kinds/mpijob/api.c (decoding, defaults, strategy, Table) and
 * src/kinds/mpijob/validate.c (the CRD schema's checks, the operator's validation
 * with its texts, slurmlink's own: each replica's template as a pod). The
 * controller that runs an MPIJob as one Slurm job is src/kinds/mpijob/pods.c. */
#ifndef SL_API_MPIJOB_H
#define SL_API_MPIJOB_H

#include <jansson.h>
#include <stdbool.h>

#include "common/err.h"

#define MPI_RS "spec.mpiReplicaSpecs"

/* the CRD's schema of MPIJob (borrowed) */
json_t *api_mpijob_schema(void);

int api_mpijob_validate(json_t *job, sl_error_t *err);

/* The Launcher (and Workers) run in containers with /etc/mpi free, so the
 * Launcher's mpirun reaches the Workers through slurmlink's rsh agent
 * (src/kinds/mpijob/pods.c) */
bool api_mpijob_rsh(json_t *job);
/* a container whose command is sshd (mpi-operator's Workers: `/usr/sbin/sshd
 * -De -f ...`), which slurmlink replaces by the agent's wait where the
 * agent runs (api_mpijob_rsh) */
bool api_mpijob_sshd(json_t *container);
int api_mpijob_validate_update(json_t *job, json_t *old, sl_error_t *err);
int api_mpijob_validate_status(json_t *job, json_t *old, sl_error_t *err);

#endif
