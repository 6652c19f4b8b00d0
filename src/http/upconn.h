/* upconn.h — the bytes of an upgraded connection (exec, attach,
 * port-forward): the client's TLS session itself, or the plain socket.
 * Used by src/api's exec, attach and port-forward.
 *
 * A session runs in the upgrade handler, in the connection's thread, and
 * closes its connection (http_up_close) before the handler returns: while
 * it runs, libmicrohttpd touches neither the TLS session nor the socket
 * (upconn.c says why the session speaks TLS itself). */
#ifndef SL_HTTP_UPCONN_H
#define SL_HTTP_UPCONN_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <wslay/wslay.h>

typedef struct http_up http_up_t;

/* The connection conn as its upgrade handler got it (sock, urh, and extra:
 * the bytes MHD read past the request, copied). Never NULL. */
http_up_t *http_up_open(struct MHD_Connection *conn, MHD_socket sock,
                        struct MHD_UpgradeResponseHandle *urh, const char *extra, size_t nextra);

/* The socket to poll. */
int http_up_fd(const http_up_t *u);

/* Bytes can be read without waiting for the socket (the request's extra
 * bytes, or a TLS record already decrypted). */
bool http_up_readable(http_up_t *u);

/* recv(2)'s contract: > 0 bytes, 0 at the end, -1 with errno (EAGAIN:
 * nothing now). */
ssize_t http_up_recv(http_up_t *u, void *buf, size_t len);

/* Takes bytes for the client into the output buffer (up to its bound;
 * -1 with EAGAIN when full, or with EPIPE once the connection failed);
 * http_up_flush sends them. */
ssize_t http_up_send(http_up_t *u, const void *data, size_t len);

/* Sends what the buffer holds: 0 all sent, 1 some left (poll for POLLOUT),
 * -1 the connection failed. */
int http_up_flush(http_up_t *u);

/* The output buffer holds bytes. */
bool http_up_pending(const http_up_t *u);

/* A WebSocket (wslay's ctx, whose callbacks are http_up_recv and
 * http_up_send) on u: the events to poll its socket for, poll's timeout
 * (ms, or 0 when bytes wait already), and the socket's part of a round
 * (revents: poll's answer; read: the client's bytes are wanted now):
 * wslay's reads and writes, then the flush; false when the connection
 * failed. */
short http_up_events(http_up_t *u, wslay_event_context_ptr ctx);
int http_up_timeout(http_up_t *u, int ms);
bool http_up_pump(http_up_t *u, wslay_event_context_ptr ctx, short revents, bool read);

/* wslay closed ctx because a message was over its bound
 * (wslay_event_config_set_max_recv_msg_length): 1009 sent or queued. */
bool http_up_ws_too_big(wslay_event_context_ptr ctx);
/* After such a close: sends it, and reads (and drops) what the client
 * still sends until it hangs up, for up to 3 s, so that the close reaches
 * it before the connection is closed. */
void http_up_ws_drain(http_up_t *u, wslay_event_context_ptr ctx);

/* Hands the connection back to libmicrohttpd to close; frees u. */
void http_up_close(http_up_t *u);

/* The time limits of a session on an upgraded connection: exec.idle_timeout
 * without a byte either way, exec.max_duration in all (the kubelet's
 * streaming-connection-idle-timeout covers exec and port-forward alike). */
typedef struct http_up_clock {
    long long start_ms, last_ms; /* opened; the last byte either way */
    unsigned idle_s, max_s;
} http_up_clock_t;
void http_up_clock_start(http_up_clock_t *k, unsigned idle_s, unsigned max_s);
void http_up_clock_touch(http_up_clock_t *k); /* a byte went either way */
/* why the session ends now ("idle for too long (exec.idle_timeout)"), or NULL */
const char *http_up_clock_expired(const http_up_clock_t *k);

/* The Sec-WebSocket-Accept value for a client's Sec-WebSocket-Key (RFC
 * 6455 4.2.2); caller frees (NULL when GnuTLS fails). */
char *http_ws_accept(const char *key);

#endif
