/* watchhub.h — the recent changes of one resource, read from the store's
 * change log once and shared by every watch of that resource.
 *
 * Without it each of N watchers would query, parse and serialise every
 * change itself (N × the work); with it a change is fetched and serialised
 * once and each watcher copies a ready event line (or, when it filters or
 * prints Tables, reads the shared parsed object). Events are immutable and
 * reference counted (jansson's reference counts are atomic), so watchers use
 * them outside the hub's lock. */
#ifndef SL_API_HTTP_WATCHHUB_H
#define SL_API_HTTP_WATCHHUB_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct api_wev {
    int ref; /* atomic */
    int64_t rv;
    char type[10]; /* ADDED | MODIFIED | DELETED */
    char *ns;      /* "" for cluster-scoped objects */
    char *line;    /* {"type":"...","object":{...}}\n */
    size_t len;
    size_t obj_off;     /* where the object's text starts in line */
    char *prev_text;    /* MODIFIED: the object before the change, or NULL */
    size_t prev_len;    /* its length */
    json_t *obj, *prev; /* parsed on first use (api_wev_obj): atomic */
} api_wev_t;

/* The event's object and previous object (NULL if none), parsed from the
 * kept texts on first use and kept: the window holds texts only, unless a
 * filtering or printing watcher asks (a parsed pod is ~7x its text).
 * Read only; owned by the event. */
json_t *api_wev_obj(api_wev_t *e);
json_t *api_wev_prev(api_wev_t *e);

typedef struct api_hub api_hub_t;

/* A hub for resource (the store's name) keeping at most cap events whose
 * texts (each event's line and previous object) take at most max_bytes in
 * all (0: no bound by bytes; one event larger than that is kept alone); it
 * starts at the store's current revision. A watcher behind the window
 * reads the store's log instead (api_hub_read_log), so either bound only
 * moves the point where that starts. */
api_hub_t *api_hub_create(sl_store_t *store, const char *resource, size_t cap, size_t max_bytes);
/* The events the window holds now, and their texts' bytes into *bytes. */
size_t api_hub_held(api_hub_t *h, size_t *bytes);
void api_hub_destroy(api_hub_t *h); /* NULL is a no-op */

/* Up to max events with rv > after_rv into out (references the caller
 * drops with api_wev_unref), oldest first. Returns their number; when 0,
 * *covered gets the revision the hub has looked up to (no change of this
 * resource in (after_rv, *covered]). -1 with errno ERANGE when after_rv is
 * older than the hub's window (read the store's log instead), other errno
 * on store errors. */
int api_hub_get(api_hub_t *h, int64_t after_rv, api_wev_t **out, size_t max, int64_t *covered);
void api_wev_unref(api_wev_t *e);
/* The same events read from the store's change log, not shared: for a
 * watch behind the hub's window (or of a resource without a hub). Up to max
 * changes of resource (of namespace ns, or all when NULL) with rv >
 * after_rv, as their stored texts, and no more once their lines reach
 * max_bytes (0: no bound; the first is always read): an unfiltered watch
 * copies each line, as from the hub, and nothing is parsed unless a filter
 * or a Table asks. Returns their number, or -1 with errno (ERANGE: after_rv
 * is older than the log). */
int api_hub_read_log(sl_store_t *store, const char *resource, const char *ns, int64_t after_rv,
                     api_wev_t **out, size_t max, size_t max_bytes, sl_error_t *err);

#endif
