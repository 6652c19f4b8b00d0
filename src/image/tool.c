/* tool.c — running skopeo and umoci: argv vectors, a time limit, and their
 * error messages made readable. */
#include "image/internal.h"

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The message of the last line of a tool's stderr: skopeo and umoci log
 * through logrus (`time=... level=fatal msg="..."`); msg's text is the answer,
 * unquoted. Caller frees. */
char *sl_image_tool_message(const char *stderr_text)
{
    const char *end = stderr_text + strlen(stderr_text);
    while (end > stderr_text && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    const char *start = end;
    while (start > stderr_text && start[-1] != '\n')
        start--;
    char *line = sl_xstrndup(start, (size_t)(end - start));
    char *m = strstr(line, "msg=\"");
    if (!m)
        return line;
    sl_buf_t b = SL_BUF_INIT;
    const char *from = m + 5;
    /* skopeo says `Error parsing image name \"docker://X\": <answer>` also when
     * the registry answered: the answer is what a user needs */
    const char *pfx = "Error parsing image name \\\"";
    const char *endq = strstr(from, "\\\": ");
    if (!strncmp(from, pfx, strlen(pfx)) && endq)
        from = endq + 4;
    for (const char *p = from; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1])
            p++;
        sl_buf_putc(&b, *p);
    }
    free(line);
    return sl_buf_steal(&b);
}

/* the pull this thread runs: its tools are killed once *cancel is set */
static _Thread_local atomic_int *cancel_flag;

void sl_image_tool_cancel_on(atomic_int *cancel) { cancel_flag = cancel; }

static int cancelled(void) { return cancel_flag && atomic_load(cancel_flag); }

/* wait for pid until it exits (0, *st), timeout_ms pass or the pull is
 * cancelled (-1, errno ETIMEDOUT or ECANCELED) */
static int wait_tool(pid_t pid, int timeout_ms, int *st)
{
    long long deadline = sl_now_ms() + timeout_ms;
    for (;;) {
        long long left = deadline - sl_now_ms();
        if (sl_wait_timeout(pid, left < 100 ? (int)(left > 0 ? left : 0) : 100, st) == 0)
            return 0;
        if (errno != ETIMEDOUT)
            return -1;
        if (cancelled()) {
            errno = ECANCELED;
            return -1;
        }
        if (sl_now_ms() >= deadline)
            return -1;
    }
}

/* Run argv with stdout into *out (may be NULL) and stderr kept for the
 * error; work is a private folder for the two files. 0, or -1 with err
 * "<tool>: <its message>" (errno EIO), a timeout (ETIMEDOUT), or the
 * thread's pull cancelled (ECANCELED: the tool is killed within 0.1 s). */
int sl_image_tool_run(const char *const *argv, const char *work, int timeout_ms, char **out,
                      sl_error_t *err)
{
    char *o = sl_xasprintf("%s/.stdout", work), *e = sl_xasprintf("%s/.stderr", work);
    unlink(o);
    unlink(e);
    sl_spawn_opts_t so = {.stdout_path = o, .stderr_path = e, .stdin_null = 1, .new_session = 1};
    int rc = -1, st = 0;
    if (cancelled()) {
        errno = ECANCELED;
        sl_errprintf(err, "%s: the pull was cancelled", argv[0]);
        goto done;
    }
    pid_t pid = sl_spawn(argv, &so, err);
    if (pid < 0)
        goto done;
    if (wait_tool(pid, timeout_ms, &st) < 0) {
        int why = errno == ECANCELED ? ECANCELED : ETIMEDOUT;
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        errno = why;
        if (why == ECANCELED)
            sl_errprintf(err, "%s: the pull was cancelled", argv[0]);
        else
            sl_errprintf(err, "%s: no answer within %d s", argv[0], timeout_ms / 1000);
        goto done;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        rc = 0;
        if (out)
            *out = sl_read_file(o, NULL, NULL);
        if (out && !*out)
            *out = sl_xstrdup("");
        goto done;
    }
    char *text = sl_read_file(e, NULL, NULL);
    char *msg = sl_image_tool_message(text ? text : "");
    errno = EIO;
    if (*msg)
        sl_errprintf(err, "%s", msg);
    else
        sl_errprintf(err, "%s failed with status %d", argv[0],
                     WIFEXITED(st) ? WEXITSTATUS(st) : 128);
    free(msg);
    free(text);
done:;
    int saved = errno;
    unlink(o);
    unlink(e);
    free(o);
    free(e);
    errno = saved;
    return rc;
}

/* A registry's own refusals as skopeo words them: they tell a user what to
 * fix and only a host that speaks the registry protocol gives them. Every
 * other failure of the manifest request (refused, reset or silent
 * connections, TLS, a server that is no registry: skopeo's "pinging
 * container registry") tells only what listens on a port. */
int sl_image_registry_answer(const char *text)
{
    static const char *const answers[] = {"unauthorized",
                                          "authentication required",
                                          "denied",
                                          "manifest unknown",
                                          "name unknown",
                                          "repository name not known",
                                          "no matching manifest",
                                          NULL};
    if (!text || strstr(text, "pinging container registry"))
        return 0;
    for (size_t i = 0; answers[i]; i++)
        if (strcasestr(text, answers[i]))
            return 1;
    return 0;
}
