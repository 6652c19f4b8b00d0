/* draft.c — writes whose JSON work is done before the writer lock is taken:
 * an object's text made with a marker where its revision goes (create, and
 * drafts), and drafts (store.h): a mutation computed on a copy a thread
 * has already read and written under the lock only if that copy is still
 * the stored version. Under the lock stay the revision, the rows and the
 * commit; the parse, the copy, the mutation and the dump (a 2.4 KB pod:
 * ~70, ~20 and ~30 us here) move out of it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/internal.h"

/* A control character: jansson writes it as \u0001 and nothing else does,
 * but an object's own strings may hold that text too, so the marker counts
 * only where it is found once. */
#define RV_MARK "\001rv\001"
#define RV_KEY "\"resourceVersion\":\""
#define RV_MARK_TEXT "\\u0001rv\\u0001\""

int sl_store_pretext_make(json_t *obj, sl_store_pretext_t *p)
{
    *p = (sl_store_pretext_t){0};
    sl_kube_meta_set_str(obj, "resourceVersion", RV_MARK);
    char *text = sl_store_dump(obj);
    const char *want = RV_KEY RV_MARK_TEXT;
    char *at = strstr(text, want);
    if (!at || strstr(at + 1, want)) {
        free(text);
        return -1;
    }
    p->text = text;
    p->len = strlen(text);
    p->at = (size_t)(at - text) + strlen(RV_KEY);
    p->mark_len = strlen(RV_MARK_TEXT) - 1; /* the closing quote stays */
    return 0;
}

char *sl_store_pretext_fill(const sl_store_pretext_t *p, int64_t rv)
{
    char num[24];
    size_t n = (size_t)snprintf(num, sizeof num, "%lld", (long long)rv);
    size_t tail = p->len - p->at - p->mark_len;
    char *t = sl_xmalloc(p->at + n + tail + 1);
    memcpy(t, p->text, p->at);
    memcpy(t + p->at, num, n);
    memcpy(t + p->at + n, p->text + p->at + p->mark_len, tail + 1);
    return t;
}

void sl_store_pretext_free(sl_store_pretext_t *p)
{
    free(p->text);
    *p = (sl_store_pretext_t){0};
}

/* ---- drafts ----------------------------------------------------------- */

enum draft_state {
    DRAFT_REDO,    /* nothing usable read: do it all under the lock */
    DRAFT_WRITE,   /* work and its text to write */
    DRAFT_NOOP,    /* fn changed nothing */
    DRAFT_REFUSED, /* fn returned -1 with err_no */
};

struct sl_store_draft {
    char *resource, *ns, *name;
    sl_store_mutate_fn fn;
    void *arg;
    enum draft_state state;
    int err_no;
    int64_t base_rv; /* the version fn saw */
    json_t *work;    /* its result (the base's revision, or the marker) */
    sl_store_pretext_t pt;
};

/* fn on a copy of old, as sl_store_mutate_locked does it, into d */
static void draft_apply(sl_store_draft_t *d, json_t *old, int64_t rv)
{
    json_t *work = NULL;
    int r = sl_store_apply(old, rv, d->ns, d->name, d->fn, d->arg, &work);
    d->base_rv = rv;
    if (r < 0) {
        d->state = DRAFT_REFUSED;
        d->err_no = errno;
        return;
    }
    if (r == 0)
        d->state = DRAFT_NOOP;
    else if (sl_store_pretext_make(work, &d->pt) == 0)
        d->state = DRAFT_WRITE;
    if (d->state == DRAFT_REDO) /* the marker was not found once */
        json_decref(work);
    else
        d->work = work;
}

sl_store_draft_t *sl_store_draft_of(const char *resource, json_t *base, sl_store_mutate_fn fn,
                                    void *arg)
{
    sl_store_draft_t *d = sl_xcalloc(1, sizeof(*d));
    const char *ns = sl_kube_namespace(base), *name = sl_kube_name(base);
    d->resource = sl_xstrdup(resource);
    d->ns = sl_xstrdup(ns ? ns : "");
    d->name = sl_xstrdup(name ? name : "");
    d->fn = fn;
    d->arg = arg;
    if (sl_kube_rv(base) > 0)
        draft_apply(d, base, sl_kube_rv(base));
    return d;
}

/* the draft as it was made, its base still the stored version cur_rv whose
 * text is cur (wmu held) */
static int draft_put(sl_store_t *s, sl_store_draft_t *d, const char *cur, json_t **work, int *used,
                     sl_error_t *err)
{
    if (d->state == DRAFT_REFUSED) {
        errno = d->err_no;
        return sl_store_refused(err, d->resource, d->name);
    }
    if (d->state == DRAFT_WRITE) {
        int64_t rv = s->next_rev + 1;
        char *text = sl_store_pretext_fill(&d->pt, rv);
        int rc = sl_store_db_put(s, ST_UPDATE, d->resource, d->ns, d->name, rv, text, err);
        if (rc == 0)
            rc = sl_store_db_log(s, rv, SL_CHANGE_MODIFIED, d->resource, d->ns, d->name, text, cur,
                                 err);
        free(text);
        if (rc < 0)
            return -1;
        sl_kube_set_rv(d->work, rv);
        *used = 1;
    }
    *work = json_incref(d->work);
    return 0;
}

int sl_store_draft_write(sl_store_t *s, sl_store_draft_t *d, json_t **out, sl_error_t *err)
{
    if (sl_store_wbegin(s, err) < 0)
        return -1;
    int64_t cur_rv = 0;
    char *cur = NULL;
    json_t *work = NULL;
    int used = 0, rc;
    int found = d->state == DRAFT_REDO
                    ? 0
                    : sl_store_db_get(s, &s->w, d->resource, d->ns, d->name, &cur_rv, &cur, err);
    int as_drafted = found == 1 && cur_rv == d->base_rv;
    if (as_drafted)
        rc = draft_put(s, d, cur, &work, &used, err);
    else /* changed, gone or unread since the draft: fn again on what is stored */
        rc = sl_store_mutate_locked(s, d->resource, d->ns, d->name, d->fn, d->arg, &work, &used,
                                    err);
    uint64_t *n = as_drafted ? &s->drafts_written : &s->drafts_redone;
    __atomic_store_n(n, *n + 1, __ATOMIC_RELAXED);
    int saved_errno = errno;
    free(cur);
    errno = saved_errno;
    return sl_store_wend_out(s, rc, used, work, out, err);
}

void sl_store_draft_stats(sl_store_t *s, uint64_t *written, uint64_t *redone)
{
    *written = __atomic_load_n(&s->drafts_written, __ATOMIC_RELAXED);
    *redone = __atomic_load_n(&s->drafts_redone, __ATOMIC_RELAXED);
}

void sl_store_draft_free(sl_store_draft_t *d)
{
    if (!d)
        return;
    free(d->resource);
    free(d->ns);
    free(d->name);
    json_decref(d->work);
    sl_store_pretext_free(&d->pt);
    free(d);
}
