/* conns.c — connections, watches and streams, counted per identity.
 *
 * Every local client (all tenants, the admin, the shims) comes from
 * 127.0.0.1, so a per-address cap lets one of them lock everyone out.
 * Instead, each connection is counted against who uses it:
 *
 *  - A new connection is *unauthenticated* until a request on it has been
 *    authenticated. Those share a small budget (max_unauth) and a short
 *    timeout (handshake_s) to finish the TLS handshake and send a first
 *    request. When the budget is full, a new connection still gets its
 *    chance: the oldest unauthenticated one is shut down (shutdown(2) of
 *    its socket; MHD's thread then sees the end and closes it). A flood of
 *    silent connections thus cycles through the budget and never holds a
 *    slot for long, while a real client needs only the moment of its
 *    handshake and first request.
 *  - The first authenticated request moves its connection to the user's
 *    count (max_per_user) with the normal idle timeout. A user over the cap
 *    gets 429 TooManyRequests and the connection is closed: others are not
 *    starved. A later request on the connection as someone else moves it.
 *  - Watches are counted per user too (max_watches); a watch's connection
 *    has no idle timeout while it streams (it ends by its own deadline or
 *    when the client goes).
 *  - Streams too (exec.max_streams_per_user): an exec or attach session
 *    counts one, a port-forward one per connection it makes to the pod (a
 *    WebSocket session one per port of its query, a SPDY one per request),
 *    each held as long as its descriptors are. Over the cap: 429 naming
 *    it. Whatever the caps, a stream is refused (503) while fewer than a
 *    reserve of descriptors (a quarter of RLIMIT_NOFILE, at most 256) is
 *    left: they are the store's, the controllers' and other clients'.
 *
 * Who an identity is, the server says (src/api/http/identity.c: the
 * authenticated user; the shim push's "shim:<uid>" once a push is
 * accepted; "" for development mode, a single identity that only
 * max_connections caps), and it words the refusals (429, 503).
 *
 * MHD calls the connection notifications and the access handler from
 * different threads; everything here is under one mutex. An entry lives
 * from MHD_CONNECTION_NOTIFY_STARTED to NOTIFY_CLOSED, which MHD sends
 * before it closes the socket, so a shut-down fd is never a reused one. */
#include "http/conns.h"

#include "common/xalloc.h"
#include "http/tlscred.h"

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

typedef struct ident {
    char *name;
    unsigned conns, watches, streams;
    struct ident *next;
} ident_t;

struct http_conn {
    http_tls_conn_t tls; /* first (http/tlscred.h): the set its handshake used, held */
    struct MHD_Connection *conn;
    int fd;
    ident_t *who;                    /* NULL: not authenticated (yet) */
    bool evicted;                    /* shut down to make room */
    struct http_conn *older, *newer; /* the unauthenticated, oldest first */
};

struct http_conns {
    pthread_mutex_t mu;
    http_conn_limits_t lim;
    ident_t *idents;
    struct http_conn *oldest, *newest; /* unauthenticated connections */
    unsigned unauth;
    http_tls_t *tls; /* the server's TLS credentials, NULL: none */
};

http_conns_t *http_conns_create(const http_conn_limits_t *lim)
{
    http_conns_t *c = sl_xcalloc(1, sizeof(*c));
    pthread_mutex_init(&c->mu, NULL);
    c->lim = *lim;
    return c;
}

void http_conns_set_limits(http_conns_t *c, const http_conn_limits_t *lim)
{
    pthread_mutex_lock(&c->mu);
    c->lim.max_unauth = lim->max_unauth;
    c->lim.max_per_user = lim->max_per_user;
    c->lim.max_watches = lim->max_watches;
    c->lim.idle_s = lim->idle_s;
    pthread_mutex_unlock(&c->mu);
}

void http_conns_destroy(http_conns_t *c)
{
    if (!c)
        return;
    while (c->idents) {
        ident_t *i = c->idents;
        c->idents = i->next;
        free(i->name);
        free(i);
    }
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* --- the unauthenticated list (c->mu held) --- */

static void unlink_unauth(http_conns_t *c, struct http_conn *e)
{
    if (e->older)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    if (e->newer)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    e->older = e->newer = NULL;
    c->unauth--;
}

static void push_unauth(http_conns_t *c, struct http_conn *e)
{
    e->older = c->newest;
    e->newer = NULL;
    if (c->newest)
        c->newest->newer = e;
    else
        c->oldest = e;
    c->newest = e;
    c->unauth++;
}

static void evict_oldest(http_conns_t *c)
{
    struct http_conn *e = c->oldest;
    unlink_unauth(c, e);
    e->evicted = true;
    if (e->fd >= 0)
        shutdown(e->fd, SHUT_RDWR);
}

/* --- identities (c->mu held) --- */

static ident_t *ident_get(http_conns_t *c, const char *name)
{
    for (ident_t *i = c->idents; i; i = i->next)
        if (!strcmp(i->name, name))
            return i;
    ident_t *i = sl_xcalloc(1, sizeof(*i));
    i->name = sl_xstrdup(name);
    i->next = c->idents;
    c->idents = i;
    return i;
}

/* Forget i when nothing is counted against it. */
static void ident_put(http_conns_t *c, ident_t *i)
{
    if (!i || i->conns || i->watches || i->streams)
        return;
    for (ident_t **p = &c->idents; *p; p = &(*p)->next)
        if (*p == i) {
            *p = i->next;
            free(i->name);
            free(i);
            return;
        }
}

/* --- MHD's notifications --- */

void http_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe)
{
    http_conns_t *c = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        struct http_conn *e = sl_xcalloc(1, sizeof(*e));
        e->conn = conn;
        e->tls.tls = c->tls;
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        e->fd = ci ? ci->connect_fd : -1;
        pthread_mutex_lock(&c->mu);
        if (c->unauth >= c->lim.max_unauth && c->oldest)
            evict_oldest(c);
        push_unauth(c, e);
        pthread_mutex_unlock(&c->mu);
        *socket_context = e;
        return;
    }
    struct http_conn *e = *socket_context;
    if (!e)
        return;
    pthread_mutex_lock(&c->mu);
    if (e->who) {
        e->who->conns--;
        ident_put(c, e->who);
    } else if (!e->evicted) {
        unlink_unauth(c, e);
    }
    pthread_mutex_unlock(&c->mu);
    http_tls_conn_release(&e->tls);
    free(e);
    *socket_context = NULL;
}

void http_conns_set_tls(http_conns_t *c, http_tls_t *tls) { c->tls = tls; }

static struct http_conn *entry_of(struct MHD_Connection *conn)
{
    if (!conn)
        return NULL;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static unsigned cap_of(http_conns_t *c, const char *name, unsigned cap)
{
    return *name ? cap : c->lim.max_connections;
}

int http_conns_attach(http_conns_t *c, struct MHD_Connection *conn, const char *name,
                      unsigned *cap_out)
{
    struct http_conn *e = entry_of(conn);
    if (!c || !e || !name)
        return 0;
    pthread_mutex_lock(&c->mu);
    if (e->who && !strcmp(e->who->name, name)) {
        pthread_mutex_unlock(&c->mu);
        return 0;
    }
    ident_t *i = ident_get(c, name);
    unsigned cap = cap_of(c, name, c->lim.max_per_user);
    if (i->conns >= cap) {
        ident_put(c, i);
        pthread_mutex_unlock(&c->mu);
        *cap_out = cap;
        return -1;
    }
    if (e->who) {
        e->who->conns--;
        ident_put(c, e->who);
    } else if (!e->evicted) {
        unlink_unauth(c, e);
    }
    e->who = i;
    i->conns++;
    unsigned idle = c->lim.idle_s;
    pthread_mutex_unlock(&c->mu);
    MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, idle);
    return 0;
}

int http_conns_watch_begin(http_conns_t *c, struct MHD_Connection *conn, const char *name,
                           unsigned *cap_out)
{
    if (!c || !name || !conn)
        return 0;
    pthread_mutex_lock(&c->mu);
    ident_t *i = ident_get(c, name);
    unsigned cap = cap_of(c, name, c->lim.max_watches);
    if (i->watches >= cap) {
        ident_put(c, i);
        pthread_mutex_unlock(&c->mu);
        *cap_out = cap;
        return -1;
    }
    i->watches++;
    pthread_mutex_unlock(&c->mu);
    /* a quiet watch is not an idle connection: it ends by its own deadline */
    MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, 0);
    return 1;
}

void http_conns_watch_end(http_conns_t *c, struct MHD_Connection *conn, const char *name)
{
    if (!c || !name)
        return;
    pthread_mutex_lock(&c->mu);
    ident_t *i = ident_get(c, name);
    i->watches--;
    ident_put(c, i);
    unsigned idle = c->lim.idle_s;
    pthread_mutex_unlock(&c->mu);
    if (conn)
        MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, idle);
}

/* --- streams --- */

/* descriptors this process may still open, and the reserve streams leave */
static long fds_left(long *reserve)
{
    struct rlimit rl;
    *reserve = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
        return LONG_MAX;
    long lim = (long)rl.rlim_cur, open = 0;
    *reserve = lim / 4 < 256 ? lim / 4 : 256;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return LONG_MAX;
    for (struct dirent *de; (de = readdir(d));)
        open += de->d_name[0] != '.';
    closedir(d);
    return lim - open;
}

int http_conns_streams_take(http_conns_t *c, const char *who, unsigned n, unsigned cap,
                            http_streams_refusal_t *why)
{
    long reserve, left = fds_left(&reserve);
    if (left - (long)n * 2 < reserve) { /* a session's own pipes or socket besides */
        why->fds_left = left;
        why->fds_reserve = reserve;
        return -2;
    }
    if (!c || !*who)
        return 0; /* development mode: one identity, not capped */
    pthread_mutex_lock(&c->mu);
    ident_t *i = ident_get(c, who);
    unsigned held = i->streams;
    if (held + n > cap) {
        ident_put(c, i);
        pthread_mutex_unlock(&c->mu);
        why->held = held;
        return -1;
    }
    i->streams += n;
    pthread_mutex_unlock(&c->mu);
    return 0;
}

void http_conns_streams_give(http_conns_t *c, const char *who, unsigned n)
{
    if (!c || !who || !*who || !n)
        return;
    pthread_mutex_lock(&c->mu);
    ident_t *i = ident_get(c, who);
    i->streams -= n <= i->streams ? n : i->streams;
    ident_put(c, i);
    pthread_mutex_unlock(&c->mu);
}
