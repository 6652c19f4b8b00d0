/* watchhub.c — shared recent changes per resource (see watchhub.h).
 * The hub covers the changes with rv in (base, last]; a ring buffer holds
 * them in rv order. Whoever asks for something newer than `last` refreshes
 * the hub from the store under the lock; the others wait for the lock and
 * then find the events ready. */
#include "api/http/watchhub.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define FETCH 1024

struct api_hub {
    sl_store_t *store;
    char *resource;
    pthread_rwlock_t lock; /* readers collect events; a writer refreshes */
    api_wev_t **ring;
    size_t cap, start, count;
    size_t bytes, max_bytes; /* the texts the ring holds, and their bound */
    int64_t base, last;
};

/* what an event's texts take: its line and the previous object's text */
static size_t wev_bytes(const api_wev_t *e)
{
    return sizeof(*e) + e->len + 1 + (e->prev_text ? e->prev_len + 1 : 0);
}

void api_wev_unref(api_wev_t *e)
{
    if (!e || __atomic_sub_fetch(&e->ref, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    json_decref(e->obj);
    json_decref(e->prev);
    free(e->prev_text);
    free(e->ns);
    free(e->line);
    free(e);
}

api_hub_t *api_hub_create(sl_store_t *store, const char *resource, size_t cap, size_t max_bytes)
{
    api_hub_t *h = sl_xcalloc(1, sizeof(*h));
    h->store = store;
    h->resource = sl_xstrdup(resource);
    h->cap = cap ? cap : 4096;
    h->max_bytes = max_bytes ? max_bytes : SIZE_MAX;
    h->ring = sl_xcalloc(h->cap, sizeof(*h->ring));
    pthread_rwlock_init(&h->lock, NULL);
    h->base = h->last = sl_store_revision(store);
    return h;
}

void api_hub_destroy(api_hub_t *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->count; i++)
        api_wev_unref(h->ring[(h->start + i) % h->cap]);
    pthread_rwlock_destroy(&h->lock);
    free(h->ring);
    free(h->resource);
    free(h);
}

/* An event from a change's stored texts: the object's text goes into the
 * event's line as it is (the store keeps compact JSON), never parsed here.
 * The line is allocated at its size: a growing buffer's slack, up to as
 * much again, would stay with every event the window holds. */
static api_wev_t *make_event(const sl_store_change_t *c)
{
    api_wev_t *e = sl_xcalloc(1, sizeof(*e));
    e->ref = 1;
    e->rv = c->rv;
    snprintf(e->type, sizeof(e->type), "%s", c->type);
    e->ns = sl_xstrdup(c->ns ? c->ns : "");
    e->prev_text = c->prev ? sl_xstrndup(c->prev, c->prev_len) : NULL;
    e->prev_len = c->prev ? strlen(e->prev_text) : 0;
    char head[48];
    int hn = snprintf(head, sizeof(head), "{\"type\":\"%s\",\"object\":", e->type);
    e->obj_off = (size_t)hn;
    e->len = e->obj_off + c->len + 2;
    e->line = sl_xmalloc(e->len + 1);
    memcpy(e->line, head, e->obj_off);
    memcpy(e->line + e->obj_off, c->json, c->len);
    memcpy(e->line + e->obj_off + c->len, "}\n", 3);
    return e;
}

/* text parsed once into *slot; a second thread's parse loses the race */
static json_t *parse_once(json_t **slot, const char *text, size_t len)
{
    json_t *o = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (o || !text)
        return o;
    json_t *mine = json_loadb(text, len, 0, NULL), *none = NULL;
    if (!mine)
        return NULL;
    if (__atomic_compare_exchange_n(slot, &none, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return mine;
    json_decref(mine);
    return none; /* the winner's */
}

json_t *api_wev_obj(api_wev_t *e)
{
    /* the object's text runs from obj_off to the "}\n" that closes the line */
    return parse_once(&e->obj, e->line + e->obj_off, e->len - e->obj_off - 2);
}

json_t *api_wev_prev(api_wev_t *e) { return parse_once(&e->prev, e->prev_text, e->prev_len); }

/* e at the window's end; the oldest go first while the ring is full or
 * the texts would pass max_bytes (the newest event always stays, however
 * large): the window starts after the last evicted */
static void push(api_hub_t *h, api_wev_t *e)
{
    size_t size = wev_bytes(e);
    while (h->count == h->cap || (h->count > 0 && h->bytes + size > h->max_bytes)) {
        api_wev_t *old = h->ring[h->start];
        h->base = old->rv;
        h->bytes -= wev_bytes(old);
        api_wev_unref(old);
        h->start = (h->start + 1) % h->cap;
        h->count--;
    }
    h->ring[(h->start + h->count) % h->cap] = e;
    h->count++;
    h->bytes += size;
}

typedef struct fetch {
    api_hub_t *h;
    size_t n;
    int64_t top;
} fetch_t;

/* sl_store_changes_rows' fn, under the store's reader: copies only */
static int add_change(void *arg, const sl_store_change_t *c)
{
    fetch_t *f = arg;
    push(f->h, make_event(c));
    f->top = c->rv;
    f->n++;
    return 0;
}

/* Bring the hub up to the store's revision. Lock held. */
static int refresh(api_hub_t *h)
{
    int64_t cur = sl_store_revision(h->store);
    while (h->last < cur) {
        fetch_t f = {h, 0, h->last};
        int rc = sl_store_changes_rows(h->store, h->last, h->resource, NULL, FETCH, add_change, &f,
                                       NULL);
        if (rc < 0 && f.n > 0) /* the rows come in order: those pushed are whole up to top */
            h->last = f.top;
        if (rc < 0) {
            if (errno != ERANGE)
                return -1;
            /* the log moved on without us: restart the window here */
            for (size_t i = 0; i < h->count; i++)
                api_wev_unref(h->ring[(h->start + i) % h->cap]);
            h->start = h->count = h->bytes = 0;
            h->base = h->last = cur;
            return 0;
        }
        if (f.n < FETCH) {
            /* everything of this resource up to cur (read before the
             * query) is in; changes past cur may be in too */
            h->last = f.top > cur ? f.top : cur;
            break;
        }
        h->last = f.top;
    }
    return 0;
}

/* sl_store_changes_rows' fn for api_hub_read_log: copies only, and stops
 * (ENOBUFS) once the events' lines reach max_bytes */
typedef struct logread {
    api_wev_t **out;
    size_t n, max, bytes, max_bytes;
} logread_t;

static int add_logged(void *arg, const sl_store_change_t *c)
{
    logread_t *r = arg;
    if (r->n < r->max) {
        r->out[r->n] = make_event(c);
        r->bytes += r->out[r->n++]->len;
    }
    if (r->max_bytes && r->bytes >= r->max_bytes) {
        errno = ENOBUFS;
        return -1;
    }
    return 0;
}

int api_hub_read_log(sl_store_t *store, const char *resource, const char *ns, int64_t after_rv,
                     api_wev_t **out, size_t max, size_t max_bytes, sl_error_t *err)
{
    logread_t r = {out, 0, max, 0, max_bytes};
    sl_error_t mine = SL_ERROR_INIT;
    if (sl_store_changes_rows(store, after_rv, resource, ns, max, add_logged, &r, &mine) < 0) {
        int e = errno;
        if (e == ENOBUFS && r.n > 0) { /* enough for now: the rows come in order */
            sl_error_clear(&mine);
            return (int)r.n;
        }
        for (size_t i = 0; i < r.n; i++)
            api_wev_unref(out[i]);
        if (err)
            *err = mine; /* the caller's, which was clear */
        else
            sl_error_clear(&mine);
        errno = e;
        return -1;
    }
    return (int)r.n;
}

size_t api_hub_held(api_hub_t *h, size_t *bytes)
{
    pthread_rwlock_rdlock(&h->lock);
    size_t n = h->count;
    if (bytes)
        *bytes = h->bytes;
    pthread_rwlock_unlock(&h->lock);
    return n;
}

int api_hub_get(api_hub_t *h, int64_t after_rv, api_wev_t **out, size_t max, int64_t *covered)
{
    /* usually some other watcher has already brought the hub up to date:
     * then a read lock is enough and the watchers do not queue */
    pthread_rwlock_rdlock(&h->lock);
    if (h->last < sl_store_revision(h->store)) {
        pthread_rwlock_unlock(&h->lock);
        pthread_rwlock_wrlock(&h->lock);
        if (refresh(h) < 0) {
            int e = errno;
            pthread_rwlock_unlock(&h->lock);
            errno = e;
            return -1;
        }
    }
    if (after_rv < h->base) {
        pthread_rwlock_unlock(&h->lock);
        errno = ERANGE;
        return -1;
    }
    /* first event with rv > after_rv (binary search over the ring) */
    size_t lo = 0, hi = h->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (h->ring[(h->start + mid) % h->cap]->rv <= after_rv)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    for (size_t i = lo; i < h->count && n < max; i++) {
        api_wev_t *e = h->ring[(h->start + i) % h->cap];
        __atomic_add_fetch(&e->ref, 1, __ATOMIC_RELAXED);
        out[n++] = e;
    }
    *covered = h->last;
    pthread_rwlock_unlock(&h->lock);
    return (int)n;
}
