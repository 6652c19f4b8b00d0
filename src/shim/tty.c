/* tty.c — a container with `tty: true`: its terminal, and the way an attach
 * reaches it.
 *
 * Each run gets a new pty (openpty(3)): the slave is the container's stdin,
 * stdout and stderr and its controlling terminal (the child is a session
 * leader, as runc makes a container's console), the master is read into the
 * CRI log as stdout (pod.c). kubectl attach's helper (attach.c) runs in
 * another process (a Slurm step), so the shim hands it the master itself:
 * a Unix socket DIR/tty-C.sock (0600, in the pod folder, the pod user's),
 * whose every connection from the shim's own uid (SO_PEERCRED) gets one
 * byte and, while a run is up, its master as SCM_RIGHTS (unix(7)). The
 * helper writes the client's keys to it and sets its size (TIOCSWINSZ,
 * which signals the container's foreground process group with SIGWINCH).
 * The socket's path is reached through /proc/self/fd/N of the pod folder,
 * so that a long pod folder does not overflow sun_path's 108 bytes.
 */
#include "shim.h"

#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* "/proc/self/fd/N/tty-C.sock" for the pod folder dfd; 0, or -1 too long */
static int sock_addr(struct sockaddr_un *a, int dfd, const char *name)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path, sizeof(a->sun_path), "/proc/self/fd/%d/tty-%s.sock", dfd, name);
    return n > 0 && (size_t)n < sizeof(a->sun_path) ? 0 : -1;
}

/* DIR/tty-C.sock listening, or -1 */
static int listen_sock(const char *dir, const char *name)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct sockaddr_un a;
    int s = dfd >= 0 && sock_addr(&a, dfd, name) == 0
                ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)
                : -1;
    if (s >= 0) {
        unlink(a.sun_path);
        mode_t old = umask(077); /* the socket file: 0600 */
        int r = bind(s, (struct sockaddr *)&a, sizeof(a));
        umask(old);
        if (r < 0 || listen(s, 8) < 0) {
            close(s);
            s = -1;
        }
    }
    if (dfd >= 0)
        close(dfd);
    return s;
}

int shim_tty_open(const char *dir, shim_ctr_t *c, int *slave, char *msg, size_t len)
{
    if (c->tty_sock < 0 && (c->tty_sock = listen_sock(dir, c->spec->name)) < 0) {
        snprintf(msg, len, "tty: socket %s/tty-%s.sock: %s", dir, c->spec->name, strerror(errno));
        return -1;
    }
    struct winsize ws = {.ws_row = 24, .ws_col = 80}; /* until an attach sets the client's */
    int m = -1;
    if (openpty(&m, slave, NULL, NULL, &ws) < 0) {
        snprintf(msg, len, "tty: openpty: %s", strerror(errno));
        return -1;
    }
    fcntl(m, F_SETFD, FD_CLOEXEC);
    fcntl(*slave, F_SETFD, FD_CLOEXEC);
    c->pty = m;
    return 0;
}

/* One connection to the socket: a byte, and the master while a run is up. */
void shim_tty_serve(shim_ctr_t *c)
{
    int s;
    while ((s = accept4(c->tty_sock, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        struct ucred cr;
        socklen_t crl = sizeof(cr);
        bool mine = getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &crl) == 0 && cr.uid == getuid();
        char byte = 'T';
        struct iovec io = {&byte, 1};
        union {
            struct cmsghdr h;
            char b[CMSG_SPACE(sizeof(int))];
        } u;
        memset(&u, 0, sizeof(u));
        struct msghdr mh = {.msg_iov = &io, .msg_iovlen = 1};
        if (mine && c->pty >= 0) {
            mh.msg_control = u.b;
            mh.msg_controllen = sizeof(u.b);
            struct cmsghdr *h = CMSG_FIRSTHDR(&mh);
            h->cmsg_level = SOL_SOCKET;
            h->cmsg_type = SCM_RIGHTS;
            h->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(h), &c->pty, sizeof(int));
        }
        if (mine)
            (void)!sendmsg(s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        close(s);
    }
}

int shim_tty_fetch(const char *dir, const char *name)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct sockaddr_un a;
    int s = dfd >= 0 && sock_addr(&a, dfd, name) == 0
                ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)
                : -1;
    int fd = -1;
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0) {
        char byte;
        struct iovec io = {&byte, 1};
        union {
            struct cmsghdr h;
            char b[CMSG_SPACE(sizeof(int))];
        } u;
        struct msghdr mh = {
            .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b)};
        struct cmsghdr *h;
        if (recvmsg(s, &mh, MSG_CMSG_CLOEXEC) > 0 && (h = CMSG_FIRSTHDR(&mh)) &&
            h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
            h->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(h), sizeof(int));
    }
    if (s >= 0)
        close(s);
    if (dfd >= 0)
        close(dfd);
    return fd;
}
