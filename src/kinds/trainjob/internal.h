/* internal.h — shared by src/kinds/trainjob/'s files only: the runtime's
 * shape (pure functions on jansson objects, unit-tested in test/), the
 * API hooks and the controller's parts. */
#ifndef SL_KINDS_TRAINJOB_INTERNAL_H
#define SL_KINDS_TRAINJOB_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/resource.h"
#include "common/err.h"

#define TJ_GROUP "trainer.kubeflow.org"
#define TJ_API_VERSION "trainer.kubeflow.org/v1alpha1"
#define TJ_RES "trainjobs.trainer.kubeflow.org"
#define TJ_RES_RT "trainingruntimes.trainer.kubeflow.org"
#define TJ_RES_CRT "clustertrainingruntimes.trainer.kubeflow.org"
#define TJ_NODE "node"       /* the trainer's replicated job and container */
#define TJ_MASTER_PORT 29500 /* constants.ContainerTrainerPort */
#define TJ_ANCESTOR "trainer.kubeflow.org/trainjob-ancestor-step"
#define TJ_ANN_ATTEMPT "slurmlink.io/gang-attempt"
#define TJ_ANN_INDEX "batch.kubernetes.io/job-completion-index"
#define TJ_ANN_MEMBER "slurmlink.io/job-index" /* the pod's member index in the gang */
#define TJ_MAX_NODES 256                       /* ctl/internal.h CTL_GANG_MAX */

/* ---- runtime.c: what a TrainJob takes of its runtime (pure) ---- */

/* The store name and kind of the runtime spec.runtimeRef names (its
 * defaults: ClusterTrainingRuntime of trainer.kubeflow.org); NULL when it
 * names a kind slurmlink does not serve. */
const char *trainjob_runtime_res(json_t *tj, const char **kind);

/* The runtime's replicated job of the trainer (its template labelled
 * trainjob-ancestor-step: trainer, else the one named "node"), borrowed,
 * or NULL with why (a static text). */
json_t *trainjob_trainer_rjob(json_t *rt, const char **why);

/* The runtime's ML policy slurmlink runs ("torch", "mpi"), or NULL with
 * why (a static text) for one it does not. */
const char *trainjob_policy(json_t *rt, const char **why);

/* The MPI policy's slots (processes) per node: trainer.numProcPerNode,
 * else mlPolicy.mpi.numProcPerNode, else 1. */
long long trainjob_mpi_slots(json_t *tj, json_t *rt);

/* The nodes the TrainJob runs on: trainer.numNodes, else the runtime's
 * mlPolicy.numNodes, else 1. */
long long trainjob_num_nodes(json_t *tj, json_t *rt);

/* PET_NPROC_PER_NODE as the torch plugin gives it: trainer.numProcPerNode,
 * else "auto", which without GPUs per node is the node's CPUs (requests,
 * else limits; at least 1), into out. */
void trainjob_nproc(json_t *tj, json_t *rt, char *out, size_t len);

/* Node i's pod of the TrainJob at attempt (new ref): the trainer
 * template of the runtime with runtimePatches and the trainer's image,
 * command, args, env, resourcesPerNode applied, the torch environment
 * (PET_*), JobSet's and the trainer's names and labels, spec.hostname and
 * subdomain, the controller ownerReference and slurmlink's gang
 * bookkeeping. NULL with why (static) when the runtime cannot give one. */
json_t *trainjob_node_pod(json_t *tj, json_t *rt, size_t i, long long attempt, const char **why);

/* Every pod of the TrainJob's gang in member order (new ref): the torch
 * policy's node pods (trainjob_node_pod); the MPI policy's launcher (the
 * trainer's replicated job, member 0, run in the batch step on the first
 * node, OpenMPI's variables) then the node job's pods. NULL with why. */
json_t *trainjob_pods(json_t *tj, json_t *rt, long long attempt, const char **why);

/* ---- status.c: conditions and jobsStatus (pure) ---- */

/* The condition of type set (metav1 SetStatusCondition: the transition
 * time kept while the status is unchanged); st is changed. */
void trainjob_set_condition(json_t *st, const char *type, bool on, const char *reason,
                            const char *message, const char *now);

/* st's jobsStatus and, once every pod succeeded or one failed, Complete
 * or Failed, from the pods of the current attempt (n expected); with a
 * lead (the MPI launcher, one of pods) its end decides. 1 when the
 * TrainJob just finished, else 0. */
int trainjob_pods_status(json_t *st, json_t *pods, size_t n, json_t *lead, const char *now);

/* ---- api.c ---- */
extern const api_kind_ops_t trainjob_ops;
extern const api_kind_ops_t trainjob_runtime_ops;

/* ---- controller.c ---- */
struct sl_ctl;
void trainjob_reconcile(struct sl_ctl *c, json_t *tj);
void trainjob_gone(struct sl_ctl *c, json_t *tj);

#endif
