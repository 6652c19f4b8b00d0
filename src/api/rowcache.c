/* rowcache.c — printed Table rows kept for reuse: a chained hash on the
 * (resource, revision, form) key and a FIFO of the rows in the order they
 * were added; adding past the byte budget drops the oldest. A reused row
 * is copied out under the lock. See rowcache.h. */
#include "api/rowcache.h"

#include "common/xalloc.h"
#include "kube/meta.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    struct row *next_hash, *next_age;
    const void *res;
    int64_t rv, at_ns; /* at_ns: when the durations were printed */
    int64_t d[API_ROWCACHE_MAX_DURATIONS];
    size_t nd;
    int form;
    size_t len;
    char text[];
} row_t;

struct api_rowcache {
    pthread_mutex_t lock;
    size_t max_bytes, bytes, nrows, nbuckets;
    row_t **buckets;
    row_t *oldest, *newest;
};

static size_t row_cost(size_t len) { return sizeof(row_t) + len + 1 + sizeof(row_t *); }

api_rowcache_t *api_rowcache_create(size_t max_bytes)
{
    api_rowcache_t *c = sl_xcalloc(1, sizeof(*c));
    pthread_mutex_init(&c->lock, NULL);
    c->max_bytes = max_bytes;
    c->nbuckets = 1024;
    while (c->nbuckets < max_bytes / 512 && c->nbuckets < (1u << 20))
        c->nbuckets *= 2; /* about one row per bucket at a few hundred bytes a row */
    c->buckets = sl_xcalloc(c->nbuckets, sizeof(row_t *));
    return c;
}

void api_rowcache_destroy(api_rowcache_t *c)
{
    if (!c)
        return;
    for (row_t *r = c->oldest, *n; r; r = n) {
        n = r->next_age;
        free(r);
    }
    free(c->buckets);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static size_t bucket_of(const api_rowcache_t *c, const void *res, int64_t rv, int form)
{
    uint64_t h = (uint64_t)rv * 0x9e3779b97f4a7c15ULL;
    h ^= (uint64_t)(uintptr_t)res >> 4;
    h ^= (uint64_t)form * 0xc2b2ae3d27d4eb4fULL;
    h ^= h >> 29;
    return (size_t)(h & (c->nbuckets - 1));
}

static row_t **find(api_rowcache_t *c, const void *res, int64_t rv, int form)
{
    row_t **p = &c->buckets[bucket_of(c, res, rv, form)];
    while (*p && ((*p)->rv != rv || (*p)->form != form || (*p)->res != res))
        p = &(*p)->next_hash;
    return p;
}

int api_rowcache_get(api_rowcache_t *c, const void *res, int64_t rv, int form, int64_t now_ns,
                     api_rowcache_put_fn put, void *out)
{
    if (!c || rv <= 0)
        return 0;
    pthread_mutex_lock(&c->lock);
    row_t *r = *find(c, res, rv, form);
    int hit =
        r && api_rowcache_render(r->text, r->len, r->d, r->nd, now_ns - r->at_ns, put, out) == 0;
    pthread_mutex_unlock(&c->lock);
    return hit;
}

/* Drop the oldest row (c->lock held). */
static void drop_oldest(api_rowcache_t *c)
{
    row_t *r = c->oldest;
    if (r->res) { /* live: unlink it from its bucket */
        row_t **p = find(c, r->res, r->rv, r->form);
        if (*p == r)
            *p = r->next_hash;
    }
    c->oldest = r->next_age;
    if (!c->oldest)
        c->newest = NULL;
    c->bytes -= row_cost(r->len);
    c->nrows--;
    free(r);
}

void api_rowcache_add(api_rowcache_t *c, const void *res, int64_t rv, int form, int64_t now_ns,
                      const int64_t *d, size_t nd, const char *text, size_t len)
{
    if (!c || rv <= 0 || row_cost(len) > c->max_bytes || nd > API_ROWCACHE_MAX_DURATIONS)
        return;
    row_t *n = sl_xmalloc(sizeof(row_t) + len + 1);
    *n = (row_t){.res = res, .rv = rv, .form = form, .at_ns = now_ns, .nd = nd, .len = len};
    if (nd)
        memcpy(n->d, d, nd * sizeof(*d));
    memcpy(n->text, text, len);
    n->text[len] = '\0';
    pthread_mutex_lock(&c->lock);
    row_t **p = find(c, res, rv, form);
    if (*p) { /* printed by two lists at once: the newer takes its place */
        row_t *old = *p;
        n->next_hash = old->next_hash;
        old->res = NULL; /* dead: only its place in the age order is left */
        *p = n;
        p = NULL;
    }
    while (c->oldest && c->bytes + row_cost(len) > c->max_bytes)
        drop_oldest(c);
    if (p) /* the bucket is looked up again: dropping may have changed it */
        *find(c, res, rv, form) = n;
    if (c->newest)
        c->newest->next_age = n;
    else
        c->oldest = n;
    c->newest = n;
    c->bytes += row_cost(len);
    c->nrows++;
    pthread_mutex_unlock(&c->lock);
}

int api_rowcache_render(const char *tpl, size_t len, const int64_t *d, size_t n, int64_t shift_ns,
                        api_rowcache_put_fn put, void *out)
{
    static const char esc[] = "\\u0001"; /* how jansson writes SL_KUBE_DURATION_MARK */
    const char *at[API_ROWCACHE_MAX_DURATIONS];
    const char *p = tpl, *end = tpl + len;
    size_t k = 0;
    for (const char *m; (m = memmem(p, (size_t)(end - p), esc, sizeof(esc) - 1));
         p = m + sizeof(esc) - 1) {
        if (k == n || k == API_ROWCACHE_MAX_DURATIONS)
            return -1; /* the object's own text holds one */
        at[k++] = m;
    }
    if (k != n)
        return -1;
    p = tpl;
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        put(out, p, (size_t)(at[i] - p));
        sl_kube_human_duration(d[i] + shift_ns, buf, sizeof(buf));
        put(out, buf, strlen(buf));
        p = at[i] + sizeof(esc) - 1;
    }
    put(out, p, (size_t)(end - p));
    return 0;
}

void api_rowcache_stats(api_rowcache_t *c, size_t *rows, size_t *bytes)
{
    pthread_mutex_lock(&c->lock);
    *rows = c->nrows;
    *bytes = c->bytes;
    pthread_mutex_unlock(&c->lock);
}
