/* status.c — a TrainJob's status from its pods (internal.h): the
 * conditions Kubeflow Trainer copies from its JobSet (Complete, Failed)
 * and jobsStatus, the JobSet's one replicated job "node" (one Job of
 * numNodes pods: slurmlink's one Slurm job). Pure functions. */
#include "ctl/podstatus.h"
#include "kinds/trainjob/internal.h"
#include "kube/meta.h"

#include <string.h>

/* JobSet's texts (jobset constants.go), which Trainer copies */
#define COMPLETED_REASON "AllJobsCompleted"
#define COMPLETED_MSG "jobset completed successfully"
#define FAILED_REASON "FailedJobs"
#define FAILED_MSG "jobset failed due to one or more job failures"

void trainjob_set_condition(json_t *st, const char *type, bool on, const char *reason,
                            const char *message, const char *now)
{
    sl_kube_cond_t c = {type, on ? "True" : "False", reason, message, 0};
    sl_kube_set_condition(st, &c, now);
}

static bool pod_ready(json_t *pod)
{
    const char *ph = sl_kube_path_str(pod, "status.phase");
    return ph && !strcmp(ph, "Running") &&
           sl_kube_condition_true(sl_kube_path(pod, "status.conditions"), "Ready");
}

static bool phase_is(json_t *pod, const char *phase)
{
    const char *ph = sl_kube_path_str(pod, "status.phase");
    return ph && !strcmp(ph, phase);
}

int trainjob_pods_status(json_t *st, json_t *pods, size_t n, json_t *lead, const char *now)
{
    size_t ok = 0, bad = 0, ready = 0, i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        const char *ph = sl_kube_path_str(pod, "status.phase");
        ok += ph && !strcmp(ph, "Succeeded");
        bad += ph && !strcmp(ph, "Failed");
        ready += pod_ready(pod);
    }
    bool done = n && ok == n, failed = bad > 0;
    if (lead) { /* the launcher's end decides; a node failing before it fails all */
        done = phase_is(lead, "Succeeded");
        failed = phase_is(lead, "Failed") || (!done && bad > 0);
    }
    bool suspended = sl_kube_condition_true(json_object_get(st, "conditions"), "Suspended");
    bool active = !done && !failed && !suspended && json_array_size(pods) > 0;
    json_t *js = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "name", TJ_NODE, "ready",
                           active && n && ready + ok >= n, "succeeded", done && !failed, "failed",
                           failed, "active", active, "suspended", suspended);
    json_object_set_new(st, "jobsStatus", json_pack("[o]", js));
    json_t *conds = json_object_get(st, "conditions");
    if (sl_kube_condition_true(conds, "Complete") || sl_kube_condition_true(conds, "Failed"))
        return 0;
    if (failed)
        trainjob_set_condition(st, "Failed", true, FAILED_REASON, FAILED_MSG, now);
    else if (done)
        trainjob_set_condition(st, "Complete", true, COMPLETED_REASON, COMPLETED_MSG, now);
    return failed || done;
}
