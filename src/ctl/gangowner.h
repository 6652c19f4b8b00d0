/* gangowner.h — what the owner of a gang (gang.h) does with what it made,
 * whatever its kind (a PyTorchJob or an MPIJob, src/kinds/kubeflow/; a
 * Trainer v2 TrainJob, src/kinds/trainjob/; a JobSet, src/kinds/jobset/): finds its pods by their
 * controller ownerReference, deletes them, cancels the Slurm jobs it recorded, and writes its own
 * bookkeeping annotations and status through the store. Controller thread. */
#ifndef SL_CTL_GANGOWNER_H
#define SL_CTL_GANGOWNER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct sl_ctl;

/* a controller-made pod's index among its owner's (server-owned; what
 * the Job controller's ctl_job_pod_of reads, a gang member's rank) */
#define CTL_ANN_POD_INDEX "slurmlink.io/job-index"

/* The server-owned annotations (slurmlink.io/user, job-id, job-uid,
 * array-task, gpus) a workload's pod template carried, dropped from a pod
 * made from it: the controller sets its own. */
void ctl_drop_server_owned(json_t *pod);

/* A new Pod (new reference) from a workload's pod template tmpl: copies
 * of its metadata and spec (empty objects when missing), the server-owned
 * annotations dropped. The caller names it and sets its bookkeeping. */
json_t *ctl_pod_from_template(json_t *tmpl);

/* the Slurm jobs an owner submitted: "id,id" */
#define CTL_ANN_SLURM_JOBS "slurmlink.io/slurm-jobs"

/* The pods whose controller ownerReference is owner (new ref). */
json_t *ctl_owner_pods(struct sl_ctl *c, json_t *owner);

/* The pods (those not finished unless all) marked deleted; an event
 * SuccessfulDeletePod on owner for each (owner NULL: none). */
void ctl_owner_delete_pods(struct sl_ctl *c, json_t *owner, json_t *pods, bool all);

/* Every Slurm job in owner's CTL_ANN_SLURM_JOBS cancelled (each checked to
 * carry its uid); kind names it in the log. */
void ctl_owner_cancel_jobs(const char *kind, json_t *owner);

/* owner's annotation key set to value in the store (res: its store name),
 * and in owner too (this pass sees it). */
void ctl_owner_set_annotation(struct sl_ctl *c, const char *res, const char *kind, json_t *owner,
                              const char *key, const char *value);

/* Slurm job id appended to owner's CTL_ANN_SLURM_JOBS (once). */
void ctl_owner_record_job(struct sl_ctl *c, const char *res, const char *kind, json_t *owner,
                          uint32_t id);

/* owner's status replaced by st in the store when it differs. */
void ctl_owner_write_status(struct sl_ctl *c, const char *res, const char *kind, json_t *owner,
                            json_t *st);

#endif
