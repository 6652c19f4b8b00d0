/* gangowner.h — what the owner of a gang (gang.h) does with what it made,
 * whatever its kind (a PyTorchJob or an MPIJob, ptj.c; a Trainer v2
 * TrainJob, src/kinds/trainjob/): finds its pods by their controller
 * ownerReference, deletes them, cancels the Slurm jobs it recorded, and
 * writes its own bookkeeping annotations and status through the store.
 * Controller thread. */
#ifndef SL_CTL_GANGOWNER_H
#define SL_CTL_GANGOWNER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

struct sl_ctl;

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
