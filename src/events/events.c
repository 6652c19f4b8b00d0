/* events.c — Event recording with count aggregation (see events.h).
 *
 * The aggregation index (which event a key last went to) lives in memory:
 * after a restart the first repeat of an event creates a new Event, as a
 * restarted kubelet does. The index is bounded: entries older than the
 * aggregation window are dropped when it grows past INDEX_MAX. */
#include "events/events.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define WINDOW_NS (600LL * 1000000000LL) /* kubelet's aggregation window: 10 min */
#define INDEX_MAX 8192

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *index_; /* "store-ptr|ns|uid|reason|message" → {"name":..,"t":ns} */

static char *index_key(sl_store_t *store, const char *ns, const char *uid, const char *reason,
                       const char *message)
{
    return sl_xasprintf("%p\x1f%s\x1f%s\x1f%s\x1f%s", (void *)store, ns, uid, reason, message);
}

static void prune(long long now)
{
    if (json_object_size(index_) < INDEX_MAX)
        return;
    const char *k;
    json_t *v, *tmp;
    json_object_foreach_safe(index_, tmp, k, v)
    {
        if (now - json_integer_value(json_object_get(v, "t")) > WINDOW_NS)
            json_object_del(index_, k);
    }
    if (json_object_size(index_) >= INDEX_MAX) /* all recent: start over */
        json_object_clear(index_);
}

typedef struct bump {
    const char *now;
} bump_t;

static int bump(json_t *ev, void *arg)
{
    bump_t *b = arg;
    json_int_t c = json_integer_value(json_object_get(ev, "count"));
    json_object_set_new(ev, "count", json_integer(c > 0 ? c + 1 : 2));
    json_object_set_new(ev, "lastTimestamp", json_string(b->now));
    return 1;
}

int sl_event_record(sl_store_t *store, json_t *involved, const char *type, const char *reason,
                    const char *message, const char *component)
{
    if (!store || !involved || !reason) {
        errno = EINVAL;
        return -1;
    }
    const char *name = sl_kube_name(involved);
    const char *ins = sl_kube_namespace(involved);
    const char *uid = sl_kube_uid(involved);
    const char *kind = json_string_value(json_object_get(involved, "kind"));
    const char *av = json_string_value(json_object_get(involved, "apiVersion"));
    const char *irv = sl_kube_meta_str(involved, "resourceVersion");
    const char *ns = ins && *ins ? ins : "default";
    if (!name) {
        errno = EINVAL;
        return -1;
    }
    if (!message)
        message = "";
    long long now_ns = sl_kube_now_ns();
    char *now = sl_kube_rfc3339(now_ns, 0);
    char *key = index_key(store, ns, uid ? uid : name, reason, message);
    int rc = -1;

    pthread_mutex_lock(&lock);
    if (!index_)
        index_ = json_object();
    json_t *hit = json_object_get(index_, key);
    char *ev_name = NULL;
    if (hit && now_ns - json_integer_value(json_object_get(hit, "t")) <= WINDOW_NS)
        ev_name = sl_xstrdup(json_string_value(json_object_get(hit, "name")));
    pthread_mutex_unlock(&lock);

    if (ev_name) {
        bump_t b = {now};
        if (sl_store_mutate(store, "events", ns, ev_name, bump, &b, NULL, NULL) == 0)
            rc = 0;
    }
    if (rc < 0) {
        free(ev_name);
        json_t *io = json_pack("{s:s, s:s}", "kind", kind ? kind : "", "name", name);
        if (ins && *ins)
            json_object_set_new(io, "namespace", json_string(ins));
        if (uid)
            json_object_set_new(io, "uid", json_string(uid));
        if (av)
            json_object_set_new(io, "apiVersion", json_string(av));
        if (irv)
            json_object_set_new(io, "resourceVersion", json_string(irv));
        for (int attempt = 0; attempt < 4 && rc < 0; attempt++) {
            ev_name = sl_xasprintf("%s.%llx", name, (unsigned long long)(now_ns + attempt));
            json_t *ev = json_pack(
                "{s:s, s:s, s:{s:s, s:s}, s:O, s:s, s:s, s:{s:s}, s:s, s:s, s:i, s:s, s:n, s:s, "
                "s:s}",
                "apiVersion", "v1", "kind", "Event", "metadata", "name", ev_name, "namespace", ns,
                "involvedObject", io, "reason", reason, "message", message, "source", "component",
                component ? component : "slurmlink", "firstTimestamp", now, "lastTimestamp", now,
                "count", 1, "type", type ? type : "Normal", "eventTime", "reportingComponent",
                component ? component : "slurmlink", "reportingInstance", "");
            rc = sl_store_create(store, "events", ev, NULL);
            json_decref(ev);
            if (rc < 0) {
                int e = errno;
                free(ev_name);
                ev_name = NULL;
                errno = e;
                if (e != EEXIST)
                    break;
            }
        }
        json_decref(io);
    }
    if (rc == 0 && ev_name) {
        pthread_mutex_lock(&lock);
        prune(now_ns);
        json_object_set_new(index_, key,
                            json_pack("{s:s, s:I}", "name", ev_name, "t", (json_int_t)now_ns));
        pthread_mutex_unlock(&lock);
    }
    int e = errno;
    free(ev_name);
    free(key);
    free(now);
    errno = e;
    return rc;
}

int sl_event_recordf(sl_store_t *store, json_t *involved, const char *type, const char *reason,
                     const char *component, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    int rc = sl_event_record(store, involved, type, reason, msg ? msg : "", component);
    int e = errno;
    free(msg);
    errno = e;
    return rc;
}

void sl_events_forget(sl_store_t *store)
{
    char prefix[32];
    snprintf(prefix, sizeof(prefix), "%p\x1f", (void *)store);
    pthread_mutex_lock(&lock);
    const char *k;
    json_t *v, *tmp;
    json_object_foreach_safe(index_, tmp, k, v) if (!strncmp(k, prefix, strlen(prefix)))
        json_object_del(index_, k);
    if (index_ && json_object_size(index_) == 0) {
        json_decref(index_);
        index_ = NULL;
    }
    pthread_mutex_unlock(&lock);
}
