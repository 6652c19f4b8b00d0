/* portfwd.c — GET .../pods/NAME/portforward?ports=P[,Q...] over WebSocket
 * (v4.channel.k8s.io, as the Python client's portforward() speaks it).
 *
 * Per port i (in the order of the query), channel 2i carries the data and
 * 2i+1 errors; the server's first frame on each is the port number (two
 * bytes, little-endian), as the kubelet sends. slurmlinkd connects to the
 * pod's address (status.podIP: the job shares its node's network; with
 * several nodes, the node's address) once per port and session; the
 * session ends when every connection has ended or the client goes.
 *
 * Who may reach what: pods/portforward is a write of the namespace, by a
 * requester who runs as the pod's Unix user (or an admin: api_may_act_as);
 * and the port must be listened on by the pod's own Unix user, in the
 * network namespace of the pod's shim (/proc/<shim pid>/net/tcp{,6}): the
 * nodes' network is shared by every job on them, so a port of another
 * tenant's job on the same node is refused. The shim's pid is read from
 * the pod folder, which its user may write: so the process it names is
 * used only when it is that user's, below the slurmstepd (a root process)
 * of the pod's own Slurm job, and in that slurmstepd's network namespace,
 * the node's, which the pod's address reaches (else a process in a
 * namespace of the tenant's making would vouch for a port that is
 * another's on the node). A
 * pod whose shim is not on this host cannot be checked, and is refused.
 * Each connection to the pod counts against the requester's streams
 * (exec.max_streams_per_user, identity.c). kubectl port-forward speaks SPDY/3.1,
 * straight or (1.31+) tunnelled in WebSocket: pf_mode tells which, and its
 * session is spdypf.c's.
 */
#include "api/http/exec.h"
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"

#include "common/buf.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wslay/wslay.h>

#define PF_MAX_PORTS 16
enum { PF_WS, PF_TUNNEL, PF_SPDY }; /* the Python client's; kubectl's, tunnelled or not */
#define PF_TUNNEL_PROTOCOL "SPDY/3.1+portforward.k8s.io"
#define PF_CHUNK 32768
#define PF_HELD_MAX (4u << 20) /* client bytes held for the pod: stop reading the client */
#define PF_STEPD_DEPTH 64      /* ancestors looked at for the job's slurmstepd */

typedef struct pf {
    sl_api_t *api;
    int nports;
    int ports[PF_MAX_PORTS];
    int fd[PF_MAX_PORTS];       /* the connection per port, -1 once ended */
    sl_buf_t out[PF_MAX_PORTS]; /* client bytes not yet written to it */
    char *addr;                 /* the pod's address */
    char *desc;
    http_up_t *up; /* the upgraded connection */
    bool dead;
    int mode;   /* PF_WS, PF_TUNNEL, PF_SPDY */
    pid_t shim; /* the pod's shim, and its Unix user */
    uid_t uid;
    char *pod, *pod_uid; /* "NS/NAME", its uid */
    wslay_event_context_ptr ctx;
    http_up_clock_t clock;
    const char *why; /* the limit that ended it, or NULL */
    char *who;       /* the identity its streams count against, or NULL */
    unsigned taken;  /* how many */
} pf_t;

static void pf_free(pf_t *f)
{
    for (int i = 0; i < f->nports; i++) {
        if (f->fd[i] >= 0)
            close(f->fd[i]);
        sl_buf_free(&f->out[i]);
    }
    free(f->addr);
    free(f->desc);
    free(f->pod);
    free(f->pod_uid);
    if (f->who)
        api_streams_give(f->api, f->who, f->taken);
    free(f->who);
    free(f);
}

/* "8080,9090" (and repeated ports=): 0, or -1 with *why */
static enum MHD_Result add_ports(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    pf_t *f = cls;
    if (!key || strcmp(key, "ports") || !value)
        return MHD_YES;
    char *list = sl_xstrdup(value);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        long p = strtol(t, &end, 10);
        if (*end || p < 1 || p > 65535 || f->nports == PF_MAX_PORTS)
            f->nports = -1 - PF_MAX_PORTS; /* marks the list bad */
        else if (f->nports >= 0)
            f->ports[f->nports++] = (int)p;
    }
    free(list);
    return MHD_YES;
}

int api_pf_port_owner(pid_t pid, uid_t uid, int port)
{
    int seen = -1;
    for (int v6 = 0; v6 < 2; v6++) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/net/tcp%s", (int)pid, v6 ? "6" : "");
        FILE *fp = fopen(path, "re");
        if (!fp)
            continue;
        seen = seen < 0 ? 0 : seen;
        char line[512];
        while (fgets(line, sizeof(line), fp)) {
            char local[128];
            unsigned st, lport;
            unsigned long u;
            if (sscanf(line, " %*d: %127s %*s %x %*s %*s %*s %lu", local, &st, &u) != 3)
                continue;
            char *colon = strrchr(local, ':');
            if (colon && sscanf(colon + 1, "%x", &lport) == 1 && st == 0x0A && (int)lport == port)
                seen = u == uid ? 1 : seen == 1 ? 1 : 2;
        }
        fclose(fp);
    }
    return seen;
}

/* pid's parent, or 0 */
static pid_t parent_of(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *fp = fopen(path, "re");
    bool got = fp && fgets(line, sizeof(line), fp);
    if (fp)
        fclose(fp);
    char *close = got ? strrchr(line, ')') : NULL; /* the name may hold anything */
    int ppid = 0;
    if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1)
        return 0;
    return (pid_t)ppid;
}

/* is pid root's slurmstepd of job (its title "slurmstepd: [JOB.STEP]")? */
static bool is_stepd_of(pid_t pid, const char *job)
{
    char path[64], title[128] = {0};
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d", (int)pid);
    if (stat(path, &st) < 0 || st.st_uid != 0)
        return false;
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    FILE *fp = fopen(path, "re");
    size_t n = fp ? fread(title, 1, sizeof(title) - 1, fp) : 0;
    if (fp)
        fclose(fp);
    title[n] = '\0';
    char *want = sl_xasprintf("slurmstepd: [%s.", job);
    bool yes = !strncmp(title, want, strlen(want));
    free(want);
    return yes;
}

/* are a and b in the same network namespace? */
static bool same_netns(pid_t a, pid_t b)
{
    char pa[64], pb[64];
    struct stat sa, sb;
    snprintf(pa, sizeof(pa), "/proc/%d/ns/net", (int)a);
    snprintf(pb, sizeof(pb), "/proc/%d/ns/net", (int)b);
    return stat(pa, &sa) == 0 && stat(pb, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Is pid a process of the pod: uid's, below the slurmstepd of the pod's
 * Slurm job, and in that slurmstepd's network namespace (the node's, which
 * the pod's address reaches)? */
static bool pod_process(pid_t pid, uid_t uid, const char *job)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d", (int)pid);
    if (pid <= 1 || !job || !*job || stat(path, &st) < 0 || st.st_uid != uid)
        return false;
    pid_t a = pid;
    for (int i = 0; i < PF_STEPD_DEPTH && (a = parent_of(a)) > 1; i++)
        if (is_stepd_of(a, job))
            return same_netns(pid, a);
    return false;
}

/* the shim's pid, from the pod folder (its user's to write): when it names
 * a process of the pod (pod_process), else 0 */
static pid_t shim_pid(const char *pod_dir, uid_t uid, const char *job)
{
    int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dir = root >= 0 ? sl_safefs_opendir(root, pod_dir + 1) : -1;
    if (root >= 0)
        close(root);
    char *text = NULL;
    if (dir >= 0) {
        int fd = sl_safefs_open_read(dir, "shim.pid", uid, NULL);
        char buf[32] = {0};
        if (fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0)
            text = sl_xstrdup(buf);
        if (fd >= 0)
            close(fd);
        close(dir);
    }
    pid_t pid = text ? (pid_t)atoi(text) : 0;
    free(text);
    return pid > 0 && pod_process(pid, uid, job) ? pid : 0;
}

/* ---- the session ---- */

static ssize_t pf_recv(wslay_event_context_ptr ctx, uint8_t *buf, size_t len, int flags, void *u)
{
    pf_t *f = u;
    ssize_t n = http_up_recv(f->up, buf, len);
    if (n > 0)
        return n;
    if (n < 0 && errno == EAGAIN)
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
    else {
        f->dead = true;
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    }
    return -1;
}

static ssize_t pf_send(wslay_event_context_ptr ctx, const uint8_t *d, size_t len, int flags,
                       void *u)
{
    pf_t *f = u;
    ssize_t n = http_up_send(f->up, d, len);
    if (n >= 0)
        return n;
    if (errno == EAGAIN)
        wslay_event_set_error(ctx, WSLAY_ERR_WOULDBLOCK);
    else {
        f->dead = true;
        wslay_event_set_error(ctx, WSLAY_ERR_CALLBACK_FAILURE);
    }
    return -1;
}

static void pf_queue(pf_t *f, uint8_t ch, const void *data, size_t len)
{
    uint8_t *m = sl_xmalloc(len + 1);
    m[0] = ch;
    memcpy(m + 1, data, len);
    struct wslay_event_msg msg = {WSLAY_BINARY_FRAME, m, len + 1};
    wslay_event_queue_msg(f->ctx, &msg);
    free(m);
}

static void pf_msg(wslay_event_context_ptr ctx, const struct wslay_event_on_msg_recv_arg *a,
                   void *u)
{
    pf_t *f = u;
    if (a->opcode != WSLAY_BINARY_FRAME || a->msg_length < 1 || a->msg[0] % 2)
        return; /* error channels are the server's */
    int i = a->msg[0] / 2;
    if (i < f->nports && f->fd[i] >= 0)
        sl_buf_append(&f->out[i], a->msg + 1, a->msg_length - 1);
}

/* the connections, and the first frame of every channel */
static void pf_connect(pf_t *f)
{
    for (int i = 0; i < f->nports; i++) {
        uint8_t port[2] = {(uint8_t)(f->ports[i] & 0xff), (uint8_t)(f->ports[i] >> 8)};
        pf_queue(f, (uint8_t)(2 * i), port, 2);
        pf_queue(f, (uint8_t)(2 * i + 1), port, 2);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)f->ports[i])};
        f->fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (inet_pton(AF_INET, f->addr, &sa.sin_addr) != 1 || f->fd[i] < 0 ||
            connect(f->fd[i], (struct sockaddr *)&sa, sizeof(sa)) < 0) {
            char *m = sl_xasprintf("an error occurred forwarding %d -> %d: dial tcp %s:%d: %s",
                                   f->ports[i], f->ports[i], f->addr, f->ports[i], strerror(errno));
            pf_queue(f, (uint8_t)(2 * i + 1), m, strlen(m));
            free(m);
            if (f->fd[i] >= 0)
                close(f->fd[i]);
            f->fd[i] = -1;
            continue;
        }
        fcntl(f->fd[i], F_SETFL, fcntl(f->fd[i], F_GETFL) | O_NONBLOCK);
    }
}

/* a connection readable or writable */
static void pf_io(pf_t *f, int i, short rev)
{
    if (rev & POLLOUT && f->out[i].len) {
        ssize_t n = write(f->fd[i], f->out[i].data, f->out[i].len);
        if (n > 0) {
            http_up_clock_touch(&f->clock);
            memmove(f->out[i].data, f->out[i].data + n, f->out[i].len - (size_t)n);
            f->out[i].len -= (size_t)n;
        }
    }
    if (rev & (POLLIN | POLLHUP | POLLERR)) {
        char buf[PF_CHUNK];
        ssize_t n = read(f->fd[i], buf, sizeof(buf));
        if (n > 0) {
            http_up_clock_touch(&f->clock);
            pf_queue(f, (uint8_t)(2 * i), buf, (size_t)n);
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            close(f->fd[i]);
            f->fd[i] = -1;
        }
    }
}

/* one poll round; false when the session is over */
static bool pf_round(pf_t *f)
{
    struct pollfd p[1 + PF_MAX_PORTS];
    int idx[1 + PF_MAX_PORTS], n = 1, open = 0;
    bool room = wslay_event_get_queued_msg_count(f->ctx) < 64;
    size_t held = 0;
    for (int i = 0; i < f->nports; i++)
        held += f->out[i].len;
    bool want = held < PF_HELD_MAX; /* else the pods first */
    short ev = http_up_events(f->up, f->ctx);
    p[0] = (struct pollfd){.fd = http_up_fd(f->up), .events = want ? ev : (short)(ev & ~POLLIN)};
    for (int i = 0; i < f->nports; i++) {
        if (f->fd[i] < 0)
            continue;
        open++;
        idx[n] = i;
        p[n++] = (struct pollfd){
            .fd = f->fd[i], .events = (short)((room ? POLLIN : 0) | (f->out[i].len ? POLLOUT : 0))};
    }
    int ready = poll(p, (nfds_t)n, want ? http_up_timeout(f->up, 200) : 200);
    if (!http_up_pump(f->up, f->ctx, ready > 0 ? p[0].revents : 0, want))
        f->dead = true;
    for (int k = 1; k < n; k++)
        if (p[k].revents)
            pf_io(f, idx[k], p[k].revents);
    bool queued = wslay_event_get_queued_msg_count(f->ctx) > 0;
    f->why = http_up_clock_expired(&f->clock);
    return !f->dead && !f->why && wslay_event_get_read_enabled(f->ctx) &&
           !atomic_load(&f->api->stopping) && (open > 0 || queued);
}

/* our close once the data has left (wslay sends control frames first),
 * then the client's answer: up to 30 s */
static void pf_close(pf_t *f)
{
    long long end = sl_now_ms() + 30000;
    bool closing = false;
    while (!f->dead && sl_now_ms() < end) {
        if (!closing && wslay_event_get_queued_msg_count(f->ctx) == 0) {
            wslay_event_queue_close(f->ctx, WSLAY_CODE_NORMAL_CLOSURE, NULL, 0);
            closing = true;
        }
        if (closing && !wslay_event_want_write(f->ctx) && !wslay_event_want_read(f->ctx) &&
            !http_up_pending(f->up))
            break;
        struct pollfd p = {.fd = http_up_fd(f->up), .events = http_up_events(f->up, f->ctx)};
        if (poll(&p, 1, http_up_timeout(f->up, 100)) < 0 ||
            !http_up_pump(f->up, f->ctx, p.revents, true))
            break;
    }
}

/* the session, in the connection's thread (upconn.h): to its end */
static void pf_upgraded(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra_in,
                        size_t extra_in_size, MHD_socket sock,
                        struct MHD_UpgradeResponseHandle *urh)
{
    pf_t *f = cls;
    f->up = http_up_open(conn, sock, urh, extra_in, extra_in_size);
    atomic_fetch_add(&f->api->exec_sessions, 1);
    struct wslay_event_callbacks cb = {pf_recv, pf_send, NULL, NULL, NULL, NULL, pf_msg};
    http_up_clock_start(&f->clock, f->api->exec_idle_s, f->api->exec_max_s);
    if (wslay_event_context_server_init(&f->ctx, &cb, f) == 0) {
        wslay_event_config_set_max_recv_msg_length(f->ctx, f->api->exec_max_message);
        pf_connect(f);
        while (pf_round(f))
            ;
        if (http_up_ws_too_big(f->ctx)) {
            f->why = "a message over exec.max_message_bytes, closed with 1009";
            http_up_ws_drain(f->up, f->ctx);
        } else if (!f->dead) {
            pf_close(f);
        }
        wslay_event_context_free(f->ctx);
    }
    if (f->why)
        sl_info("port-forward ended: %s: %s", f->why, f->desc);
    else
        sl_info("port-forward ended: %s", f->desc);
    http_up_close(f->up);
    atomic_fetch_sub(&f->api->exec_sessions, 1);
    pf_free(f);
}

/* The pod's Slurm job id, as the controller recorded it. A Job's pod can be
 * Running (its shim's push) before a poll has found its array task and
 * recorded the task's id: the stored pod is read again for up to 10 s,
 * while it is the same pod. NULL when none is recorded by then. */
static char *pod_job_id(api_req_t *r, json_t *pod)
{
    const char *job = sl_kube_annotation(pod, "slurmlink.io/job-id");
    const char *uid = sl_kube_uid(pod);
    if (job && *job)
        return sl_xstrdup(job);
    char *found = NULL;
    for (int i = 0; i < 40 && !found && uid; i++) {
        usleep(250 * 1000);
        json_t *now =
            sl_store_get(r->api->store, "pods", sl_kube_namespace(pod), sl_kube_name(pod));
        const char *u = now ? sl_kube_uid(now) : NULL;
        const char *j = now ? sl_kube_annotation(now, "slurmlink.io/job-id") : NULL;
        if (!u || strcmp(u, uid)) {
            json_decref(now);
            break;
        }
        if (j && *j)
            found = sl_xstrdup(j);
        json_decref(now);
    }
    return found;
}

int api_pod_port_listened(api_req_t *r, json_t *pod, int port)
{
    const char *uid = sl_kube_uid(pod);
    char *dir = sl_xasprintf("%s/%s/%s-%s", r->api->pods_root, sl_kube_namespace(pod),
                             sl_kube_name(pod), uid ? uid : "");
    struct stat st;
    bool owned = stat(dir, &st) == 0 && st.st_uid != 0;
    char *job = owned ? pod_job_id(r, pod) : NULL;
    pid_t pid = owned ? shim_pid(dir, st.st_uid, job) : 0;
    free(job);
    free(dir);
    if (!pid)
        return -1;
    return api_pf_port_owner(pid, st.st_uid, port);
}

/* the refusal of this pod and ports (kubectl's and the kubelet's words), or NULL */
static char *pf_refusal(api_req_t *r, json_t *pod, pf_t *f, unsigned *code)
{
    const char *phase = sl_kube_path_str(pod, "status.phase");
    const char *ip = sl_kube_path_str(pod, "status.podIP");
    if (f->nports < 0)
        return sl_xstrdup("invalid port in ports: each must be an integer in 1..65535, at most 16");
    if (f->nports == 0 && f->mode == PF_WS)
        return sl_xstrdup("at least one port must be given (ports=N)");
    if (!phase || strcmp(phase, "Running") || !ip || !*ip)
        return sl_xasprintf("unable to forward port because pod is not running. Current status=%s",
                            phase ? phase : "Unknown");
    f->addr = sl_xstrdup(ip);
    const char *uid = sl_kube_uid(pod);
    char *dir = sl_xasprintf("%s/%s/%s-%s", r->api->pods_root, sl_kube_namespace(pod),
                             sl_kube_name(pod), uid ? uid : "");
    struct stat st;
    bool owned = stat(dir, &st) == 0 && st.st_uid != 0;
    char *why = NULL;
    *code = 403;
    if (owned && api_may_act_as(r, st.st_uid, "the pod", &why) < 0) {
        free(dir);
        return why;
    }
    char *job = owned ? pod_job_id(r, pod) : NULL;
    pid_t pid = owned ? shim_pid(dir, st.st_uid, job) : 0;
    free(job);
    free(dir);
    f->shim = pid;
    f->uid = st.st_uid;
    if (!pid)
        return sl_xstrdup("port-forward needs the pod's shim on this host, to check who listens "
                          "(its pid, in the pod folder, must name a process of the pod's job)");
    for (int i = 0; i < f->nports; i++)
        if (api_pf_port_owner(pid, st.st_uid, f->ports[i]) == 2)
            return sl_xasprintf("port %d on the node of pod %s is another user's: only the pod's "
                                "own user's ports are forwarded",
                                f->ports[i], sl_kube_name(pod));
    *code = 400;
    return NULL;
}

/* which protocol the client speaks (its headers) */
static int pf_mode(api_req_t *r)
{
    const char *up = api_header(r, "Upgrade");
    const char *ver = api_header(r, "X-Stream-Protocol-Version");
    const char *proto = api_header(r, "Sec-WebSocket-Protocol");
    if (up && !strcasecmp(up, "SPDY/3.1") && ver && strstr(ver, "portforward.k8s.io"))
        return PF_SPDY;
    if (up && !strcasecmp(up, "websocket") && proto && strstr(proto, PF_TUNNEL_PROTOCOL) &&
        !strstr(proto, "channel.k8s.io"))
        return PF_TUNNEL;
    return PF_WS;
}

/* kubectl's sessions, in the connection's thread (upconn.h) */
static void spf_upgraded(pf_t *f, struct MHD_Connection *conn, const char *extra, size_t n,
                         MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
    api_spf_t *s =
        api_spf_new(f->api, f->addr, f->pod, f->pod_uid, f->shim, f->uid, f->desc, f->who);
    bool tunnel = f->mode == PF_TUNNEL;
    pf_free(f);
    api_spf_run(s, http_up_open(conn, sock, urh, extra, n), tunnel);
}

static void spf_upgraded_cb(void *cls, struct MHD_Connection *conn, void *con_cls,
                            const char *extra_in, size_t extra_in_size, MHD_socket sock,
                            struct MHD_UpgradeResponseHandle *urh)
{
    spf_upgraded(cls, conn, extra_in, extra_in_size, sock, urh);
}

/* the 101 of a SPDY upgrade (kube's httpstream handshake) */
static enum MHD_Result reply_spdy(api_req_t *r, struct MHD_Response *resp)
{
    MHD_add_response_header(resp, MHD_HTTP_HEADER_UPGRADE, "SPDY/3.1");
    MHD_add_response_header(resp, "X-Stream-Protocol-Version", "portforward.k8s.io");
    enum MHD_Result ret = MHD_queue_response(r->conn, MHD_HTTP_SWITCHING_PROTOCOLS, resp);
    MHD_destroy_response(resp);
    r->replied = true;
    r->code = MHD_HTTP_SWITCHING_PROTOCOLS;
    return ret;
}

/* the handshake's reply for f's protocol: the response (NULL with *why) */
static struct MHD_Response *pf_response(api_req_t *r, pf_t *f, int *version, char **acc, char **why)
{
    if (f->mode == PF_SPDY)
        return MHD_create_response_for_upgrade(spf_upgraded_cb, f);
    const char *key = f->mode == PF_TUNNEL ? api_header(r, "Sec-WebSocket-Key")
                                           : api_ws_handshake(r, version, why);
    *acc = key && *key ? http_ws_accept(key) : NULL;
    if (!*acc)
        return NULL;
    return MHD_create_response_for_upgrade(f->mode == PF_TUNNEL ? spf_upgraded_cb : pf_upgraded, f);
}

enum MHD_Result api_handle_portforward(api_req_t *r, const api_path_t *p)
{
    if (r->inproc)
        return api_reply_status(r, sl_kube_status_bad_request("Upgrade request required"));
    json_t *pod = sl_store_get(r->api->store, "pods", p->ns, p->name);
    if (!pod)
        return api_reply_status(r, api_store_error_status(p->res, p->name, errno, NULL));
    pf_t *f = sl_xcalloc(1, sizeof(*f));
    f->api = r->api;
    for (int i = 0; i < PF_MAX_PORTS; i++)
        f->fd[i] = -1;
    f->mode = pf_mode(r);
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, add_ports, f);
    unsigned code = 400;
    int version = 0;
    char *acc = NULL;
    char *why = pf_refusal(r, pod, f, &code);
    json_t *lim = NULL; /* WebSocket: a connection per port; SPDY: per request (spdypf.c) */
    unsigned n = f->mode == PF_WS && f->nports > 0 ? (unsigned)f->nports : 0;
    if (!why && api_streams_take(r, n, &f->who, &lim) < 0) {
        pf_free(f);
        json_decref(pod);
        return api_reply_status(r, lim);
    }
    f->taken = n;
    struct MHD_Response *resp = why ? NULL : pf_response(r, f, &version, &acc, &why);
    if (!resp) {
        json_t *st = code == 403 ? sl_kube_status(403, "Forbidden", why, NULL)
                                 : sl_kube_status_bad_request(why ? why : "cannot upgrade");
        free(why);
        free(acc);
        pf_free(f);
        json_decref(pod);
        return api_reply_status(r, st);
    }
    static const char *const how[] = {"WebSocket", "SPDY in WebSocket", "SPDY"};
    f->pod = sl_xasprintf("%s/%s", p->ns, p->name);
    f->pod_uid = sl_xstrdup(sl_kube_uid(pod) ? sl_kube_uid(pod) : "");
    f->desc = f->mode == PF_WS ? sl_xasprintf("user %s, pod %s/%s, %d port(s) from %d",
                                              r->user ? r->user->name : "(development mode)", p->ns,
                                              p->name, f->nports, f->ports[0])
                               : sl_xasprintf("user %s, pod %s/%s, %s",
                                              r->user ? r->user->name : "(development mode)", p->ns,
                                              p->name, how[f->mode]);
    sl_info("port-forward: %s", f->desc);
    json_decref(pod);
    enum MHD_Result ret = f->mode == PF_SPDY ? reply_spdy(r, resp)
                          : f->mode == PF_TUNNEL
                              ? api_ws_reply_upgrade_as(r, resp, acc, PF_TUNNEL_PROTOCOL)
                              : api_ws_reply_upgrade(r, resp, acc, version);
    free(acc);
    if (ret != MHD_YES)
        pf_free(f);
    return ret;
}
