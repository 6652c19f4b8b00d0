/* report.c — event pushes over libcurl's multi interface (see report.h). */
#include "shimlib/report.h"

#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct qitem {
    char *body;
    struct qitem *next;
};

struct sl_report {
    CURLM *multi;
    CURL *easy;
    struct curl_slist *headers;
    char *url, *ca_file, *pinned_key;
    struct qitem *head, *tail;
    size_t qlen;
    int busy;    /* easy is attached to multi with head's body */
    int last_ok; /* result of the latest finished POST (-1 none yet) */
    sl_report_stats_t st;
};

static size_t discard(char *p, size_t sz, size_t n, void *u)
{
    (void)p;
    (void)u;
    return sz * n;
}

sl_report_t *sl_report_create(const sl_report_opts_t *o, sl_error_t *err)
{
    static int global_done;
    if (!global_done) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
            errno = ENOMEM;
            sl_errprintf(err, "curl_global_init failed");
            return NULL;
        }
        global_done = 1;
    }
    sl_report_t *r = sl_xcalloc(1, sizeof(*r));
    r->multi = curl_multi_init();
    r->easy = curl_easy_init();
    if (!r->multi || !r->easy) {
        sl_report_destroy(r);
        errno = ENOMEM;
        sl_errprintf(err, "cannot create a libcurl handle");
        return NULL;
    }
    r->url = sl_xstrdup(o->url);
    r->ca_file = o->ca_file ? sl_xstrdup(o->ca_file) : NULL;
    r->pinned_key = o->pinned_key ? sl_xstrdup(o->pinned_key) : NULL;
    r->headers = curl_slist_append(r->headers, "Content-Type: application/json");
    r->headers = curl_slist_append(r->headers, "Expect:"); /* no 100-continue round trip */
    if (o->token) {
        char *h = sl_xasprintf("Authorization: Bearer %s", o->token);
        r->headers = curl_slist_append(r->headers, h);
        free(h);
    }
    r->last_ok = -1;

    CURL *e = r->easy;
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)SL_REPORT_CONNECT_MS);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)SL_REPORT_TOTAL_MS);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    /* the daemon is reached directly; a proxy from the job's environment
     * would only add a hop (or swallow the event) */
    curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "slurmlink-shim");
    if (r->ca_file)
        curl_easy_setopt(e, CURLOPT_CAINFO, r->ca_file);
    if (r->pinned_key)
        curl_easy_setopt(e, CURLOPT_PINNEDPUBLICKEY, r->pinned_key);
    return r;
}

static void q_pop(sl_report_t *r)
{
    struct qitem *h = r->head;
    if (!h)
        return;
    r->head = h->next;
    if (!r->head)
        r->tail = NULL;
    r->qlen--;
    free(h->body);
    free(h);
}

static void start_next(sl_report_t *r)
{
    if (r->busy || !r->head)
        return;
    curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, r->head->body);
    curl_easy_setopt(r->easy, CURLOPT_POSTFIELDSIZE, (long)strlen(r->head->body));
    if (curl_multi_add_handle(r->multi, r->easy) != CURLM_OK) {
        r->st.failed++;
        q_pop(r);
        return;
    }
    r->busy = 1;
}

/* Collect finished transfers; start the next one. */
static void progress(sl_report_t *r)
{
    int running = 0;
    curl_multi_perform(r->multi, &running);
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(r->multi, &left))) {
        if (m->msg != CURLMSG_DONE || m->easy_handle != r->easy)
            continue;
        long code = 0;
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &code);
        int ok = m->data.result == CURLE_OK && code >= 200 && code < 300;
        if (ok) {
            r->st.sent++;
        } else {
            r->st.failed++;
            /* one line per change of fortune, not one per event */
            if (r->last_ok != 0) {
                if (m->data.result != CURLE_OK)
                    sl_warn("push to %s failed: %s (events stay in events.jsonl)", r->url,
                            curl_easy_strerror(m->data.result));
                else
                    sl_warn("push to %s answered HTTP %ld (events stay in events.jsonl)", r->url,
                            code);
            }
        }
        r->last_ok = ok;
        curl_multi_remove_handle(r->multi, r->easy);
        r->busy = 0;
        q_pop(r);
    }
    start_next(r);
    if (r->busy && !running)
        curl_multi_perform(r->multi, &running);
}

void sl_report_push(sl_report_t *r, const char *body)
{
    if (!r)
        return;
    if (r->qlen >= SL_REPORT_QUEUE) {
        /* keep the one in flight (head) when busy; drop the next oldest */
        struct qitem **pp = r->busy ? &r->head->next : &r->head;
        struct qitem *d = *pp;
        if (d) {
            *pp = d->next;
            if (r->tail == d)
                r->tail = r->busy ? r->head : NULL;
            free(d->body);
            free(d);
            r->qlen--;
            r->st.dropped++;
        }
    }
    struct qitem *q = sl_xcalloc(1, sizeof(*q));
    q->body = sl_xstrdup(body);
    if (r->tail)
        r->tail->next = q;
    else
        r->head = q;
    r->tail = q;
    r->qlen++;
    r->st.queued++;
    start_next(r);
    progress(r);
}

int sl_report_poll(sl_report_t *r, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    if (!r || !r->busy) {
        if (r)
            progress(r);
        return poll(fds, nfds, timeout_ms);
    }
    struct curl_waitfd *w = sl_xcalloc(nfds ? nfds : 1, sizeof(*w));
    for (nfds_t i = 0; i < nfds; i++) {
        w[i].fd = fds[i].fd;
        w[i].events = (short)((fds[i].events & POLLIN ? CURL_WAIT_POLLIN : 0) |
                              (fds[i].events & POLLOUT ? CURL_WAIT_POLLOUT : 0));
    }
    /* curl_multi_wait caps the wait at what its transfers need */
    int numfds = 0;
    CURLMcode mc =
        curl_multi_wait(r->multi, w, (unsigned)nfds, timeout_ms < 0 ? 1000 : timeout_ms, &numfds);
    free(w);
    progress(r);
    if (mc != CURLM_OK) {
        errno = EINTR;
        return -1;
    }
    /* curl reports only IN/OUT/PRI for extra fds, not HUP or ERR: ask the
     * kernel again for exact revents (a closed pipe shows as POLLHUP alone) */
    return poll(fds, nfds, 0);
}

void sl_report_drain(sl_report_t *r, int budget_ms)
{
    if (!r)
        return;
    long long deadline = sl_now_ms() + budget_ms;
    unsigned long failed0 = r->st.failed;
    progress(r);
    while ((r->busy || r->head) && r->st.failed == failed0) {
        long long left = deadline - sl_now_ms();
        if (left <= 0)
            break;
        int n;
        curl_multi_wait(r->multi, NULL, 0, (int)(left < 50 ? left : 50), &n);
        progress(r);
    }
}

sl_report_stats_t sl_report_stats(const sl_report_t *r)
{
    sl_report_stats_t z = {0, 0, 0, 0};
    return r ? r->st : z;
}

void sl_report_destroy(sl_report_t *r)
{
    if (!r)
        return;
    if (r->busy)
        curl_multi_remove_handle(r->multi, r->easy);
    while (r->head)
        q_pop(r);
    if (r->easy)
        curl_easy_cleanup(r->easy);
    if (r->multi)
        curl_multi_cleanup(r->multi);
    curl_slist_free_all(r->headers);
    free(r->url);
    free(r->ca_file);
    free(r->pinned_key);
    free(r);
}
