/* jobtask.h — the tasks of a Job's Slurm array and the pods made for them.
 *
 * A Job's pods are made lazily (as kube's Job controller makes at most
 * parallelism of them at once): the array of a submission K (chunk C of
 * MaxArraySize indexes) is submitted with every index still needed, but a
 * task's pod may not exist yet. Every task runs the same batch script
 * (ctl_jobtask_script): it waits, at most CTL_JOBTASK_WAIT_S seconds, for
 * the link PODS_ROOT/.job-tasks/JOBUID/K.C/TASK to its pod's folder, which
 * the Job controller makes once the pod's folder is written, then runs
 * that pod's job.sh in it; without a link in time it exits 1 and the index
 * is tried again in a new submission. The folders are root's (0755): a
 * tenant cannot point a task at another folder. A marker .TASK beside the
 * link records that a pod was made for the task, so a task never gets two.
 *
 * ctl_jobtask_scan reads slurmctld's records of a Job's arrays: which
 * indexes are pending or running there, and which tasks have started. */
#ifndef SL_CTL_JOBTASK_H
#define SL_CTL_JOBTASK_H

#include "common/err.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTL_JOBTASK_WAIT_S 120

/* The batch script of every task of array K.C of job. Caller frees. */
char *ctl_jobtask_script(const char *pods_root, json_t *job, long long sub, unsigned chunk);

/* The folder of the links of K.C (a gang's late members: K the attempt, C 0). Caller frees. */
char *ctl_jobtask_dir(const char *pods_root, const char *job_uid, long long sub, unsigned chunk);
/* A pod was made (marked) or linked for task of K.C. */
bool ctl_jobtask_claimed(const char *pods_root, const char *job_uid, long long sub, unsigned chunk,
                         uint32_t task);
/* The marker written before the pod of a started task is made: 0, -1 with err. */
int ctl_jobtask_claim(const char *pods_root, const char *job_uid, long long sub, unsigned chunk,
                      uint32_t task, sl_error_t *err);
/* The marker removed: the pod could not be made (admission refused it). */
void ctl_jobtask_unclaim(const char *pods_root, const char *job_uid, long long sub,
                         unsigned chunk, uint32_t task);
/* The task's link to its pod's folder exists. */
bool ctl_jobtask_linked(const char *pods_root, const char *job_uid, long long sub, unsigned chunk,
                        uint32_t task);
/* The link made (atomically, through a rename): 0, -1 with err. */
int ctl_jobtask_link(const char *pods_root, const char *job_uid, long long sub, unsigned chunk,
                     uint32_t task, const char *pod_dir, sl_error_t *err);
/* Every link and marker of the Job removed (the Job is gone). */
void ctl_jobtask_remove(const char *pods_root, const char *job_uid);

/* One task of a Job's arrays that Slurm has not finished. */
typedef struct ctl_jobtask {
    uint32_t array, task;
    long long sub;
    size_t index;
    bool started; /* left the pending record (running, or about to) */
} ctl_jobtask_t;

typedef struct ctl_jobtask_scan {
    ctl_jobtask_t *t;
    size_t n;
} ctl_jobtask_scan_t;

/* The unfinished tasks of the arrays in list ("id,id", the Job's
 * slurmlink.io/slurm-arrays) that carry job_uid, indexes below n (chunk C's
 * task t is index C*max+t). 0, or -1 when slurmctld cannot tell (nothing
 * may then be judged gone). Free with ctl_jobtask_scan_free. */
int ctl_jobtask_scan(const char *list, const char *job_uid, unsigned max, size_t n,
                     ctl_jobtask_scan_t *out);
void ctl_jobtask_scan_free(ctl_jobtask_scan_t *s);

#endif
