/* agent.c — slurmlink-mpi-rsh: the rsh agent of an MPIJob Launcher in a
 * container (OMPI_MCA_plm_rsh_agent, Hydra's bootstrap exec).
 *
 *     slurmlink-mpi-rsh [ssh options] HOST COMMAND...
 *
 * mpirun calls it as it would call ssh, to start its daemon on HOST, a
 * Worker's name in /etc/mpi/hostfile. It runs in the Launcher's container,
 * where neither Slurm nor the Workers are, so it hands the request, with
 * its own stdin, stdout and stderr, to `slurmlink-shim mpi-serve` through
 * the socket the container sees at /etc/mpi/rsh.sock (proto.h), and exits
 * with the command's status. The server runs COMMAND in that Worker's
 * container through a step of the Launcher's own Slurm job (docs/jobs.md,
 * MPIJob). Linked statically: the container's libc is the image's.
 * ssh's options are accepted and ignored (`-x`, `-o Opt=V`, `-p N` ...).
 *
 *     slurmlink-mpi-rsh --wait
 *
 * is a Worker's command where mpi-operator's runs sshd (`sshd -De`): it
 * keeps the Worker's container up, as sshd would, until the Launcher has
 * ended and the job's end signals it (SIGTERM, SIGINT, SIGHUP), then exits
 * 0; mpirun's daemons meanwhile run in that container through the agent. */
#include "mpirsh/proto.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define CONNECT_TRIES 300 /* 100 ms apart: the server starts beside the Launcher */

/* ssh's options that take an argument (ssh(1)) */
static int takes_arg(const char *opt)
{
    return opt[1] && !opt[2] && strchr("BbcDEeFIiJLlmOopQRSWw", opt[1]);
}

static int dial(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "slurmlink-mpi-rsh: socket path too long: %s\n", path);
        return -1;
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    for (int i = 0; i < CONNECT_TRIES; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
            return fd;
        int e = errno;
        close(fd);
        if (e != ENOENT && e != ECONNREFUSED) {
            errno = e;
            break;
        }
        nanosleep(&(struct timespec){0, 100000000L}, NULL);
    }
    fprintf(stderr, "slurmlink-mpi-rsh: cannot reach slurmlink at %s: %s\n", path, strerror(errno));
    return -1;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* the length with the three descriptors, then the words */
static int request(int fd, char **words, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += strlen(words[i]) + 1;
    if (len > SL_MPIRSH_MAX) {
        fprintf(stderr, "slurmlink-mpi-rsh: command too long\n");
        return -1;
    }
    uint32_t l = (uint32_t)len;
    int fds[3] = {0, 1, 2};
    union {
        char buf[CMSG_SPACE(sizeof(fds))];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof(u));
    struct iovec iov = {.iov_base = &l, .iov_len = sizeof(l)};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(fds));
    memcpy(CMSG_DATA(c), fds, sizeof(fds));
    if (sendmsg(fd, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(l))
        return -1;
    for (int i = 0; i < n; i++)
        if (send_all(fd, words[i], strlen(words[i]) + 1) < 0)
            return -1;
    return 0;
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
    (void)sig;
    stop = 1;
}

/* --wait: until SIGTERM, SIGINT or SIGHUP; 0 */
static int wait_for_end(void)
{
    struct sigaction sa = {.sa_handler = on_stop};
    sigset_t block, old;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&block);
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        sigaddset(&block, sigs[i]);
        sigaction(sigs[i], &sa, NULL);
    }
    sigprocmask(SIG_BLOCK, &block, &old); /* no signal lost between the test and the wait */
    while (!stop)
        sigsuspend(&old);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], SL_MPIRSH_WAIT))
        return wait_for_end();
    int i = 1;
    while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"))
        i += takes_arg(argv[i]) ? 2 : 1;
    if (i < argc && !strcmp(argv[i], "--"))
        i++;
    if (argc - i < 2) {
        fprintf(stderr, "usage: slurmlink-mpi-rsh [ssh options] HOST COMMAND...\n");
        return SL_MPIRSH_FAILED;
    }
    signal(SIGPIPE, SIG_IGN);
    const char *path = getenv(SL_MPIRSH_SOCKET_ENV);
    int fd = dial(path && *path ? path : SL_MPIRSH_SOCKET);
    if (fd < 0)
        return SL_MPIRSH_FAILED;
    if (request(fd, argv + i, argc - i) < 0) {
        fprintf(stderr, "slurmlink-mpi-rsh: cannot send the request: %s\n", strerror(errno));
        return SL_MPIRSH_FAILED;
    }
    uint32_t st = 0;
    size_t got = 0;
    while (got < sizeof(st)) {
        ssize_t r = recv(fd, (char *)&st + got, sizeof(st) - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return SL_MPIRSH_FAILED;
        got += (size_t)r;
    }
    return st > 255 ? SL_MPIRSH_FAILED : (int)st;
}
