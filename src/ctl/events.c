/* events.c — Kubernetes Events for pods, aggregated like the kubelet's
 * (same object, reason and message → count + 1, lastTimestamp moves). */
#include "ctl/internal.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct ev_bump {
    const char *message;
    const char *now;
} ev_bump_t;

static int bump(json_t *obj, void *arg)
{
    ev_bump_t *b = arg;
    const char *m = json_string_value(json_object_get(obj, "message"));
    if (!m || strcmp(m, b->message)) {
        errno = ESTALE; /* same name, other message: make a new event */
        return -1;
    }
    json_object_set_new(obj, "count", json_integer(json_integer_value(json_object_get(obj, "count")) + 1));
    json_object_set_new(obj, "lastTimestamp", json_string(b->now));
    return 1;
}

void ctl_event(sl_ctl_t *c, json_t *involved, const char *type, const char *reason,
               const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    const char *ns = sl_kube_namespace(involved);
    const char *name = sl_kube_name(involved);
    const char *uid = sl_kube_uid(involved);
    const char *kind = json_string_value(json_object_get(involved, "kind"));
    if (!ns || !name)
        return;
    char *now = sl_kube_now_rfc3339();
    /* deterministic name per (object, reason): repeated events aggregate */
    unsigned h = 5381;
    for (const char *p = uid ? uid : name; *p; p++)
        h = h * 33 + (unsigned char)*p;
    for (const char *p = reason; *p; p++)
        h = h * 33 + (unsigned char)*p;
    for (const char *p = msg; *p; p++)
        h = h * 33 + (unsigned char)*p;
    char *ename = sl_xasprintf("%s.%08x", name, h);
    ev_bump_t b = {msg, now};
    if (sl_store_mutate(c->store, "events", ns, ename, bump, &b, NULL, NULL) < 0) {
        char *micro = sl_kube_now_rfc3339_micro();
        json_t *ev = json_pack(
            "{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s}, s:s, s:s, s:s, s:i,"
            " s:s, s:s, s:s, s:{s:s}, s:s, s:s}",
            "apiVersion", "v1", "kind", "Event", "metadata", "name", ename, "namespace", ns,
            "involvedObject", "kind", kind ? kind : "Pod", "namespace", ns, "name", name, "uid",
            uid ? uid : "", "apiVersion", "v1", "reason", reason, "message", msg, "type", type,
            "count", 1, "firstTimestamp", now, "lastTimestamp", now, "eventTime", micro,
            "source", "component", "slurmlink", "reportingComponent", "slurmlink",
            "reportingInstance", "slurmlinkd");
        json_object_set_new(ev, "eventTime", json_null());
        sl_store_create(c->store, "events", ev, NULL);
        json_decref(ev);
        free(micro);
    }
    free(ename);
    free(now);
}
