/* status.c — what the shim tells the world: status.json (the latest state,
 * replaced atomically), events.jsonl (every transition, appended) and the
 * same events POSTed to slurmlinkd. Formats: docs/shim-spec.md. */
#include "shim.h"
#include "shim/gpu.h"

#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "shimlib/tstamp.h"
#include "shimlib/usage.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static json_t *jtime(const struct timespec *ts)
{
    char t[SL_TSTAMP_MAX];
    sl_tstamp_micro(ts, t);
    return json_string(t);
}

/* Messages may quote an argv[0] that is not UTF-8, which JSON cannot hold:
 * show such bytes as '?' rather than lose the message. */
static json_t *jstr_lossy(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    char *c = sl_xstrdup(s);
    for (unsigned char *p = (unsigned char *)c; *p; p++)
        if (*p >= 0x80)
            *p = '?';
    j = json_string(c);
    free(c);
    return j;
}

int shim_status_open(shim_pod_t *pod, sl_error_t *err)
{
    char *p = sl_xasprintf("%s/events.jsonl", pod->dir);
    pod->events_fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (pod->events_fd < 0) {
        sl_errprintf(err, "open %s: %s", p, strerror(errno));
        free(p);
        return -1;
    }
    free(p);
    return 0;
}

static json_t *term_json(const shim_term_t *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "exitCode", json_integer(t->exit_code));
    json_object_set_new(o, "signal", json_integer(t->signal));
    json_object_set_new(o, "reason", json_string(t->reason));
    if (t->message[0])
        json_object_set_new(o, "message", jstr_lossy(t->message));
    json_object_set_new(o, "startedAt", jtime(&t->started_at));
    json_object_set_new(o, "finishedAt", jtime(&t->finished_at));
    return o;
}

static json_t *ctr_json(const shim_ctr_t *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(c->spec->name));
    json_object_set_new(o, "restartCount", json_integer(c->restart_count));
    json_t *state = json_object();
    switch (c->state) {
    case CS_WAITING:
        json_object_set_new(state, "waiting", json_pack("{s:s}", "reason", c->waiting_reason));
        break;
    case CS_RUNNING:
        json_object_set_new(o, "pid", json_integer(c->pid));
        json_object_set_new(state, "running",
                            json_pack("{s:o}", "startedAt", jtime(&c->started_at)));
        break;
    case CS_TERMINATED:
        if (c->restart_at_ms > 0) {
            /* waiting to restart; Kubernetes shows the finished run as lastState */
            json_object_set_new(state, "waiting", json_pack("{s:s}", "reason", "CrashLoopBackOff"));
        } else {
            json_object_set_new(state, "terminated", term_json(&c->cur));
        }
        break;
    }
    json_object_set_new(o, "state", state);
    json_t *last = json_object();
    if (c->state == CS_TERMINATED && c->restart_at_ms > 0)
        json_object_set_new(last, "terminated", term_json(&c->cur));
    else if (c->has_last)
        json_object_set_new(last, "terminated", term_json(&c->last));
    json_object_set_new(o, "lastState", last);
    json_object_set_new(o, "ready",
                        json_boolean(c->state == CS_RUNNING && !c->spec->init && c->ready));
    json_object_set_new(o, "started", json_boolean(c->state == CS_RUNNING && c->started_ok));
    if (c->spec->sidecar)
        json_object_set_new(o, "sidecar", json_true());
    /* the log of the current (or latest) run, relative to the pod folder */
    char *lf = sl_xasprintf("logs/%s/%d.log", c->spec->name, c->restart_count);
    json_object_set_new(o, "logFile", json_string(lf));
    free(lf);
    return o;
}

static const char *phase_name(const shim_pod_t *pod)
{
    if (pod->phase == POD_FINISHED)
        return pod->exit_code == 0 ? "Succeeded" : "Failed";
    return pod->phase == POD_INIT ? "Pending" : "Running";
}

void shim_status_write(shim_pod_t *pod) { pod->status_dirty = 1; }

void shim_status_flush(shim_pod_t *pod)
{
    if (!pod->status_dirty)
        return;
    pod->status_dirty = 0;
    json_t *o = json_object();
    json_object_set_new(o, "apiVersion", json_string("slurmlink.io/v1"));
    json_object_set_new(o, "kind", json_string("ShimStatus"));
    json_object_set_new(o, "pod",
                        json_pack("{s:s,s:s,s:s}", "namespace", pod->spec->pod_namespace, "name",
                                  pod->spec->pod_name, "uid", pod->spec->pod_uid));
    json_object_set_new(o, "phase", json_string(phase_name(pod)));
    json_object_set_new(o, "terminating", json_boolean(pod->terminating));
    if (pod->phase == POD_FINISHED)
        json_object_set_new(o, "exitCode", json_integer(pod->exit_code));
    json_object_set_new(o, "shimPid", json_integer(getpid()));
    json_object_set_new(o, "node", json_string(pod->node));
    const char *jobid = getenv("SLURM_JOB_ID");
    if (jobid)
        json_object_set_new(o, "slurmJobId", json_string(jobid));
    json_object_set_new(o, "startTime", jtime(&pod->start_time));
    struct timespec now = sl_tstamp_now();
    json_object_set_new(o, "updateTime", jtime(&now));
    json_object_set_new(o, "seq", json_integer(pod->seq));
    json_t *ia = json_array(), *ca = json_array();
    for (size_t i = 0; i < pod->spec->ninit; i++)
        json_array_append_new(ia, ctr_json(&pod->init[i]));
    for (size_t i = 0; i < pod->spec->ncontainers; i++)
        json_array_append_new(ca, ctr_json(&pod->apps[i]));
    json_object_set_new(o, "initContainerStatuses", ia);
    json_object_set_new(o, "containerStatuses", ca);

    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return;
    size_t len = strlen(s);
    s = sl_xrealloc(s, len + 2);
    s[len++] = '\n';
    s[len] = '\0';
    char *path = sl_xasprintf("%s/status.json", pod->dir);
    sl_error_t err = SL_ERROR_INIT;
    if (sl_write_file(path, s, len, 0640, &err) < 0)
        sl_warn("%s", err.text);
    free(path);
    free(s);
}

/* Append to events.jsonl, then push. */
static void emit(shim_pod_t *pod, json_t *ev)
{
    char *s = json_dumps(ev, JSON_COMPACT);
    json_decref(ev);
    if (!s)
        return;
    size_t len = strlen(s);
    char *line = sl_xasprintf("%s\n", s);
    /* one write() per line: O_APPEND keeps concurrent readers line-aligned */
    ssize_t w;
    do
        w = write(pod->events_fd, line, len + 1);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)len + 1)
        sl_warn("events.jsonl: %s", w < 0 ? strerror(errno) : "short write");
    free(line);
    sl_report_push(pod->report, s);
    free(s);
}

static json_t *ev_base(shim_pod_t *pod, const char *event)
{
    struct timespec now = sl_tstamp_now();
    json_t *o = json_object();
    json_object_set_new(o, "pod_uid", json_string(pod->spec->pod_uid));
    json_object_set_new(o, "shimPid", json_integer(getpid())); /* the run the seq counts in */
    json_object_set_new(o, "seq", json_integer(++pod->seq));
    json_object_set_new(o, "event", json_string(event));
    json_object_set_new(o, "time", jtime(&now));
    return o;
}

void shim_event_pod(shim_pod_t *pod, const char *event)
{
    json_t *o = ev_base(pod, event);
    if (!strcmp(event, "pod-started")) {
        json_object_set_new(o, "namespace", json_string(pod->spec->pod_namespace));
        json_object_set_new(o, "name", json_string(pod->spec->pod_name));
        json_object_set_new(o, "node", json_string(pod->node));
        const char *jobid = getenv("SLURM_JOB_ID");
        if (jobid)
            json_object_set_new(o, "slurmJobId", json_string(jobid));
        json_t *g = shim_gpu_identity(environ, NULL); /* what Slurm bound, for the pod */
        if (g)
            json_object_set_new(o, "gpus", g);
    } else if (!strcmp(event, "terminating")) {
        json_object_set_new(o, "gracePeriodSeconds", json_integer(pod->grace_s));
    } else if (!strcmp(event, "pod-finished")) {
        json_object_set_new(o, "exitCode", json_integer(pod->exit_code));
        json_object_set_new(o, "phase", json_string(phase_name(pod)));
    }
    emit(pod, o);
}

void shim_event_container(shim_pod_t *pod, const shim_ctr_t *c, const char *event,
                          long long restart_in_ms)
{
    json_t *o = ev_base(pod, event);
    json_object_set_new(o, "container", json_string(c->spec->name));
    json_object_set_new(o, "init", json_boolean(c->spec->init));
    if (c->spec->sidecar)
        json_object_set_new(o, "sidecar", json_true());
    json_object_set_new(o, "restartCount", json_integer(c->restart_count));
    if (!strcmp(event, "started")) {
        json_object_set_new(o, "pid", json_integer(c->pid));
        json_object_set_new(o, "startedAt", jtime(&c->started_at));
        json_object_set_new(o, "ready", json_boolean(c->ready && !c->spec->init));
        json_object_set_new(o, "started", json_boolean(c->started_ok));
    } else {
        const shim_term_t *t = &c->cur;
        json_object_set_new(o, "exitCode", json_integer(t->exit_code));
        json_object_set_new(o, "signal", json_integer(t->signal));
        json_object_set_new(o, "reason", json_string(t->reason));
        if (t->message[0])
            json_object_set_new(o, "message", jstr_lossy(t->message));
        json_object_set_new(o, "startedAt", jtime(&t->started_at));
        json_object_set_new(o, "finishedAt", jtime(&t->finished_at));
        if (restart_in_ms >= 0)
            json_object_set_new(o, "restartInMs", json_integer(restart_in_ms));
    }
    emit(pod, o);
}

static json_t *ev_ctr(shim_pod_t *pod, const shim_ctr_t *c, const char *event)
{
    json_t *o = ev_base(pod, event);
    json_object_set_new(o, "container", json_string(c->spec->name));
    json_object_set_new(o, "init", json_boolean(c->spec->init));
    if (c->spec->sidecar)
        json_object_set_new(o, "sidecar", json_true());
    json_object_set_new(o, "restartCount", json_integer(c->restart_count));
    return o;
}

void shim_event_probe(shim_pod_t *pod, const shim_ctr_t *c, int t, int success, const char *msg)
{
    json_t *o = ev_ctr(pod, c, "probe");
    json_object_set_new(o, "probe", json_string(sl_probe_type_name((sl_probe_type_t)t)));
    json_object_set_new(o, "result", json_string(success ? "Success" : "Failure"));
    if (msg)
        json_object_set_new(o, "message", jstr_lossy(msg));
    json_object_set_new(o, "ready", json_boolean(c->ready && !c->spec->init));
    json_object_set_new(o, "started", json_boolean(c->started_ok));
    emit(pod, o);
}

void shim_event_killing(shim_pod_t *pod, const shim_ctr_t *c, const char *msg, int grace)
{
    json_t *o = ev_ctr(pod, c, "killing");
    json_object_set_new(o, "message", jstr_lossy(msg));
    json_object_set_new(o, "gracePeriodSeconds", json_integer(grace));
    emit(pod, o);
}

/* The running app containers' usage (shimlib/usage.h), pushed only: a
 * sample is worth nothing once the next one is there, so it is neither in
 * events.jsonl nor numbered. */
void shim_usage_push(shim_pod_t *pod)
{
    size_t n = pod->spec->ncontainers;
    if (!pod->report || pod->phase != POD_RUNNING || pod->terminating || !n)
        return;
    pid_t *groups = sl_xcalloc(n, sizeof(*groups));
    sl_usage_t *u = sl_xcalloc(n, sizeof(*u));
    size_t running = 0;
    for (size_t i = 0; i < n; i++)
        if (pod->apps[i].state == CS_RUNNING && pod->apps[i].pid > 0) {
            groups[i] = pod->apps[i].pid;
            running++;
        }
    if (running && sl_usage_read("", groups, n, u) == 0) {
        struct timespec now = sl_tstamp_now();
        json_t *cs = json_array();
        for (size_t i = 0; i < n; i++)
            if (groups[i] > 0)
                json_array_append_new(
                    cs, json_pack("{s:s, s:I, s:I}", "name", pod->apps[i].spec->name, "cpuNs",
                                  (json_int_t)(u[i].cpu_ns & INT64_MAX), "memoryBytes",
                                  (json_int_t)(u[i].mem_bytes & INT64_MAX)));
        json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "pod_uid", pod->spec->pod_uid, "event",
                              "usage", "time", jtime(&now), "containers", cs);
        char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
        if (s)
            sl_report_push(pod->report, s);
        free(s);
    }
    free(groups);
    free(u);
}
