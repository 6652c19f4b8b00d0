/* apply.c — Slurm's view of a job and the shim's events written onto the
 * stored pod, with their Events (apply.h). */
#include "ctl/apply.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/podstatus.h"
#include "kube/meta.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctl_phase_copy(json_t *pod, char out[16])
{
    const char *p = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    snprintf(out, 16, "%s", p ? p : "");
}

int ctl_apply_fn(json_t *pod, void *arg)
{
    ctl_apply_t *a = arg;
    ctl_phase_copy(pod, a->old_phase);
    a->was_scheduled = ctl_pod_scheduled(pod);
    a->rerun = a->job && ctl_job_active(a->job->state) && ctl_job_reruns_finished(pod, a->job);
    int r = a->job ? ctl_status_from_job(pod, a->job, sl_kube_now_ns())
                   : ctl_status_from_shim(pod, a->event, sl_kube_now_ns());
    ctl_phase_copy(pod, a->new_phase);
    a->now_scheduled = ctl_pod_scheduled(pod);
    return r;
}

/* events for transitions, as the kubelet and scheduler would emit them */
void ctl_transition_events(sl_ctl_t *c, ctl_apply_t *a, json_t *pod, uint32_t job_id)
{
    if (!pod)
        return;
    if (!a->was_scheduled && a->now_scheduled) {
        const char *node =
            json_string_value(json_object_get(json_object_get(pod, "spec"), "nodeName"));
        ctl_event(c, pod, "Normal", "Scheduled", "Successfully assigned %s/%s to %s (Slurm job %u)",
                  sl_kube_namespace(pod), sl_kube_name(pod), node ? node : "?", job_id);
    }
    const char *ev = a->event ? json_string_value(json_object_get(a->event, "event")) : NULL;
    char *gpus = ev && !strcmp(ev, "pod-started") ? ctl_gpus_text(a->event) : NULL;
    if (gpus) {
        ctl_event(c, pod, "Normal", "GPUsBound", "Slurm bound %s to the pod", gpus);
        ctl_claims_allocate(c, pod, a->event); /* its DRA claims' status */
    }
    free(gpus);
    if (strcmp(a->old_phase, a->new_phase)) {
        if (a->job)
            sl_debug("pod %s/%s: %s -> %s by Slurm's view of job %u (%s, shim finished %d)",
                     sl_kube_namespace(pod), sl_kube_name(pod), a->old_phase, a->new_phase, job_id,
                     a->job->state, a->job->shim_finished);
        else
            sl_debug("pod %s/%s: %s -> %s by the shim's %s", sl_kube_namespace(pod),
                     sl_kube_name(pod), a->old_phase, a->new_phase,
                     json_string_value(json_object_get(a->event, "event")));
        if (!strcmp(a->new_phase, "Succeeded") || !strcmp(a->new_phase, "Failed"))
            ctl_claims_release(c, pod); /* its DRA claims' devices are free again */
        if (!strcmp(a->new_phase, "Succeeded"))
            ctl_event(c, pod, "Normal", "Completed", "Pod completed (Slurm job %u)", job_id);
        else if (!strcmp(a->new_phase, "Failed")) {
            const char *m =
                json_string_value(json_object_get(json_object_get(pod, "status"), "message"));
            ctl_event(c, pod, "Warning", "Failed", "%s", m ? m : "Pod failed");
        }
    }
}

/* before a view's write: a view of the job ended marks the pod's job as
 * ended for the views written after it */
static void note_ended(sl_ctl_t *c, const char *uid, const ctl_job_view_t *v)
{
    if (*v->state && !ctl_job_active(v->state)) {
        /* before the write: a view of the job running, read earlier and
         * applied later on another thread, must not reopen what this says */
        pthread_mutex_lock(&c->lock);
        ctl_pod_t *p = ctl_pod_find(c, uid);
        if (p && p->job_id == v->job_id && atomic_load(&p->slurm_ended) < v->restart_cnt + 1)
            atomic_store(&p->slurm_ended, v->restart_cnt + 1);
        pthread_mutex_unlock(&c->lock);
    }
}

/* after a view's write (w 0: out is the pod after it): its transitions'
 * Events; whether the pod is terminal after it, -1 when it is not stored */
static int view_written(sl_ctl_t *c, ctl_apply_t *a, int w, json_t *out, uint32_t job_id)
{
    if (w != 0)
        return -1;
    ctl_transition_events(c, a, out, job_id);
    return ctl_pod_terminal(out);
}

/* v written onto the pod ns/name of that uid through *a (made here), the
 * pod after it in *out; the write's result */
static int write_view(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                      const ctl_job_view_t *v, int own, ctl_apply_t *a, json_t **out)
{
    note_ended(c, uid, v);
    *a = (ctl_apply_t){.job = v};
    return own ? ctl_pod_mutate_own(c, ns, name, uid, ctl_apply_fn, a, out, NULL)
               : ctl_pod_mutate(c, ns, name, uid, ctl_apply_fn, a, out, NULL);
}

/* What Slurm says of the job, applied to the stored pod ns/name of that
 * uid, with the transitions' events. Any thread (it touches no ctl_pod_t),
 * own only on the controller's (the write noted as its own, read back
 * unparsed: ctl_pod_mutate_own): whether the pod is terminal after it, or
 * -1 when it is not stored; *rerun
 * (if not NULL) says whether the job runs again for the finished pod. */
int ctl_apply_view(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                   const ctl_job_view_t *v, int own, int *rerun, int64_t *rv)
{
    ctl_apply_t a;
    json_t *out = NULL;
    int w = write_view(c, ns, name, uid, v, own, &a, &out);
    int r = view_written(c, &a, w, out, v->job_id);
    if (rerun)
        *rerun = r >= 0 && a.rerun;
    if (rv)
        *rv = r >= 0 ? sl_kube_rv(out) : 0;
    json_decref(out);
    return r;
}

/* Slurm runs the job of a finished pod again (requeued: `scontrol requeue`
 * of a completed job, or slurmctld restarted without the completion in its
 * saved state). A terminal phase is final, and the pod's containers must not
 * run again unseen: the job is cancelled (only if it is the pod's own), once
 * per requeue, with a Warning Event. */
static void cancel_rerun(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v)
{
    if (p->rerun_cancelled == v->restart_cnt)
        return;
    p->rerun_cancelled = v->restart_cnt;
    ctl_batch_end(c); /* the store is not held while Slurm is asked */
    json_t *pod = ctl_pod_get(c, p->ns, p->name, p->uid);
    if (pod) {
        char phase[16];
        ctl_phase_copy(pod, phase);
        sl_info("pod %s/%s: finished (%s), its Slurm job %u was requeued (restart %u, %s): "
                "cancelling it",
                p->ns, p->name, phase, v->job_id, v->restart_cnt, v->state);
        if (ctl_job_kill(p->ns, p->name, ctl_pod_slurm_uid(p), v->job_id, SIGKILL) == 0)
            ctl_event(c, pod, "Warning", "JobRequeued",
                      "Slurm requeued job %u of the finished pod (%s); cancelled it: a finished "
                      "pod does not run again",
                      v->job_id, phase);
    }
    json_decref(pod);
}

/* the controller thread's: the view applied to p's pod (*rv, if not NULL:
 * the pod's resourceVersion after it; 0 when it is not stored) */
void ctl_apply_job(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v, int64_t *rv)
{
    ctl_apply_t a;
    json_t *out = NULL;
    /* a pending job's view: the controller knows all its change says */
    int w = write_view(c, p->ns, p->name, p->uid, v, !strcmp(v->state, "PENDING"), &a, &out);
    int64_t r = ctl_apply_job_written(c, p, v, &a, w, out);
    json_decref(out);
    if (rv)
        *rv = r;
}

int64_t ctl_apply_job_written(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v, ctl_apply_t *a,
                              int w, json_t *out)
{
    int t = view_written(c, a, w, out, v->job_id);
    if (t < 0)
        return 0;
    p->terminal = t;
    int64_t rv = sl_kube_rv(out);
    if (a->rerun)
        cancel_rerun(c, p, v);
    return rv;
}

/* node and ip are caller buffers of 256 bytes the view points into; rank:
 * a gang replica's node in the job's node list (gang.c), else 0 */
/* What Slurm says of job j, as the pod of gang rank `rank` sees it. A
 * replica's node is its place in the job's node list while the job runs;
 * the list shrinks as the job ends (a lost node, nodes done completing), so
 * the node first seen is kept in `*known` (the controller's p->node; NULL
 * from other threads, which see running jobs only). */
void ctl_view_of(sl_ctl_t *c, const sl_slurm_job_t *j, int shim_done, ctl_job_view_t *v, char *node,
                 char *ip, unsigned rank, char **known, int gang)
{
    snprintf(node, 256, "%s", *j->batch_host ? j->batch_host : j->nodes);
    node[strcspn(node, ",[")] = '\0';
    if (rank) {
        node[0] = '\0';
        ctl_gang_node(j->nodes, rank, node, 256);
    }
    if (known && *known)
        snprintf(node, 256, "%s", *known);
    else if (!known && rank && (strcmp(j->state, "RUNNING") || j->completing))
        node[0] = '\0'; /* a list that may have shrunk: the pod's nodeName stays */
    else if (known && *node && !strcmp(j->state, "RUNNING") && !j->completing)
        *known = sl_xstrdup(node);
    ip[0] = '\0';
    if (*node)
        ctl_node_addr(c, node, ip, 256);
    *v = (ctl_job_view_t){.job_id = j->job_id,
                          .state = j->state,
                          .reason = j->reason,
                          .node = node,
                          .node_ip = ip,
                          .start_ns = j->start_time > 0 ? (int64_t)j->start_time * 1000000000LL : 0,
                          .end_ns = j->end_time > 0 ? (int64_t)j->end_time * 1000000000LL : 0,
                          .exit_code = j->exit_code,
                          .restart_cnt = j->restart_cnt,
                          .completing = j->completing,
                          .shim_finished = shim_done};
    if (!strcmp(j->state, "PENDING"))
        v->node = "";
    /* a gang's replica on a node that is up: another node of its job was lost
     * (a pod of its own was on the node that failed, even if it is back) */
    if (gang && !strcmp(j->state, "NODE_FAIL") && *node)
        v->node_up = ctl_node_up_now(node);
}

/* what a view says, as text: two views with the same key apply alike
 * (the pointers to the controller's flags excepted: they are p's own);
 * 0 when it does not fit */
int ctl_view_key(const ctl_job_view_t *v, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%u|%s|%s|%s|%s|%lld|%lld|%d|%u|%d|%d|%d", v->job_id, v->state,
                     v->reason ? v->reason : "-", v->node, v->node_ip, (long long)v->start_ns,
                     (long long)v->end_ns, v->exit_code, v->restart_cnt, v->completing, v->node_up,
                     v->shim_finished);
    return n > 0 && (size_t)n < size;
}

void ctl_view_remember(ctl_pod_t *p, const char *key, int64_t rv)
{
    free(p->view_key);
    p->view_key = key && rv > 0 ? sl_xstrdup(key) : NULL;
    p->view_rv = rv;
}

void ctl_view_submitted(ctl_pod_t *p, uint32_t job_id, int64_t rv)
{
    ctl_job_view_t v = {
        .job_id = job_id, .state = "PENDING", .reason = "None", .node = "", .node_ip = ""};
    char key[1024];
    if (!ctl_view_key(&v, key, sizeof(key)))
        return;
    free(p->view_key);
    p->view_key = sl_xstrdup(key);
    p->view_rv = rv;
}
