/* attach.c — `slurmlink-shim attach`: kubectl attach's helper on the pod's node.
 *
 *     slurmlink-shim attach --pod-dir DIR --container C --status exec-HEX.status
 *                           [--merge] [--stdin-asked]
 *
 * Started like the exec helper (srun --overlap --jobid J, as the pod's
 * user). The shim keeps no terminal or stdin of a running container (its
 * output goes to pipes it writes into the CRI log), so attach follows the
 * container's log from its end: every line this run of the container
 * appends goes to stdout or stderr as it was written (--merge:
 * all to stdout, for a tty), framed on stdout (a byte 1 or 2, a 4-byte
 * big-endian length, the bytes) so that slurmlinkd keeps srun's own
 * messages apart. It ends, as kubelet's attach does when the container
 * exits, once status.json says this run of the container is over
 * (terminated, waiting to restart, or restarted) and its log has no more
 * bytes, when a newer run's log appears, when the shim is gone, or at
 * SIGTERM (the job ended: the step is cancelled), after a last read.
 * --stdin (the container's spec has stdin: true): what comes on stdin goes
 * to the fifo the shim holds for the container (DIR/stdin-C.fifo, see
 * pod.c); at its end this attach's end of the fifo is closed, and with
 * stdinOnce the shim has let go of its own (a mark and SIGUSR1), so the
 * container reads the end of its input.
 * --stdin-asked (a container without stdin: true): say first, on stderr,
 * that its stdin is not open.
 * --tty (a container with tty: true): the container's terminal is the pty
 * the shim holds (tty.c), whose master the helper asks the shim for. Its
 * stdin then carries frames from slurmlinkd (a byte 0 or 4, a 4-byte
 * big-endian length, the bytes): 0 is the client's input, written to the
 * master (with --stdin), 4 a resize (columns and rows, 2 bytes each, big
 * endian), set on the master with TIOCSWINSZ, again on a restart's new
 * pty. Lines go out ending "\r\n", as the terminal wrote them.
 */
#include "shim.h"

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define POLL_MS 50

/* SIGTERM: the step is being cancelled (the job ended): a last read, then out */
static volatile sig_atomic_t stopping;
static void on_term(int sig) { stopping = sig; }

typedef struct follow {
    const char *dir, *name;
    bool merge;
    int fd;        /* the log being followed, or -1 */
    long restart;  /* its number */
    sl_buf_t line; /* an incomplete line */
    int in;        /* the container's stdin fifo while ours lasts, or -1 */
    bool tty;      /* --tty: stdin is slurmlinkd's frames, for the pty */
    bool with_stdin;
    int pty;            /* --tty: the master of the container's pty, or -1 */
    sl_buf_t ctl;       /* --tty: stdin bytes not yet a whole frame */
    bool ctl_eof;       /* --tty: slurmlinkd's input has ended */
    struct winsize win; /* --tty: the client's last size (0: none yet) */
} follow_t;

/* the highest N of DIR/logs/C/N.log, -1 when none */
static long newest_log(const follow_t *f)
{
    char *path = sl_xasprintf("%s/logs/%s", f->dir, f->name);
    DIR *d = opendir(path);
    free(path);
    long best = -1;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *end;
        long n = strtol(e->d_name, &end, 10);
        if (end != e->d_name && !strcmp(end, ".log") && n > best)
            best = n;
    }
    if (d)
        closedir(d);
    return best;
}

static void open_log(follow_t *f, long n, bool at_end)
{
    if (f->fd >= 0)
        close(f->fd);
    char *path = sl_xasprintf("%s/logs/%s/%ld.log", f->dir, f->name, n);
    f->fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    free(path);
    f->restart = n;
    sl_buf_reset(&f->line);
    if (f->fd >= 0 && at_end)
        lseek(f->fd, 0, SEEK_END);
}

/* one CRI line "TIME STREAM P|F TEXT" to stdout or stderr */
static void emit(const follow_t *f, const char *l, size_t n)
{
    const char *s1 = memchr(l, ' ', n);
    const char *s2 = s1 ? memchr(s1 + 1, ' ', n - (size_t)(s1 + 1 - l)) : NULL;
    const char *s3 = s2 ? memchr(s2 + 1, ' ', n - (size_t)(s2 + 1 - l)) : NULL;
    if (!s3)
        return;
    unsigned char stream = !f->merge && !strncmp(s1 + 1, "stderr ", 7) ? 2 : 1;
    bool full = s2[1] == 'F';
    const char *text = s3 + 1;
    size_t eol = full ? (f->tty ? 2 : 1) : 0; /* a terminal's lines end "\r\n" */
    size_t len = n - (size_t)(text - l) + eol;
    /* one frame on stdout: the stream, a 4-byte big-endian length, the bytes */
    unsigned char *fr = sl_xmalloc(len + 5);
    fr[0] = stream;
    fr[1] = (unsigned char)(len >> 24);
    fr[2] = (unsigned char)(len >> 16);
    fr[3] = (unsigned char)(len >> 8);
    fr[4] = (unsigned char)len;
    memcpy(fr + 5, text, len - eol);
    if (eol == 2)
        fr[3 + len] = '\r';
    if (eol)
        fr[4 + len] = '\n';
    for (size_t off = 0; off < len + 5;) {
        ssize_t w = write(1, fr + off, len + 5 - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    free(fr);
}

/* what the log has gained; 1 when any byte came */
static int pump_log(follow_t *f)
{
    char buf[16384];
    ssize_t n;
    int got = 0;
    while (f->fd >= 0 && (n = read(f->fd, buf, sizeof(buf))) > 0) {
        got = 1;
        sl_buf_append(&f->line, buf, (size_t)n);
        char *start = f->line.data, *nl;
        size_t left = f->line.len;
        while ((nl = memchr(start, '\n', left))) {
            emit(f, start, (size_t)(nl - start));
            left -= (size_t)(nl + 1 - start);
            start = nl + 1;
        }
        memmove(f->line.data, start, left);
        f->line.len = left;
    }
    return got;
}

/* has the run being followed ended (or the shim gone)? The container's
 * status says terminated, waiting (to restart), or a later restart count */
static bool ended(const follow_t *f)
{
    char *path = sl_xasprintf("%s/status.json", f->dir);
    json_t *st = json_load_file(path, 0, NULL);
    free(path);
    if (!st)
        return false;
    json_int_t pid = json_integer_value(json_object_get(st, "shimPid"));
    bool over = pid > 0 && !sl_pid_alive((pid_t)pid);
    size_t i;
    json_t *cs;
    json_array_foreach(json_object_get(st, "containerStatuses"), i, cs)
    {
        const char *n = json_string_value(json_object_get(cs, "name"));
        json_t *state = json_object_get(cs, "state");
        if (!n || strcmp(n, f->name))
            continue;
        json_int_t restarts = json_integer_value(json_object_get(cs, "restartCount"));
        if (json_object_get(state, "terminated") || json_object_get(state, "waiting") ||
            restarts > f->restart)
            over = true;
    }
    json_decref(st);
    return over;
}

/* what has come on our stdin to the container's; at its end, the fifo closed */
static int pump_stdin(follow_t *f)
{
    char buf[16384];
    int got = 0;
    struct pollfd p = {.fd = 0, .events = POLLIN};
    while (f->in >= 0 && poll(&p, 1, 0) > 0) {
        ssize_t n = read(0, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        for (ssize_t off = 0; n > 0 && off < n;) {
            ssize_t w = write(f->in, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR && !stopping)
                continue; /* at SIGTERM, not blocked by a container that reads no more */
            if (w <= 0) {
                n = 0; /* the container has closed its stdin */
                break;
            }
            off += w;
        }
        if (n <= 0) {
            close(f->in);
            f->in = -1;
            break;
        }
        got = 1;
        break; /* one read at a time: the log is pumped in between */
    }
    return got;
}

/* --tty: the running pty's master (asked of the shim when there is none),
 * with the client's size; -1 when the container has none now */
static int tty_master(follow_t *f)
{
    if (f->pty < 0 && (f->pty = shim_tty_fetch(f->dir, f->name)) >= 0 && f->win.ws_col)
        ioctl(f->pty, TIOCSWINSZ, &f->win);
    return f->pty;
}

/* --tty: the client's keys to the master, all of them (a container that
 * reads no more holds us here until SIGTERM, as a full fifo does) */
static void tty_write(follow_t *f, const char *p, size_t n)
{
    for (size_t off = 0; off < n && tty_master(f) >= 0;) {
        ssize_t w = write(f->pty, p + off, n - off);
        if (w < 0 && errno == EINTR && !stopping)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

/* --tty: the whole frames slurmlinkd has sent: input and resizes */
static void tty_frames(follow_t *f)
{
    size_t off = 0;
    while (f->ctl.len - off >= 5) {
        const unsigned char *h = (const unsigned char *)f->ctl.data + off;
        size_t len = ((size_t)h[1] << 24) | ((size_t)h[2] << 16) | ((size_t)h[3] << 8) | h[4];
        if (f->ctl.len - off - 5 < len)
            break;
        if (h[0] == 0 && f->with_stdin)
            tty_write(f, (const char *)h + 5, len);
        else if (h[0] == 4 && len == 4) {
            f->win.ws_col = (unsigned short)(h[5] << 8 | h[6]);
            f->win.ws_row = (unsigned short)(h[7] << 8 | h[8]);
            if (tty_master(f) >= 0) /* the kernel signals the foreground group: SIGWINCH */
                ioctl(f->pty, TIOCSWINSZ, &f->win);
        }
        off += 5 + len;
    }
    memmove(f->ctl.data, f->ctl.data + off, f->ctl.len - off);
    f->ctl.len -= off;
}

/* --tty: what has come on stdin; 1 when any byte came */
static int pump_ctl(follow_t *f)
{
    char buf[16384];
    struct pollfd p = {.fd = 0, .events = POLLIN};
    if (f->ctl_eof || poll(&p, 1, 0) <= 0)
        return 0;
    ssize_t n = read(0, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0) {
        f->ctl_eof = true;
        return 0;
    }
    sl_buf_append(&f->ctl, buf, (size_t)n);
    tty_frames(f);
    return 1;
}

/* the container's stdin fifo for writing, and the shim told (stdinOnce) */
static int open_stdin(follow_t *f)
{
    char *path = sl_xasprintf("%s/stdin-%s.fifo", f->dir, f->name);
    f->in = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    free(path);
    if (f->in < 0)
        return -1;
    fcntl(f->in, F_SETFL, 0);
    char *mark = sl_xasprintf("%s/stdin-%s.attached", f->dir, f->name);
    int m = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    free(mark);
    if (m >= 0)
        close(m);
    char *st = sl_xasprintf("%s/status.json", f->dir);
    json_t *j = json_load_file(st, 0, NULL);
    free(st);
    json_int_t pid = json_integer_value(json_object_get(j, "shimPid"));
    json_decref(j);
    if (pid > 0)
        kill((pid_t)pid, SIGUSR1);
    return 0;
}

static int follow(follow_t *f)
{
    open_log(f, newest_log(f), true);
    for (;;) {
        int got = pump_log(f) | (f->tty ? pump_ctl(f) : pump_stdin(f));
        /* the run attached to is over once another has begun, as kubelet
         * ends an attach when its container exits */
        bool restarted = newest_log(f) > f->restart;
        if (stopping || restarted || (!got && ended(f) && !pump_log(f))) {
            pump_log(f);
            return 0;
        }
        if (!got)
            sl_sleep_ms(POLL_MS);
    }
}

int shim_attach_main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"pod-dir", required_argument, 0, 'd'}, {"container", required_argument, 0, 'c'},
        {"status", required_argument, 0, 's'},  {"merge", no_argument, 0, 'm'},
        {"stdin-asked", no_argument, 0, 'i'},   {"stdin", no_argument, 0, 'I'},
        {"tty", no_argument, 0, 't'},           {0, 0, 0, 0}};
    follow_t f = {.fd = -1, .line = SL_BUF_INIT, .in = -1, .pty = -1, .ctl = SL_BUF_INIT};
    const char *status = NULL;
    bool stdin_asked = false, with_stdin = false;
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "+d:c:s:miIt", lo, NULL)) != -1) {
        switch (o) {
        case 'd': f.dir = optarg; break;
        case 'c': f.name = optarg; break;
        case 's': status = optarg; break;
        case 'm': f.merge = true; break;
        case 'i': stdin_asked = true; break;
        case 'I': with_stdin = true; break;
        case 't': f.tty = true; break;
        default: return 2;
        }
    }
    if (!f.dir || !f.name || optind != argc) {
        fprintf(stderr, "usage: slurmlink-shim attach --pod-dir DIR --container NAME "
                        "[--status exec-HEX.status] [--merge] [--stdin | --stdin-asked] "
                        "[--tty]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = on_term};
    sigaction(SIGTERM, &sa, NULL);
    if (stdin_asked) { /* as a CRI line of the container's stderr would come */
        static const char note[] = "t stderr F slurmlink: attach streams the container's output "
                                   "only: its spec has no stdin: true, so its stdin is not open";
        emit(&f, note, sizeof(note) - 1);
    }
    f.with_stdin = with_stdin;
    if (f.tty)
        tty_master(&f);
    else if (with_stdin && open_stdin(&f) < 0) {
        static const char note[] = "t stderr F slurmlink: the container's stdin is closed";
        emit(&f, note, sizeof(note) - 1);
    }
    int r = follow(&f);
    if (f.fd >= 0)
        close(f.fd);
    if (f.in >= 0)
        close(f.in);
    if (f.pty >= 0)
        close(f.pty);
    sl_buf_free(&f.line);
    sl_buf_free(&f.ctl);
    return shim_exec_status(f.dir, status, "exit 0") ? r : 0;
}
