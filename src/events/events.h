/* events.h — recording Kubernetes Events (core/v1) for the controllers,
 * with kubelet-style aggregation: the same involved object, reason and
 * message within 10 minutes bump `count` and `lastTimestamp` of the
 * existing Event instead of creating a new one.
 *
 * Events are stored through the store like every object, so they are
 * listed, watched and shown by `kubectl describe` / `kubectl get events`.
 * The API server removes events older than its event TTL (1 h). */
#ifndef SL_EVENTS_H
#define SL_EVENTS_H

#include <jansson.h>

#include "store/store.h"

/* Record an event about involved (a stored object; borrowed): its kind,
 * apiVersion, namespace, name, uid and resourceVersion are referenced.
 * type is "Normal" or "Warning"; reason is CamelCase ("Scheduled",
 * "Started", "Killing", "BackOff", "FailedCreate", ...); component is the
 * reporter (source.component, e.g. "slurmlink-controller"). Cluster-scoped
 * objects (nodes) get their events in namespace "default".
 * Thread-safe. Returns 0, or -1 with errno (the store's). */
int sl_event_record(sl_store_t *store, json_t *involved, const char *type, const char *reason,
                    const char *message, const char *component);
/* The same with a printf-style message. */
int sl_event_recordf(sl_store_t *store, json_t *involved, const char *type, const char *reason,
                     const char *component, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Forget the aggregation state kept for store (call before closing it, so
 * a later store at the same address does not inherit it). */
void sl_events_forget(sl_store_t *store);

#endif
