/* probe.c — the kubelet's prober in the shim: each running container's
 * startupProbe, livenessProbe and readinessProbe (shim.json "probes",
 * shimlib/probespec.h) on their timing fields.
 *
 * Every probe run is a child process in a process group of its own, so the
 * poll loop never blocks: an exec probe enters the container as kubectl
 * exec does (exec.c) and runs the command; httpGet is a libcurl GET, and
 * tcpSocket a connect, each bounded by timeoutSeconds; the child's exit
 * status is the result (0 success) and what it wrote its message. A child
 * still running after timeoutSeconds (and a second of slack for httpGet
 * and tcpSocket, which time themselves) is killed: a failure.
 *
 * The results follow the kubelet: the startup probe gates the two others;
 * successThreshold successes in a row make readiness succeed and
 * failureThreshold failures in a row fail it; a failed liveness or startup
 * probe stops the container (SIGTERM, SIGKILL after the probe's
 * terminationGracePeriodSeconds, else the pod's), and the restartPolicy
 * and the back-off decide what comes next. Each failed run is a "probe"
 * event (slurmlinkd's Unhealthy Event); each change of the container's
 * ready or started is one too (docs/shim-spec.md).
 */
#include "shim.h"

#include "common/buf.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "shimlib/nodeinfo.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROBE_OUT_MAX 1024 /* bytes of a probe's output kept for its message */
/* A probe that keeps failing: its first failures in a row are events, then
 * one every FAIL_QUIET_MS, so that events.jsonl (each a line) stays small
 * for a pod that runs for months with a failing probe */
#define FAIL_TOLD 10
#define FAIL_QUIET_MS 300000LL

struct shim_probe_run {
    long long due_ms;      /* the next run, monotonic */
    pid_t pid;             /* the running child, 0 none */
    int fd;                /* its output, -1 */
    long long deadline_ms; /* killed then */
    char out[PROBE_OUT_MAX];
    size_t nout;
    int timed_out;
    int successes, failures; /* in a row */
    int succeeded;           /* the probe's current result */
    long long told_ms;       /* when a failure was last an event */
};

/* ---- the child: one probe run --------------------------------------------------- */

static size_t discard(char *p, size_t s, size_t n, void *u)
{
    (void)p;
    (void)u;
    return s * n;
}

/* the probe's host: its own, else the pod's address (the node's: the job
 * shares its network) */
static char *probe_host(const sl_shim_probe_t *p)
{
    if (p->host)
        return sl_xstrdup(p->host);
    char *ip = sl_node_field(SL_FIELD_POD_IP);
    if (!ip || !*ip) {
        free(ip);
        ip = sl_xstrdup("127.0.0.1");
    }
    return ip;
}

static int http_child(const sl_shim_probe_t *p)
{
    char *host = probe_host(p);
    int v6 = strchr(host, ':') != NULL;
    char *url = sl_xasprintf("%s://%s%s%s:%d%s", p->https ? "https" : "http", v6 ? "[" : "", host,
                             v6 ? "]" : "", p->port, p->path[0] == '/' ? p->path : "/");
    CURL *h = curl_easy_init();
    struct curl_slist *hl = curl_slist_append(NULL, "Accept: */*");
    for (size_t i = 0; i < p->nheaders; i++)
        hl = curl_slist_append(hl, p->headers[i]);
    char ebuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "kube-probe/1.33");
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)p->timeout * 1000L);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L); /* as the kubelet: no verification */
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, ebuf);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    int ok = rc == CURLE_OK && code >= 200 && code < 400;
    if (rc != CURLE_OK)
        printf("Get \"%s\": %s", url, ebuf[0] ? ebuf : curl_easy_strerror(rc));
    else if (!ok)
        printf("HTTP probe failed with statuscode: %ld", code);
    fflush(stdout);
    return ok ? 0 : 1;
}

/* a connect within the timeout; the message as Go's net package words it */
static int tcp_child(const sl_shim_probe_t *p)
{
    char *host = probe_host(p), port[16];
    snprintf(port, sizeof(port), "%d", p->port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    int g = getaddrinfo(host, port, &hints, &ai);
    if (g) {
        printf("dial tcp %s:%s: lookup %s: %s", host, port, host, gai_strerror(g));
        return 1;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int e = fd < 0 ? errno : 0;
    if (!e && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        e = errno;
        if (e == EINPROGRESS) {
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            int r = poll(&pf, 1, p->timeout * 1000);
            socklen_t l = sizeof(e);
            if (r == 0)
                e = ETIMEDOUT;
            else if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0)
                e = errno;
        }
    }
    freeaddrinfo(ai);
    if (e == ETIMEDOUT)
        printf("dial tcp %s:%s: i/o timeout", host, port);
    else if (e) { /* Go's syscall texts are lower-case */
        char why[128];
        snprintf(why, sizeof(why), "%s", strerror(e));
        why[0] = (char)tolower((unsigned char)why[0]);
        printf("dial tcp %s:%s: connect: %s", host, port, why);
    }
    fflush(stdout);
    return e ? 1 : 0;
}

static void run_child(shim_pod_t *pod, const shim_ctr_t *c, const sl_shim_probe_t *p, int out)
{
    setpgid(0, 0);
    dup2(out, 1);
    dup2(out, 2);
    int null = open("/dev/null", O_RDONLY);
    if (null > 0) {
        dup2(null, 0);
        close(null);
    }
    if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) /* nothing of the shim's goes on */
        for (int fd = 3; fd < 1024; fd++)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
    sigset_t none;
    sigemptyset(&none);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (p->kind == SL_PROBE_EXEC)
        shim_exec_probe(pod->dir, c->spec, p->command); /* returns never */
    _exit(p->kind == SL_PROBE_HTTP ? http_child(p) : tcp_child(p));
}

/* ---- the shim's side ----------------------------------------------------------- */

static shim_probe_run_t *run_of(const shim_ctr_t *c, int t)
{
    return c->probes && c->spec->probes[t] ? &c->probes[t] : NULL;
}

static int has(const shim_ctr_t *c, int t) { return c->spec->probes[t] != NULL; }

/* the container's ready and started from the probes' results: a change is
 * an event */
static void settle(shim_pod_t *pod, shim_ctr_t *c, int t, const char *failed_msg)
{
    shim_probe_run_t *r = &c->probes[t];
    int started = !has(c, SL_PROBE_STARTUP) || c->probes[SL_PROBE_STARTUP].succeeded;
    int ready = started && (!has(c, SL_PROBE_READINESS) || c->probes[SL_PROBE_READINESS].succeeded);
    if (failed_msg || started != c->started_ok || ready != c->ready) {
        c->started_ok = started;
        c->ready = ready;
        shim_event_probe(pod, c, t, r->succeeded && !failed_msg, failed_msg);
        shim_status_write(pod);
    }
}

/* a liveness or startup probe failed for good: stop the container as the
 * kubelet does; the restartPolicy decides on the rest */
static void kill_for(shim_pod_t *pod, shim_ctr_t *c, int t)
{
    if (c->probe_kill_at_ms > 0 || c->state != CS_RUNNING || pod->terminating)
        return; /* stopping already */
    const sl_shim_probe_t *p = c->spec->probes[t];
    int grace = p->grace >= 0 ? p->grace : pod->spec->grace_seconds;
    sl_restart_policy_t pol = c->spec->sidecar ? SL_RESTART_ALWAYS : pod->spec->restart_policy;
    char msg[200];
    snprintf(msg, sizeof(msg), "Container %s failed %s probe%s", c->spec->name,
             t == SL_PROBE_LIVENESS ? "liveness" : "startup",
             pol == SL_RESTART_NEVER ? "" : ", will be restarted");
    sl_info("%s (grace period %d s)", msg, grace);
    shim_event_killing(pod, c, msg, grace);
    c->probe_kill_at_ms = sl_now_ms() + (long long)grace * 1000;
    if (c->probe_kill_at_ms <= 0)
        c->probe_kill_at_ms = 1;
    kill(-c->pid, SIGTERM);
}

/* the kubelet's text for an exec probe killed at its timeout: the command
 * joined by spaces, as Go's %q prints it */
static void timed_out_text(const sl_shim_probe_t *p, char *msg, size_t len)
{
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < p->ncommand; i++)
        sl_buf_printf(&b, "%s%s", i ? " " : "", p->command[i]);
    char *q = sl_go_quote(b.data ? b.data : "");
    snprintf(msg, len, "command %s timed out", q);
    free(q);
    sl_buf_free(&b);
}

static void result(shim_pod_t *pod, shim_ctr_t *c, int t, int ok)
{
    shim_probe_run_t *r = &c->probes[t];
    const sl_shim_probe_t *p = c->spec->probes[t];
    if (ok) {
        r->failures = 0;
        if (++r->successes >= p->success_threshold)
            r->succeeded = 1;
        settle(pod, c, t, NULL);
        return;
    }
    r->successes = 0;
    if (++r->failures >= p->failure_threshold)
        r->succeeded = 0;
    char msg[PROBE_OUT_MAX + 64];
    const sl_shim_probe_t *pp = c->spec->probes[t];
    if (r->timed_out && pp->kind == SL_PROBE_EXEC)
        timed_out_text(pp, msg, sizeof(msg));
    else if (r->timed_out)
        snprintf(msg, sizeof(msg), "probe timed out after %ds", pp->timeout);
    else
        snprintf(msg, sizeof(msg), "%.*s", (int)r->nout, r->out);
    long long now = sl_now_ms();
    int tell = r->failures <= FAIL_TOLD || now - r->told_ms >= FAIL_QUIET_MS;
    if (tell)
        r->told_ms = now;
    settle(pod, c, t, tell ? msg : NULL);
    if (!r->succeeded && t != SL_PROBE_READINESS && r->failures >= p->failure_threshold)
        kill_for(pod, c, t);
}

static void collect(shim_probe_run_t *r)
{
    while (r->fd >= 0) {
        char buf[512];
        ssize_t n = read(r->fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0 || errno != EAGAIN) {
                close(r->fd);
                r->fd = -1;
            }
            return;
        }
        size_t k = (size_t)n < sizeof(r->out) - r->nout ? (size_t)n : sizeof(r->out) - r->nout;
        memcpy(r->out + r->nout, buf, k);
        r->nout += k;
    }
}

static void start(shim_pod_t *pod, shim_ctr_t *c, int t, long long now)
{
    shim_probe_run_t *r = &c->probes[t];
    const sl_shim_probe_t *p = c->spec->probes[t];
    r->due_ms = now + (long long)p->period * 1000;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        sl_warn("container %s: probe: pipe: %s", c->spec->name, strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0)
        run_child(pod, c, p, fds[1]);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        sl_warn("container %s: probe: fork: %s", c->spec->name, strerror(errno));
        return;
    }
    setpgid(pid, pid);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    r->pid = pid;
    r->fd = fds[0];
    r->nout = 0;
    r->timed_out = 0;
    r->deadline_ms = now + (long long)p->timeout * 1000 + (p->kind == SL_PROBE_EXEC ? 0 : 1000);
}

void shim_probe_begin(shim_pod_t *pod, shim_ctr_t *c)
{
    (void)pod;
    int any = 0;
    for (int t = 0; t < SL_PROBE_NTYPES; t++)
        any |= has(c, t);
    c->started_ok = !has(c, SL_PROBE_STARTUP);
    c->ready = c->started_ok && !has(c, SL_PROBE_READINESS);
    c->probe_kill_at_ms = 0;
    if (!any)
        return;
    if (!c->probes)
        c->probes = sl_xcalloc(SL_PROBE_NTYPES, sizeof(shim_probe_run_t));
    long long now = sl_now_ms();
    for (int t = 0; t < SL_PROBE_NTYPES; t++) {
        shim_probe_run_t *r = &c->probes[t];
        memset(r, 0, sizeof(*r));
        r->fd = -1;
        r->succeeded = t == SL_PROBE_LIVENESS; /* the kubelet's initial results */
        if (has(c, t))
            r->due_ms = now + (long long)c->spec->probes[t]->initial_delay * 1000;
    }
}

void shim_probe_end(shim_pod_t *pod, shim_ctr_t *c)
{
    (void)pod;
    c->ready = 0;
    c->probe_kill_at_ms = 0;
    for (int t = 0; t < SL_PROBE_NTYPES; t++) {
        shim_probe_run_t *r = run_of(c, t);
        if (!r)
            continue;
        if (r->pid > 0)
            kill(-r->pid, SIGKILL); /* reaped by shim_pod_reap; its result is dropped */
        if (r->fd >= 0)
            close(r->fd);
        r->fd = -1;
        r->due_ms = 0;
    }
}

static void ctr_timers(shim_pod_t *pod, shim_ctr_t *c, long long now)
{
    if (c->probe_kill_at_ms > 0 && now >= c->probe_kill_at_ms && c->state == CS_RUNNING) {
        c->probe_kill_at_ms = 0;
        sl_info("container %s: grace period over, SIGKILL", c->spec->name);
        c->sent_kill = 1;
        kill(-c->pid, SIGKILL);
    }
    for (int t = 0; t < SL_PROBE_NTYPES; t++) {
        shim_probe_run_t *r = run_of(c, t);
        if (!r)
            continue;
        if (r->pid > 0 && now >= r->deadline_ms && !r->timed_out) {
            r->timed_out = 1;
            kill(-r->pid, SIGKILL);
        }
        if (r->pid > 0 || !r->due_ms || now < r->due_ms || c->state != CS_RUNNING ||
            c->probe_kill_at_ms > 0 || pod->terminating)
            continue;
        if (t == SL_PROBE_STARTUP ? c->started_ok : !c->started_ok) {
            r->due_ms = now + (long long)c->spec->probes[t]->period * 1000; /* gated */
            continue;
        }
        start(pod, c, t, now);
    }
}

#define FOR_EACH_APP(pod, c)                                                                       \
    for (size_t i_ = 0; i_ < (pod)->spec->ncontainers; i_++)                                       \
        for (shim_ctr_t *c = &(pod)->apps[i_]; c; c = NULL)

void shim_probe_timers(shim_pod_t *pod)
{
    long long now = sl_now_ms();
    FOR_EACH_APP(pod, c)
    {
        if (c->probes)
            ctr_timers(pod, c, now);
    }
}

static long long earliest(long long a, long long b) { return b > 0 && (a < 0 || b < a) ? b : a; }

long long shim_probe_next(const shim_pod_t *pod)
{
    long long t = -1;
    FOR_EACH_APP(pod, c)
    {
        if (!c->probes || c->state != CS_RUNNING)
            continue;
        t = earliest(t, c->probe_kill_at_ms);
        for (int k = 0; k < SL_PROBE_NTYPES; k++) {
            const shim_probe_run_t *r = run_of(c, k);
            if (r && r->pid > 0 && !r->timed_out)
                t = earliest(t, r->deadline_ms);
            else if (r && !r->pid && !pod->terminating)
                t = earliest(t, r->due_ms);
        }
    }
    return t;
}

size_t shim_probe_fds(const shim_pod_t *pod, struct pollfd *fds)
{
    size_t n = 0;
    FOR_EACH_APP(pod, c)
    {
        for (int t = 0; c->probes && t < SL_PROBE_NTYPES; t++)
            if (c->probes[t].fd >= 0)
                fds[n++] = (struct pollfd){.fd = c->probes[t].fd, .events = POLLIN};
    }
    return n;
}

int shim_probe_read(shim_pod_t *pod, int fd)
{
    FOR_EACH_APP(pod, c)
    {
        for (int t = 0; c->probes && t < SL_PROBE_NTYPES; t++)
            if (c->probes[t].fd == fd) {
                collect(&c->probes[t]);
                return 1;
            }
    }
    return 0;
}

int shim_probe_reaped(shim_pod_t *pod, pid_t pid, int status)
{
    FOR_EACH_APP(pod, c)
    {
        for (int t = 0; c->probes && t < SL_PROBE_NTYPES; t++) {
            shim_probe_run_t *r = &c->probes[t];
            if (r->pid != pid)
                continue;
            kill(-pid, SIGKILL); /* what the command left behind */
            collect(r);
            if (r->fd >= 0)
                close(r->fd);
            r->fd = -1;
            r->pid = 0;
            if (c->state == CS_RUNNING && r->due_ms) /* not a run that ended meanwhile */
                result(pod, c, t, !r->timed_out && WIFEXITED(status) && !WEXITSTATUS(status));
            return 1;
        }
    }
    return 0;
}
