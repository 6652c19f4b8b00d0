/* slurm.c — libslurm behind sl_slurm_*: submit, signal, job and node loads. */
#include "common/buf.h"
#include "common/xalloc.h"
#include "metrics/metrics.h"
#include "slurmif/internal.h"
#include "slurmif/slurmif.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>

#include "slurmif/compat.h"
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_ulong rpc_count;

unsigned long sl_slurm_rpc_count(void) { return atomic_load(&rpc_count); }

/* Every libslurm RPC goes between these two: it is counted (the number
 * above, which tests read), timed, and its failure counted, by RPC name
 * (slurmlink_slurm_rpc_duration_seconds, _errors_total). */
double sl_slurm_rpc_begin(void)
{
    atomic_fetch_add(&rpc_count, 1);
    return sl_metrics_now();
}

void sl_slurm_rpc_end(const char *rpc, double t0, int failed)
{
    sl_metrics_slurm_rpc(rpc, sl_metrics_now() - t0, failed);
}

/* ---- start-up: a configuration libslurm can load, checked first ----------
 *
 * libslurm 22.05 does not report a bad slurm.conf: slurm_init() (and any RPC
 * before it) retries a missing file for 60 s, then calls fatal(), which
 * exits the process. So the file is opened here first (a missing or
 * unreadable one is named at once), then loaded by a forked child whose
 * stderr is read back: libslurm's first error line is the reason. Only a
 * configuration the child loaded is loaded here, once: libslurm keeps it for
 * the life of the process and never reads the file again, so no later RPC
 * goes back to the file (the paths that fatal() on a configuration are
 * those that load it; the auth and other client plugins are loaded here,
 * by slurm_init, not at the first RPC). */

/* the build's Slurm (make SLURM=PREFIX: PREFIX/etc/slurm.conf), else Debian's */
#ifndef SL_SLURM_DEFAULT_CONF
#define SL_SLURM_DEFAULT_CONF "/etc/slurm/slurm.conf"
#endif

/* libslurm's first "error: " or "fatal: " line of text, without its prefix */
static void first_slurm_error(char *text, sl_error_t *err, int status)
{
    const char *tags[] = {"error: ", "fatal: "};
    for (size_t t = 0; t < 2; t++) {
        char *at = strstr(text, tags[t]);
        if (at) {
            at += strlen(tags[t]);
            at[strcspn(at, "\n")] = '\0';
            sl_errprintf(err, "%s", at);
            return;
        }
    }
    sl_errprintf(err, "libslurm cannot load it (exit status %d)", status);
}

/* slurm_init(path) in a child: 0, or -1 with libslurm's reason */
static int load_in_child(const char *path, sl_error_t *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return sl_errprintf(err, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return sl_errprintf(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        slurm_init(path); /* fatal() exits 1 */
        _exit(0);
    }
    close(fds[1]);
    char text[4096];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fds[0], text + n, sizeof(text) - 1 - n)) > 0 || (r < 0 && errno == EINTR))
        n += r > 0 ? (size_t)r : 0;
    close(fds[0]);
    text[n] = '\0';
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    first_slurm_error(text, err, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return -1;
}

int sl_slurm_init(const char *conf, sl_error_t *err)
{
    const char *path = conf ? conf : getenv("SLURM_CONF");
    if (!path || !*path)
        path = SL_SLURM_DEFAULT_CONF;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        int e = fd < 0 ? errno : EINVAL;
        if (fd >= 0)
            close(fd);
        errno = e;
        return sl_errprintf(err, "slurm.conf %s: %s", path,
                            e == EINVAL ? "not a regular file" : strerror(e));
    }
    close(fd);
    sl_error_t why = SL_ERROR_INIT;
    if (load_in_child(path, &why) < 0) {
        errno = EINVAL;
        return sl_errprintf(err, "slurm.conf %s: %s", path, why.text);
    }
    slurm_init(path);
    return 0;
}

int sl_slurm_retryable(int e)
{
    return e == SLURM_COMMUNICATIONS_CONNECTION_ERROR || e == SLURM_COMMUNICATIONS_SEND_ERROR ||
           e == SLURM_COMMUNICATIONS_RECEIVE_ERROR || e == SLURM_COMMUNICATIONS_SHUTDOWN_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_SEND_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR ||
           e == SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR ||
           e == SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT || e == ESLURM_NODES_BUSY || e == EAGAIN ||
           e == ETIMEDOUT || e == ECONNREFUSED || e == ESLURM_TRANSITION_STATE_NO_UPDATE;
}

/* ---- the submitter's credential ------------------------------------------
 *
 * munged names the uid and gid of the process that connects to its socket
 * (SO_PEERCRED: the effective ids of the connecting thread, taken at
 * connect), and libslurm's auth/munge plugin makes a new credential for
 * every RPC, in the calling thread. So the calling thread takes the job
 * user's effective uid and gid (and only that gid as its groups) for the one
 * RPC, and slurmctld judges the job as that user's own sbatch: operator-only
 * options, partition and account rules, limits.
 *
 * Raw syscalls, not glibc's seteuid(): glibc changes every thread of the
 * process (its setxid broadcast); the kernel's calls change the caller only.
 * The real and saved uid stay 0, so the user can neither signal nor ptrace
 * the daemon meanwhile, and the daemon's other threads keep root. */

int sl_slurm_cred_begin(uid_t uid, gid_t gid, sl_slurm_cred_t *saved, sl_error_t *err)
{
    saved->switched = 0;
    saved->euid = geteuid();
    saved->egid = getegid();
    if (saved->euid != 0 || (uid == 0 && gid == 0))
        return 0; /* not root: slurmctld sees who we are, and judges that */
    int n = getgroups((int)(sizeof(saved->groups) / sizeof(saved->groups[0])), saved->groups);
    if (n < 0)
        return sl_errprintf(err, "getgroups: %s", strerror(errno));
    saved->ngroups = n;
    gid_t one = gid;
    if (syscall(SYS_setgroups, 1, &one) < 0 || syscall(SYS_setresgid, -1, (long)gid, -1) < 0 ||
        syscall(SYS_setresuid, -1, (long)uid, -1) < 0) {
        int e = errno;
        saved->switched = 1;
        sl_slurm_cred_end(saved);
        errno = e;
        return sl_errprintf(err, "cannot take uid %u gid %u to submit: %s", (unsigned)uid,
                            (unsigned)gid, strerror(e));
    }
    saved->switched = 1;
    return 0;
}

void sl_slurm_cred_end(const sl_slurm_cred_t *saved)
{
    if (!saved->switched)
        return;
    /* uid first: only root may set the gid and groups back. A thread that
     * cannot become root again must not go on as anyone. */
    if (syscall(SYS_setresuid, -1, (long)saved->euid, -1) < 0 ||
        syscall(SYS_setresgid, -1, (long)saved->egid, -1) < 0 ||
        syscall(SYS_setgroups, (long)saved->ngroups, saved->groups) < 0)
        abort();
}

int sl_slurm_submit(const sl_slurm_submit_t *req, uint32_t *job_id, int *retryable, sl_error_t *err)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    if (retryable)
        *retryable = 0;
    size_t nenv = 0;
    while (req->env && req->env[nenv])
        nenv++;
    if (!req->script || nenv == 0) {
        errno = EINVAL;
        return sl_errprintf(err, "a batch job needs a script and an environment");
    }
    if (sl_slurm_apply_options(&d, req->options, err) < 0) {
        sl_slurm_desc_free(&d);
        errno = EINVAL;
        return -1;
    }
    d.script = (char *)req->script;
    d.environment = (char **)req->env;
    d.env_size = (uint32_t)nenv;
    d.user_id = req->uid;
    d.group_id = req->gid;
    /* explicit fields win over the same options */
    if (req->work_dir)
        sl_slurm_set_str(&d.work_dir, req->work_dir);
    if (req->std_out)
        sl_slurm_set_str(&d.std_out, req->std_out);
    if (req->std_err)
        sl_slurm_set_str(&d.std_err, req->std_err);
    if (req->array)
        sl_slurm_set_str(&d.array_inx, req->array);

    submit_response_msg_t *resp = NULL;
    sl_slurm_cred_t saved;
    if (sl_slurm_cred_begin(req->uid, req->gid, &saved, err) < 0) {
        sl_slurm_desc_free(&d);
        return -1;
    }
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_submit_batch_job(&d, &resp);
    int e = sl_compat_errno();
    sl_slurm_rpc_end("submit_batch_job", t0, rc != SLURM_SUCCESS || !resp);
    sl_slurm_cred_end(&saved);
    sl_slurm_desc_free(&d);
    if (rc != SLURM_SUCCESS || !resp) {
        if (resp)
            slurm_free_submit_response_response_msg(resp);
        if (retryable)
            *retryable = sl_slurm_retryable(e);
        errno = e ? e : EIO;
        return sl_errprintf(err, "%s", slurm_strerror(e));
    }
    *job_id = sl_compat_submit_job_id(resp);
    slurm_free_submit_response_response_msg(resp);
    return 0;
}

int sl_slurm_cancel_task(uint32_t array_job_id, uint32_t task, sl_error_t *err)
{
    char id[32];
    snprintf(id, sizeof(id), "%u_%u", array_job_id, task);
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_kill_job2(id, SIGKILL, 0, NULL);
    sl_slurm_rpc_end("kill_job", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        int e = sl_compat_errno();
        errno = e;
        return sl_errprintf(err, "cancel task %s: %s", id, slurm_strerror(e));
    }
    return 0;
}

int sl_slurm_cancel_tasks(uint32_t array_job_id, const char *tasks, sl_error_t *err)
{
    char *id = sl_xasprintf("%u_[%s]", array_job_id, tasks);
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_kill_job2(id, SIGKILL, 0, NULL);
    sl_slurm_rpc_end("kill_job", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        int e = sl_compat_errno();
        sl_errprintf(err, "cancel tasks %s: %s", id, slurm_strerror(e));
        errno = e;
    }
    free(id);
    return rc == SLURM_SUCCESS ? 0 : -1;
}

int sl_slurm_array_throttle(uint32_t array_job_id, unsigned n, sl_error_t *err)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    char id[16], thr[16];
    snprintf(id, sizeof(id), "%u", array_job_id);
    snprintf(thr, sizeof(thr), "%u", n);
    d.job_id_str = id;
    d.array_inx = thr; /* as scontrol's ArrayTaskThrottle= */
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_update_job(&d);
    int e = sl_compat_errno();
    sl_slurm_rpc_end("update_job", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        errno = e ? e : EIO;
        return sl_errprintf(err, "array %u: ArrayTaskThrottle=%u: %s", array_job_id, n,
                            slurm_strerror(e));
    }
    return 0;
}

unsigned sl_slurm_max_array_size(void)
{
    slurm_conf_t *conf = NULL;
    if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS || !conf)
        return 0;
    unsigned n = conf->max_array_sz;
    sl_compat_free_conf(conf);
    return n;
}

/* slurmctld refuses the job id of a task of an array (ESLURM_INVALID_JOB_ID)
 * in REQUEST_KILL_JOB by number; as "ARRAY_TASK" it takes it (scancel does
 * the same): the task's ids looked up and the request sent again */
static int kill_task(uint32_t job_id, uint16_t sig, uint16_t flags)
{
    job_info_msg_t *msg = NULL;
    if (sl_compat_load_job(&msg, job_id, SHOW_ALL | SHOW_LOCAL) != SLURM_SUCCESS || !msg)
        return SLURM_ERROR;
    int rc = SLURM_ERROR;
    if (msg->record_count == 1 && msg->job_array[0].array_job_id &&
        msg->job_array[0].array_task_id != NO_VAL) {
        char id[32];
        snprintf(id, sizeof(id), "%u_%u", msg->job_array[0].array_job_id,
                 msg->job_array[0].array_task_id);
        rc = slurm_kill_job2(id, sig, flags, NULL);
    }
    slurm_free_job_info_msg(msg);
    if (rc != SLURM_SUCCESS)
        sl_compat_seterrno(ESLURM_INVALID_JOB_ID);
    return rc;
}

static int kill_job(uint32_t job_id, uint16_t sig, uint16_t flags)
{
    int rc = sl_compat_kill_job(job_id, sig, flags);
    if (rc != SLURM_SUCCESS && sl_compat_errno() == ESLURM_INVALID_JOB_ID)
        rc = kill_task(job_id, sig, flags);
    return rc;
}

int sl_slurm_signal(uint32_t job_id, int sig, int batch_only, sl_error_t *err)
{
    double t0 = sl_slurm_rpc_begin();
    int rc = kill_job(job_id, (uint16_t)sig, batch_only ? KILL_JOB_BATCH : KILL_FULL_JOB);
    sl_slurm_rpc_end("kill_job", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        int e = sl_compat_errno();
        errno = e;
        return sl_errprintf(err, "signal job %u: %s", job_id, slurm_strerror(e));
    }
    return 0;
}

int sl_slurm_cancel(uint32_t job_id, sl_error_t *err)
{
    double t0 = sl_slurm_rpc_begin();
    int rc = kill_job(job_id, SIGKILL, 0);
    sl_slurm_rpc_end("kill_job", t0, rc != SLURM_SUCCESS);
    if (rc != SLURM_SUCCESS) {
        int e = sl_compat_errno();
        errno = e;
        return sl_errprintf(err, "cancel job %u: %s", job_id, slurm_strerror(e));
    }
    return 0;
}
