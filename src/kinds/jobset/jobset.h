/* jobset.h — jobset.x-k8s.io/v1alpha2 JobSet (JobSet v0.12) run as ONE
 * gang Slurm job (ctl/gang.h): every pod of every child Job of every
 * replicated Job is a member of the gang, started together on the nodes
 * slurmctld allocates at once (docs/jobs.md, "JobSet").
 *
 * The folder: api.c (strict decoding against the pinned CRD, the
 * webhook's defaults and validation, the CRD's printer columns),
 * members.c (the set's members in rank order and each one's pod, as
 * upstream's controllers name and label them), controller.c (the controller: the
 * pods, the gang, success and failure policies, restarts, suspension, the
 * status, deletion), kind.c (the registry row). Prefix js_. */
#ifndef SL_KINDS_JOBSET_H
#define SL_KINDS_JOBSET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "kinds/kind.h"

#define JS_GROUP "jobset.x-k8s.io"
#define JS_VERSION "v1alpha2"
#define JS_API_VERSION JS_GROUP "/" JS_VERSION
#define JS_STORE "jobsets.jobset.x-k8s.io"
#define JS_MAX_MEMBERS 256 /* a gang's most members (ctl/internal.h CTL_GANG_MAX) */

extern const sl_kind_t sl_kind_jobset;  /* kind.c */
extern const api_kind_ops_t js_api_ops; /* api.c */

/* One member of the gang: pod `pod` of child Job `job` of replicated Job
 * spec.replicatedJobs[rjob_at]. */
typedef struct js_member {
    const char *rjob; /* its name (borrowed from the JobSet) */
    size_t rjob_at;   /* its index in spec.replicatedJobs */
    long long job;    /* the child Job's index in the replicated Job (job-index) */
    long long global; /* the child Job's index in the set (job-global-index) */
    long long pod;    /* the pod's completion index in its Job */
} js_member_t;

/* The pods a child Job of a replicated Job runs at once: its Job
 * template's completions, else parallelism, else 1. */
long long js_pods_per_job(json_t *rjob);

/* The members in rank order (replicated Jobs in spec order, then job
 * index, then completion index) into out[0..max); returns how many the set
 * has (more than max: only max written). */
size_t js_members(json_t *js, js_member_t *out, size_t max);

/* The pods' subdomain (network.subdomain, else the JobSet's name), or NULL
 * when network.enableDNSHostnames is false. */
const char *js_subdomain(json_t *js);

/* The member's pod as upstream's controllers make it (new ref): name and
 * spec.hostname "<js>-<rjob>-<job>-<pod>", spec.subdomain, the jobset.sigs.k8s.io
 * labels and annotations, the Job controller's (job-completion-index,
 * job-name, JOB_COMPLETION_INDEX), the JobSet as controller owner, the
 * gang's bookkeeping for node rank and attempt; restartPolicy Never (the
 * gang restarts, not the container). restarts: status.restarts. */
json_t *js_new_pod(json_t *js, const js_member_t *m, size_t rank, long long attempt,
                   long long restarts);

/* The controller hooks (controller.c). */
struct sl_ctl;
void js_reconcile(struct sl_ctl *c, json_t *js);
void js_gone(struct sl_ctl *c, json_t *js);

#endif
