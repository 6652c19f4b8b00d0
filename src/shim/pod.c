/* pod.c — the containers' state machine (the kubelet's pod workers, in small).
 *
 * Init containers run one at a time, in order; then every app container
 * starts together. Each run is a fork + execvpe of the container's argv in
 * its own process group with stdout and stderr on two pipes that main.c's
 * poll loop feeds into the container's CRI log. When a run ends the
 * restartPolicy and the back-off decide whether and when it runs again.
 */
#include "shim.h"
#include "shim/gpu.h"
#include "shim/join.h"
#include "shim/rootfs.h"

#include "common/fsutil.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "shimlib/nodeinfo.h"
#include "shimlib/tstamp.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The job's environment with the spec's variables (env, then envRuntime
 * filled in with what this node knows) replacing or added; a tty gets
 * TERM=xterm unless env sets TERM, as containerd's CRI plugin gives it. */
char **shim_build_envp(const sl_shim_container_t *sc)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **add = sl_xcalloc(sc->nenv + sc->nrt_env + 3, sizeof(char *));
    size_t nadd = 0;
    bool term = false;
    for (size_t j = 0; j < sc->nenv; j++)
        term = term || !strncmp(sc->env[j], "TERM=", 5);
    if (sc->tty && !term)
        add[nadd++] = sl_xstrdup("TERM=xterm");
    char *nvd = shim_gpu_visible_env(sc->gpus, environ); /* before the spec's own, which win */
    if (nvd)
        add[nadd++] = nvd;
    for (size_t j = 0; j < sc->nenv; j++)
        add[nadd++] = sl_xstrdup(sc->env[j]);
    for (size_t j = 0; j < sc->nrt_env; j++) {
        char *v = sl_node_field(sc->rt_field[j]);
        add[nadd++] = sl_xasprintf("%s=%s", sc->rt_env[j], v);
        free(v);
    }
    char **e = sl_xcalloc(n + nadd + 1, sizeof(char *));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t nl = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        int overridden = 0;
        for (size_t j = 0; j < nadd && !overridden; j++)
            overridden = !strncmp(add[j], environ[i], nl) && add[j][nl] == '=';
        if (!overridden)
            e[k++] = sl_xstrdup(environ[i]);
    }
    for (size_t j = 0; j < nadd; j++)
        e[k++] = add[j];
    free(add);
    return e;
}

/* an RFC 3339 time of the spec (seconds; a fraction dropped), 0 when unreadable */
static struct timespec spec_time(const char *s)
{
    struct tm tm = {0};
    struct timespec ts = {0};
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (end)
        ts.tv_sec = timegm(&tm);
    return ts;
}

/* a replica that replaces a failed one: its runs counted on from the spec's,
 * the run before shown as lastState */
static void ctr_carry(shim_ctr_t *c, const sl_shim_container_t *sc)
{
    c->restart_count = sc->restart_count;
    if (!sc->last)
        return;
    c->has_last = 1;
    c->last.exit_code = sc->last->exit_code;
    c->last.signal = sc->last->signal;
    snprintf(c->last.reason, sizeof(c->last.reason), "%s", sc->last->reason);
    c->last.started_at = spec_time(sc->last->started_at);
    c->last.finished_at = spec_time(sc->last->finished_at);
}

static void ctr_init(shim_ctr_t *c, const sl_shim_container_t *sc, size_t index, int init)
{
    memset(c, 0, sizeof(*c));
    c->spec = sc;
    c->index = index;
    c->envp = shim_build_envp(sc);
    c->state = CS_WAITING;
    c->waiting_reason = init && index == 0 ? "ContainerCreating" : "PodInitializing";
    c->fd[0] = c->fd[1] = -1;
    c->in_w = c->in_r = -1;
    c->pty = c->tty_sock = -1;
    sl_backoff_init(&c->backoff);
    ctr_carry(c, sc);
}

/* the pod's private /tmp when a container asks for one; a failure is each
 * such container's StartError */
static void pod_tmp_make(shim_pod_t *pod)
{
    pod->tmp.fd = -1;
    int asked = 0;
    for (size_t i = 0; i < pod->spec->ninit + pod->spec->ncontainers; i++)
        asked |= (i < pod->spec->ninit ? &pod->spec->init_containers[i]
                                       : &pod->spec->containers[i - pod->spec->ninit])
                     ->private_tmp;
    sl_error_t terr = SL_ERROR_INIT;
    if (asked && shim_podtmp_make(&pod->tmp, "/tmp", getenv("SLURM_JOB_ID"), &terr) < 0)
        snprintf(pod->tmp_error, sizeof(pod->tmp_error), "%.255s", terr.text);
    sl_error_clear(&terr);
}

int shim_pod_init(shim_pod_t *pod, sl_shim_spec_t *spec, const char *dir, sl_error_t *err)
{
    memset(pod, 0, sizeof(*pod));
    pod->spec = spec;
    pod->dir = sl_xstrdup(dir);
    pod->events_fd = -1;
    pod->oom_root = getenv("SLURMLINK_SHIM_OOM_ROOT") ? getenv("SLURMLINK_SHIM_OOM_ROOT") : "";
    pod->init = sl_xcalloc(spec->ninit + 1, sizeof(shim_ctr_t));
    pod->apps = sl_xcalloc(spec->ncontainers + 1, sizeof(shim_ctr_t));
    for (size_t i = 0; i < spec->ninit; i++)
        ctr_init(&pod->init[i], &spec->init_containers[i], i, 1);
    for (size_t i = 0; i < spec->ncontainers; i++) {
        ctr_init(&pod->apps[i], &spec->containers[i], i, 0);
        if (!spec->ninit)
            pod->apps[i].waiting_reason = "ContainerCreating";
    }
    if (spec->hosts) { /* before any run: the runtimes bind it (shimlib/hosts.h) */
        sl_error_t herr;
        if (sl_hosts_write(spec->hosts, &herr) < 0)
            sl_warn("the pod's hosts file: %s", herr.text);
        shim_names_init(&pod->names, spec->hosts);
        pod->has_names = 1;
        if (spec->hosts->services)
            pod->names_check_ms = sl_now_ms() + SHIM_NAMES_CHECK_MS;
    }
    pod_tmp_make(pod);
    pod->start_time = sl_tstamp_now();
    if (gethostname(pod->node, sizeof(pod->node) - 1) < 0)
        strcpy(pod->node, "");
    if (spec->report_url) {
        sl_report_opts_t o = {spec->report_url, spec->report_token, spec->report_ca_file,
                              spec->report_pinned_key};
        sl_error_t rerr = SL_ERROR_INIT;
        pod->report = sl_report_create(&o, &rerr);
        if (!pod->report)
            sl_warn("pushes disabled: %s", rerr.text);
    }
    return shim_status_open(pod, err);
}

static void ctr_fini(shim_ctr_t *c)
{
    for (int i = 0; i < 2; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
    if (c->in_w >= 0)
        close(c->in_w);
    if (c->pty >= 0)
        close(c->pty);
    if (c->tty_sock >= 0)
        close(c->tty_sock);
    sl_crilog_close(c->log);
    shim_rootfs_free(c->rootfs);
    free(c->probes);
    for (size_t i = 0; c->envp && c->envp[i]; i++)
        free(c->envp[i]);
    free(c->envp);
}

void shim_pod_fini(shim_pod_t *pod)
{
    for (size_t i = 0; i < pod->spec->ninit; i++)
        ctr_fini(&pod->init[i]);
    for (size_t i = 0; i < pod->spec->ncontainers; i++)
        ctr_fini(&pod->apps[i]);
    free(pod->init);
    free(pod->apps);
    sl_report_destroy(pod->report);
    shim_podtmp_remove(&pod->tmp);
    if (pod->events_fd >= 0)
        close(pod->events_fd);
    free(pod->dir);
}

#define FOR_EACH_CTR(pod, c)                                                                       \
    for (size_t i_ = 0; i_ < (pod)->spec->ninit + (pod)->spec->ncontainers; i_++)                  \
        for (shim_ctr_t *c = i_ < (pod)->spec->ninit ? &(pod)->init[i_]                            \
                                                     : &(pod)->apps[i_ - (pod)->spec->ninit];      \
             c; c = NULL)

static int run_failed(const shim_term_t *t) { return t->exit_code != 0 || t->signal != 0; }

static void finish_pod(shim_pod_t *pod)
{
    /* the job's exit code: the container whose final run failed first */
    const shim_ctr_t *first = NULL;
    FOR_EACH_CTR(pod, c)
    {
        if (!c->spec->sidecar && c->done && c->state == CS_TERMINATED && run_failed(&c->cur) &&
            (!first || c->done_order < first->done_order))
            first = c;
    }
    pod->exit_code = first ? first->cur.exit_code : 0;
    pod->phase = POD_FINISHED;
    shim_event_pod(pod, "pod-finished");
    shim_status_write(pod);
}

static int any_running(const shim_pod_t *pod)
{
    FOR_EACH_CTR(pod, c)
    {
        if (c->state == CS_RUNNING)
            return 1;
    }
    return 0;
}

static void mark_done(shim_pod_t *pod, shim_ctr_t *c)
{
    c->done = 1;
    c->restart_at_ms = 0;
    c->done_order = ++pod->done_seq;
}

/* Every regular app container has finished: sidecars get SIGTERM and the
 * grace period, as the kubelet stops them once the main work is done. */
static void stop_sidecars(shim_pod_t *pod)
{
    pod->sidecars_stopping = 1;
    pod->sidecar_kill_at_ms = sl_now_ms() + (long long)pod->spec->grace_seconds * 1000;
    if (pod->sidecar_kill_at_ms <= 0)
        pod->sidecar_kill_at_ms = 1;
    sl_info("app containers finished: stopping sidecars");
    for (size_t i = 0; i < pod->spec->ncontainers; i++) {
        shim_ctr_t *c = &pod->apps[i];
        if (!c->spec->sidecar || c->done)
            continue;
        if (c->state == CS_RUNNING)
            kill(-c->pid, SIGTERM);
        else
            mark_done(pod, c); /* waiting to restart: it will not */
    }
}

static void maybe_finish(shim_pod_t *pod)
{
    if (pod->phase == POD_FINISHED)
        return;
    if (pod->terminating) {
        if (!any_running(pod))
            finish_pod(pod);
        return;
    }
    if (pod->phase == POD_INIT) {
        if (pod->failed)
            finish_pod(pod);
        return;
    }
    size_t regular = 0, regular_done = 0, pending = 0;
    for (size_t i = 0; i < pod->spec->ncontainers; i++) {
        const shim_ctr_t *c = &pod->apps[i];
        if (!c->spec->sidecar) {
            regular++;
            regular_done += c->done;
        }
        pending += !c->done;
    }
    if (regular && regular_done == regular && pending && !pod->sidecars_stopping)
        stop_sidecars(pod);
    for (size_t i = 0; i < pod->spec->ncontainers; i++)
        if (!pod->apps[i].done)
            return;
    finish_pod(pod);
}

static void start_container(shim_pod_t *pod, shim_ctr_t *c);

static void start_apps(shim_pod_t *pod)
{
    pod->phase = POD_RUNNING;
    for (size_t i = 0; i < pod->spec->ncontainers; i++)
        pod->apps[i].waiting_reason = "ContainerCreating";
    for (size_t i = 0; i < pod->spec->ncontainers; i++)
        start_container(pod, &pod->apps[i]);
}

/* A run ended (exited, killed, or could not start). */
static void finish_run(shim_pod_t *pod, shim_ctr_t *c, int exit_code, int sig, const char *reason,
                       const char *message)
{
    c->cur.started_at = c->started_at;
    c->cur.finished_at = sl_tstamp_now();
    c->cur.exit_code = exit_code;
    c->cur.signal = sig;
    snprintf(c->cur.reason, sizeof(c->cur.reason), "%s", reason);
    snprintf(c->cur.message, sizeof(c->cur.message), "%s", message ? message : "");
    c->state = CS_TERMINATED;
    c->pid = 0;
    shim_probe_end(pod, c);
    if (c->pty >= 0)
        close(c->pty);
    c->pty = -1;
    if (c->rootfs || c->spec->private_tmp)
        shim_join_forget(pod->dir, c->spec->name);
    shim_rootfs_free(c->rootfs);
    c->rootfs = NULL;
    sl_crilog_close(c->log);
    c->log = NULL;

    sl_restart_policy_t pol = pod->spec->restart_policy;
    if (c->spec->init && pol == SL_RESTART_ALWAYS)
        pol = SL_RESTART_ONFAILURE; /* an init container that succeeded is finished */
    if (c->spec->sidecar)
        pol = SL_RESTART_ALWAYS; /* a sidecar keeps running until the app containers end */
    int failed = run_failed(&c->cur);
    int restart = !pod->terminating && !(c->spec->sidecar && pod->sidecars_stopping) &&
                  (pol == SL_RESTART_ALWAYS || (pol == SL_RESTART_ONFAILURE && failed));
    long long delay = -1;
    if (restart) {
        delay = sl_backoff_next(&c->backoff, sl_now_ms() - c->started_ms);
        c->restart_at_ms = sl_now_ms() + (delay > 0 ? delay : 0);
        if (c->restart_at_ms <= 0)
            c->restart_at_ms = 1;
    } else {
        mark_done(pod, c);
    }
    shim_event_container(pod, c, "exited", delay);

    if (c->spec->init && c->done && !pod->terminating) {
        if (failed) {
            pod->failed = 1; /* Never: the pod fails, app containers never start */
        } else if (++pod->next_init < pod->spec->ninit) {
            pod->init[pod->next_init].waiting_reason = "ContainerCreating";
            start_container(pod, &pod->init[pod->next_init]);
        } else {
            start_apps(pod);
        }
    }
    shim_status_write(pod);
    maybe_finish(pod);
}

/* the run's names (names.h); a failure is said on its stderr, and the run
 * goes on with the node's */
static int run_names(const shim_names_t *nm)
{
    const char *what = "";
    if (!nm)
        return 0;
    if (shim_names_enter(nm, &what) == 0)
        return 1;
    static const char a[] = "slurmlink-shim: the pod's /etc/hosts and host name need a user "
                            "namespace: ",
                      b[] = " failed; this run has the node's\n";
    ssize_t w = write(2, a, sizeof(a) - 1);
    w = write(2, what, strlen(what));
    w = write(2, b, sizeof(b) - 1);
    (void)w;
    return 0;
}

/* the host runtime's private /tmp (podtmp.h), bound in the run's namespace;
 * a failure is said on its stderr, and the run goes on with the node's */
static void run_tmp(const shim_pod_t *pod, const char *path, int in_ns)
{
    const char *what = "";
    if (!path || shim_podtmp_enter(&pod->tmp, path, in_ns, &what) == 0)
        return;
    static const char a[] = "slurmlink-shim: the pod's private /tmp needs a user namespace: ",
                      b[] = " failed; this run has the node's /tmp\n";
    ssize_t w = write(2, a, sizeof(a) - 1);
    w = write(2, what, strlen(what));
    w = write(2, b, sizeof(b) - 1);
    (void)w;
}

/* The child of a run: async-signal-safe calls only until exec. What went
 * wrong goes to ep as {step, errno, mount}: step 0 is the exec, step k > 0
 * step k-1 of the private root. */
static void run_child(const shim_pod_t *pod, const shim_ctr_t *c, const shim_rootfs_t *rf,
                      const char *tmp, char *const *argv, int out, int errp, int ep, long maxfd)
{
    const shim_names_t *nm = c->spec->bind_hosts && pod->has_names ? &pod->names : NULL;
    if (c->spec->tty) { /* a session of its own, the pty its controlling terminal */
        setsid();
        ioctl(out, TIOCSCTTY, 0);
    } else {
        setpgid(0, 0);
    }
    /* nothing of the shim's reaches the container: not the other
     * containers' pipes, not the socket to slurmlinkd (libcurl does not
     * mark it close-on-exec), not what the job itself inherited */
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
        for (int fd = 3; fd < maxfd; fd++)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
    sigset_t none;
    sigemptyset(&none);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int null = c->spec->tty ? dup(out) : c->in_r >= 0 ? c->in_r : open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
    dup2(out, 1);
    dup2(errp >= 0 ? errp : out, 2); /* a tty: the pty, as stdout */
    run_tmp(pod, tmp, run_names(nm));
    int what[3] = {0, 0, -1};
    if (rf && shim_rootfs_enter(rf, &what[0], &what[2]) < 0) {
        what[0]++;
    } else {
        what[0] = 0;
        execvpe(argv[0], argv, shim_rootfs_envp(rf) ? shim_rootfs_envp(rf) : c->envp);
    }
    what[1] = errno;
    ssize_t w = write(ep, what, sizeof(what));
    (void)w;
    _exit(127);
}

/* The child's report: 0 when it exec'd, else -1 with msg. */
static int child_report(int ep, pid_t pid, const shim_rootfs_t *rf, char *const *argv, char *msg,
                        size_t len)
{
    int what[3];
    ssize_t n;
    do
        n = read(ep, what, sizeof(what));
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(what))
        return 0;
    waitpid(pid, NULL, 0);
    if (what[0] > 0)
        shim_rootfs_error(rf, what[0] - 1, what[2], what[1], msg, len);
    else
        snprintf(msg, len, "exec %s: %s", argv[0], strerror(what[1]));
    return -1;
}

/* spec "stdin": DIR/stdin-C.fifo (0600, the pod's user: the shim's), held
 * open for writing by the shim so that the container reads until an attach
 * writes; c->in_r is the run's end. stdinOnce: the first attach's end is
 * the last writer (shim_pod_stdin_attached). 0, or -1 with msg. */
static int stdin_open(shim_pod_t *pod, shim_ctr_t *c, char *msg, size_t len)
{
    if (!c->spec->stdin_open)
        return 0;
    char *path = sl_xasprintf("%s/stdin-%s.fifo", pod->dir, c->spec->name);
    int r = 0;
    if (c->in_w < 0 && c->restart_count == c->spec->restart_count) {
        unlink(path);
        if (mkfifo(path, 0600) < 0 ||
            (c->in_w = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)) < 0)
            r = -1;
    }
    if (!r && (c->in_r = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)) >= 0)
        fcntl(c->in_r, F_SETFL, 0); /* the container reads it blocking */
    else
        r = -1;
    if (r < 0)
        snprintf(msg, len, "stdin %s: %s", path, strerror(errno));
    free(path);
    return r;
}

void shim_pod_stdin_attached(shim_pod_t *pod)
{
    FOR_EACH_CTR(pod, c)
    {
        if (!c->spec->stdin_open)
            continue;
        char *mark = sl_xasprintf("%s/stdin-%s.attached", pod->dir, c->spec->name);
        if (unlink(mark) == 0 && c->spec->stdin_once && c->in_w >= 0) {
            close(c->in_w);
            c->in_w = -1;
        }
        free(mark);
    }
}

/* the run's log, its start time and OOM mark */
static void run_begin(shim_pod_t *pod, shim_ctr_t *c)
{
    char *ldir = sl_xasprintf("%s/logs/%s", pod->dir, c->spec->name);
    char *lpath = sl_xasprintf("%s/%d.log", ldir, c->restart_count);
    sl_error_t err = SL_ERROR_INIT;
    if (sl_mkdir_p(ldir, 0750, &err) < 0 || !(c->log = sl_crilog_open(lpath, &err)))
        sl_warn("container %s: output is lost: %s", c->spec->name, err.text);
    free(ldir);
    free(lpath);
    c->started_at = sl_tstamp_now();
    c->started_ms = sl_now_ms();
    c->sent_kill = 0;
    sl_oom_mark(&c->oom, pod->oom_root);
}

/* The run's stdio: with tty a pty (out[0] a copy of its master, out[1] its
 * slave, no stderr pipe), else stdin as the spec says and two pipes; ep the
 * child's report pipe. 0, or -1 with msg. */
static int run_stdio(shim_pod_t *pod, shim_ctr_t *c, int out[2], int errp[2], int ep[2], char *msg,
                     size_t len)
{
    if (c->spec->tty) {
        if (shim_tty_open(pod->dir, c, &out[1], msg, len) < 0)
            return -1;
        if ((out[0] = fcntl(c->pty, F_DUPFD_CLOEXEC, 0)) < 0) {
            snprintf(msg, len, "tty: %s", strerror(errno));
            return -1;
        }
    } else if (stdin_open(pod, c, msg, len) < 0) {
        return -1;
    } else if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
        snprintf(msg, len, "pipe: %s", strerror(errno));
        return -1;
    }
    if (pipe2(ep, O_CLOEXEC) < 0) {
        snprintf(msg, len, "pipe: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The run's private /tmp, emptied (podtmp.h): *argv with the runtime's
 * bind of it (*targv, owned), or *tmp alone for a runtime without a mount
 * namespace, bound by the child. 0, or -1 with msg. */
static int run_tmp_argv(shim_pod_t *pod, shim_ctr_t *c, char *const **argv, char ***targv,
                        char **tmp, char *msg, size_t len)
{
    if (!pod->tmp.dir) {
        snprintf(msg, len, "%s", pod->tmp_error);
        return -1;
    }
    sl_error_t err = SL_ERROR_INIT;
    if (!(*tmp = shim_podtmp_ctr(&pod->tmp, c->spec->name, &err))) {
        snprintf(msg, len, "%.255s", err.text);
        sl_error_clear(&err);
        return -1;
    }
    if ((*targv = shim_podtmp_argv(c->spec->runtime, *argv, *tmp)))
        *argv = *targv;
    return 0;
}

static void start_container(shim_pod_t *pod, shim_ctr_t *c)
{
    char msg[256] = "";
    shim_rootfs_t *rf = NULL;
    char **gargv = NULL, **targv = NULL, *tmp = NULL;
    run_begin(pod, c);
    int out[2] = {-1, -1}, errp[2] = {-1, -1}, ep[2] = {-1, -1};
    if (shim_runtime_check(c->spec, c->envp, pod->node, msg, sizeof(msg)) < 0)
        goto fail;
    if (c->spec->rootfs &&
        !(rf = shim_rootfs_prepare(pod->dir, c->spec, c->envp, msg, sizeof(msg))))
        goto fail;
    gargv = rf ? NULL : shim_gpu_argv(c->spec->runtime, c->spec->gpus, c->spec->argv, c->envp);
    char *const *argv = rf ? shim_rootfs_argv(rf) : gargv ? gargv : c->spec->argv;
    if (c->spec->private_tmp && run_tmp_argv(pod, c, &argv, &targv, &tmp, msg, sizeof(msg)) < 0)
        goto fail;
    if (run_stdio(pod, c, out, errp, ep, msg, sizeof(msg)) < 0)
        goto fail;
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    /* exec joins it (join.h): its private root, or the /tmp its child binds */
    int joinable = rf || (tmp && !targv);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(msg, sizeof(msg), "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0)
        run_child(pod, c, rf, targv ? NULL : tmp, argv, out[1], errp[1], ep[1], maxfd);
    if (!c->spec->tty)
        setpgid(pid, pid); /* also in the child: whichever runs first (a tty's calls setsid) */
    if (c->in_r >= 0)
        close(c->in_r);
    c->in_r = -1;
    close(out[1]);
    if (errp[1] >= 0)
        close(errp[1]);
    close(ep[1]);
    out[1] = errp[1] = ep[1] = -1;
    int failed = child_report(ep[0], pid, rf, argv, msg, sizeof(msg));
    shim_gpu_argv_free(gargv);
    shim_podtmp_argv_free(targv);
    free(tmp);
    gargv = targv = NULL;
    tmp = NULL;
    close(ep[0]);
    ep[0] = -1;
    if (failed)
        goto fail;
    c->rootfs = rf; /* until the run ends */
    if (joinable && shim_join_record(pod->dir, c->spec->name, pid) < 0)
        sl_warn("container %s: kubectl exec cannot join it: %s", c->spec->name, strerror(errno));
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    if (errp[0] >= 0)
        fcntl(errp[0], F_SETFL, O_NONBLOCK);
    c->fd[0] = out[0];
    c->fd[1] = errp[0];
    c->pid = pid;
    c->state = CS_RUNNING;
    c->waiting_reason = NULL;
    shim_probe_begin(pod, c);
    shim_event_container(pod, c, "started", -1);
    shim_status_write(pod);
    return;

fail:
    if (c->in_r >= 0)
        close(c->in_r);
    c->in_r = -1;
    if (c->pty >= 0)
        close(c->pty);
    c->pty = -1;
    shim_rootfs_free(rf);
    shim_gpu_argv_free(gargv);
    shim_podtmp_argv_free(targv);
    free(tmp);
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0)
            close(out[i]);
        if (errp[i] >= 0)
            close(errp[i]);
        if (ep[i] >= 0)
            close(ep[i]);
    }
    sl_warn("container %s: %s", c->spec->name, msg);
    if (c->log)
        sl_crilog_write(c->log, SL_CRILOG_STDERR, msg, strlen(msg));
    /* containerd reports a failed exec as StartError with exit code 128 */
    finish_run(pod, c, 128, 0, "StartError", msg);
}

void shim_pod_start(shim_pod_t *pod)
{
    shim_event_pod(pod, "pod-started");
    shim_status_write(pod);
    if (pod->spec->ninit) {
        pod->phase = POD_INIT;
        start_container(pod, &pod->init[0]);
    } else {
        start_apps(pod);
    }
}

static shim_ctr_t *find_pid(shim_pod_t *pod, pid_t pid)
{
    FOR_EACH_CTR(pod, c)
    {
        if (c->state == CS_RUNNING && c->pid == pid)
            return c;
    }
    return NULL;
}

/* Read what a stream has now; close it at end of file. */
static void pump(shim_ctr_t *c, int s)
{
    char buf[65536];
    while (c->fd[s] >= 0) {
        ssize_t n = read(c->fd[s], buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;   /* more later */
        if (n <= 0) { /* a pty's master reads EIO once its slave is closed */
            if (c->log)
                sl_crilog_eof(c->log, (sl_crilog_stream_t)s);
            close(c->fd[s]);
            c->fd[s] = -1;
            return;
        }
        if (c->log)
            sl_crilog_write(c->log, (sl_crilog_stream_t)s, buf, (size_t)n);
        if (c->log && c->spec->tty) /* a prompt is not a line: an attach shows it now */
            sl_crilog_flush(c->log, (sl_crilog_stream_t)s);
    }
}

void shim_pod_read(shim_pod_t *pod, int fd)
{
    FOR_EACH_CTR(pod, c)
    {
        if (c->tty_sock == fd) {
            shim_tty_serve(c);
            return;
        }
        for (int s = 0; s < 2; s++)
            if (c->fd[s] == fd) {
                pump(c, s);
                return;
            }
    }
    shim_probe_read(pod, fd);
}

void shim_pod_reap(shim_pod_t *pod)
{
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p <= 0)
            break;
        shim_ctr_t *c = find_pid(pod, p);
        if (!c) {
            shim_probe_reaped(pod, p, st);
            continue;
        }
        /* The container is its main process: like a runtime tearing down
         * the container's pid namespace, end whatever it left behind in its
         * process group, then collect the output that is already written. */
        kill(-p, SIGKILL);
        for (int s = 0; s < 2; s++) {
            pump(c, s);
            if (c->fd[s] >= 0) { /* held open by something outside the group */
                if (c->log)
                    sl_crilog_eof(c->log, (sl_crilog_stream_t)s);
                close(c->fd[s]);
                c->fd[s] = -1;
            }
        }
        int code, sig = 0;
        if (WIFSIGNALED(st)) {
            sig = WTERMSIG(st);
            code = 128 + sig;
        } else {
            code = WEXITSTATUS(st);
        }
        const char *reason = sl_oom_reason(code, sig, c->sent_kill, &c->oom, pod->oom_root);
        finish_run(pod, c, code, sig, reason, NULL);
    }
}

/* the Services' names changed: the pod's hosts file follows (hosts.h) */
static void names_check(shim_pod_t *pod, long long now)
{
    if (!pod->names_check_ms || now < pod->names_check_ms)
        return;
    pod->names_check_ms = now + SHIM_NAMES_CHECK_MS;
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_hosts_refresh(pod->spec->hosts, &err);
    if (rc < 0)
        sl_warn("the pod's hosts file: %s", err.text);
    else if (rc > 0)
        sl_info("the pod's hosts file: Service names updated (%zu lines)", pod->spec->hosts->nsvc);
}

void shim_pod_timers(shim_pod_t *pod)
{
    long long now = sl_now_ms();
    names_check(pod, now);
    if (pod->terminating) {
        if (pod->kill_at_ms > 0 && now >= pod->kill_at_ms) {
            pod->kill_at_ms = 0;
            FOR_EACH_CTR(pod, c)
            {
                if (c->state == CS_RUNNING) {
                    sl_info("container %s: grace period over, SIGKILL", c->spec->name);
                    c->sent_kill = 1;
                    kill(-c->pid, SIGKILL);
                }
            }
        }
        return;
    }
    if (pod->sidecars_stopping && pod->sidecar_kill_at_ms > 0 && now >= pod->sidecar_kill_at_ms) {
        pod->sidecar_kill_at_ms = 0;
        for (size_t i = 0; i < pod->spec->ncontainers; i++) {
            shim_ctr_t *c = &pod->apps[i];
            if (c->spec->sidecar && c->state == CS_RUNNING) {
                sl_info("sidecar %s: grace period over, SIGKILL", c->spec->name);
                c->sent_kill = 1;
                kill(-c->pid, SIGKILL);
            }
        }
    }
    shim_probe_timers(pod);
    FOR_EACH_CTR(pod, c)
    {
        if (c->restart_at_ms > 0 && now >= c->restart_at_ms && pod->phase != POD_FINISHED) {
            c->restart_at_ms = 0;
            c->last = c->cur;
            c->has_last = 1;
            c->restart_count++;
            start_container(pod, c);
        }
    }
}

long long shim_pod_next_timer(const shim_pod_t *pod)
{
    long long t = -1;
    if (pod->terminating)
        return pod->kill_at_ms > 0 ? pod->kill_at_ms : -1;
    if (pod->sidecars_stopping && pod->sidecar_kill_at_ms > 0)
        t = pod->sidecar_kill_at_ms;
    FOR_EACH_CTR(pod, c)
    {
        if (c->restart_at_ms > 0 && (t < 0 || c->restart_at_ms < t))
            t = c->restart_at_ms;
    }
    if (pod->names_check_ms > 0 && (t < 0 || pod->names_check_ms < t))
        t = pod->names_check_ms;
    long long p = shim_probe_next(pod);
    return p > 0 && (t < 0 || p < t) ? p : t;
}

/* The grace period of the delete that stops the pod: DIR/delete-grace
 * (docs/shim-spec.md), which slurmlinkd writes before it cancels the job
 * when a delete's grace period is shorter than the pod's. The pod's user
 * could write it too: only a shorter grace than the pod's own is taken. */
static int term_grace(const shim_pod_t *pod)
{
    int g = pod->spec->grace_seconds;
    int dfd = open(pod->dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    char *s = dfd >= 0 ? sl_safefs_read(dfd, SL_SHIM_DELETE_GRACE, 32, NULL, NULL) : NULL;
    if (dfd >= 0)
        close(dfd);
    char *end = NULL;
    long v = s ? strtol(s, &end, 10) : -1;
    if (s && end != s && (*end == '\n' || !*end) && v >= 0 && v < g)
        g = (int)v;
    free(s);
    return g;
}

void shim_pod_terminate(shim_pod_t *pod, int signo)
{
    if (pod->phase == POD_FINISHED)
        return;
    int grace = term_grace(pod);
    if (pod->terminating) { /* a later delete may shorten the grace period */
        long long at = sl_now_ms() + (long long)grace * 1000;
        if (pod->kill_at_ms > 0 && at < pod->kill_at_ms) {
            sl_info("received %s: grace period now %d s", strsignal(signo), grace);
            pod->kill_at_ms = at > 0 ? at : 1;
            shim_pod_timers(pod);
        }
        return;
    }
    sl_info("received %s: stopping containers (grace period %d s)", strsignal(signo), grace);
    pod->terminating = 1;
    pod->grace_s = grace;
    pod->kill_at_ms = sl_now_ms() + (long long)grace * 1000;
    if (pod->kill_at_ms <= 0)
        pod->kill_at_ms = 1;
    shim_event_pod(pod, "terminating");
    FOR_EACH_CTR(pod, c)
    {
        if (c->state == CS_RUNNING)
            kill(-c->pid, SIGTERM);
        else if (c->restart_at_ms > 0)
            mark_done(pod, c); /* waiting in back-off: it will not run again */
    }
    shim_status_write(pod);
    shim_pod_timers(pod); /* a grace period of 0 kills at once */
    maybe_finish(pod);
}

void shim_pod_cleanup(shim_pod_t *pod)
{
    shim_podtmp_remove(&pod->tmp); /* no container runs any more */
    /* the spec parser admits only absolute, normalised ".../slurmlink-*"
     * folders here; sl_rm_rf does not follow a symlink at the top */
    for (size_t i = 0; i < pod->spec->ncleanup; i++) {
        const char *d = pod->spec->cleanup[i];
        if (sl_rm_rf(d) < 0 && errno != ENOENT)
            sl_warn("cleanup %s: %s", d, strerror(errno));
    }
    /* secret files outlive no pod: gone once no container can run again
     * (restarts happen inside this job, so not before) */
    for (size_t i = 0; i < pod->spec->nsecret_volumes; i++) {
        char *d = sl_xasprintf("%s/volumes/%s", pod->dir, pod->spec->secret_volumes[i]);
        if (sl_rm_rf(d) < 0 && errno != ENOENT)
            sl_warn("cleanup %s: %s", d, strerror(errno));
        free(d);
    }
}
