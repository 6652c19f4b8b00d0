#include "proc.h"
#include "buf.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

long long sl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long long sl_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec sl_mono_after_ms(long long ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

long long sl_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void sl_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

int sl_pid_alive(pid_t pid)
{
    if (pid <= 0)
        return 0;
    if (kill(pid, 0) == 0)
        return 1;
    return errno == EPERM;
}

static void child_redirect(const char *path, int fd)
{
    int f = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (f < 0 || dup2(f, fd) < 0)
        _exit(126);
    close(f);
}

pid_t sl_spawn(const char *const *argv, const sl_spawn_opts_t *opts, sl_error_t *err)
{
    /* a pipe with CLOEXEC reports exec failure (errno) back to the parent */
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return sl_errprintf(err, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return sl_errprintf(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(pfd[0]);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (opts && opts->new_session)
            setsid();
        if (opts && opts->stdin_null) {
            int n = open("/dev/null", O_RDONLY);
            if (n >= 0) {
                dup2(n, 0);
                close(n);
            }
        }
        if (opts && opts->stdout_path)
            child_redirect(opts->stdout_path, 1);
        if (opts && opts->stderr_path)
            child_redirect(opts->stderr_path, 2);
        if (opts && opts->child_setup && opts->child_setup(opts->child_arg) != 0)
            _exit(125);
        if (opts && opts->envp)
            execvpe(argv[0], (char *const *)argv, (char *const *)opts->envp);
        else
            execvp(argv[0], (char *const *)argv);
        int e = errno;
        ssize_t r = write(pfd[1], &e, sizeof(e));
        (void)r;
        _exit(127);
    }
    close(pfd[1]);
    int e = 0;
    ssize_t n;
    do
        n = read(pfd[0], &e, sizeof(e));
    while (n < 0 && errno == EINTR);
    close(pfd[0]);
    if (n == (ssize_t)sizeof(e)) {
        waitpid(pid, NULL, 0);
        errno = e;
        return sl_errprintf(err, "cannot run %s: %s", argv[0], strerror(e));
    }
    return pid;
}

int sl_wait_timeout(pid_t pid, int timeout_ms, int *status)
{
    long long deadline = timeout_ms < 0 ? -1 : sl_now_ms() + timeout_ms;
    int delay = 1;
    for (;;) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            if (status)
                *status = st;
            return 0;
        }
        if (r < 0 && errno != EINTR)
            return -1;
        if (deadline >= 0 && sl_now_ms() >= deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        sl_sleep_ms(delay);
        if (delay < 50)
            delay *= 2;
    }
}

/* the child of sl_run: stdin (and stderr unless merged) /dev/null, stdout
 * (and stderr if merged) the pipe pfd; an exec failure's errno goes to efd */
static void run_child(const char *const *argv, const char *const *envp, int merge_stderr,
                      const int pfd[2], const int efd[2]) __attribute__((noreturn));
static void run_child(const char *const *argv, const char *const *envp, int merge_stderr,
                      const int pfd[2], const int efd[2])
{
    close(pfd[0]);
    close(efd[0]);
    int n = open("/dev/null", O_RDWR);
    if (n >= 0) {
        dup2(n, 0);
        if (!merge_stderr)
            dup2(n, 2);
        close(n);
    }
    dup2(pfd[1], 1);
    if (merge_stderr)
        dup2(pfd[1], 2);
    signal(SIGPIPE, SIG_DFL);
    if (envp)
        execvpe(argv[0], (char *const *)argv, (char *const *)envp);
    else
        execvp(argv[0], (char *const *)argv);
    int e = errno;
    ssize_t r = write(efd[1], &e, sizeof(e));
    (void)r;
    _exit(127);
}

/* the child's errno when its exec failed (read from efd, then closed), else 0 */
static int exec_errno(int efd)
{
    int e = 0;
    ssize_t n;
    do
        n = read(efd, &e, sizeof(e));
    while (n < 0 && errno == EINTR);
    close(efd);
    return n == (ssize_t)sizeof(e) ? e : 0;
}

/* fd read into b until its end or the deadline (-1: none); 1 when timed out */
static int read_until(int fd, long long deadline, sl_buf_t *b)
{
    for (;;) {
        int wait = -1;
        if (deadline >= 0) {
            long long left = deadline - sl_now_ms();
            if (left <= 0)
                return 1;
            wait = (int)left;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, wait);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return 1;
        char chunk[4096];
        ssize_t got = read(fd, chunk, sizeof(chunk));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return 0;
        sl_buf_append(b, chunk, (size_t)got);
    }
}

char *sl_run_tail(const char *out, size_t max)
{
    size_t n = out ? strlen(out) : 0;
    while (n && isspace((unsigned char)out[n - 1]))
        n--;
    if (n <= max)
        return sl_xstrndup(out ? out : "", n);
    const char *from = out + n - max;
    const char *nl = memchr(from, '\n', max);
    if (nl && nl + 1 < out + n)
        from = nl + 1;
    return sl_xasprintf("... %.*s", (int)(out + n - from), from);
}

int sl_run(const char *const *argv, const char *const *envp, int merge_stderr, int timeout_ms,
           char **out, sl_error_t *err)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return sl_errprintf(err, "pipe: %s", strerror(errno));
    int efd[2];
    if (pipe2(efd, O_CLOEXEC) < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return sl_errprintf(err, "pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        close(efd[0]);
        close(efd[1]);
        return sl_errprintf(err, "fork: %s", strerror(errno));
    }
    if (pid == 0)
        run_child(argv, envp, merge_stderr, pfd, efd);
    close(pfd[1]);
    close(efd[1]);
    int e = exec_errno(efd[0]);
    if (e) {
        close(pfd[0]);
        waitpid(pid, NULL, 0);
        errno = e;
        return sl_errprintf(err, "cannot run %s: %s", argv[0], strerror(e));
    }
    sl_buf_t b = SL_BUF_INIT;
    int timed_out = read_until(pfd[0], timeout_ms < 0 ? -1 : sl_now_ms() + timeout_ms, &b);
    close(pfd[0]);
    if (timed_out) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        sl_buf_free(&b);
        errno = ETIMEDOUT;
        return sl_errprintf(err, "%s: timed out after %d ms", argv[0], timeout_ms);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (out)
        *out = sl_buf_steal(&b);
    else
        sl_buf_free(&b);
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 255;
}
