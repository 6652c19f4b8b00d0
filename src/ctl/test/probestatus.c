/* The shim's probe events → containerStatuses[].ready/started and the
 * pod's Ready and ContainersReady conditions (ctl/podstatus.c). */
#include "common/tap.h"
#include "ctl/podstatus.h"

#include <stdlib.h>
#include <string.h>

static const char *cond(json_t *p, const char *type, const char *field)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(p, "status"), "conditions"), i, c)
    {
        if (!strcmp(json_string_value(json_object_get(c, "type")), type))
            return json_string_value(json_object_get(c, field));
    }
    return NULL;
}

static json_t *cs(json_t *p)
{
    return json_array_get(json_object_get(json_object_get(p, "status"), "containerStatuses"), 0);
}

static int shim(json_t *p, json_t *e)
{
    int r = ctl_status_from_shim(p, e, 1000000000LL);
    json_decref(e);
    return r;
}

static json_t *probe_ev(int restarts, int ready, int started)
{
    return json_pack("{s:s, s:s, s:i, s:s, s:s, s:b, s:b, s:s}", "event", "probe", "container",
                     "main", "restartCount", restarts, "probe", "Readiness", "result", "Success",
                     "ready", ready, "started", started, "time", "2026-11-30T12:00:02.000001Z");
}

int main(void)
{
    json_t *p = json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:[{s:s, s:s}]}, s:{s:s, s:s}}", "kind",
                          "Pod", "metadata", "name", "p1", "namespace", "default", "uid", "u-1",
                          "spec", "containers", "name", "main", "image", "busybox", "status",
                          "phase", "Pending", "hostIP", "127.0.0.1");
    json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string("node1"));
    ctl_status_init(p, 1);
    json_t *conds = json_pack("[{s:s, s:s}]", "type", "PodScheduled", "status", "True");
    json_object_set_new(json_object_get(p, "status"), "conditions", conds);

    shim(p, json_pack("{s:s, s:s, s:i, s:b, s:b, s:s}", "event", "started", "container", "main",
                      "restartCount", 0, "ready", 0, "started", 0, "time",
                      "2026-11-30T12:00:01.000001Z"));
    ok(json_is_false(json_object_get(cs(p), "ready")) &&
           json_is_false(json_object_get(cs(p), "started")),
       "started with probes deciding: ready and started false");
    is_str(cond(p, "Ready", "status"), "False", "Ready False");
    is_str(cond(p, "ContainersReady", "message"), "containers with unready status: [main]",
           "ContainersReady's message names the container");

    ok(shim(p, probe_ev(0, 1, 1)) == 1, "a probe event that makes it ready applies");
    ok(json_is_true(json_object_get(cs(p), "ready")) &&
           json_is_true(json_object_get(cs(p), "started")),
       "ready and started true");
    is_str(cond(p, "Ready", "status"), "True", "Ready True");
    is_str(cond(p, "ContainersReady", "status"), "True", "ContainersReady True");
    ok(cond(p, "Ready", "message") == NULL, "no message on a True Ready");

    ok(shim(p, probe_ev(3, 0, 0)) == 0, "a probe event of another run changes nothing");
    is_str(cond(p, "Ready", "status"), "True", "... still Ready");
    shim(p, probe_ev(0, 0, 1));
    is_str(cond(p, "Ready", "status"), "False", "readiness lost: Ready False again");

    shim(p, json_pack("{s:s, s:s, s:i, s:s}", "event", "started", "container", "main",
                      "restartCount", 1, "time", "2026-11-30T12:00:03.000001Z"));
    ok(json_is_true(json_object_get(cs(p), "ready")),
       "a started event without ready (no probes, an older shim): ready");
    json_decref(p);

    /* a sidecar (an init container with restartPolicy Always) */
    p = json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:[{s:s, s:s}], s:[{s:s, s:s, s:s}]}, s:{s:s}}",
                  "kind", "Pod", "metadata", "name", "p2", "namespace", "default", "uid", "u-2",
                  "spec", "containers", "name", "main", "image", "busybox", "initContainers",
                  "name", "side", "image", "busybox", "restartPolicy", "Always", "status", "phase",
                  "Pending");
    json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string("node1"));
    ctl_status_init(p, 1);
    json_object_set_new(json_object_get(p, "status"), "conditions",
                        json_pack("[{s:s, s:s}]", "type", "PodScheduled", "status", "True"));
    shim(p, json_pack("{s:s, s:s, s:i, s:b, s:b, s:s}", "event", "started", "container", "side",
                      "restartCount", 0, "ready", 0, "started", 1, "time",
                      "2026-11-30T12:00:01.000001Z"));
    shim(p, json_pack("{s:s, s:s, s:i, s:b, s:b, s:s}", "event", "started", "container", "main",
                      "restartCount", 0, "ready", 1, "started", 1, "time",
                      "2026-11-30T12:00:01.000001Z"));
    is_str(cond(p, "Initialized", "status"), "True", "a started sidecar: Initialized");
    is_str(cond(p, "Ready", "message"), "containers with unready status: [side]",
           "a sidecar not ready keeps the pod not Ready, named in the message");
    json_t *se = probe_ev(0, 1, 1);
    json_object_set_new(se, "container", json_string("side"));
    shim(p, se);
    is_str(cond(p, "Ready", "status"), "True", "its readiness probe passes: Ready");
    json_decref(p);

    char why[128];
    json_t *e = json_pack("{s:s, s:s}", "event", "probe", "ready", "yes");
    ok(ctl_shim_event_check(e, why, sizeof(why)) < 0, "ready must be a boolean");
    json_decref(e);
    e = json_pack("{s:s, s:s}", "event", "probe", "probe", "");
    ok(ctl_shim_event_check(e, why, sizeof(why)) < 0, "probe must not be empty");
    json_decref(e);
    return tap_done();
}
