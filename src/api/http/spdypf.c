/* spdypf.c — kubectl port-forward: SPDY/3.1 (src/spdy) on the upgraded
 * connection, straight (`Upgrade: SPDY/3.1`, kubectl 1.30) or tunnelled in
 * WebSocket binary messages (`SPDY/3.1+portforward.k8s.io`, KEP-4006,
 * kubectl 1.31+), in the connection's thread (upconn.h).
 *
 * kubectl opens two streams per local connection (SYN_STREAM with headers
 * streamtype error|data, port, requestid); each gets a SYN_REPLY without
 * headers. Once both of a request are there, slurmlinkd connects to the
 * pod's address and port; the data stream carries the bytes both ways, the
 * error stream a message when the port cannot be reached (or is another
 * user's: portfwd.c says why) and its end (FIN), which kubectl waits for.
 * The pod's side closing ends both streams; the client's FIN on data
 * half-closes the pod's connection. PINGs are answered; SETTINGS and
 * WINDOW_UPDATE ignored (kubectl's spdystream keeps no flow control); the
 * session ends when the client goes, sends GOAWAY or breaks the framing. */
#include "api/http/exec.h"
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"

#include "common/buf.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "spdy/spdy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SPF_MAX 64             /* requests (local connections) at once */
#define SPF_CHUNK 32768        /* a DATA frame from the pod at most */
#define SPF_TX_HIGH (1u << 20) /* output held: stop reading the pods */
#define SPF_RX_HIGH (4u << 20) /* input for the pods held: stop reading the client */

typedef struct spf_req {
    bool used;
    char rid[32]; /* the requestid header */
    int port;
    uint32_t err_sid, data_sid;
    int fd; /* the pod's connection, or -1 */
    sl_buf_t to_pod;
    size_t to_pod_off;
    bool client_fin; /* the data stream's FIN came: half-close once sent */
    bool counted;    /* its connection counts against the identity's streams */
} spf_req_t;

struct api_spf {
    sl_api_t *api;
    http_up_t *up;
    bool tunnel; /* WebSocket binary messages carry the SPDY bytes */
    wslay_event_context_ptr ctx;
    sl_spdy_t *spdy;
    sl_buf_t tx; /* SPDY bytes not yet handed to the connection */
    spf_req_t req[SPF_MAX];
    char *addr, *pod, *pod_uid, *desc;
    char *who; /* the identity its connections count against (identity.c) */
    pid_t shim;
    uid_t uid;
    bool dead;
    http_up_clock_t clock;
    const char *why; /* the limit that ended it, or NULL */
};

api_spf_t *api_spf_new(sl_api_t *api, const char *addr, const char *pod, const char *pod_uid,
                       pid_t shim, uid_t uid, const char *desc, const char *who)
{
    api_spf_t *s = sl_xcalloc(1, sizeof(*s));
    s->api = api;
    s->addr = sl_xstrdup(addr);
    s->pod = sl_xstrdup(pod);
    s->pod_uid = sl_xstrdup(pod_uid ? pod_uid : "");
    s->desc = sl_xstrdup(desc);
    s->who = sl_xstrdup(who ? who : "");
    s->shim = shim;
    s->uid = uid;
    for (int i = 0; i < SPF_MAX; i++)
        s->req[i].fd = -1;
    return s;
}

static void req_end(api_spf_t *s, spf_req_t *q)
{
    if (q->counted)
        api_streams_give(s->api, s->who, 1);
    if (q->fd >= 0)
        close(q->fd);
    sl_buf_free(&q->to_pod);
    memset(q, 0, sizeof(*q));
    q->fd = -1;
}

void api_spf_free(api_spf_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < SPF_MAX; i++)
        req_end(s, &s->req[i]);
    sl_spdy_free(s->spdy);
    sl_buf_free(&s->tx);
    free(s->addr);
    free(s->pod);
    free(s->pod_uid);
    free(s->desc);
    free(s->who);
    free(s);
}

/* ---- requests ---- */

/* both streams' end; the error stream's message first when there is one */
static void req_finish(api_spf_t *s, spf_req_t *q, const char *message)
{
    if (message)
        sl_spdy_put_data(&s->tx, q->err_sid, 0, message, strlen(message));
    sl_spdy_put_data(&s->tx, q->err_sid, SL_SPDY_FLAG_FIN, "", 0);
    sl_spdy_put_data(&s->tx, q->data_sid, SL_SPDY_FLAG_FIN, "", 0);
    req_end(s, q);
}

/* both streams are there: the port's owner checked, the connection made */
static void req_start(api_spf_t *s, spf_req_t *q)
{
    if (api_pf_port_owner(s->shim, s->uid, q->port) == 2) {
        char *m = sl_xasprintf("port %d on the node of pod %s is another user's: only the pod's "
                               "own user's ports are forwarded",
                               q->port, s->pod);
        sl_info("port-forward (SPDY): refused, %s: %s", m, s->desc);
        req_finish(s, q, m);
        free(m);
        return;
    }
    unsigned code;
    char *why = NULL;
    if (api_streams_take_as(s->api, s->who, 1, &code, &why) < 0) {
        sl_info("port-forward (SPDY): refused, %s: %s", why, s->desc);
        req_finish(s, q, why);
        free(why);
        return;
    }
    q->counted = true;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)q->port)};
    q->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (inet_pton(AF_INET, s->addr, &sa.sin_addr) != 1 || q->fd < 0 ||
        connect(q->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        char *m = sl_xasprintf("error forwarding port %d to pod %s, uid %s: dial tcp %s:%d: "
                               "connect: %s",
                               q->port, s->pod, s->pod_uid, s->addr, q->port, strerror(errno));
        req_finish(s, q, m);
        free(m);
        return;
    }
    fcntl(q->fd, F_SETFL, fcntl(q->fd, F_GETFL) | O_NONBLOCK);
}

static spf_req_t *req_by_rid(api_spf_t *s, const char *rid)
{
    spf_req_t *free_slot = NULL;
    for (int i = 0; i < SPF_MAX; i++) {
        if (s->req[i].used && !strcmp(s->req[i].rid, rid))
            return &s->req[i];
        if (!s->req[i].used && !free_slot)
            free_slot = &s->req[i];
    }
    if (free_slot) {
        free_slot->used = true;
        snprintf(free_slot->rid, sizeof(free_slot->rid), "%s", rid);
    }
    return free_slot;
}

static spf_req_t *req_by_sid(api_spf_t *s, uint32_t sid)
{
    for (int i = 0; i < SPF_MAX; i++)
        if (s->req[i].used && sid && (s->req[i].err_sid == sid || s->req[i].data_sid == sid))
            return &s->req[i];
    return NULL;
}

/* a SYN_STREAM: its reply, and the request it belongs to */
static void on_syn(api_spf_t *s, const sl_spdy_frame_t *f)
{
    const char *type = sl_spdy_header(f, "streamtype");
    const char *port = sl_spdy_header(f, "port");
    const char *rid = sl_spdy_header(f, "requestid");
    char *end = NULL;
    long p = port ? strtol(port, &end, 10) : 0;
    bool data = type && !strcmp(type, "data");
    if (!type || (!data && strcmp(type, "error")) || !end || *end || p < 1 || p > 65535 || !rid ||
        strlen(rid) >= sizeof(s->req[0].rid)) {
        sl_spdy_put_syn_reply(s->spdy, &s->tx, f->stream, SL_SPDY_FLAG_FIN, NULL, 0);
        return; /* kube's httpstream refuses a stream so */
    }
    spf_req_t *q = req_by_rid(s, rid);
    if (!q || (data ? q->data_sid : q->err_sid)) {
        sl_spdy_put_rst_stream(&s->tx, f->stream, SL_SPDY_RST_REFUSED_STREAM);
        return;
    }
    sl_spdy_put_syn_reply(s->spdy, &s->tx, f->stream, 0, NULL, 0);
    q->port = (int)p;
    *(data ? &q->data_sid : &q->err_sid) = f->stream;
    if (q->data_sid && q->err_sid)
        req_start(s, q);
}

static int on_frame(void *arg, const sl_spdy_frame_t *f)
{
    api_spf_t *s = arg;
    spf_req_t *q =
        f->type == SL_SPDY_DATA || f->type == SL_SPDY_RST_STREAM ? req_by_sid(s, f->stream) : NULL;
    switch (f->type) {
    case SL_SPDY_SYN_STREAM: on_syn(s, f); break;
    case SL_SPDY_DATA:
        if (q && f->stream == q->data_sid && q->fd >= 0) {
            sl_buf_append(&q->to_pod, f->data, f->len);
            q->client_fin = q->client_fin || (f->flags & SL_SPDY_FLAG_FIN);
        }
        break;
    case SL_SPDY_RST_STREAM:
        if (q)
            req_end(s, q);
        break;
    case SL_SPDY_PING: sl_spdy_put_ping(&s->tx, f->value); break;
    case SL_SPDY_GOAWAY: s->dead = true; break;
    default: /* SYN_REPLY, HEADERS, SETTINGS, WINDOW_UPDATE */ break;
    }
    return 0;
}

static void feed(api_spf_t *s, const void *data, size_t len)
{
    sl_error_t err = SL_ERROR_INIT;
    if (sl_spdy_feed(s->spdy, data, len, on_frame, s, &err) != 0) {
        sl_info("port-forward (SPDY) closed: %s: %s", err.text, s->desc);
        s->dead = true;
    }
    sl_error_clear(&err);
}

/* ---- the connection ---- */

static ssize_t ws_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *u)
{
    api_spf_t *s = u;
    ssize_t n = http_up_recv(s->up, buf, len);
    if (n > 0)
        return n;
    wslay_event_set_error(ctx, n < 0 && errno == EAGAIN ? WSLAY_ERR_WOULDBLOCK
                                                        : WSLAY_ERR_CALLBACK_FAILURE);
    s->dead = s->dead || !(n < 0 && errno == EAGAIN);
    return -1;
}

static ssize_t ws_send(wslay_event_context_ptr ctx, const uint8_t *d, size_t len, int flags,
                       void *u)
{
    api_spf_t *s = u;
    ssize_t n = http_up_send(s->up, d, len);
    if (n >= 0)
        return n;
    wslay_event_set_error(ctx, errno == EAGAIN ? WSLAY_ERR_WOULDBLOCK : WSLAY_ERR_CALLBACK_FAILURE);
    s->dead = s->dead || errno != EAGAIN;
    return -1;
}

static void ws_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a,
                   void *u)
{
    if (a->opcode == WSLAY_BINARY_FRAME)
        feed(u, a->msg, a->msg_length);
}

/* the output so far to the connection: 0, or -1 when it failed */
static int tx_flush(api_spf_t *s)
{
    if (s->tunnel && s->tx.len) {
        struct wslay_event_msg m = {WSLAY_BINARY_FRAME, (const uint8_t *)s->tx.data, s->tx.len};
        if (wslay_event_queue_msg(s->ctx, &m) != 0)
            return -1;
        sl_buf_reset(&s->tx);
    }
    if (s->tunnel)
        return wslay_event_want_write(s->ctx) && wslay_event_send(s->ctx) != 0 ? -1
               : http_up_flush(s->up) < 0                                       ? -1
                                                                               : 0;
    size_t off = 0;
    while (off < s->tx.len) {
        ssize_t n = http_up_send(s->up, s->tx.data + off, s->tx.len - off);
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    if (off) {
        memmove(s->tx.data, s->tx.data + off, s->tx.len - off);
        s->tx.len -= off;
    }
    return http_up_flush(s->up) < 0 ? -1 : 0;
}

/* the client's bytes: 0, or -1 when it went */
static int rx(api_spf_t *s, short rev, bool want)
{
    if (s->tunnel)
        return http_up_pump(s->up, s->ctx, rev, want) ? 0 : -1;
    if (!want || !(rev & (POLLIN | POLLHUP | POLLERR) || http_up_readable(s->up)))
        return 0;
    char buf[65536];
    ssize_t n = http_up_recv(s->up, buf, sizeof(buf));
    if (n > 0)
        feed(s, buf, (size_t)n);
    return n > 0 || (n < 0 && errno == EAGAIN) ? 0 : -1;
}

/* a pod's connection readable or writable */
static void pod_io(api_spf_t *s, spf_req_t *q, short rev)
{
    if (rev & POLLOUT && q->to_pod.len > q->to_pod_off) {
        ssize_t n = write(q->fd, q->to_pod.data + q->to_pod_off, q->to_pod.len - q->to_pod_off);
        if (n > 0) {
            http_up_clock_touch(&s->clock);
            q->to_pod_off += (size_t)n;
        }
        if (q->to_pod_off == q->to_pod.len) {
            sl_buf_reset(&q->to_pod);
            q->to_pod_off = 0;
        }
    }
    if (q->client_fin && q->to_pod.len == 0) {
        shutdown(q->fd, SHUT_WR);
        q->client_fin = false; /* once */
    }
    if (rev & (POLLIN | POLLHUP | POLLERR)) {
        char buf[SPF_CHUNK];
        ssize_t n = read(q->fd, buf, sizeof(buf));
        if (n > 0) {
            http_up_clock_touch(&s->clock);
            sl_spdy_put_data(&s->tx, q->data_sid, 0, buf, (size_t)n);
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR))
            req_finish(s, q, NULL);
    }
}

static size_t held_for_pods(const api_spf_t *s)
{
    size_t n = 0;
    for (int i = 0; i < SPF_MAX; i++)
        n += s->req[i].to_pod.len - s->req[i].to_pod_off;
    return n;
}

/* one poll round; false when the session is over */
static bool spf_round(api_spf_t *s)
{
    struct pollfd p[1 + SPF_MAX];
    int idx[1 + SPF_MAX], n = 1;
    bool room = s->tx.len < SPF_TX_HIGH && !http_up_pending(s->up) &&
                (!s->tunnel || wslay_event_get_queued_msg_count(s->ctx) < 16);
    bool want = held_for_pods(s) < SPF_RX_HIGH;
    short ev = s->tunnel ? http_up_events(s->up, s->ctx)
                         : (short)(POLLIN | (http_up_pending(s->up) || s->tx.len ? POLLOUT : 0));
    p[0] = (struct pollfd){.fd = http_up_fd(s->up), .events = want ? ev : (short)(ev & ~POLLIN)};
    for (int i = 0; i < SPF_MAX; i++) {
        spf_req_t *q = &s->req[i];
        if (q->fd < 0)
            continue;
        idx[n] = i;
        p[n++] = (struct pollfd){
            .fd = q->fd,
            .events = (short)((room ? POLLIN : 0) | (q->to_pod.len > q->to_pod_off ? POLLOUT : 0))};
    }
    int ready = poll(p, (nfds_t)n, http_up_timeout(s->up, 1000));
    if (ready < 0 && errno != EINTR)
        return false;
    if (rx(s, ready > 0 ? p[0].revents : 0, want) < 0)
        s->dead = true;
    for (int k = 1; k < n && ready > 0; k++)
        if (s->req[idx[k]].fd >= 0 && (p[k].revents || s->req[idx[k]].client_fin))
            pod_io(s, &s->req[idx[k]], p[k].revents);
    if (tx_flush(s) < 0)
        s->dead = true;
    if (s->tunnel && !wslay_event_get_read_enabled(s->ctx)) { /* closed: 1009, or the client's */
        if (http_up_ws_too_big(s->ctx))
            http_up_ws_drain(s->up, s->ctx);
        s->dead = true;
    }
    s->why = http_up_clock_expired(&s->clock);
    return !s->dead && !s->why && !atomic_load(&s->api->stopping);
}

void api_spf_run(api_spf_t *s, http_up_t *up, bool tunnel)
{
    s->up = up;
    s->tunnel = tunnel;
    s->spdy = sl_spdy_new();
    struct wslay_event_callbacks cb = {ws_recv, ws_send, NULL, NULL, NULL, NULL, ws_msg};
    atomic_fetch_add(&s->api->exec_sessions, 1);
    http_up_clock_start(&s->clock, s->api->exec_idle_s, s->api->exec_max_s);
    if (s->spdy && (!tunnel || wslay_event_context_server_init(&s->ctx, &cb, s) == 0)) {
        if (s->ctx) /* a SPDY frame is 1 MiB at most (src/spdy): a message need not be more */
            wslay_event_config_set_max_recv_msg_length(s->ctx, s->api->exec_max_message);
        while (spf_round(s))
            ;
        if (atomic_load(&s->api->stopping) || s->why) { /* a last word, if the socket takes it */
            sl_spdy_put_goaway(&s->tx, 0, 0);
            tx_flush(s);
        }
        if (s->ctx)
            wslay_event_context_free(s->ctx);
    }
    if (s->why)
        sl_info("port-forward ended: %s: %s", s->why, s->desc);
    else
        sl_info("port-forward ended: %s", s->desc);
    http_up_close(up);
    atomic_fetch_sub(&s->api->exec_sessions, 1);
    api_spf_free(s);
}
