/* fuzz_status.c — libFuzzer: the status of a write of pods/status (any
 * JSON) → its validation (src/pod/status.c) → every reader of a stored
 * status: the controller's Slurm and shim updates (src/ctl/podstatus.c)
 * and the printers (kubectl's READY, STATUS, RESTARTS, IP columns).
 *
 * Input: one byte choosing the job state, the restart policy and the
 * events, then the status as JSON.
 *
 * Invariants (abort on violation): nothing crashes or trips a sanitizer,
 * valid status or not (what was stored before validation existed); a status
 * that validates is still valid after the controller applied Slurm's and
 * the shim's news to it. */
#include "api/printers.h"
#include "ctl/podstatus.h"
#include "pod/status.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int valid(json_t *pod)
{
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_status_errors(pod, e);
    int ok = sl_err_nfields(e) == 0;
    if (!ok && getenv("FUZZ_STATUS_VERBOSE")) {
        char *l = sl_err_fields_lines(e);
        fprintf(stderr, "%s", l);
        free(l);
    }
    sl_error_free(e);
    return ok;
}

static void print(json_t *pod)
{
    char ready[32], reason[128], restarts[64];
    api_pod_status_cells(pod, 1796040000LL * 1000000000LL, ready, sizeof(ready), reason,
                         sizeof(reason), restarts, sizeof(restarts));
    json_decref(api_pod_cells(pod, 1796040000LL * 1000000000LL));
}

static void shim(json_t *pod, const char *what, const char *ctr, int code, int64_t now)
{
    json_t *ev = json_pack("{s:s, s:s, s:i, s:i}", "event", what, "container", ctr, "exitCode",
                           code, "restartCount", code & 3);
    ctl_status_from_shim(pod, ev, now);
    json_decref(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    json_t *st = json_loadb((const char *)data + 1, size - 1, JSON_DECODE_ANY, NULL);
    if (!st)
        return 0;
    static const char *const states[] = {"PENDING", "RUNNING",       "COMPLETED", "FAILED",
                                         "TIMEOUT", "OUT_OF_MEMORY", "CANCELLED", "NODE_FAIL"};
    static const char *const policies[] = {"Never", "OnFailure", "Always", "Never"};
    unsigned b = data[0];
    json_t *pod =
        json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:s, s:[{s:s, s:s}], s:[{s:s}]}, s:o}", "kind",
                  "Pod", "metadata", "name", "p", "namespace", "default", "uid", "u-1", "spec",
                  "restartPolicy", policies[(b >> 3) & 3], "containers", "name", "main", "image",
                  "busybox", "initContainers", "name", "init", "status", st);
    int was_valid = valid(pod);
    int64_t now = 1796040000LL * 1000000000LL;
    print(pod);
    ctl_pod_terminal(pod);
    ctl_pod_gave_up(pod);
    ctl_job_view_t v = {.job_id = 7,
                        .state = states[b & 7],
                        .reason = "Resources",
                        .node = "node1",
                        .node_ip = "10.0.0.1",
                        .start_ns = now,
                        .end_ns = now + 1,
                        .exit_code = (int)(b >> 5),
                        .restart_cnt = b >> 7,
                        .shim_finished = (int)((b >> 6) & 1)};
    if (b & 0x20)
        ctl_status_submitted(pod, 7, now);
    ctl_status_from_job(pod, &v, now);
    shim(pod, "started", b & 0x40 ? "init" : "main", 0, now);
    shim(pod, "exited", "main", (int)(b >> 5), now);
    if (b & 0x80)
        shim(pod, "pod-finished", "main", (int)(b & 3), now);
    v.state = "RUNNING";
    ctl_status_from_job(pod, &v, now);
    print(pod);
    if (was_valid && !valid(pod))
        abort(); /* the controller made a valid status invalid */
    json_decref(pod);
    return 0;
}
