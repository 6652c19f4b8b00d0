/* mpiserve.c — `slurmlink-shim mpi-serve`: the other end of an MPIJob
 * Launcher's rsh agent (src/mpirsh/agent.c, protocol in src/mpirsh/proto.h).
 *
 *     slurmlink-shim mpi-serve --socket PATH --worker HOST:NODE:CONTAINER:DIR ...
 *
 * The gang's batch script starts it in the batch step, as the job's user,
 * beside the Launcher (src/ctl/gang.c); PATH is in the Launcher's /etc/mpi
 * folder, which its container sees. Each request names a HOST of the
 * hostfile and a command (mpirun's daemon, as it would run it through
 * ssh); the server runs it in that Worker's running container (CONTAINER
 * of the pod folder DIR) on node NODE of the job (its index in the
 * allocation, SLURM_JOB_NODELIST) as kubectl exec runs a command:
 *
 *     srun --jobid=$SLURM_JOB_ID --overlap --nodes=1 --ntasks=1 --nodelist=NAME \
 *          slurmlink-shim exec --pod-dir=DIR --container=CONTAINER --status=... -- /bin/sh -c
 * COMMAND
 *
 * NAME is the NODE-th name of the job's node list: `--relative=NODE` only
 * leaves out the first NODE nodes, and Slurm 25.11 then starts its search
 * at the node after the job's previous step (a step of --relative=0 after
 * one on node 0 ran on node 1); 22.05 and 26.05 start at the offset.
 *
 * with the agent's stdin, stdout and stderr, and answers with its status.
 * Only the Workers given on its command line are reached, only through
 * steps of the job the server runs in, as the user it runs as: nothing a
 * process of the Launcher's container could not do with srun itself. An
 * agent that goes away (mpirun killed it) ends its step. */
#include "shim.h"

#include "common/argv.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "mpirsh/proto.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define KILL_GRACE_MS 3000

typedef struct mpi_worker {
    char *host, *node, *container, *dir;
} mpi_worker_t;

typedef struct mpi_req {
    int fds[3];   /* the agent's stdin, stdout, stderr */
    char **words; /* host, then the command's words */
    size_t n;
} mpi_req_t;

/* HOST:NODE:CONTAINER:DIR (DIR last: it may hold ':') */
static int parse_worker(const char *arg, mpi_worker_t *w)
{
    char *s = sl_xstrdup(arg), *p[3];
    char *at = s;
    for (int i = 0; i < 3; i++) {
        p[i] = at;
        at = strchr(at, ':');
        if (!at) {
            free(s);
            return -1;
        }
        *at++ = '\0';
    }
    *w = (mpi_worker_t){sl_xstrdup(p[0]), sl_xstrdup(p[1]), sl_xstrdup(p[2]), sl_xstrdup(at)};
    free(s);
    return *w->host && *w->node && *w->container && *w->dir == '/' ? 0 : -1;
}

/* the Worker a host names: its pod name, the host's first label
 * (mpi-operator's hostfile: <pod>.<job>-worker.<namespace>.svc) */
static const mpi_worker_t *find_worker(const mpi_worker_t *ws, size_t n, const char *host)
{
    size_t label = strcspn(host, ".");
    for (size_t i = 0; i < n; i++)
        if (strlen(ws[i].host) == label && !strncmp(ws[i].host, host, label))
            return &ws[i];
    return NULL;
}

static int read_all(int fd, char *p, size_t n)
{
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* the length and the three descriptors, then the words */
static int read_request(int fd, mpi_req_t *q)
{
    uint32_t len = 0;
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = &len, .iov_len = sizeof(len)};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    if (recvmsg(fd, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL) != (ssize_t)sizeof(len))
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(3 * sizeof(int)))
        return -1;
    memcpy(q->fds, CMSG_DATA(c), 3 * sizeof(int));
    if (!len || len > SL_MPIRSH_MAX)
        return -1;
    char *body = sl_xmalloc(len + 1);
    if (read_all(fd, body, len) < 0 || body[len - 1]) {
        free(body);
        return -1;
    }
    for (size_t at = 0; at < len; at += strlen(body + at) + 1)
        q->n++;
    q->words = sl_xcalloc(q->n + 1, sizeof(*q->words));
    size_t k = 0;
    for (size_t at = 0; at < len; at += strlen(body + at) + 1)
        q->words[k++] = sl_xstrdup(body + at);
    free(body);
    return q->n >= 2 ? 0 : -1;
}

static int stdio_setup(void *arg)
{
    const int *fds = arg;
    for (int i = 0; i < 3; i++)
        if (dup2(fds[i], i) < 0)
            return 1;
    return 0;
}

/* the name of the Worker's node: the NODE-th of the job's node list */
static char *node_name(const mpi_worker_t *w, sl_error_t *err)
{
    const char *list = getenv("SLURM_JOB_NODELIST");
    char **nodes = list && *list ? sl_slurm_hostlist_expand(list) : NULL;
    char *end = NULL;
    unsigned long k = strtoul(w->node, &end, 10);
    size_t n = 0;
    while (nodes && nodes[n])
        n++;
    char *name = *w->node && !*end && k < n ? sl_xstrdup(nodes[k]) : NULL;
    if (!name)
        sl_errprintf(err, "no node %s in the job's node list (SLURM_JOB_NODELIST %s)", w->node,
                     list ? list : "unset");
    sl_strv_free(nodes);
    return name;
}

/* the step: srun ... slurmlink-shim exec ... -- /bin/sh -c COMMAND */
static pid_t start_step(const mpi_worker_t *w, const mpi_req_t *q, const char *status,
                        sl_error_t *err)
{
    const char *job = getenv("SLURM_JOB_ID");
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (!job || n <= 0) {
        sl_errprintf(err, "not in a Slurm job's batch step");
        return -1;
    }
    self[n] = '\0';
    char *node = node_name(w, err);
    if (!node)
        return -1;
    sl_argv_t a = {0};
    sl_argv_addv(&a, (const char *const[]){"srun", "--overlap", "--nodes=1", "--ntasks=1",
                                           "--quiet", "--unbuffered", NULL});
    sl_argv_addf(&a, "--jobid=%s", job);
    sl_argv_addf(&a, "--nodelist=%s", node);
    free(node);
    sl_argv_addf(&a, "--chdir=%s", w->dir);
    sl_argv_addv(&a, (const char *const[]){self, "exec", NULL});
    sl_argv_addf(&a, "--pod-dir=%s", w->dir);
    sl_argv_addf(&a, "--container=%s", w->container);
    sl_argv_addf(&a, "--status=%s", status);
    sl_argv_addv(&a, (const char *const[]){"--", "/bin/sh", "-c", NULL});
    sl_buf_t line = SL_BUF_INIT; /* the words joined by spaces, as ssh sends them */
    for (size_t i = 1; i < q->n; i++)
        sl_buf_printf(&line, "%s%s", i > 1 ? " " : "", q->words[i]);
    char *cmd = sl_buf_steal(&line);
    sl_argv_add(&a, cmd);
    free(cmd);
    sl_spawn_opts_t o = {.new_session = 1, .child_setup = stdio_setup, .child_arg = (void *)q->fds};
    pid_t pid = sl_spawn((const char *const *)a.v, &o, err);
    sl_argv_free(&a);
    return pid;
}

/* until the step ends; the agent gone (its end of the socket closed): the
 * step's process group ends too (SIGTERM, SIGKILL after a grace) */
static int wait_step(int conn, pid_t pid)
{
    long long killed = 0;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (r < 0 && errno != EINTR)
            return SL_MPIRSH_FAILED;
        struct pollfd p = {.fd = conn, .events = POLLIN};
        if (!killed && poll(&p, 1, 100) > 0) {
            char b;
            if (recv(conn, &b, 1, MSG_DONTWAIT) <= 0) {
                kill(-pid, SIGTERM);
                killed = sl_now_ms();
            }
        } else if (killed) {
            if (sl_now_ms() - killed > KILL_GRACE_MS)
                kill(-pid, SIGKILL);
            poll(NULL, 0, 100);
        }
    }
}

/* how the exec helper said the command ended ("exit N", "error: TEXT") */
static int exec_result(const mpi_worker_t *w, const char *status, int srun_rc, int err_fd)
{
    char *path = sl_xasprintf("%s/%s", w->dir, status);
    size_t len = 0;
    char *text = sl_read_file(path, &len, NULL);
    unlink(path);
    free(path);
    int code = srun_rc ? srun_rc : SL_MPIRSH_FAILED;
    if (text && !strncmp(text, "exit ", 5))
        code = atoi(text + 5);
    else if (text && !strncmp(text, "error: ", 7))
        dprintf(err_fd, "slurmlink-mpi-rsh: %s\n", text + 7);
    free(text);
    return code < 0 || code > 255 ? SL_MPIRSH_FAILED : code;
}

static int serve_one(int conn, const mpi_worker_t *ws, size_t nw)
{
    mpi_req_t q = {.fds = {-1, -1, -1}};
    uint32_t code = SL_MPIRSH_FAILED;
    if (read_request(conn, &q) < 0)
        goto out;
    const mpi_worker_t *w = find_worker(ws, nw, q.words[0]);
    if (!w) {
        dprintf(q.fds[2], "slurmlink-mpi-rsh: %s is not a Worker of this MPIJob\n", q.words[0]);
        goto out;
    }
    uint64_t rnd = 0;
    if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        goto out;
    char status[40];
    snprintf(status, sizeof(status), "exec-%016llx.status", (unsigned long long)rnd);
    sl_error_t err;
    pid_t pid = start_step(w, &q, status, &err);
    if (pid < 0) {
        dprintf(q.fds[2], "slurmlink-mpi-rsh: %s\n", err.text);
        goto out;
    }
    code = (uint32_t)exec_result(w, status, wait_step(conn, pid), q.fds[2]);
out:
    send(conn, &code, sizeof(code), MSG_NOSIGNAL);
    for (int i = 0; i < 3; i++)
        if (q.fds[i] >= 0)
            close(q.fds[i]);
    sl_strv_free(q.words);
    return 0;
}

/* the socket bound in its folder, by its name there: a pod folder's path
 * may be longer than sockaddr_un holds */
static int listen_at(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    char *dir = slash ? sl_xasprintf("%.*s", (int)(slash - path), path) : NULL;
    int fd = -1;
    if (strlen(name) >= sizeof(sa.sun_path) || (dir && *dir && chdir(dir) < 0))
        goto fail;
    memcpy(sa.sun_path, name, strlen(name) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    umask(077);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0)
        goto fail;
    free(dir);
    return fd;
fail:
    fprintf(stderr, "slurmlink-shim mpi-serve: %s: %s\n", path, strerror(errno ? errno : EINVAL));
    if (fd >= 0)
        close(fd);
    free(dir);
    return -1;
}

int shim_mpi_serve_main(int argc, char **argv)
{
    static const struct option lo[] = {
        {"socket", required_argument, 0, 's'}, {"worker", required_argument, 0, 'w'}, {0, 0, 0, 0}};
    const char *path = NULL;
    mpi_worker_t *ws = sl_xcalloc((size_t)argc, sizeof(*ws));
    size_t nw = 0;
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "+s:w:", lo, NULL)) != -1) {
        if (o == 's')
            path = optarg;
        else if (o != 'w' || parse_worker(optarg, &ws[nw++]) < 0) {
            fprintf(stderr, "usage: slurmlink-shim mpi-serve --socket PATH "
                            "--worker HOST:NODE:CONTAINER:DIR...\n");
            return 2;
        }
    }
    int lfd = path ? listen_at(path) : -1;
    if (lfd < 0)
        return 1;
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {.sa_handler = SIG_DFL, .sa_flags = SA_NOCLDWAIT};
    sigaction(SIGCHLD, &sa, NULL); /* the connections' children reap themselves */
    for (;;) {
        int conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return 1;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(lfd);
            struct sigaction dfl = {.sa_handler = SIG_DFL};
            sigaction(SIGCHLD, &dfl, NULL);
            _exit(serve_one(conn, ws, nw));
        }
        close(conn);
    }
}
