/* watch.c — `?watch=true`: a chunked stream of line-delimited events
 * ({"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":...}) fed by the
 * store's change log.
 *
 *  - resourceVersion absent or "0": ADDED for every current object first
 *    (kube-apiserver's "get state and start at most recent"), then changes;
 *  - resourceVersion N: the changes after N; when the log no longer reaches
 *    back to N, one ERROR event with a 410 Expired Status, then the end;
 *  - label/field selectors, a name and a reader's permissions are applied
 *    per event as kube-apiserver's watch cache does, from the object before
 *    the change (kept in the change log) and after it: matching after only
 *    is ADDED, both MODIFIED, before only DELETED (carrying the object as it
 *    was, with the change's resourceVersion); neither: no event;
 *  - allowWatchBookmarks: a BOOKMARK every bookmark interval;
 *    sendInitialEvents: the initial ADDED events end with a BOOKMARK
 *    annotated k8s.io/initial-events-end;
 *  - Table: each event carries a one-row Table (column definitions in the
 *    first one only);
 *  - timeoutSeconds, else a random 30-60 minutes as kube-apiserver does.
 *
 * Every line of the stream is one complete JSON event. The response headers
 * are pushed to the client when the watch is established, before any event.
 *
 * The content reader runs in the connection's own thread and blocks in
 * sl_store_wait(); it wakes at least every second to notice a closed
 * client or a stopping server. */
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/http/table.h"
#include "api/http/watchhub.h"
#include "api/internal.h"
#include "common/buf.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "metrics/metrics.h"
#include "store/store.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define CHANGE_BATCH 256
#define INITIAL_BATCH 256
/* A watcher's queued output stops growing past this (the events after
 * wait in the hub): 100 watchers behind by a full batch of 1.2 KB pods held
 * 33 MB */
#define WATCH_OUT_BYTES (64 * 1024)

typedef struct watcher {
    sl_api_t *api;
    const api_resource_t *res;
    api_hub_t *hub;
    char *ns, *name;
    sl_kube_selector_t *ls, *fs;
    sl_auth_user_t *reader; /* only what this user may get (api_list_filter); NULL: all */
    bool filtered;          /* selectors, a name or a reader: type events by matching */
    int64_t rv;             /* changes up to here are done */
    int table, include;
    bool columns_sent;
    bool bookmarks;
    bool initial_end; /* sendInitialEvents: bookmark after the initial list */
    json_t *initial;  /* objects still to send as ADDED, as their stored texts
                       * (parsed one at a time when sent: ~6x smaller) */
    size_t initial_i;
    long long deadline_ms, next_bookmark_ms;
    bool done, started;
    bool counted; /* in slurmlink_api_open_watches */
    int fd;
    sl_buf_t out;
    size_t off;
} watcher_t;

static void watcher_free(void *cls)
{
    watcher_t *w = cls;
    if (!w)
        return;
    if (w->counted)
        sl_metrics_watch(-1);
    free(w->ns);
    free(w->name);
    sl_kube_selector_destroy(w->ls);
    sl_kube_selector_destroy(w->fs);
    sl_auth_user_destroy(w->reader);
    json_decref(w->initial);
    sl_buf_free(&w->out);
    free(w);
}

static bool matches(watcher_t *w, json_t *o)
{
    if (w->name && strcmp(w->name, sl_kube_name(o) ? sl_kube_name(o) : ""))
        return false;
    return sl_kube_selector_match(w->ls, o) && sl_kube_selector_match(w->fs, o) &&
           api_may_read(w->api, w->reader, w->res, o);
}

static void emit(watcher_t *w, const char *type, json_t *obj)
{
    json_t *payload;
    if (w->table > 0 && strcmp(type, "ERROR") && strcmp(type, "BOOKMARK")) {
        json_t *arr = json_pack("[O]", obj);
        const char *rv = sl_kube_meta_str(obj, "resourceVersion");
        payload = api_table(w->res, arr, rv ? rv : "", w->table, w->include, !w->columns_sent);
        w->columns_sent = true;
        json_decref(arr);
    } else {
        payload = json_incref(obj);
    }
    json_t *ev = json_pack("{s:s, s:o}", "type", type, "object", payload);
    char *s = json_dumps(ev, JSON_COMPACT);
    json_decref(ev);
    if (s) {
        sl_buf_puts(&w->out, s);
        sl_buf_putc(&w->out, '\n');
        free(s);
    }
}

static void emit_bookmark(watcher_t *w, bool initial_end)
{
    char gv[128], rv[32];
    snprintf(rv, sizeof(rv), "%lld", (long long)w->rv);
    json_t *o = json_pack("{s:s, s:s, s:{s:s, s:n}}", "kind", w->res->kind, "apiVersion",
                          api_resource_api_version(w->res, gv, sizeof(gv)), "metadata",
                          "resourceVersion", rv, "creationTimestamp");
    if (initial_end)
        json_object_set_new(json_object_get(o, "metadata"), "annotations",
                            json_pack("{s:s}", "k8s.io/initial-events-end", "true"));
    emit(w, "BOOKMARK", o);
    json_decref(o);
}

/* One change, typed as kube-apiserver's cacheWatcher does: from whether the
 * object matched before the change (prev; for DELETED the object itself)
 * and after it (never for DELETED). A MODIFIED change logged without prev
 * (by a store of schema 1) counts as matching before as it does after. */
static void process_change(watcher_t *w, const char *type, json_t *obj, json_t *prev)
{
    if (!w->filtered) {
        emit(w, type, obj);
        return;
    }
    bool deleted = !strcmp(type, "DELETED");
    bool cur = !deleted && matches(w, obj);
    bool old;
    if (deleted)
        old = matches(w, obj);
    else if (prev)
        old = matches(w, prev);
    else
        old = !strcmp(type, "MODIFIED") && cur;
    if (cur) {
        emit(w, old ? "MODIFIED" : "ADDED", obj);
    } else if (old && deleted) {
        emit(w, "DELETED", obj);
    } else if (old) {
        /* left the selection: the object as it was, at this change's rv */
        json_t *gone = json_deep_copy(prev);
        const char *rv = sl_kube_meta_str(obj, "resourceVersion");
        sl_kube_meta_set_str(gone, "resourceVersion", rv ? rv : "");
        emit(w, "DELETED", gone);
        json_decref(gone);
    }
}

/* A client waits for the headers to know its watch is established, and a
 * watch has no chunk until its first event. libmicrohttpd sends the headers
 * of a streamed body without pushing them (corked, or with MSG_MORE);
 * TCP_NODELAY pushes what is queued, the way libmicrohttpd itself pushes.
 * (With libmicrohttpd 0.9.75 on Linux they arrive within milliseconds even
 * without it, measured; this keeps that true where they would wait.) */
static void push_headers(int fd)
{
    int one = 1;
    if (fd >= 0)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static bool peer_closed(int fd)
{
    if (fd < 0)
        return false;
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) <= 0)
        return false;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
        return true;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0;
}

/* The events into w's output. From the hub (all false), until it holds
 * WATCH_OUT_BYTES: the rest are read again from the hub at the next refill.
 * Read from the log, all of them: reading them again would cost a query,
 * and the read stops at WATCH_OUT_BYTES of lines itself. */
static void take_events(watcher_t *w, api_wev_t **evs, int n, bool all)
{
    bool full = false;
    for (int i = 0; i < n; i++) {
        api_wev_t *e = evs[i];
        if (!full) {
            if (w->ns && strcmp(e->ns, w->ns))
                ; /* another namespace */
            else if (!w->filtered && !w->table)
                sl_buf_append(&w->out, e->line, e->len); /* serialised once for all */
            else
                process_change(w, e->type, api_wev_obj(e), api_wev_prev(e));
            w->rv = e->rv;
            full = !all && w->out.len >= WATCH_OUT_BYTES;
        }
        api_wev_unref(e);
    }
}

/* sl_store_list_each's fn for the initial events: the objects the watch
 * selects, kept as their texts */
typedef struct initial {
    watcher_t *w;
    json_t *texts;
} initial_t;

static int add_initial(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    initial_t *in = arg;
    json_t *o = json_loadb(json, len, 0, NULL);
    if (o && matches(in->w, o))
        json_array_append_new(in->texts, json_stringn_nocheck(json, len)); /* stored: UTF-8 */
    json_decref(o);
    return 0;
}

/* Put the next events into w->out; false when the stream should end. */
static bool refill(watcher_t *w)
{
    sl_store_t *st = w->api->store;
    for (;;) {
        if (w->done || atomic_load(&w->api->stopping))
            return false;
        if (w->initial) {
            size_t n = json_array_size(w->initial);
            for (int k = 0; k < INITIAL_BATCH && w->initial_i < n; k++) {
                json_t *t = json_array_get(w->initial, w->initial_i++);
                json_t *o = json_loadb(json_string_value(t), json_string_length(t), 0, NULL);
                if (o)
                    emit(w, "ADDED", o);
                json_decref(o);
            }
            if (w->initial_i >= n) {
                json_decref(w->initial);
                w->initial = NULL;
                if (w->initial_end)
                    emit_bookmark(w, true);
            }
            if (w->out.len)
                return true;
            continue;
        }
        long long now = sl_now_ms();
        if (now >= w->deadline_ms)
            return false;
        size_t got = 0;
        api_wev_t *evs[CHANGE_BATCH];
        int64_t covered = 0;
        int n = w->hub ? api_hub_get(w->hub, w->rv, evs, CHANGE_BATCH, &covered) : -1;
        if (n >= 0) {
            take_events(w, evs, n, false);
            got = (size_t)n;
            if (n == 0 && covered > w->rv)
                w->rv = covered; /* nothing of ours up to there */
        } else if (errno == ERANGE || !w->hub) {
            /* older than the shared window: read the store's log directly */
            int64_t cur = sl_store_revision(st);
            sl_error_t err = SL_ERROR_INIT;
            n = api_hub_read_log(st, w->res->store_name, w->ns, w->rv, evs, CHANGE_BATCH,
                                 WATCH_OUT_BYTES, &err);
            if (n < 0) {
                json_t *s = errno == ERANGE
                                ? sl_kube_status_expired(w->rv, sl_store_oldest_rv(st))
                                : sl_kube_status_internal(err.text[0] ? err.text : strerror(errno));
                emit(w, "ERROR", s);
                json_decref(s);
                w->done = true;
                return true;
            }
            take_events(w, evs, n, true);
            got = (size_t)n;
            if (got == 0 && cur > w->rv)
                w->rv = cur; /* nothing of ours up to cur: do not fall behind the log */
        } else {
            json_t *s = sl_kube_status_internal(strerror(errno));
            emit(w, "ERROR", s);
            json_decref(s);
            w->done = true;
            return true;
        }
        if (w->out.len)
            return true;
        if (got)
            continue;
        if (w->bookmarks && now >= w->next_bookmark_ms) {
            emit_bookmark(w, false);
            w->next_bookmark_ms = now + w->api->bookmark_ms;
            return true;
        }
        if (!w->started) {
            w->started = true;
            push_headers(w->fd);
        }
        if (peer_closed(w->fd))
            return false;
        long long tmo = w->deadline_ms - now;
        if (w->bookmarks && w->next_bookmark_ms - now < tmo)
            tmo = w->next_bookmark_ms - now;
        if (tmo > 1000)
            tmo = 1000;
        if (tmo < 1)
            tmo = 1;
        sl_store_wait(st, w->rv, (int)tmo);
    }
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    watcher_t *w = cls;
    if (w->off >= w->out.len) {
        sl_buf_reset(&w->out);
        w->off = 0;
        if (!refill(w) && w->out.len == 0)
            return MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = w->out.len - w->off;
    if (n > max)
        n = max;
    memcpy(buf, w->out.data + w->off, n);
    w->off += n;
    return (ssize_t)n;
}

enum MHD_Result api_handle_watch(api_req_t *r, const api_path_t *p)
{
    const api_resource_t *res = p->res;
    json_t *st = NULL;
    int table = api_wants_table(r);
    if (table < 0)
        return api_reply_status(
            r, sl_kube_status_not_acceptable("only the following media types are accepted: "
                                             "application/json"));
    if (api_conn_watch_begin(r) < 0)
        return MHD_YES; /* 429: this user's watches are at the cap */
    watcher_t *w = sl_xcalloc(1, sizeof(*w));
    w->api = r->api;
    w->res = res;
    w->hub = api_hub_for(r->api, res);
    w->ns = p->ns && res->namespaced ? sl_xstrdup(p->ns) : NULL;
    w->name = p->name ? sl_xstrdup(p->name) : NULL;
    w->table = table;
    w->include = api_include_object(r);
    w->fd = -1;
    sl_error_t err = SL_ERROR_INIT;
    if (api_parse_selectors(r, res, &w->ls, &w->fs, &err) < 0) {
        watcher_free(w);
        st = sl_kube_status_error(&err, res->name, res->group, res->kind, NULL);
        sl_error_clear(&err);
        return api_reply_status(r, st);
    }
    const sl_auth_user_t *who = api_list_filter(r, res);
    w->reader = who ? sl_auth_user_copy(who) : NULL;
    w->filtered =
        w->name || !sl_kube_selector_empty(w->ls) || !sl_kube_selector_empty(w->fs) || w->reader;
    w->bookmarks = api_query_bool(r, "allowWatchBookmarks");
    bool send_initial = api_query_bool(r, "sendInitialEvents");
    const char *rvs = api_query(r, "resourceVersion");
    bool from_now = !rvs || !*rvs || !strcmp(rvs, "0") || send_initial;
    if (!from_now) {
        w->rv = sl_kube_rv_parse(rvs);
        if (w->rv < 0) {
            char *msg = sl_xasprintf("invalid resource version: %s", rvs);
            watcher_free(w);
            st = sl_kube_status_bad_request(msg);
            free(msg);
            return api_reply_status(r, st);
        }
    }
    const char *ts = api_query(r, "timeoutSeconds");
    long long tmo_s = ts && *ts ? strtoll(ts, NULL, 10) : 0;
    if (tmo_s <= 0)
        tmo_s = 1800 + random() % 1800;
    long long now = sl_now_ms();
    w->deadline_ms = now + tmo_s * 1000;
    w->next_bookmark_ms = now + r->api->bookmark_ms;

    /* the initial ADDED events when starting from "now" */
    if (from_now) {
        int64_t list_rv = 0;
        const char *exact = w->name ? w->name : sl_kube_selector_exact(w->fs, "metadata.name");
        initial_t in = {.w = w, .texts = json_array()};
        int rc = 0;
        if (exact && (w->ns || !res->namespaced)) {
            list_rv = sl_store_revision(r->api->store);
            json_t *o = sl_store_get(r->api->store, res->store_name, w->ns, exact);
            char *txt = o && matches(w, o) ? json_dumps(o, JSON_COMPACT) : NULL;
            if (txt)
                json_array_append_new(in.texts, json_string_nocheck(txt));
            free(txt);
            json_decref(o);
        } else {
            rc = sl_store_list_each(r->api->store, res->store_name, w->ns, add_initial, &in,
                                    &list_rv);
        }
        if (rc < 0) {
            json_decref(in.texts);
            watcher_free(w);
            return api_reply_status(r, sl_kube_status_internal(strerror(errno)));
        }
        json_t *initial = in.texts;
        w->rv = list_rv;
        w->initial = initial;
        w->initial_end = send_initial && w->bookmarks;
    }
    const union MHD_ConnectionInfo *ci =
        r->conn ? MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
    w->fd = ci ? ci->connect_fd : -1;
    w->counted = true;
    sl_metrics_watch(1);
    return api_reply_stream(r, 200, "application/json", reader, w, watcher_free);
}
