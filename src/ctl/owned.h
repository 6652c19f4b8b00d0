/* owned.h — what the controllers of owning workloads (a PyTorchJob, an
 * MPIJob, a JobSet: each one gang Slurm job of pods it owns) do alike: find
 * the pods whose controller ownerReference is the object, delete them,
 * cancel the Slurm jobs the object's annotation lists, keep their own
 * bookkeeping annotations and write the status. Controller thread. */
#ifndef SL_CTL_OWNED_H
#define SL_CTL_OWNED_H

#include <jansson.h>
#include <stdbool.h>

#include "ctl/internal.h"

/* a controller-made pod's index among its owner's (server-owned; what
 * the Job controller's ctl_job_pod_of reads, a gang member's rank) */
#define CTL_ANN_POD_INDEX "slurmlink.io/job-index"

/* The server-owned annotations (slurmlink.io/user, job-id, job-uid,
 * array-task, gpus) a workload's pod template carried, dropped from a pod
 * made from it: the controller sets its own. */
void ctl_drop_server_owned(json_t *pod);

/* The pods whose controller ownerReference is obj (new ref, an array). */
json_t *ctl_owned_pods(sl_ctl_t *c, json_t *obj);

/* The pods (those not finished unless all) deleted now; an event
 * SuccessfulDeletePod on owner for each (owner NULL: none). */
void ctl_owned_delete_pods(sl_ctl_t *c, json_t *owner, json_t *pods, bool all);

/* Every Slurm job the annotation ann of obj lists ("id,id") cancelled,
 * each checked to carry obj's uid (kind names it in the log). */
void ctl_owned_cancel_jobs(const char *kind, json_t *obj, const char *ann);

/* The annotation key=value recorded on the stored object res/obj (and on
 * obj, so this pass sees it); a failure is logged. */
void ctl_owned_set_ann(sl_ctl_t *c, const char *res, const char *kind, json_t *obj, const char *key,
                       const char *value);

/* status written to the stored object res/obj when it differs. */
void ctl_owned_write_status(sl_ctl_t *c, const char *res, const char *kind, json_t *obj,
                            json_t *status);

#endif
