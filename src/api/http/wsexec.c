/* wsexec.c — an exec session: the srun step's stdio over the upgraded
 * connection (upconn.h), framed by wslay (RFC 6455), in the connection's
 * thread.
 *
 * Channel protocol (kube's remotecommand, v4/v5.channel.k8s.io): every
 * binary message starts with a channel byte. Client → server: 0 stdin,
 * 4 resize ({"Width":W,"Height":H}), v5's 255 close ([255, 0]: stdin ends).
 * Server → client: 1 stdout, 2 stderr, 3 the final Status (Success, or
 * Failure with reason NonZeroExitCode and the cause ExitCode, or the
 * kubelet's InternalError), then a close frame. wslay answers pings with
 * pongs (kubectl's read deadline is renewed only by pongs).
 *
 * The step runs in its own session (setsid), as the pod's user: its stdio
 * are pipes, or with tty the slave of a pty (openpty) whose master's size
 * follows the resize messages (srun --pty passes SIGWINCH on). A size is
 * set only once the step has written its first byte: srun (22.05) turns
 * SIGWINCH into a message to slurmstepd in a thread that first waits in
 * accept(2) for slurmstepd's connection, with a handler installed without
 * SA_RESTART, so a SIGWINCH before that connection fails the accept and
 * ends the thread ("pty: accept failure"): the session's size would never
 * change. slurmstepd connects while it sets up the task's stdio, before the
 * task runs, so the first output comes after it; until then the latest size
 * waits. The pty starts in raw mode (no echo): srun 25.11 makes its
 * terminal raw only once slurmstepd has connected, and the echo of a line
 * typed before that was taken for the step's first byte, so the size went
 * to srun while it still waited in accept(2); 25.11's thread then waits
 * for the next SIGWINCH and the session kept 24x80. Attach to a tty:
 * true container (x->ctl): stdin is a pipe to the helper, which holds the
 * container's pty, and channel 0 and the resizes go
 * to it framed (a byte 0 or 4, a 4-byte big-endian length, the bytes; a
 * resize is columns and rows, 2 bytes each). When the
 * client goes, the limits pass or slurmlinkd stops, the step's process
 * group gets SIGTERM, then SIGKILL. The helper's status file is removed
 * however the session ends. A client's message longer than
 * exec.max_message_bytes is never gathered: wslay stops at the bound and
 * closes with 1009 (message too big), which ends the session; stdin bytes
 * waiting for the step stop the reading of the client, so what a session
 * holds is bounded by one message.
 */
#include "api/http/exec.h"
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"

#include "common/buf.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "kube/status.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <wslay/wslay.h>

#define READ_CHUNK 32768
#define MAX_QUEUED 64      /* messages waiting for the socket: stop reading the step */
#define KILL_GRACE_MS 3000 /* SIGTERM, then SIGKILL */
#define DRAIN_MS 30000     /* the last frames' time to leave */

typedef struct sess {
    api_exec_t *x;
    wslay_event_context_ptr ctx;
    pid_t pid;
    int in_fd;          /* the step's stdin (tty: the master) or -1 */
    int out_fd, err_fd; /* its stdout (tty: a dup of the master), stderr, or -1 */
    sl_buf_t pending;   /* stdin bytes not yet written */
    sl_buf_t demux;     /* framed (attach): stdout bytes not yet a whole frame */
    size_t pending_off;
    bool close_stdin; /* v5 close on channel 0: after pending */
    bool started;     /* the step has written a byte (so srun can pass a resize on) */
    bool win_waiting; /* tty: a size waits for the first byte */
    struct winsize win;
    bool sock_dead;
    bool too_big; /* wslay closed it: a message over exec.max_message_bytes */
    bool reaped;
    int wstatus;
    http_up_clock_t clock; /* exec.idle_timeout, exec.max_duration */
    const char *limit;    /* which limit ended it (limit_msg), or NULL */
    char limit_msg[128];
} sess_t;

/* ---- the step ---- */

static void child_exec(api_exec_t *x, int fd_in, int fd_out, int fd_err)
{
    setsid();
    if (x->tty)
        ioctl(fd_in, TIOCSCTTY, 0);
    if (dup2(fd_in, 0) < 0 || dup2(fd_out, 1) < 0 || dup2(fd_err, 2) < 0)
        _exit(126);
    syscall(SYS_close_range, 3, ~0U, 0);
    if (chdir(x->pod_dir) < 0 || syscall(SYS_setgroups, x->ngroups, x->groups) < 0 ||
        syscall(SYS_setresgid, x->gid, x->gid, x->gid) < 0 ||
        syscall(SYS_setresuid, x->uid, x->uid, x->uid) < 0)
        _exit(126);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    execvpe(x->argv[0], x->argv, x->envp);
    _exit(127);
}

/* pipes (or a pty) and the fork; -1 when it cannot start */
static int start_step(sess_t *s)
{
    api_exec_t *x = s->x;
    int cin[2] = {-1, -1}, cout[2] = {-1, -1}, cerr[2] = {-1, -1};
    if (x->tty) {
        struct winsize ws = {.ws_row = 24, .ws_col = 80};
        struct termios raw;
        if (openpty(&cin[1], &cin[0], NULL, NULL, &ws) < 0)
            return -1;
        if (tcgetattr(cin[0], &raw) == 0) { /* no echo before srun's own raw mode */
            cfmakeraw(&raw);
            tcsetattr(cin[0], TCSANOW, &raw);
        }
        cout[0] = dup(cin[1]);
        cout[1] = cerr[1] = cin[0];
    } else if (pipe2(cin, O_CLOEXEC) < 0 || pipe2(cout, O_CLOEXEC) < 0 ||
               pipe2(cerr, O_CLOEXEC) < 0) {
        return -1;
    }
    s->pid = fork();
    if (s->pid == 0)
        child_exec(x, cin[0], cout[1], cerr[1]);
    close(cin[0]);
    if (!x->tty) {
        close(cout[1]);
        close(cerr[1]);
    }
    s->in_fd = cin[1];
    s->out_fd = cout[0];
    s->err_fd = x->tty ? -1 : cerr[0];
    if (!x->in && !x->tty) {
        close(s->in_fd);
        s->in_fd = -1;
    }
    for (int *fd = &s->in_fd; fd <= &s->err_fd; fd++)
        if (*fd >= 0)
            fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) | O_NONBLOCK);
    return s->pid > 0 ? 0 : -1;
}

static void reap(sess_t *s, bool block)
{
    if (s->reaped || s->pid <= 0)
        return;
    if (waitpid(s->pid, &s->wstatus, block ? 0 : WNOHANG) == s->pid)
        s->reaped = true;
}

static void stop_step(sess_t *s)
{
    if (s->reaped || s->pid <= 0)
        return;
    kill(-s->pid, SIGTERM);
    long long end = sl_now_ms() + KILL_GRACE_MS;
    while (!s->reaped && sl_now_ms() < end) {
        reap(s, false);
        if (!s->reaped)
            sl_sleep_ms(20);
    }
    if (!s->reaped) {
        kill(-s->pid, SIGKILL);
        reap(s, true);
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ---- the WebSocket ---- */

static ssize_t ws_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *user)
{
    sess_t *s = user;
    ssize_t n = http_up_recv(s->x->up, buf, len);
    if (n > 0) {
        http_up_clock_touch(&s->clock);
        return n;
    }
    if (n < 0 && errno == EAGAIN) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    s->sock_dead = true;
    wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    return -1;
}

/* A frame's last bytes (no WSLAY_MSG_MORE) end a TLS record: one message a
 * record. The Python client (websocket-client) waits in select(2) on the
 * socket between messages, so a second message in a record it has read
 * would wait in its TLS buffer for the next bytes to come. */
static ssize_t ws_send(wslay_event_context_ptr ctx, const uint8_t *data, size_t len, int flags,
                       void *user)
{
    sess_t *s = user;
    ssize_t n = http_up_send(s->x->up, data, len);
    if (n == (ssize_t)len && !(flags & WSLAY_MSG_MORE))
        http_up_flush(s->x->up); /* a failure shows at the next pump */
    if (n >= 0)
        return n;
    if (errno == EAGAIN) {
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
        return -1;
    }
    s->sock_dead = true;
    wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    return -1;
}

/* a frame for the attach helper's stdin (x->ctl) */
static void ctl_frame(sess_t *s, uint8_t type, const void *data, size_t len)
{
    unsigned char h[5] = {type, (unsigned char)(len >> 24), (unsigned char)(len >> 16),
                          (unsigned char)(len >> 8), (unsigned char)len};
    sl_buf_append(&s->pending, (const char *)h, sizeof(h));
    sl_buf_append(&s->pending, data, len);
}

/* the step's pty gets the size now if srun can pass it on, else later */
static void set_size(sess_t *s)
{
    s->win_waiting = !s->started;
    if (s->started && s->in_fd >= 0)
        ioctl(s->in_fd, TIOCSWINSZ, &s->win);
}

static void resize(sess_t *s, const uint8_t *data, size_t len)
{
    json_t *o = json_loadb((const char *)data, len, 0, NULL);
    json_t *w = json_object_get(o, "Width"), *h = json_object_get(o, "Height");
    json_int_t wv = json_integer_value(w), hv = json_integer_value(h);
    if (json_is_integer(w) && json_is_integer(h) && wv > 0 && wv < 65536 && hv > 0 && hv < 65536) {
        s->win = (struct winsize){.ws_row = (unsigned short)hv, .ws_col = (unsigned short)wv};
        if (s->x->tty)
            set_size(s);
        else if (s->x->ctl && s->in_fd >= 0 && !s->close_stdin) {
            unsigned char b[4] = {(unsigned char)(wv >> 8), (unsigned char)wv,
                                  (unsigned char)(hv >> 8), (unsigned char)hv};
            ctl_frame(s, 4, b, sizeof(b));
        }
    }
    json_decref(o);
}

static void ws_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *arg,
                   void *user)
{
    sess_t *s = user;
    if (arg->opcode != WSLAY_BINARY_FRAME && arg->opcode != WSLAY_TEXT_FRAME)
        return;
    if (arg->msg_length < 1)
        return;
    uint8_t ch = arg->msg[0];
    const uint8_t *d = arg->msg + 1;
    size_t n = arg->msg_length - 1;
    if (ch == 0 && s->x->ctl && s->in_fd >= 0 && !s->close_stdin)
        ctl_frame(s, 0, d, n);
    else if (ch == 0 && s->x->in && s->in_fd >= 0 && !s->close_stdin)
        sl_buf_append(&s->pending, (const char *)d, n);
    else if (ch == 4)
        resize(s, d, n);
    else if (ch == 255 && s->x->version >= 5 && n >= 1 && d[0] == 0)
        s->close_stdin = true;
}

static void queue(sess_t *s, uint8_t ch, const char *data, size_t len)
{
    uint8_t *m = sl_xmalloc(len + 1);
    m[0] = ch;
    memcpy(m + 1, data, len);
    struct wslay_event_msg msg = {WSLAY_BINARY_FRAME, m, len + 1};
    wslay_event_queue_msg(s->ctx, &msg); /* copies */
    free(m);
}

/* ---- the end ---- */

/* what the helper wrote to the pod folder (the kubelet's error), or NULL */
static char *helper_status(api_exec_t *x)
{
    int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dir = root >= 0 ? sl_safefs_opendir(root, x->pod_dir + 1) : -1;
    if (root >= 0)
        close(root);
    if (dir < 0)
        return NULL;
    char *text = NULL;
    int fd = sl_safefs_open_read(dir, x->status_name, x->uid, NULL);
    if (fd >= 0) {
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n > 0)
            text = sl_xasprintf("%.*s", (int)n, buf);
        close(fd);
        unlinkat(dir, x->status_name, 0);
    }
    close(dir);
    return text;
}

/* the error channel's Status, as the kubelet writes it */
static json_t *final_status(sess_t *s)
{
    char *why = helper_status(s->x);
    int code = !s->reaped                ? 1
               : WIFEXITED(s->wstatus)   ? WEXITSTATUS(s->wstatus)
               : WIFSIGNALED(s->wstatus) ? 128 + WTERMSIG(s->wstatus)
                                         : 1;
    if (why && !strncmp(why, "exit ", 5)) {
        code = atoi(why + 5);
        free(why);
        why = NULL;
    } else if (why && !strncmp(why, "error: ", 7)) {
        memmove(why, why + 7, strlen(why + 7) + 1);
    }
    json_t *st;
    if (why) {
        char *m = sl_xasprintf("error executing command in container: %s", why);
        st = sl_kube_status_internal(m);
        free(m);
    } else if (s->limit) {
        st = json_pack("{s:{},s:s,s:s,s:s}", "metadata", "status", "Failure", "reason", "Timeout",
                       "message", s->limit);
    } else {
        if (code == 0)
            st = json_pack("{s:{},s:s}", "metadata", "status", "Success");
        else {
            char *m =
                sl_xasprintf("command terminated with non-zero exit code: exit status %d", code);
            char *c = sl_xasprintf("%d", code);
            st = json_pack("{s:{},s:s,s:s,s:s,s:{s:[{s:s,s:s}]}}", "metadata", "status", "Failure",
                           "message", m, "reason", "NonZeroExitCode", "details", "causes", "reason",
                           "ExitCode", "message", c);
            free(m);
            free(c);
        }
    }
    free(why);
    return st;
}

static void send_status_and_close(sess_t *s)
{
    json_t *st = final_status(s);
    char *text = json_dumps(st, JSON_COMPACT);
    json_decref(st);
    if (text)
        queue(s, 3, text, strlen(text));
    free(text);
    long long end = sl_now_ms() + DRAIN_MS;
    http_up_t *up = s->x->up;
    /* wslay sends control frames before queued messages: the close only
     * once the Status has left */
    while (!s->sock_dead && wslay_event_get_queued_msg_count(s->ctx) > 0 && sl_now_ms() < end) {
        struct pollfd p = {.fd = http_up_fd(up), .events = http_up_events(up, s->ctx)};
        if (poll(&p, 1, http_up_timeout(up, 100)) >= 0 && !http_up_pump(up, s->ctx, p.revents, true))
            s->sock_dead = true;
    }
    wslay_event_queue_close(s->ctx, WSLAY_CODE_NORMAL_CLOSURE, NULL, 0);
    /* until the client's close frame answers ours (or it hangs up): the
     * last frames must leave before the connection is closed */
    while (
        !s->sock_dead &&
        (wslay_event_want_write(s->ctx) || wslay_event_want_read(s->ctx) || http_up_pending(up)) &&
        sl_now_ms() < end) {
        struct pollfd p = {.fd = http_up_fd(up), .events = http_up_events(up, s->ctx)};
        if (poll(&p, 1, http_up_timeout(up, 100)) < 0 || !http_up_pump(up, s->ctx, p.revents, true))
            break;
    }
}

/* ---- the loop ---- */

/* attach's helper frames both streams on its stdout (a byte 1 or 2, a
 * 4-byte big-endian length, the bytes): srun's own stderr (a cancelled
 * step's notice) then stays out of the client's stderr */
static void demux(sess_t *s, const char *buf, size_t n)
{
    sl_buf_append(&s->demux, buf, n);
    size_t off = 0;
    while (s->demux.len - off >= 5) {
        const unsigned char *h = (const unsigned char *)s->demux.data + off;
        size_t len = ((size_t)h[1] << 24) | ((size_t)h[2] << 16) | ((size_t)h[3] << 8) | h[4];
        if (s->demux.len - off - 5 < len)
            break;
        uint8_t ch = h[0] == 2 ? 2 : 1;
        if (ch == 1 ? s->x->out : s->x->err)
            queue(s, ch, (const char *)h + 5, len);
        off += 5 + len;
    }
    memmove(s->demux.data, s->demux.data + off, s->demux.len - off);
    s->demux.len -= off;
}

static void read_step(sess_t *s, int *fd, uint8_t ch)
{
    char buf[READ_CHUNK];
    ssize_t n = read(*fd, buf, sizeof(buf));
    if (n > 0) {
        http_up_clock_touch(&s->clock);
        s->started = true;
        if (s->win_waiting) /* slurmstepd is connected to srun: the size waited for this */
            set_size(s);
        bool wanted = ch == 1 ? s->x->out : s->x->err;
        if (s->x->framed && ch == 1)
            demux(s, buf, (size_t)n);
        else if (s->x->framed) {
            const char *nl = memchr(buf, '\n', (size_t)n);
            sl_info("attach: srun says: %.*s", (int)(nl ? nl - buf : n), buf);
        } else if (wanted)
            queue(s, ch, buf, (size_t)n);
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        /* EOF; EIO on a pty master once the step is gone */
        if (*fd == s->in_fd)
            s->in_fd = -1;
        close_fd(fd);
    }
}

static void write_stdin(sess_t *s)
{
    if (s->in_fd < 0) {
        sl_buf_reset(&s->pending);
        s->pending_off = 0;
        return;
    }
    while (s->pending_off < s->pending.len) {
        ssize_t n =
            write(s->in_fd, s->pending.data + s->pending_off, s->pending.len - s->pending_off);
        if (n <= 0)
            break;
        s->pending_off += (size_t)n;
    }
    if (s->pending_off == s->pending.len) {
        sl_buf_reset(&s->pending);
        s->pending_off = 0;
        if (s->close_stdin && !s->x->tty && s->in_fd >= 0)
            close_fd(&s->in_fd);
        else if (s->close_stdin && s->x->tty) {
            ssize_t w = write(s->in_fd, "\004", 1); /* EOF at the terminal */
            (void)w;
            s->close_stdin = false;
        }
    }
}

/* the time limits (port-forward's too): why the session ends now, or NULL */
static const char *limit_hit(sess_t *s)
{
    const char *why = http_up_clock_expired(&s->clock);
    if (!why)
        return NULL;
    snprintf(s->limit_msg, sizeof(s->limit_msg), "exec session ended: %s", why);
    return s->limit_msg;
}

/* one round of poll; false when the session is over */
static bool pump(sess_t *s)
{
    api_exec_t *x = s->x;
    struct pollfd p[4];
    int n = 0;
    bool busy = s->pending.len > s->pending_off;
    short ev = http_up_events(x->up, s->ctx);
    if (busy)
        ev &= ~POLLIN; /* the step's stdin first */
    p[n++] = (struct pollfd){.fd = http_up_fd(x->up), .events = ev};
    int out_i = -1, err_i = -1, in_i = -1;
    bool room = wslay_event_get_queued_msg_count(s->ctx) < MAX_QUEUED;
    if (s->out_fd >= 0 && room)
        p[out_i = n++] = (struct pollfd){.fd = s->out_fd, .events = POLLIN};
    if (s->err_fd >= 0 && room)
        p[err_i = n++] = (struct pollfd){.fd = s->err_fd, .events = POLLIN};
    if (busy && s->in_fd >= 0)
        p[in_i = n++] = (struct pollfd){.fd = s->in_fd, .events = POLLOUT};
    int ready = poll(p, (nfds_t)n, busy ? 200 : http_up_timeout(x->up, 200));
    if (ready < 0 && errno != EINTR)
        return false;
    if (!http_up_pump(x->up, s->ctx, ready > 0 ? p[0].revents : 0, !busy))
        s->sock_dead = true;
    if (!wslay_event_get_read_enabled(s->ctx) && http_up_ws_too_big(s->ctx))
        s->too_big = true;
    else if (!wslay_event_get_read_enabled(s->ctx))
        s->sock_dead = true; /* the client closed */
    if (out_i >= 0 && p[out_i].revents)
        read_step(s, &s->out_fd, 1);
    if (err_i >= 0 && p[err_i].revents)
        read_step(s, &s->err_fd, 2);
    if (in_i >= 0 || s->pending.len || s->close_stdin)
        write_stdin(s);
    reap(s, false);
    return !s->sock_dead && !s->too_big && !atomic_load(&x->api->stopping) &&
           !(s->limit = limit_hit(s)) && !(s->reaped && s->out_fd < 0 && s->err_fd < 0);
}

static void session(sess_t *s)
{
    api_exec_t *x = s->x;
    while (pump(s))
        ;
    bool finished = s->reaped && s->out_fd < 0 && s->err_fd < 0;
    if (!finished)
        stop_step(s);
    if (s->too_big)
        http_up_ws_drain(x->up, s->ctx); /* the close (1009) */
    if (!s->sock_dead && !s->too_big && (finished || s->limit))
        send_status_and_close(s);
    else
        free(helper_status(x)); /* no one to tell: the file goes all the same */
    sl_info("exec ended (%s): %s",
            finished       ? "the command exited"
            : s->too_big   ? "a message over exec.max_message_bytes, closed with 1009"
            : s->limit     ? s->limit
            : s->sock_dead ? "the client went"
                           : "slurmlinkd stops",
            x->desc);
}

static void sess_free(sess_t *s)
{
    close_fd(&s->in_fd);
    close_fd(&s->out_fd);
    close_fd(&s->err_fd);
    if (s->ctx)
        wslay_event_context_free(s->ctx);
    sl_buf_free(&s->pending);
    sl_buf_free(&s->demux);
    free(s);
}

/* the server's WebSocket, bounded to exec.max_message_bytes a message */
static int ws_init(sess_t *s, const struct wslay_event_callbacks *cb)
{
    if (wslay_event_context_server_init(&s->ctx, cb, s) != 0)
        return -1;
    wslay_event_config_set_max_recv_msg_length(s->ctx, s->x->api->exec_max_message);
    return 0;
}

void api_exec_session_run(api_exec_t *x)
{
    sess_t *s = sl_xcalloc(1, sizeof(*s));
    s->x = x;
    s->in_fd = s->out_fd = s->err_fd = -1;
    http_up_clock_start(&s->clock, x->idle_s, x->max_s);
    struct wslay_event_callbacks cb = {ws_recv, ws_send, NULL, NULL, NULL, NULL, ws_msg};
    atomic_fetch_add(&x->api->exec_sessions, 1);
    if (ws_init(s, &cb) != 0)
        s->ctx = NULL;
    else if (start_step(s) < 0)
        sl_err("exec: cannot start the step: %s (%s)", strerror(errno), x->desc);
    else
        session(s);
    sess_free(s);
    http_up_close(x->up);
    x->up = NULL;
    atomic_fetch_sub(&x->api->exec_sessions, 1);
    api_exec_free(x);
}

void api_exec_drain(sl_api_t *api)
{
    while (atomic_load(&api->exec_sessions) > 0)
        sl_sleep_ms(20);
}
