/* upconn.c — the bytes of an upgraded connection.
 *
 * Over TLS, libmicrohttpd 0.9.75 hands the upgrade handler one end of a
 * socketpair and copies between its other end and the TLS session in the
 * connection's thread (daemon.c, process_urh), through two buffers carved
 * from the connection's memory pool (response.c,
 * MHD_response_execute_upgrade_). The 101's headers were built in a write
 * buffer grown to all the pool's free space (connection.c,
 * connection_maximize_write_buffer), which 0.9.75 does not give back before
 * the upgrade, so the pool has nothing left and the copying falls back on
 * the 8-byte emergency buffer: 4 bytes a read each way, whatever the pool's
 * size (MHD_OPTION_CONNECTION_MEMORY_LIMIT) or its growth step. Upstream
 * frees the write buffer first since 0.9.77 (commit 6b5e509f, "Upgraded
 * TLS: fixed inefficient communication"); Debian 12 ships 0.9.75.
 *
 * So a session speaks TLS itself, through the connection's own gnutls
 * session (MHD_CONNECTION_INFO_GNUTLS_SESSION) on its socket: the same
 * keys, no copy. It runs in the upgrade handler, that is in the
 * connection's thread (one per connection), until it ends; libmicrohttpd,
 * which would copy only after the handler returned, finds the
 * application's end closed by then and stops at once. On the plain
 * listener MHD hands over the socket itself and the same code sends on it.
 *
 * Output is gathered in one buffer (a frame's header and its payload in
 * one TLS record or send) and sent when the session flushes. */
#include "http/upconn.h"

#include "common/b64.h"
#include "common/buf.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define UP_OUT_MAX (256u * 1024) /* buffered output: then EAGAIN */

struct http_up {
    struct MHD_UpgradeResponseHandle *urh;
    gnutls_session_t tls; /* NULL: plain */
    int fd;
    char *extra;
    size_t nextra, extra_off;
    sl_buf_t out;
    size_t out_off;
    size_t again; /* gnutls_record_send said AGAIN for this many bytes */
    bool dead;
};

http_up_t *http_up_open(struct MHD_Connection *conn, MHD_socket sock,
                        struct MHD_UpgradeResponseHandle *urh, const char *extra, size_t nextra)
{
    http_up_t *u = sl_xcalloc(1, sizeof(*u));
    u->urh = urh;
    u->fd = sock;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (ci && ci->tls_session) {
        const union MHD_ConnectionInfo *fi =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (fi) {
            u->tls = (gnutls_session_t)ci->tls_session;
            u->fd = fi->connect_fd; /* MHD's own: non-blocking */
        }
    }
    fcntl(u->fd, F_SETFL, fcntl(u->fd, F_GETFL) | O_NONBLOCK);
    if (nextra) {
        u->extra = sl_xmalloc(nextra);
        memcpy(u->extra, extra, nextra);
        u->nextra = nextra;
    }
    return u;
}

int http_up_fd(const http_up_t *u) { return u->fd; }

bool http_up_readable(http_up_t *u)
{
    return u->extra_off < u->nextra || (u->tls && gnutls_record_check_pending(u->tls) > 0);
}

static ssize_t tls_recv(http_up_t *u, void *buf, size_t len)
{
    ssize_t n = gnutls_record_recv(u->tls, buf, len);
    if (n >= 0)
        return n;
    if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
        errno = EAGAIN;
        return -1;
    }
    if (n == GNUTLS_E_PREMATURE_TERMINATION)
        return 0; /* the client hung up without a close_notify */
    errno = EPROTO;
    return -1;
}

ssize_t http_up_recv(http_up_t *u, void *buf, size_t len)
{
    if (u->extra_off < u->nextra) {
        size_t n = u->nextra - u->extra_off < len ? u->nextra - u->extra_off : len;
        memcpy(buf, u->extra + u->extra_off, n);
        u->extra_off += n;
        return (ssize_t)n;
    }
    if (u->tls)
        return tls_recv(u, buf, len);
    ssize_t n = recv(u->fd, buf, len, 0);
    if (n < 0 && (errno == EWOULDBLOCK || errno == EINTR))
        errno = EAGAIN;
    return n;
}

ssize_t http_up_send(http_up_t *u, const void *data, size_t len)
{
    if (u->dead) {
        errno = EPIPE;
        return -1;
    }
    size_t held = u->out.len - u->out_off;
    if (held >= UP_OUT_MAX) {
        errno = EAGAIN;
        return -1;
    }
    size_t n = len < UP_OUT_MAX - held ? len : UP_OUT_MAX - held;
    sl_buf_append(&u->out, data, n);
    return (ssize_t)n;
}

/* one send of the buffer's head: bytes sent, 0 not now, -1 failed */
static ssize_t send_some(http_up_t *u)
{
    const char *p = u->out.data + u->out_off;
    size_t len = u->out.len - u->out_off;
    if (!u->tls) {
        ssize_t n = send(u->fd, p, len, MSG_NOSIGNAL);
        return n >= 0 ? n : errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    }
    /* after AGAIN gnutls wants the same call again, or NULL and 0 (its
     * manual, gnutls_record_send): the buffer may have moved since */
    ssize_t n = u->again ? gnutls_record_send(u->tls, NULL, 0) : gnutls_record_send(u->tls, p, len);
    if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED) {
        if (!u->again)
            u->again = len;
        return 0;
    }
    u->again = 0;
    return n >= 0 ? n : -1;
}

int http_up_flush(http_up_t *u)
{
    while (!u->dead && u->out_off < u->out.len) {
        ssize_t n = send_some(u);
        if (n < 0)
            u->dead = true;
        if (n <= 0)
            break;
        u->out_off += (size_t)n;
    }
    if (u->dead)
        return -1;
    if (u->out_off < u->out.len)
        return 1;
    sl_buf_reset(&u->out);
    u->out_off = 0;
    return 0;
}

bool http_up_pending(const http_up_t *u) { return !u->dead && u->out_off < u->out.len; }

void http_up_close(http_up_t *u)
{
    if (!u)
        return;
    MHD_upgrade_action(u->urh, MHD_UPGRADE_ACTION_CLOSE);
    sl_buf_free(&u->out);
    free(u->extra);
    free(u);
}

short http_up_events(http_up_t *u, wslay_event_context_ptr ctx)
{
    return (short)((wslay_event_want_read(ctx) ? POLLIN : 0) |
                   (wslay_event_want_write(ctx) || http_up_pending(u) ? POLLOUT : 0));
}

int http_up_timeout(http_up_t *u, int ms) { return http_up_readable(u) ? 0 : ms; }

bool http_up_pump(http_up_t *u, wslay_event_context_ptr ctx, short revents, bool read)
{
    if (read && (revents & (POLLIN | POLLHUP | POLLERR) || http_up_readable(u)) &&
        wslay_event_want_read(ctx) && wslay_event_recv(ctx) != 0)
        return false;
    if (wslay_event_want_write(ctx) && wslay_event_send(ctx) != 0)
        return false;
    return http_up_flush(u) >= 0;
}

void http_up_clock_start(http_up_clock_t *k, unsigned idle_s, unsigned max_s)
{
    k->start_ms = k->last_ms = sl_now_ms();
    k->idle_s = idle_s;
    k->max_s = max_s;
}

void http_up_clock_touch(http_up_clock_t *k) { k->last_ms = sl_now_ms(); }

const char *http_up_clock_expired(const http_up_clock_t *k)
{
    long long now = sl_now_ms();
    if (now - k->start_ms >= (long long)k->max_s * 1000)
        return "it reached its time limit (exec.max_duration)";
    if (now - k->last_ms >= (long long)k->idle_s * 1000)
        return "idle for too long (exec.idle_timeout)";
    return NULL;
}

bool http_up_ws_too_big(wslay_event_context_ptr ctx)
{
    return (wslay_event_get_close_sent(ctx) || wslay_event_want_write(ctx)) &&
           wslay_event_get_status_code_sent(ctx) == WSLAY_CODE_MESSAGE_TOO_BIG;
}

void http_up_ws_drain(http_up_t *u, wslay_event_context_ptr ctx)
{
    long long end = sl_now_ms() + 3000;
    char scrap[16384];
    while (!u->dead && sl_now_ms() < end) {
        if ((wslay_event_want_write(ctx) && wslay_event_send(ctx) != 0) || http_up_flush(u) < 0)
            break;
        struct pollfd p = {.fd = u->fd, .events = POLLIN | (http_up_pending(u) ? POLLOUT : 0)};
        bool ready = http_up_readable(u);
        if (!ready && poll(&p, 1, 100) < 0)
            break;
        if (!ready && !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = http_up_recv(u, scrap, sizeof(scrap));
        if (n == 0 || (n < 0 && errno != EAGAIN))
            break; /* the client hung up */
    }
}

#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/* Sec-WebSocket-Accept for key (RFC 6455 4.2.2); caller frees */
char *http_ws_accept(const char *key)
{
    char *in = sl_xasprintf("%s" WS_GUID, key);
    unsigned char sha[20];
    char *out = NULL;
    if (gnutls_hash_fast(GNUTLS_DIG_SHA1, in, strlen(in), sha) == 0)
        out = sl_b64_encode(sha, sizeof(sha));
    free(in);
    return out;
}
