/* child.c — run a client program (sbatch, kubectl) from an argv vector and
 * time each line of its output as it arrives: "pod/x created" is the
 * moment the API answered, not the moment kubectl finished exiting. */
#include "bench/internal.h"

#include "common/buf.h"
#include "common/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* returns 1 once on_line said it has what it waited for */
static int emit_lines(sl_buf_t *b, bench_line_fn on_line, void *arg, long long t, int flush)
{
    size_t start = 0;
    int stop = 0;
    for (size_t i = 0; i < b->len && !stop; i++) {
        if (b->data[i] != '\n')
            continue;
        b->data[i] = '\0';
        if (on_line && on_line(arg, b->data + start, t))
            stop = 1;
        start = i + 1;
    }
    if (flush && !stop && start < b->len) {
        if (on_line && on_line(arg, b->data + start, t))
            stop = 1;
        start = b->len;
    }
    if (start) {
        memmove(b->data, b->data + start, b->len - start);
        b->len -= start;
        b->data[b->len] = '\0';
    }
    return stop;
}

/* the child: stdin /dev/null, stdout and stderr the pipes, no blocked
 * signals, its own process group (killed as one) */
static void child_exec(const char *const *argv, const char *const *envp, int out, int errfd)
    __attribute__((noreturn));
static void child_exec(const char *const *argv, const char *const *envp, int out, int errfd)
{
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, 0);
    dup2(out, 1);
    dup2(errfd, 2);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    if (envp)
        execvpe(argv[0], (char *const *)argv, (char *const *)envp);
    else
        execvp(argv[0], (char *const *)argv);
    dprintf(2, "exec %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* stdout (fds[0]) line by line to on_line and stderr (fds[1], its first
 * 64 KiB) into eb, until both end, on_line stops (1 returned) or the
 * deadline passes (the child killed, *timed_out set) */
static int pump(struct pollfd fds[2], pid_t pid, long long deadline_ms, sl_buf_t *ob, sl_buf_t *eb,
                bench_line_fn on_line, void *arg, int *timed_out)
{
    int open_fds = 2, stopped = 0;
    while (open_fds && !stopped) {
        long long left = deadline_ms - sl_now_ms();
        if (left <= 0) {
            *timed_out = 1;
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            break;
        }
        int r = poll(fds, 2, left > 1000 ? 1000 : (int)left);
        if (r < 0 && errno != EINTR)
            break;
        for (int i = 0; i < 2 && r > 0; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char chunk[4096];
            ssize_t k = read(fds[i].fd, chunk, sizeof(chunk));
            long long t = sl_wall_us();
            if (k <= 0) {
                if (k < 0 && (errno == EINTR || errno == EAGAIN))
                    continue;
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            if (i == 0) {
                sl_buf_append(ob, chunk, (size_t)k);
                stopped = emit_lines(ob, on_line, arg, t, 0);
            } else if (eb->len < 65536) {
                sl_buf_append(eb, chunk, (size_t)k);
            }
        }
    }
    return stopped;
}

/* the child's wait status; one that was stopped watching gets 3 s after
 * its SIGTERM, then SIGKILL */
static int reap(pid_t pid, int stopped)
{
    int status = 0, reaped = 0;
    if (stopped) {
        reaped = sl_wait_timeout(pid, 3000, &status) == 0;
        if (!reaped) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
    }
    if (!reaped)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    return status;
}

int bench_child_run(const char *const *argv, const char *const *envp, bench_line_fn on_line,
                    void *arg, char **errout, long long deadline_ms, sl_error_t *err)
{
    int out[2], errp[2];
    if (errout)
        *errout = NULL;
    if (pipe2(out, O_CLOEXEC) < 0)
        return sl_errprintf(err, "pipe: %s", strerror(errno));
    if (pipe2(errp, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        return sl_errprintf(err, "pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out[0]);
        close(out[1]);
        close(errp[0]);
        close(errp[1]);
        errno = e;
        return sl_errprintf(err, "fork: %s", strerror(errno));
    }
    if (pid == 0)
        child_exec(argv, envp, out[1], errp[1]);
    close(out[1]);
    close(errp[1]);
    sl_buf_t ob = SL_BUF_INIT, eb = SL_BUF_INIT;
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    int timed_out = 0;
    int stopped = pump(fds, pid, deadline_ms, &ob, &eb, on_line, arg, &timed_out);
    if (stopped) {
        /* done watching: a watcher like `kubectl get -w` never ends itself */
        kill(-pid, SIGTERM);
        kill(pid, SIGTERM);
    } else if (!timed_out) {
        emit_lines(&ob, on_line, arg, sl_wall_us(), 1);
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    int status = reap(pid, stopped);
    sl_buf_free(&ob);
    if (errout)
        *errout = sl_buf_steal(&eb);
    sl_buf_free(&eb);
    if (stopped)
        return 0;
    if (timed_out) {
        errno = ETIMEDOUT;
        return sl_errprintf(err, "%s did not finish in time (killed)", argv[0]);
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}
