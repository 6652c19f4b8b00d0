/* conns.h — a libmicrohttpd server's connections, watches and streams,
 * counted per identity (conns.c says why and how): the unauthenticated
 * share a small budget and the oldest of them makes room for a new one;
 * an identity holds at most max_per_user connections, max_watches watches
 * and a cap of streams. The server names the identities and words the
 * refusals. */
#ifndef SL_HTTP_CONNS_H
#define SL_HTTP_CONNS_H

#include <microhttpd.h>

#include "http/tlscred.h"

typedef struct http_conn_limits {
    unsigned max_connections; /* per listener (MHD's own limit); caps identity "" */
    unsigned max_unauth;      /* not yet authenticated, all together */
    unsigned max_per_user;    /* connections per identity */
    unsigned max_watches;     /* concurrent watches per identity */
    unsigned idle_s;          /* timeout once authenticated */
    unsigned handshake_s;     /* timeout before: TLS handshake and first request */
} http_conn_limits_t;

typedef struct http_conns http_conns_t;

http_conns_t *http_conns_create(const http_conn_limits_t *lim);
/* new per-identity budgets, the unauthenticated cap and the idle timeout
 * (a reload); max_connections and handshake_s stay: they are libmicrohttpd's
 * start options */
void http_conns_set_limits(http_conns_t *c, const http_conn_limits_t *lim);
/* the TLS credentials each new connection's handshake takes (tlscred.h) */
void http_conns_set_tls(http_conns_t *c, http_tls_t *tls);
void http_conns_destroy(http_conns_t *c); /* NULL: no-op; after the listeners stopped */
/* MHD_OPTION_NOTIFY_CONNECTION (cls: the http_conns_t). */
void http_conns_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe);

/* Count conn against identity name (c, conn or name NULL: nothing to
 * count, 0). 0: counted (already, or now, with the idle timeout); -1: the
 * identity is at its cap (*cap), nothing changed. */
int http_conns_attach(http_conns_t *c, struct MHD_Connection *conn, const char *name,
                      unsigned *cap);
/* A watch of identity name on conn starts: 1 when counted (conn has no
 * idle timeout until http_conns_watch_end), 0 when nothing is counted, -1
 * at the cap (*cap). */
int http_conns_watch_begin(http_conns_t *c, struct MHD_Connection *conn, const char *name,
                           unsigned *cap);
void http_conns_watch_end(http_conns_t *c, struct MHD_Connection *conn, const char *name);

/* Why streams were refused: the descriptors left and the reserve (-2), or
 * how many the identity holds (-1). */
typedef struct http_streams_refusal {
    long fds_left, fds_reserve;
    unsigned held;
} http_streams_refusal_t;
/* n more streams for who, at most cap ("": not capped): 0; -1 over the
 * cap; -2 while fewer than a reserve of descriptors (a quarter of
 * RLIMIT_NOFILE, at most 256) would be left. Give them back with
 * http_conns_streams_give. */
int http_conns_streams_take(http_conns_t *c, const char *who, unsigned n, unsigned cap,
                            http_streams_refusal_t *why);
void http_conns_streams_give(http_conns_t *c, const char *who, unsigned n);

#endif
