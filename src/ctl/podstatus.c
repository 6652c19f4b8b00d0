/* podstatus.c — Slurm job states and shim events → Pod status. See podstatus.h. */
#include "ctl/podstatus.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "ctl/carry.h"
#include "ctl/ctl.h"
#include "kube/meta.h"
#include "metrics/metrics.h"
#include "pod/pod.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a gang member's annotation (ctl/gang.h CTL_ANN_GANG_RANK) */
#define ANN_GANG_RANK "slurmlink.io/gang-rank"

static char *ts(int64_t ns) { return sl_kube_rfc3339(ns, 0); }

/* set obj[key] = val (stolen) unless equal; returns 1 if changed */
static int set_if(json_t *obj, const char *key, json_t *val)
{
    json_t *old = json_object_get(obj, key);
    if (old && json_equal(old, val)) {
        json_decref(val);
        return 0;
    }
    json_object_set_new(obj, key, val);
    return 1;
}

static json_t *status_of(json_t *pod)
{
    json_t *st = json_object_get(pod, "status");
    if (!json_is_object(st)) {
        st = json_object();
        json_object_set_new(pod, "status", st);
    }
    return st;
}

static const char *phase_of(json_t *pod)
{
    const char *p = json_string_value(json_object_get(status_of(pod), "phase"));
    return p ? p : "";
}

int ctl_pod_terminal(json_t *pod)
{
    const char *p = phase_of(pod);
    return !strcmp(p, "Succeeded") || !strcmp(p, "Failed");
}

int ctl_pod_gave_up(json_t *pod)
{
    const char *r = json_string_value(json_object_get(status_of(pod), "reason"));
    return !strcmp(phase_of(pod), "Failed") && r && !strcmp(r, "SubmitFailed");
}

int ctl_job_active(const char *state)
{
    static const char *const active[] = {"PENDING",     "RUNNING",  "SUSPENDED",
                                         "CONFIGURING", "REQUEUED", "RESIZING"};
    for (size_t i = 0; state && i < sizeof(active) / sizeof(active[0]); i++)
        if (!strcmp(state, active[i]))
            return 1;
    return 0;
}

/* A terminal phase the job contradicts (someone else wrote it): the pod is
 * Pending again, and what Slurm and the shim say next moves it on. */
static int reopen(json_t *pod)
{
    json_t *st = status_of(pod);
    json_object_set_new(st, "phase", json_string("Pending"));
    json_object_del(st, "reason");
    json_object_del(st, "message");
    return 1;
}

int ctl_pod_scheduled(json_t *pod)
{
    return sl_kube_condition_true(sl_kube_path(pod, "status.conditions"), "PodScheduled");
}

uint32_t ctl_pod_job_id(json_t *pod)
{
    const char *s = sl_kube_annotation(pod, SL_ANN_JOB_ID);
    return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

/* conditions[type] = status/reason/message; lastTransitionTime moves only
 * when status flips (as the kubelet does) */
static int cond_set(json_t *pod, const char *type, int status, const char *reason,
                    const char *message, int64_t now_ns)
{
    json_t *st = status_of(pod);
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds)) {
        conds = json_array();
        json_object_set_new(st, "conditions", conds);
    }
    json_t *c = sl_kube_condition(conds, type);
    const char *sv = status ? "True" : "False";
    int changed = 0;
    if (!c) {
        c = json_object();
        json_object_set_new(c, "type", json_string(type));
        json_array_append_new(conds, c);
        changed = 1;
    }
    const char *old = json_string_value(json_object_get(c, "status"));
    if (!old || strcmp(old, sv)) {
        char *t = ts(now_ns);
        json_object_set_new(c, "status", json_string(sv));
        json_object_set_new(c, "lastProbeTime", json_null());
        json_object_set_new(c, "lastTransitionTime", json_string(t));
        free(t);
        changed = 1;
    }
    if (reason)
        changed |= set_if(c, "reason", json_string(reason));
    else if (json_object_get(c, "reason"))
        changed |= json_object_del(c, "reason") == 0;
    if (message)
        changed |= set_if(c, "message", json_string(message));
    else if (json_object_get(c, "message"))
        changed |= json_object_del(c, "message") == 0;
    return changed;
}

static json_t *ctr_list(json_t *pod, int init)
{
    return json_object_get(json_object_get(pod, "spec"), init ? "initContainers" : "containers");
}

static json_t *cstatus(json_t *pod, const char *name, int *init_out)
{
    json_t *st = status_of(pod);
    for (int init = 0; init < 2; init++) {
        json_t *arr = json_object_get(st, init ? "initContainerStatuses" : "containerStatuses");
        size_t i;
        json_t *c;
        json_array_foreach(arr, i, c)
        {
            const char *n = json_string_value(json_object_get(c, "name"));
            if (n && !strcmp(n, name)) {
                if (init_out)
                    *init_out = init;
                return c;
            }
        }
    }
    return NULL;
}

static json_t *waiting(const char *reason, const char *message)
{
    json_t *w = json_pack("{s:s}", "reason", reason);
    if (message)
        json_object_set_new(w, "message", json_string(message));
    return json_pack("{s:o}", "waiting", w);
}

static bool waits_for(const char *wr, const char *const *from)
{
    for (size_t k = 0; from && from[k]; k++)
        if (wr && !strcmp(wr, from[k]))
            return true;
    return !from;
}

/* Every container that waits (but app containers behind init ones,
 * PodInitializing) waits now for reason, with message (NULL: none); only
 * those waiting for one of from (NULL-terminated) when from is given. What
 * `kubectl get pods` shows before a pod runs: Pending while Slurm holds its
 * job (kube: a pod without a node), ContainerCreating once it has one,
 * SubmitFailed when Slurm refused it. */
static int rewait(json_t *pod, const char *const *from, const char *reason, const char *message)
{
    json_t *st = status_of(pod), *c;
    int changed = 0;
    size_t i;
    for (int init = 0; init < 2; init++)
        json_array_foreach(
            json_object_get(st, init ? "initContainerStatuses" : "containerStatuses"), i, c)
        {
            json_t *w = json_object_get(json_object_get(c, "state"), "waiting");
            const char *wr = json_string_value(json_object_get(w, "reason"));
            if (w && (init || !wr || strcmp(wr, "PodInitializing")) && waits_for(wr, from))
                changed |= set_if(c, "state", waiting(reason, message));
        }
    return changed;
}

/* Kubernetes' QoS class: Guaranteed when every container sets cpu and memory
 * limits equal to its requests, BestEffort when none sets any cpu/memory
 * request or limit, Burstable otherwise. */
static const char *qos_class(json_t *spec)
{
    int any = 0, guaranteed = 1;
    for (int init = 0; init < 2; init++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, init ? "initContainers" : "containers"), i, c)
        {
            json_t *res = json_object_get(c, "resources");
            json_t *req = json_object_get(res, "requests"), *lim = json_object_get(res, "limits");
            const char *names[] = {"cpu", "memory"};
            for (int k = 0; k < 2; k++) {
                json_t *r = json_object_get(req, names[k]), *l = json_object_get(lim, names[k]);
                if (r || l)
                    any = 1;
                if (!l || (r && !json_equal(r, l)))
                    guaranteed = 0;
            }
        }
    }
    return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

/* the status's fields a pod has from the start filled (dry: only whether
 * any is missing, nothing changed) */
static int init_status(json_t *pod, int64_t now_ns, int dry)
{
    json_t *st = json_object_get(pod, "status");
    if (!json_is_object(st) && dry)
        return 1;
    st = status_of(pod);
    int changed = 0;
    if (dry)
        changed = !json_object_get(st, "phase") || !json_object_get(st, "conditions") ||
                  !json_object_get(st, "qosClass");
    if (!dry && !json_object_get(st, "phase"))
        changed |= set_if(st, "phase", json_string("Pending"));
    if (!dry && !json_object_get(st, "conditions"))
        changed |= cond_set(pod, "PodScheduled", 0, "Unschedulable",
                            "waiting for slurmlinkd to submit the Slurm job", now_ns);
    json_t *spec = json_object_get(pod, "spec");
    int has_init = json_array_size(json_object_get(spec, "initContainers")) > 0;
    if (!dry && !json_object_get(st, "qosClass"))
        changed |= set_if(st, "qosClass", json_string(qos_class(spec)));
    for (int init = 0; init < 2; init++) {
        const char *key = init ? "initContainerStatuses" : "containerStatuses";
        json_t *ctrs = ctr_list(pod, init);
        if (!json_array_size(ctrs) || json_object_get(st, key))
            continue;
        if (dry)
            return 1;
        json_t *arr = json_array();
        size_t i;
        json_t *c;
        json_array_foreach(ctrs, i, c)
        {
            const char *img = json_string_value(json_object_get(c, "image"));
            json_array_append_new(
                arr, json_pack(
                         "{s:s, s:o, s:{}, s:b, s:i, s:s, s:s, s:b}", "name",
                         json_string_value(json_object_get(c, "name")), "state",
                         waiting(!init && has_init ? "PodInitializing" : "ContainerCreating", NULL),
                         "lastState", "ready", 0, "restartCount", 0, "image", img ? img : "",
                         "imageID", "", "started", 0));
            if (!init) /* a gang's replica that replaces a failed one: its runs go on */
                ctl_carry_status(pod, json_array_get(arr, i));
        }
        json_object_set_new(st, key, arr);
        changed = 1;
    }
    return changed;
}

int ctl_status_init(json_t *pod, int64_t now_ns) { return init_status(pod, now_ns, 0); }

/* whether the poll or the shim's pushes have said the pod's job runs or ran:
 * it is scheduled, or a container has started */
static int ran_already(json_t *pod)
{
    if (ctl_pod_scheduled(pod))
        return 1;
    json_t *st = status_of(pod), *c;
    size_t i;
    const char *lists[] = {"initContainerStatuses", "containerStatuses"};
    for (int l = 0; l < 2; l++)
        json_array_foreach(json_object_get(st, lists[l]), i, c)
        {
            json_t *state = json_object_get(c, "state");
            if (json_object_get(state, "running") || json_object_get(state, "terminated"))
                return 1;
        }
    return 0;
}

int ctl_status_submitted(json_t *pod, uint32_t job_id, int64_t now_ns)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "%u", job_id);
    int changed = 0;
    const char *old = sl_kube_annotation(pod, SL_ANN_JOB_ID);
    if ((!old || !strcmp(old, buf)) && ran_already(pod)) {
        /* this job ran before its id was written (a submission worker
         * slower than the shim's pushes and the poll): what they said
         * stands, and the id is all that can be new */
        if (old)
            return 0;
        sl_kube_set_annotation(pod, SL_ANN_JOB_ID, buf);
        return 1;
    }
    if (!old || strcmp(old, buf)) {
        sl_kube_set_annotation(pod, SL_ANN_JOB_ID, buf);
        changed = 1;
    }
    if (ctl_pod_terminal(pod)) /* a phase set before there was a job */
        changed |= reopen(pod);
    changed |= ctl_status_init(pod, now_ns); /* not left to the job's first view */
    char *msg = sl_xasprintf("Slurm job %u submitted", job_id);
    changed |= cond_set(pod, "PodScheduled", 0, "Unschedulable", msg, now_ns);
    changed |= rewait(pod, NULL, "Pending", msg);
    free(msg);
    return changed;
}

int ctl_status_submit_failed(json_t *pod, const char *message, int permanent, int64_t now_ns)
{
    int changed = cond_set(pod, "PodScheduled", 0, "Unschedulable", message, now_ns);
    if (permanent) {
        json_t *st = status_of(pod);
        changed |= set_if(st, "phase", json_string("Failed"));
        changed |= set_if(st, "reason", json_string("SubmitFailed"));
        changed |= set_if(st, "message", json_string(message));
        changed |= rewait(pod, NULL, "SubmitFailed", message);
    }
    return changed;
}

int ctl_status_submit_waiting(json_t *pod, const char *reason, const char *message, int64_t now_ns)
{
    int changed = ctl_status_init(pod, now_ns);
    changed |= cond_set(pod, "PodScheduled", 0, reason, message, now_ns);
    changed |= rewait(pod, NULL, reason, message);
    return changed;
}

/* mark every container not yet terminated as terminated (job is over) */
static int terminate_all(json_t *pod, int exit_code, const char *reason, int64_t end_ns)
{
    json_t *st = status_of(pod);
    int changed = 0;
    char *fin = ts(end_ns);
    for (int init = 0; init < 2; init++) {
        json_t *arr = json_object_get(st, init ? "initContainerStatuses" : "containerStatuses");
        size_t i;
        json_t *c;
        json_array_foreach(arr, i, c)
        {
            json_t *state = json_object_get(c, "state");
            if (json_object_get(state, "terminated"))
                continue;
            json_t *running = json_object_get(state, "running");
            const char *started = json_string_value(json_object_get(running, "startedAt"));
            json_t *term = json_pack("{s:i, s:s, s:s}", "exitCode", exit_code, "reason", reason,
                                     "finishedAt", fin);
            /* a container that never started has no startedAt (Kubernetes leaves it null) */
            json_object_set_new(term, "startedAt", started ? json_string(started) : json_null());
            json_object_set_new(c, "state", json_pack("{s:o}", "terminated", term));
            json_object_set_new(c, "ready", json_false());
            json_object_set_new(c, "started", json_false());
            changed = 1;
        }
    }
    free(fin);
    return changed;
}

static int all_app_succeeded(json_t *pod)
{
    json_t *arr = json_object_get(status_of(pod), "containerStatuses");
    if (!json_array_size(arr))
        return 0;
    size_t i;
    json_t *c;
    json_array_foreach(arr, i, c)
    {
        json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
        if (!t || json_integer_value(json_object_get(t, "exitCode")) != 0)
            return 0;
    }
    return 1;
}

/* A job ended by Slurm for a reason outside the pod (preempted, its node
 * lost, cancelled by someone other than slurmlinkd): the pod condition
 * DisruptionTarget, with the reason kube gives the like disruption
 * (podFailurePolicy onPodConditions rules match it). A pod slurmlinkd is
 * deleting gets none: that cancellation is its own. */
static int disruption(json_t *pod, const char *state, const ctl_job_view_t *job, int64_t now_ns)
{
    if (sl_kube_meta_str(pod, "deletionTimestamp"))
        return 0;
    static const struct {
        const char *state, *reason, *fmt;
    } map[] = {
        {"PREEMPTED", "PreemptionByScheduler",
         "Slurm: preempting to accommodate a higher priority job (Slurm job %u: PREEMPTED)"},
        {"NODE_FAIL", "DeletionByTaintManager",
         "Taint manager: deleting due to NoExecute taint (its node is unresponsive, Slurm job "
         "%u: NODE_FAIL)"},
        {"CANCELLED", "EvictionByEvictionAPI",
         "Eviction API: evicting (Slurm job %u was cancelled outside slurmlink)"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(state, map[i].state))
            continue;
        char msg[192];
        snprintf(msg, sizeof(msg), map[i].fmt, job->job_id);
        return cond_set(pod, "DisruptionTarget", 1, map[i].reason, msg, now_ns);
    }
    return 0;
}

static int set_terminal(json_t *pod, const char *phase, const char *reason, const char *message,
                        int64_t now_ns)
{
    json_t *st = status_of(pod);
    int changed = set_if(st, "phase", json_string(phase));
    if (reason)
        changed |= set_if(st, "reason", json_string(reason));
    if (message)
        changed |= set_if(st, "message", json_string(message));
    changed |= cond_set(pod, "Ready", 0, "PodCompleted", NULL, now_ns);
    changed |= cond_set(pod, "ContainersReady", 0, "PodCompleted", NULL, now_ns);
    return changed;
}

/* an init container with restartPolicy Always: a sidecar */
static int spec_sidecar(json_t *pod, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(pod, "spec"), "initContainers"), i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        const char *rp = json_string_value(json_object_get(c, "restartPolicy"));
        if (n && !strcmp(n, name))
            return rp && !strcmp(rp, "Always");
    }
    return 0;
}

/* the kubelet's rules for init containers: a regular one is done once it
 * succeeded, a sidecar once it started (its startup probe passed); a
 * sidecar's readiness counts for the pod's as an app container's */
static void init_states(json_t *pod, int *inits_done, int *all_ready)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(status_of(pod), "initContainerStatuses"), i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && spec_sidecar(pod, n)) {
            if (!json_is_true(json_object_get(c, "started")))
                *inits_done = 0;
            if (!json_is_true(json_object_get(c, "ready")))
                *all_ready = 0;
            continue;
        }
        json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
        if (!t || json_integer_value(json_object_get(t, "exitCode")) != 0)
            *inits_done = 0;
    }
}

/* the kubelet's "containers with unready status: [a b]": the sidecars and
 * app containers not ready (NULL: none named) */
static char *unready_message(json_t *pod)
{
    sl_buf_t b = SL_BUF_INIT;
    for (int init = 1; init >= 0; init--) {
        size_t i;
        json_t *c;
        json_array_foreach(
            json_object_get(status_of(pod), init ? "initContainerStatuses" : "containerStatuses"),
            i, c)
        {
            const char *n = json_string_value(json_object_get(c, "name"));
            if (n && (!init || spec_sidecar(pod, n)) && !json_is_true(json_object_get(c, "ready")))
                sl_buf_printf(&b, "%s%s", b.len ? " " : "", n);
        }
    }
    if (!b.len) {
        sl_buf_free(&b);
        return NULL;
    }
    char *m = sl_xasprintf("containers with unready status: [%s]", b.data);
    sl_buf_free(&b);
    return m;
}

static int update_ready(json_t *pod, int64_t now_ns)
{
    if (ctl_pod_terminal(pod))
        return 0;
    json_t *st = status_of(pod);
    int all_ready = 1, any_running = 0;
    json_t *arr = json_object_get(st, "containerStatuses");
    size_t i;
    json_t *c;
    json_array_foreach(arr, i, c)
    {
        if (!json_is_true(json_object_get(c, "ready")))
            all_ready = 0;
        if (json_object_get(json_object_get(c, "state"), "running"))
            any_running = 1;
    }
    int inits_done = 1;
    init_states(pod, &inits_done, &all_ready);
    int changed = 0;
    if (ctl_pod_scheduled(pod)) {
        changed |=
            cond_set(pod, "Initialized", inits_done, inits_done ? NULL : "ContainersNotInitialized",
                     inits_done ? NULL : "containers with incomplete status: [init]", now_ns);
        int ready = all_ready && json_array_size(arr) > 0;
        char *why = ready ? NULL : unready_message(pod);
        changed |= cond_set(pod, "ContainersReady", ready, ready ? NULL : "ContainersNotReady", why,
                            now_ns);
        changed |= cond_set(pod, "Ready", ready, ready ? NULL : "ContainersNotReady", why, now_ns);
        free(why);
    }
    /* Running once any container (init or app) has started */
    int started = any_running;
    json_array_foreach(json_object_get(st, "initContainerStatuses"), i, c)
    {
        json_t *s = json_object_get(c, "state");
        if (json_object_get(s, "running") || json_object_get(s, "terminated"))
            started = 1;
    }
    json_array_foreach(arr, i, c)
    {
        json_t *s = json_object_get(c, "state");
        const char *w = json_string_value(sl_kube_path(s, "waiting.reason"));
        bool created = !w || (strcmp(w, "ContainerCreating") && strcmp(w, "PodInitializing"));
        /* (a gang's replica that replaces a failed one counts on from its
         * runs before it: not started while its container is being created) */
        if (json_object_get(s, "terminated") ||
            (json_integer_value(json_object_get(c, "restartCount")) && created))
            started = 1;
    }
    if (started && !strcmp(phase_of(pod), "Pending"))
        changed |= set_if(st, "phase", json_string("Running"));
    return changed;
}

/* Slurm requeued a running job (node failure, preemption with requeue): the
 * pod goes back to Pending, its containers wait to be created again */
static int requeued(json_t *pod, const ctl_job_view_t *job, int64_t now_ns)
{
    json_t *st = status_of(pod);
    json_object_set_new(st, "phase", json_string("Pending"));
    char m[128];
    snprintf(m, sizeof(m), "Slurm requeued job %u (restart %u)", job->job_id, job->restart_cnt);
    for (int init = 0; init < 2; init++) {
        size_t i;
        json_t *c;
        json_array_foreach(
            json_object_get(st, init ? "initContainerStatuses" : "containerStatuses"), i, c)
        {
            json_t *state = json_object_get(c, "state");
            if (json_object_get(state, "running") || json_object_get(state, "terminated"))
                json_object_set(c, "lastState", state);
            json_object_set_new(c, "state", waiting("ContainerCreating", m));
            json_object_set_new(c, "ready", json_false());
            json_object_set_new(c, "started", json_false());
        }
    }
    cond_set(pod, "Ready", 0, "ContainersNotReady", NULL, now_ns);
    cond_set(pod, "ContainersReady", 0, "ContainersNotReady", NULL, now_ns);
    json_object_del(json_object_get(pod, "spec"), "nodeName");
    json_object_del(st, "startTime");
    return 1;
}

/* the latest finishedAt of the pod's containers (0 when none) */
static int64_t last_finish_ns(json_t *pod)
{
    int64_t last = 0;
    for (int init = 0; init < 2; init++) {
        size_t i;
        json_t *c;
        json_array_foreach(
            json_object_get(status_of(pod), init ? "initContainerStatuses" : "containerStatuses"),
            i, c)
        {
            json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
            const char *f = json_string_value(json_object_get(t, "finishedAt"));
            int64_t ns = 0;
            if (f && sl_kube_parse_rfc3339(f, &ns) == 0 && ns > last)
                last = ns;
        }
    }
    return last;
}

int ctl_job_reruns_finished(json_t *pod, const ctl_job_view_t *job)
{
    const char *s = job->state ? job->state : "";
    if (!ctl_pod_terminal(pod) || !job->restart_cnt || !*s)
        return 0;
    /* pending again; or cancelled after the requeue (Slurm may keep the old
     * run's times on a job cancelled while pending) */
    if (!strcmp(s, "PENDING") || !strcmp(s, "REQUEUED") || !strcmp(s, "CANCELLED"))
        return 1;
    return job->start_ns > last_finish_ns(pod);
}

/* Whether a view of the job active contradicts a terminal phase (a status
 * someone else wrote). Only the controller's own view does: it reads at the
 * write whether the shim finished (a view a push made on an API thread may
 * be older than the shim's later pushes), and it must be no older than the
 * last view of the job ended (Slurm's state goes from active to ended once
 * per run; a requeue counts a run). */
static int contradicts(const ctl_job_view_t *job)
{
    if (job->shim_finished || !job->shim_done_now || atomic_load(job->shim_done_now))
        return 0;
    return !(job->ended_now && atomic_load(job->ended_now) > job->restart_cnt);
}

/* A new job's first pending reason, None (slurmctld has not looked at it
 * yet), says no more than the message its submission wrote: that stays, and
 * each pod of a burst is written once less. */
static int still_submitted(json_t *pod, const ctl_job_view_t *job)
{
    if (job->restart_cnt || !job->reason || strcmp(job->reason, "None"))
        return 0;
    return ctl_status_just_submitted(pod, job->job_id);
}

int ctl_status_just_submitted(json_t *pod, uint32_t job_id)
{
    if (ctl_pod_terminal(pod) || init_status(pod, 0, 1))
        return 0;
    char want[48];
    snprintf(want, sizeof(want), "Slurm job %u submitted", job_id);
    json_t *c = sl_kube_condition(json_object_get(json_object_get(pod, "status"), "conditions"),
                                  "PodScheduled");
    const char *st = json_string_value(json_object_get(c, "status"));
    const char *m = json_string_value(json_object_get(c, "message"));
    return st && !strcmp(st, "False") && m && !strcmp(m, want);
}

/* the job waits (again, after a requeue): its reason in PodScheduled */
static int pending(json_t *pod, const ctl_job_view_t *job, int64_t now_ns)
{
    int changed = 0;
    if (job->restart_cnt && !strcmp(phase_of(pod), "Running"))
        changed |= requeued(pod, job, now_ns);
    if (still_submitted(pod, job))
        return changed;
    char *msg = job->restart_cnt
                    ? sl_xasprintf("Slurm job %u was requeued (restart %u) and is pending: %s",
                                   job->job_id, job->restart_cnt, job->reason)
                    : sl_xasprintf("Slurm job %u is pending: %s", job->job_id, job->reason);
    changed |= cond_set(pod, "PodScheduled", 0, "Unschedulable", msg, now_ns);
    changed |= rewait(pod, NULL, "Pending", msg);
    free(msg);
    return changed;
}

/* Slurm ended the job itself (state s: a time limit, a cancel, a lost
 * node ...): whatever the containers did on the way out (a clean exit on
 * SIGTERM included), the pod failed for this reason */
static int ended_by_slurm(json_t *pod, const ctl_job_view_t *job, const char *s, int64_t end,
                          int64_t now_ns)
{
    char msg[256];
    const char *reason = NULL, *cterm = "Error";
    int code = 137;
    if (!strcmp(s, "TIMEOUT") || !strcmp(s, "DEADLINE")) {
        reason = cterm = "DeadlineExceeded";
        snprintf(msg, sizeof(msg),
                 "Pod was active on the node longer than the specified deadline (Slurm job %u: %s)",
                 job->job_id, s);
    } else if (!strcmp(s, "OUT_OF_MEMORY")) {
        reason = cterm = "OOMKilled";
        snprintf(msg, sizeof(msg), "Slurm job %u ran out of memory", job->job_id);
    } else if (!strcmp(s, "NODE_FAIL") && job->node_up == 1) {
        /* a replica on a node that is fine: another node of its job was lost */
        reason = "Terminated";
        snprintf(msg, sizeof(msg),
                 "Pod was terminated: another node of its Slurm job %u was lost (NODE_FAIL); "
                 "its own node %s is up",
                 job->job_id, job->node);
    } else if (!strcmp(s, "NODE_FAIL")) {
        const char *bound = sl_kube_path_str(pod, "spec.nodeName");
        reason = "NodeLost";
        snprintf(msg, sizeof(msg),
                 "Node %s which was running pod %s is unresponsive (Slurm job %u: NODE_FAIL)",
                 job->node && *job->node ? job->node
                 : bound && *bound       ? bound
                                         : "?",
                 sl_kube_name(pod), job->job_id);
    } else if (!strcmp(s, "CANCELLED") || !strcmp(s, "PREEMPTED") || !strcmp(s, "BOOT_FAIL")) {
        reason = !strcmp(s, "CANCELLED")   ? "Cancelled"
                 : !strcmp(s, "PREEMPTED") ? "Preempted"
                                           : "BootFailed";
        snprintf(msg, sizeof(msg), "Slurm job %u was %s", job->job_id, s);
    } else {
        return 0; /* a state we do not map: leave the pod as it is */
    }
    int changed = terminate_all(pod, code, cterm, end);
    changed |= set_terminal(pod, "Failed", reason, msg, now_ns);
    changed |= disruption(pod, s, job, now_ns);
    return changed;
}

int ctl_status_from_job(json_t *pod, const ctl_job_view_t *job, int64_t now_ns)
{
    json_t *st = status_of(pod);
    int changed = ctl_status_init(pod, now_ns);
    const char *s = job->state ? job->state : "";
    if (ctl_job_reruns_finished(pod, job))
        return changed; /* a terminal phase is final: the controller cancels the rerun */
    if (ctl_job_active(s) && ctl_pod_terminal(pod) && contradicts(job))
        changed |= reopen(pod);
    if (!strcmp(s, "PENDING"))
        return changed | pending(pod, job, now_ns);
    if (!*s)
        return changed;
    /* the job has (or had) a node */
    if (job->node && *job->node) {
        changed |= cond_set(pod, "PodScheduled", 1, NULL, NULL, now_ns);
        json_t *spec = json_object_get(pod, "spec");
        changed |= set_if(spec, "nodeName", json_string(job->node));
        if (job->node_ip && *job->node_ip) {
            changed |= set_if(st, "hostIP", json_string(job->node_ip));
            changed |= set_if(st, "hostIPs", json_pack("[{s:s}]", "ip", job->node_ip));
            changed |= set_if(st, "podIP", json_string(job->node_ip));
            changed |= set_if(st, "podIPs", json_pack("[{s:s}]", "ip", job->node_ip));
        }
    }
    if (job->start_ns > 0 && !json_object_get(st, "startTime")) {
        char *t = ts(job->start_ns);
        json_object_set_new(st, "startTime", json_string(t));
        free(t);
        changed = 1;
    }
    if (!strcmp(s, "RUNNING") || !strcmp(s, "SUSPENDED") || !strcmp(s, "CONFIGURING")) {
        if (job->node && *job->node) /* it has a node now: the containers are being made */
            changed |=
                rewait(pod, (const char *const[]){"Pending", NULL}, "ContainerCreating", NULL);
        changed |= update_ready(pod, now_ns);
        return changed;
    }
    /* a deleted pod's job, cancelled (a delete's grace period shorter than
     * the pod's), is over in Slurm's books while its processes still end:
     * the containers run out the grace period, Running as a kubelet shows
     * them, until the shim says how they ended or the job is done completing
     * (a time limit or a preemption ends the pod at once, as Kubernetes'
     * activeDeadlineSeconds and disruptions do; a job COMPLETED or FAILED
     * has no process left but its Epilog's: its pod ends at once) */
    if (job->completing && !strcmp(s, "CANCELLED") && !job->shim_finished &&
        !ctl_pod_terminal(pod) && sl_kube_meta_str(pod, "deletionTimestamp"))
        return changed;
    int64_t end = job->end_ns > 0 ? job->end_ns : now_ns;
    char msg[256];
    if (!strcmp(s, "COMPLETED") || !strcmp(s, "FAILED")) {
        if (ctl_pod_terminal(pod))
            return changed; /* the shim already said how it ended */
        changed |= terminate_all(pod, job->exit_code, job->exit_code ? "Error" : "Completed", end);
        if (all_app_succeeded(pod)) {
            changed |= set_terminal(pod, "Succeeded", NULL, NULL, now_ns);
        } else {
            snprintf(msg, sizeof(msg), "Slurm job %u ended %s with exit code %d", job->job_id, s,
                     job->exit_code);
            changed |= set_terminal(pod, "Failed", "Error", msg, now_ns);
        }
        return changed;
    }
    /* a gang member whose own step had ended, as its shim said, before the
     * job did (its owner ended the gang: a JobSet's successPolicy met while
     * other members ran, another member failed): how it ended stays */
    if (ctl_pod_terminal(pod) && job->shim_finished &&
        sl_kube_annotation(pod, ANN_GANG_RANK) != NULL)
        return changed;
    return changed | ended_by_slurm(pod, job, s, end, now_ns);
}

int ctl_status_job_purged(json_t *pod, uint32_t job_id, int64_t now_ns)
{
    int changed = ctl_status_init(pod, now_ns);
    if (ctl_pod_terminal(pod))
        return changed;
    char msg[192];
    snprintf(msg, sizeof(msg),
             "Slurm no longer knows job %u and there is no accounting to ask; its outcome is "
             "unknown",
             job_id);
    changed |= terminate_all(pod, 137, "ContainerStatusUnknown", now_ns);
    changed |= set_terminal(pod, "Failed", "JobPurged", msg, now_ns);
    return changed;
}

static int restart_expected(json_t *pod, int exit_code, int init)
{
    const char *rp =
        json_string_value(json_object_get(json_object_get(pod, "spec"), "restartPolicy"));
    if (!rp)
        rp = "Always";
    if (init) /* init containers restart on failure unless Never */
        return exit_code != 0 && strcmp(rp, "Never");
    return !strcmp(rp, "Always") || (!strcmp(rp, "OnFailure") && exit_code != 0);
}

/* an integer field, absent or within [lo, hi] */
static int int_field(json_t *ev, const char *key, json_int_t lo, json_int_t hi)
{
    json_t *v = json_object_get(ev, key);
    return !v || (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi);
}

/* a string field, absent or of lo to hi bytes */
static int str_field(json_t *ev, const char *key, size_t lo, size_t hi)
{
    json_t *v = json_object_get(ev, key);
    return !v || (json_is_string(v) && json_string_length(v) >= lo && json_string_length(v) <= hi);
}

static int bool_field(json_t *ev, const char *key)
{
    json_t *v = json_object_get(ev, key);
    return !v || json_is_boolean(v);
}

int ctl_shim_event_check(json_t *ev, char *why, size_t why_len)
{
    json_t *t = json_object_get(ev, "time");
    int64_t ns = 0;
    json_t *r = json_object_get(ev, "reason");
    const char *bad = NULL;
    if (t && (!json_is_string(t) || sl_kube_parse_rfc3339(json_string_value(t), &ns) < 0))
        bad = "time: must be an RFC 3339 timestamp";
    else if (!int_field(ev, "restartCount", 0, INT32_MAX))
        bad = "restartCount: must be an integer from 0 to 2147483647";
    else if (!int_field(ev, "exitCode", INT32_MIN, INT32_MAX))
        bad = "exitCode: must be a 32-bit integer";
    else if (!int_field(ev, "signal", 0, 255))
        bad = "signal: must be an integer from 0 to 255";
    else if (r && (!json_is_string(r) || !json_string_length(r) || json_string_length(r) > 128))
        bad = "reason: must be a string of 1 to 128 bytes";
    else if (!str_field(ev, "message", 0, 4096))
        bad = "message: must be a string of at most 4096 bytes";
    else if (!str_field(ev, "probe", 1, 16))
        bad = "probe: must be a string of 1 to 16 bytes";
    else if (!bool_field(ev, "ready") || !bool_field(ev, "started"))
        bad = "ready, started: must be booleans";
    if (!bad)
        return 0;
    snprintf(why, why_len, "invalid shim event: %s", bad);
    return -1;
}

int ctl_usage_check(json_t *ev, char *why, size_t why_len)
{
    json_t *cs = json_object_get(ev, "containers"), *c;
    size_t i;
    const char *bad = NULL;
    if (!json_is_array(cs) || json_array_size(cs) > CTL_USAGE_MAX_CONTAINERS)
        bad = "containers: must be a list of at most 256 containers";
    json_array_foreach(cs, i, c)
    {
        if (bad)
            break;
        if (!json_is_object(c) || !json_is_string(json_object_get(c, "name")) ||
            !json_string_length(json_object_get(c, "name")) ||
            json_string_length(json_object_get(c, "name")) > 253)
            bad = "containers[].name: must be a string of 1 to 253 bytes";
        else if (!json_is_integer(json_object_get(c, "cpuNs")) ||
                 json_integer_value(json_object_get(c, "cpuNs")) < 0 ||
                 !json_is_integer(json_object_get(c, "memoryBytes")) ||
                 json_integer_value(json_object_get(c, "memoryBytes")) < 0)
            bad = "containers[].cpuNs, memoryBytes: must be integers from 0";
    }
    if (!bad)
        return 0;
    snprintf(why, why_len, "invalid usage sample: %s", bad);
    return -1;
}

void ctl_status_latency_observe(json_t *ev, int64_t now_ns)
{
    int64_t at = 0;
    const char *t = json_string_value(json_object_get(ev, "time"));
    if (t && sl_kube_parse_rfc3339(t, &at) == 0)
        sl_metrics_status_latency((double)(now_ns - at) / 1e9);
}

/* a "started" event on container status c (restartCount rc): running, and
 * ready and started as the event says (false while a probe decides) */
static int shim_started(json_t *pod, json_t *c, json_t *ev, const char *name, const char *time,
                        int init, int rc)
{
    json_t *old_state = json_object_get(c, "state");
    if (rc > json_integer_value(json_object_get(c, "restartCount")) &&
        json_object_get(old_state, "terminated"))
        json_object_set(c, "lastState", old_state);
    json_t *state = json_pack("{s:{s:s}}", "running", "startedAt", time);
    int changed = set_if(c, "state", state);
    changed |= set_if(c, "restartCount", json_integer(rc));
    json_t *sv = json_object_get(ev, "started"), *rv = json_object_get(ev, "ready");
    changed |= set_if(c, "started", json_boolean(!json_is_false(sv)));
    /* the shim says (false for a regular init container); an older one
     * sends no "ready": a running app container is ready */
    changed |= set_if(c, "ready", json_boolean(rv ? json_is_true(rv) : !init));
    char cid[96];
    snprintf(cid, sizeof(cid), "slurm://%u/%s", ctl_pod_job_id(pod), name);
    changed |= set_if(c, "containerID", json_string(cid));
    return changed;
}

int ctl_status_from_shim(json_t *pod, json_t *ev, int64_t now_ns)
{
    int changed = ctl_status_init(pod, now_ns);
    const char *what = json_string_value(json_object_get(ev, "event"));
    const char *time = json_string_value(json_object_get(ev, "time"));
    char *nowts = NULL;
    if (!time)
        time = nowts = ts(now_ns);
    if (!what) {
        free(nowts);
        return changed;
    }
    json_t *st = status_of(pod);
    if (!strcmp(what, "pod-started"))
        changed |= ctl_status_gpus(pod, ev); /* the GPUs Slurm bound (gpustatus.c) */
    if (!strcmp(what, "pod-finished")) {
        if (!ctl_pod_terminal(pod)) {
            int code = (int)json_integer_value(json_object_get(ev, "exitCode"));
            if (code == 0 && all_app_succeeded(pod)) {
                changed |= set_terminal(pod, "Succeeded", NULL, NULL, now_ns);
            } else {
                changed |= terminate_all(pod, code ? code : 1, "Error", now_ns);
                changed |= set_terminal(pod, "Failed", NULL, NULL, now_ns);
            }
        }
        free(nowts);
        return changed;
    }
    const char *name = json_string_value(json_object_get(ev, "container"));
    int init = 0;
    json_t *c = name ? cstatus(pod, name, &init) : NULL;
    if (!c) {
        free(nowts);
        return changed;
    }
    int rc = (int)json_integer_value(json_object_get(ev, "restartCount"));
    if (!strcmp(what, "started") && ctl_pod_terminal(pod)) {
        free(nowts); /* nothing starts again in a finished pod (a requeued job's run) */
        return changed;
    }
    if (!strcmp(what, "started")) {
        changed |= shim_started(pod, c, ev, name, time, init, rc);
    } else if (!strcmp(what, "probe")) {
        /* a probe's verdict on the run that is running now (not a later one) */
        if (rc == json_integer_value(json_object_get(c, "restartCount")) &&
            json_object_get(json_object_get(c, "state"), "running")) {
            changed |= set_if(c, "ready", json_boolean(json_is_true(json_object_get(ev, "ready"))));
            changed |=
                set_if(c, "started", json_boolean(json_is_true(json_object_get(ev, "started"))));
        }
    } else if (!strcmp(what, "exited")) {
        int code = (int)json_integer_value(json_object_get(ev, "exitCode"));
        const char *reason = json_string_value(json_object_get(ev, "reason"));
        json_t *running = json_object_get(json_object_get(c, "state"), "running");
        const char *started = json_string_value(json_object_get(running, "startedAt"));
        json_t *term = json_pack("{s:i, s:s, s:s}", "exitCode", code, "reason",
                                 reason ? reason
                                 : code ? "Error"
                                        : "Completed",
                                 "finishedAt", time);
        json_object_set_new(term, "startedAt", started ? json_string(started) : json_null());
        const char *msg = json_string_value(json_object_get(ev, "message"));
        if (msg && *msg) /* the shim's reason for a StartError, as containerd gives it */
            json_object_set_new(term, "message", json_string(msg));
        int sig = (int)json_integer_value(json_object_get(ev, "signal"));
        if (sig)
            json_object_set_new(term, "signal", json_integer(sig));
        const char *cid = json_string_value(json_object_get(c, "containerID"));
        if (cid)
            json_object_set_new(term, "containerID", json_string(cid));
        json_t *tstate = json_pack("{s:o}", "terminated", term);
        if (restart_expected(pod, code, init)) {
            /* the shim backs off, then starts it again: kubelet shows this */
            json_object_set(c, "lastState", tstate);
            char m[160];
            snprintf(m, sizeof(m), "back-off restarting failed container %s in pod %s_%s", name,
                     sl_kube_name(pod), sl_kube_namespace(pod));
            json_object_set_new(c, "state", waiting("CrashLoopBackOff", m));
            json_decref(tstate);
        } else {
            json_object_set_new(c, "state", tstate);
        }
        json_object_set_new(c, "ready", json_false());
        json_object_set_new(c, "started", json_false());
        changed = 1;
        /* the app containers wait on the init ones: once all init are done,
         * they are no longer "PodInitializing" but "ContainerCreating" */
    }
    changed |= update_ready(pod, now_ns);
    (void)st;
    free(nowts);
    return changed;
}
