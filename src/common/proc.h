/* proc.h — spawning children from argv vectors, waiting with time limits. */
#ifndef SL_PROC_H
#define SL_PROC_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "err.h"

typedef struct sl_spawn_opts {
    const char *const *envp; /* NULL: inherit */
    const char *stdout_path; /* NULL: inherit; file opened O_APPEND|O_CREAT */
    const char *stderr_path; /* NULL: inherit; same path as stdout is fine */
    int stdin_null;          /* redirect stdin from /dev/null */
    int new_session;         /* setsid() in the child (daemons, process groups) */
    /* run in the child after the redirections, before exec (e.g. entering
     * namespaces); nonzero makes the child exit 125 without exec. It may
     * only make system calls: the parent prepared everything it needs. */
    int (*child_setup)(void *arg);
    void *child_arg;
} sl_spawn_opts_t;

/* Fork and exec argv[0] (PATH searched). Returns the pid, or -1 with err. */
pid_t sl_spawn(const char *const *argv, const sl_spawn_opts_t *opts, sl_error_t *err);

/* Wait for pid up to timeout_ms (<0: forever). Returns 0 and sets *status
 * (as from waitpid) when it exited; -1 with errno=ETIMEDOUT otherwise. */
int sl_wait_timeout(pid_t pid, int timeout_ms, int *status);

/* Run argv to completion, capturing stdout (and stderr if merge_stderr) into
 * *out (caller frees; may be NULL to discard). Returns the exit status
 * (0-255), 128+signal when killed, or -1 with err on spawn failure/timeout. */
int sl_run(const char *const *argv, const char *const *envp, int merge_stderr, int timeout_ms,
           char **out, sl_error_t *err);

/* What an error message quotes of a tool's output: its end, where tools say
 * why they failed. Trailing whitespace is dropped; an output longer than max
 * keeps its last max bytes, from the first line that starts within them when
 * one does, after "... ". Never NULL (out NULL gives ""); the caller frees. */
char *sl_run_tail(const char *out, size_t max);

/* 1 if the process exists (kill(pid,0) succeeds or EPERM), else 0. */
int sl_pid_alive(pid_t pid);

/* Monotonic clock in nanoseconds / milliseconds; realtime in microseconds. */
long long sl_now_ns(void);
long long sl_now_ms(void);
/* The CLOCK_MONOTONIC time ms milliseconds from now: the deadline of a
 * pthread_cond_timedwait on a condition set to that clock. */
struct timespec sl_mono_after_ms(long long ms);
long long sl_wall_us(void);
void sl_sleep_ms(int ms);

#endif
