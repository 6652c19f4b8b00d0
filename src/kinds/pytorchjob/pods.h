/* src/kinds/pytorchjob/pods.h — the replica pods of a kubeflow.org/v1 PyTorchJob, as the
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

#endif
