/* jobpod.h — the Pod of one index of a batch/v1 Job, as kube's Job
 * controller makes it from spec.template: the template's metadata and
 * spec; an ownerReference to the Job (controller, blockOwnerDeletion);
 * for Indexed Jobs the batch.kubernetes.io/job-completion-index label and
 * annotation, spec.hostname <job>-<index> (unless set) and
 * JOB_COMPLETION_INDEX in every container (a fieldRef on the annotation);
 * the creator's slurmlink.io/user; slurmlinkd's own bookkeeping
 * (slurmlink.io/job-uid, job-index, job-submission); pod defaults and an
 * initial status. No name yet: the caller draws it from generateName. */
#ifndef SL_CTL_JOBPOD_H
#define SL_CTL_JOBPOD_H

#include <jansson.h>
#include <stddef.h>

#include "ctl/gangowner.h" /* ctl_drop_server_owned, CTL_ANN_POD_INDEX */

#define ANN_INDEX "batch.kubernetes.io/job-completion-index"
#define ANN_POD_INDEX CTL_ANN_POD_INDEX
#define ANN_POD_SUB "slurmlink.io/job-submission"

/* JOB_COMPLETION_INDEX in every container of spec (init containers too),
 * a fieldRef on the ANN_INDEX annotation, as kube's Job controller adds it
 * to an Indexed Job's pods (a JobSet's members too). */
void ctl_job_index_env(json_t *spec);

/* A new pod (new reference) for index idx of submission sub of job. */
json_t *ctl_job_new_pod(json_t *job, size_t idx, long long sub);

/* podFailurePolicy: the action of the first rule whose onExitCodes
 * matches a failed pod's terminated containers (kube's order and rules;
 * onPodConditions never match: slurmlink sets no DisruptionTarget), with
 * kube's message for it in msg; CTL_PFP_COUNT when none matches. */
typedef enum {
    CTL_PFP_COUNT,
    CTL_PFP_FAIL_JOB,
    CTL_PFP_IGNORE,
    CTL_PFP_FAIL_INDEX
} ctl_pfp_action_t;
ctl_pfp_action_t ctl_job_pod_failure_action(json_t *job, json_t *pod, char *msg, size_t len);

#endif
