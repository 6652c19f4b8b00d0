/* tool.c — running skopeo and umoci: argv vectors, a time limit, and their
 * error messages made readable. */
#include "image/internal.h"

#include "common/argv.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* what a run may write (dir NULL: no bound) and who runs it */
typedef struct tool_bound {
    const char *dir;
    unsigned long long limit;
    uid_t uid; /* 0: the caller's */
    gid_t gid;
} tool_bound_t;

/* in the child: no file it writes passes the limit; the user it runs as */
static int set_bound(void *arg)
{
    const tool_bound_t *b = arg;
    struct rlimit r = {.rlim_cur = b->limit, .rlim_max = b->limit};
    if (b->dir && setrlimit(RLIMIT_FSIZE, &r) < 0)
        return -1;
    if (b->uid == 0)
        return 0;
    return setgroups(0, NULL) < 0 || setresgid(b->gid, b->gid, b->gid) < 0 ||
                   setresuid(b->uid, b->uid, b->uid) < 0
               ? -1
               : 0;
}

/* the environment of a tool run as a user: the daemon's without what names
 * root's files (HOME, XDG folders, credentials' places), HOME and TMPDIR
 * the user's own folder */
static char **user_env(const sl_image_as_t *as)
{
    static const char *const drop[] = {
        "HOME=", "TMPDIR=", "XDG_", "REGISTRY_AUTH_FILE=", "DOCKER_CONFIG=", NULL};
    sl_argv_t a = SL_ARGV_INIT;
    for (char **e = environ; *e; e++) {
        size_t i = 0;
        while (drop[i] && strncmp(*e, drop[i], strlen(drop[i])))
            i++;
        if (!drop[i])
            sl_argv_add(&a, *e);
    }
    sl_argv_addf(&a, "HOME=%s", as->home);
    sl_argv_addf(&a, "TMPDIR=%s", as->home);
    return a.v;
}

static int over(const tool_bound_t *b) { return b->dir && sl_image_disk_usage(b->dir) > b->limit; }

/* the pull this thread runs: its tools are killed once *cancel is set */
static _Thread_local atomic_int *cancel_flag;

void sl_image_tool_cancel_on(atomic_int *cancel) { cancel_flag = cancel; }

static int cancelled(void) { return cancel_flag && atomic_load(cancel_flag); }

/* wait for pid up to timeout_ms, looking every 100 ms whether the pull is
 * cancelled and, for a bounded run, measuring b's folder every 200 ms or
 * four times as long as the last measure took (a tree of many files is
 * not walked without pause): 0 with *st, or -1 with errno ETIMEDOUT,
 * ECANCELED or EFBIG (pid still running) */
static int wait_bounded(pid_t pid, int timeout_ms, const tool_bound_t *b, int *st)
{
    long long deadline = sl_now_ms() + timeout_ms, pause = 200, next = sl_now_ms() + pause;
    for (;;) {
        long long left = deadline - sl_now_ms();
        if (sl_wait_timeout(pid, (int)(left < 0 ? 0 : left < 100 ? left : 100), st) == 0)
            return 0;
        if (errno != ETIMEDOUT)
            return -1;
        if (cancelled()) {
            errno = ECANCELED;
            return -1;
        }
        if (b->dir && sl_now_ms() >= next) {
            long long t0 = sl_now_ms();
            if (over(b)) {
                errno = EFBIG;
                return -1;
            }
            pause = 4 * (sl_now_ms() - t0);
            pause = pause < 200 ? 200 : pause;
            next = sl_now_ms() + pause;
        }
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
    }
}

static int too_large(const tool_bound_t *b, const char *tool, sl_error_t *err)
{
    errno = EFBIG;
    return sl_errprintf(err, "%s was stopped: it wrote more than the limit of %llu bytes", tool,
                        b->limit);
}

/* the failed tool's answer: its message, or the limit it ran into */
static int failed(const char *tool, int st, const char *e, const tool_bound_t *b, sl_error_t *err)
{
    char *text = sl_read_file(e, NULL, NULL);
    char *msg = sl_image_tool_message(text ? text : "");
    int rc;
    if (b->dir && ((WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ) || strstr(msg, "file too large") ||
                   over(b))) {
        rc = too_large(b, tool, err);
    } else {
        errno = EIO;
        rc = *msg ? sl_errprintf(err, "%s", msg)
                  : sl_errprintf(err, "%s failed with status %d", tool,
                                 WIFEXITED(st) ? WEXITSTATUS(st) : 128);
    }
    free(msg);
    free(text);
    return rc;
}

static int run(const char *const *argv, const char *work, int timeout_ms, char **out,
               const tool_bound_t *b, const sl_image_as_t *as, sl_error_t *err)
{
    char *o = sl_xasprintf("%s/.stdout", work), *e = sl_xasprintf("%s/.stderr", work);
    unlink(o);
    unlink(e);
    char **env = b->uid && as && as->home ? user_env(as) : NULL;
    sl_spawn_opts_t so = {.envp = (const char *const *)env,
                          .stdout_path = o,
                          .stderr_path = e,
                          .stdin_null = 1,
                          .new_session = 1,
                          .child_setup = b->dir || b->uid ? set_bound : NULL,
                          .child_arg = (void *)b};
    int rc = -1, st = 0;
    if (cancelled()) {
        errno = ECANCELED;
        sl_errprintf(err, "%s: the pull was cancelled", argv[0]);
        goto done;
    }
    pid_t pid = sl_spawn(argv, &so, err);
    if (pid < 0)
        goto done;
    if (wait_bounded(pid, timeout_ms, b, &st) < 0) {
        int why = errno == EFBIG || errno == ECANCELED ? errno : ETIMEDOUT;
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        if (why == EFBIG)
            too_large(b, argv[0], err);
        else if (why == ECANCELED)
            sl_errprintf(err, "%s: the pull was cancelled", argv[0]);
        else
            sl_errprintf(err, "%s: no answer within %d s", argv[0], timeout_ms / 1000);
        errno = why;
        goto done;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        failed(argv[0], st, e, b, err);
        goto done;
    }
    if (over(b)) { /* grown past it since the last look */
        too_large(b, argv[0], err);
        goto done;
    }
    rc = 0;
    if (out)
        *out = sl_read_file(o, NULL, NULL);
    if (out && !*out)
        *out = sl_xstrdup("");
done:;
    int saved = errno;
    unlink(o);
    unlink(e);
    free(o);
    free(e);
    sl_strv_free(env);
    errno = saved;
    return rc;
}

/* Run argv with stdout into *out (may be NULL) and stderr kept for the
 * error; work is a private folder for the two files. 0, or -1 with err
 * "<tool>: <its message>" (errno EIO), a timeout (ETIMEDOUT), or the
 * thread's pull cancelled (ECANCELED: the tool is killed within 0.1 s). */
int sl_image_tool_run(const char *const *argv, const char *work, int timeout_ms, char **out,
                      const sl_image_as_t *as, sl_error_t *err)
{
    tool_bound_t b = {NULL, 0, as ? as->uid : 0, as ? as->gid : 0};
    return run(argv, work, timeout_ms, out, &b, as, err);
}

int sl_image_tool_run_bounded(const char *const *argv, const char *work, int timeout_ms,
                              const char *dir, unsigned long long limit, const sl_image_as_t *as,
                              sl_error_t *err)
{
    tool_bound_t b = {dir, limit, as ? as->uid : 0, as ? as->gid : 0};
    return run(argv, work, timeout_ms, NULL, &b, as, err);
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
