/* events — recording with count aggregation, as the controllers use it. */
#include "common/tap.h"
#include "events/events.h"
#include "kube/meta.h"

#include <errno.h>
#include <string.h>

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_store_t *s = sl_store_open(":memory:", &err);
    ok(s != NULL, "store (%s)", err.text);
    json_t *pod = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            "name", "p1", "namespace", "team");
    ok(sl_store_create(s, "pods", pod, NULL) == 0, "a pod to talk about");

    ok(sl_event_record(s, pod, "Normal", "Scheduled", "Submitted as Slurm job 7", "slurmlink") == 0,
       "record an event");
    ok(sl_event_recordf(s, pod, "Normal", "Scheduled", "slurmlink", "Submitted as Slurm job %d", 7) == 0,
       "the same again (printf form)");
    ok(sl_event_record(s, pod, "Warning", "BackOff", "Back-off restarting failed container", "slurmlink") == 0,
       "another reason");

    json_t *evs = sl_store_list(s, "events", "team", NULL);
    is_int(json_array_size(evs), 2, "two events: the repeat was aggregated");
    json_t *e = NULL;
    size_t i;
    json_t *x;
    json_array_foreach(evs, i, x) if (!strcmp(json_string_value(json_object_get(x, "reason")), "Scheduled")) e = x;
    is_int(json_integer_value(json_object_get(e, "count")), 2, "count 2");
    is_str(json_string_value(json_object_get(json_object_get(e, "involvedObject"), "uid")), sl_kube_uid(pod),
           "involvedObject.uid");
    is_str(json_string_value(json_object_get(json_object_get(e, "involvedObject"), "kind")), "Pod",
           "involvedObject.kind");
    is_str(json_string_value(json_object_get(json_object_get(e, "source"), "component")), "slurmlink",
           "source.component");
    is_str(json_string_value(json_object_get(e, "type")), "Normal", "type");
    ok(json_string_value(json_object_get(e, "firstTimestamp")) && json_string_value(json_object_get(e, "lastTimestamp")),
       "first and last timestamps");
    const char *name = sl_kube_name(e);
    ok(name && !strncmp(name, "p1.", 3), "named <object>.<hex time> (%s)", name ? name : "");
    json_decref(evs);

    /* the aggregated event was deleted (TTL): the next repeat creates a new one */
    evs = sl_store_list(s, "events", "team", NULL);
    json_array_foreach(evs, i, x) sl_store_delete(s, "events", "team", sl_kube_name(x), 0, NULL, NULL);
    json_decref(evs);
    ok(sl_event_record(s, pod, "Normal", "Scheduled", "Submitted as Slurm job 7", "slurmlink") == 0,
       "record after the event was removed");
    evs = sl_store_list(s, "events", "team", NULL);
    is_int(json_array_size(evs), 1, "a new event");
    is_int(json_integer_value(json_object_get(json_array_get(evs, 0), "count")), 1, "count 1");
    json_decref(evs);

    json_t *node = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Node", "metadata", "name", "n1");
    ok(sl_event_record(s, node, "Normal", "NodeReady", "ready", "slurmlink") == 0, "event about a node");
    evs = sl_store_list(s, "events", "default", NULL);
    is_int(json_array_size(evs), 1, "cluster-scoped objects' events go to default");
    json_decref(evs);
    errno = 0;
    ok(sl_event_record(s, NULL, "Normal", "X", "y", "z") < 0 && errno == EINVAL, "no object: EINVAL");

    sl_events_forget(s);
    json_decref(node);
    json_decref(pod);
    sl_store_close(s);
    return tap_done();
}
