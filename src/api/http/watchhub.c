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
#include <string.h>

#define FETCH 1024

struct api_hub {
    sl_store_t *store;
    char *resource;
    pthread_rwlock_t lock; /* readers collect events; a writer refreshes */
    api_wev_t **ring;
    size_t cap, start, count;
    int64_t base, last;
};

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

api_hub_t *api_hub_create(sl_store_t *store, const char *resource, size_t cap)
{
    api_hub_t *h = sl_xcalloc(1, sizeof(*h));
    h->store = store;
    h->resource = sl_xstrdup(resource);
    h->cap = cap ? cap : 4096;
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
 * event's line as it is (the store keeps compact JSON), never parsed here. */
static api_wev_t *make_event(const sl_store_change_t *c)
{
    api_wev_t *e = sl_xcalloc(1, sizeof(*e));
    e->ref = 1;
    e->rv = c->rv;
    snprintf(e->type, sizeof(e->type), "%s", c->type);
    e->ns = sl_xstrdup(c->ns ? c->ns : "");
    e->prev_text = c->prev ? sl_xstrndup(c->prev, c->prev_len) : NULL;
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_printf(&b, "{\"type\":\"%s\",\"object\":", e->type);
    e->obj_off = b.len;
    sl_buf_append(&b, c->json, c->len);
    sl_buf_puts(&b, "}\n");
    e->len = b.len;
    e->line = sl_buf_steal(&b);
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

json_t *api_wev_prev(api_wev_t *e)
{
    return parse_once(&e->prev, e->prev_text, e->prev_text ? strlen(e->prev_text) : 0);
}

static void push(api_hub_t *h, api_wev_t *e)
{
    if (h->count == h->cap) { /* evict the oldest: the window starts after it */
        api_wev_t *old = h->ring[h->start];
        h->base = old->rv;
        api_wev_unref(old);
        h->start = (h->start + 1) % h->cap;
        h->count--;
    }
    h->ring[(h->start + h->count) % h->cap] = e;
    h->count++;
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
            h->start = h->count = 0;
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

/* sl_store_changes_rows' fn for api_hub_read_log: copies only */
typedef struct logread {
    api_wev_t **out;
    size_t n, max;
} logread_t;

static int add_logged(void *arg, const sl_store_change_t *c)
{
    logread_t *r = arg;
    if (r->n < r->max)
        r->out[r->n++] = make_event(c);
    return 0;
}

int api_hub_read_log(sl_store_t *store, const char *resource, const char *ns, int64_t after_rv,
                     api_wev_t **out, size_t max, sl_error_t *err)
{
    logread_t r = {out, 0, max};
    if (sl_store_changes_rows(store, after_rv, resource, ns, max, add_logged, &r, err) < 0) {
        int e = errno;
        for (size_t i = 0; i < r.n; i++)
            api_wev_unref(out[i]);
        errno = e;
        return -1;
    }
    return (int)r.n;
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
