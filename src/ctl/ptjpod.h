/* ptjpod.h — the replica pods of a kubeflow.org/v1 PyTorchJob, as the
 * Training Operator makes them (names <job>-master-0, <job>-worker-N; its
 * labels; an ownerReference to the PyTorchJob, controller=true; its
 * environment), with slurmlinkd's bookkeeping for the gang (gang.h): the
 * owner's uid, the replica's rank (its node in the job: Master first) and
 * the attempt. The ranks and the environment the steps export. */
#ifndef SL_CTL_PTJPOD_H
#define SL_CTL_PTJPOD_H

#include <jansson.h>
#include <stddef.h>

#define PTJ_ANN_ATTEMPT "slurmlink.io/gang-attempt"

/* The replicas of job in rank order: [{"type":"Master","index":0}, ...] (new ref). */
json_t *ctl_ptj_replicas(json_t *job);

/* The pod of replica r (an element of ctl_ptj_replicas) at rank, for
 * attempt (new ref, named, defaulted, with an initial status). */
json_t *ctl_ptj_new_pod(json_t *job, json_t *r, size_t rank, long long attempt);

/* What the batch script runs on the first node (the Master's) before the
 * steps: MASTER_ADDR and PET_MASTER_ADDR, its host name, which resolves
 * from every node. Static text. */
const char *ctl_ptj_head(void);

#endif
