/* logs.c — GET .../pods/NAME/log from the shim's CRI log files
 * <pods-root>/<ns>/<name>-<uid>/logs/<container>/<restartCount>.log
 * (docs/shim-spec.md), with the kubelet's options: container, follow,
 * previous, tailLines, sinceSeconds, sinceTime, timestamps, limitBytes.
 *
 * CRI lines are "<RFC3339Nano> <stream> <F|P> <text>"; P parts are joined
 * with what follows. The newest N.log is the current container, the one
 * before it the previous (restarted) one. Follow polls the file every 50 ms
 * and also wakes on every store change, and ends when the container has
 * ended: its status says terminated, a newer log file appeared (restart),
 * the pod reached Succeeded/Failed, or the pod is gone.
 *
 * The pod folder belongs to the pod's user, so nothing in it is trusted
 * (docs/security.md): the log folder is opened beneath the pods root with no
 * symlink on the way (src/common/safefs.h), and a log file must be a
 * regular file of the pod folder's owner (a symlink, FIFO or hard link to
 * someone else's file is skipped). A line longer than LINE_PIECE is emitted
 * in pieces as it comes, as the kubelet splits CRI partial lines; reading
 * stops after QUIET_MAX bytes that produced no output (a sparse or garbage
 * file), and when the client has gone. */
#include "api/logs.h"
#include "api/handlers.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "common/buf.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define POLL_MS 50
#define READ_CHUNK (64 * 1024)
#define LINE_PIECE (16 * 1024)         /* kubelet's maxMsgSize for CRI partial lines */
#define QUIET_MAX (64LL * 1024 * 1024) /* bytes read without output, then stop */

typedef struct logstream {
    sl_api_t *api;
    char *ns, *pod, *uid, *container;
    int dirfd;   /* logs/<container>, opened beneath the pods root */
    uid_t owner; /* the pod folder's owner: log files must be theirs */
    long file_no;
    int fd;
    sl_buf_t in;
    sl_buf_t out;
    size_t off;
    bool follow, timestamps;
    long long since_ns;
    long long limit, written;
    bool line_start;
    bool in_long, long_skip, long_partial; /* inside a line longer than LINE_PIECE */
    long long quiet;                       /* bytes read since the last output */
    bool draining, done;
    int conn_fd;
} logstream_t;

static void ls_free(void *cls)
{
    logstream_t *l = cls;
    if (!l)
        return;
    if (l->fd >= 0)
        close(l->fd);
    if (l->dirfd >= 0)
        close(l->dirfd);
    free(l->ns);
    free(l->pod);
    free(l->uid);
    free(l->container);
    sl_buf_free(&l->in);
    sl_buf_free(&l->out);
    free(l);
}

/* The two highest N of N.log in the folder (-1 when absent): regular files
 * of owner only, never a symlink. */
static void log_files(int dirfd, uid_t owner, long *newest, long *previous)
{
    *newest = *previous = -1;
    int fd = dirfd >= 0 ? dup(dirfd) : -1;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    rewinddir(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long n = strtol(e->d_name, &end, 10);
        if (end == e->d_name || strcmp(end, ".log") || n < 0)
            continue;
        struct stat st;
        if (fstatat(dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != owner)
            continue;
        if (n > *newest) {
            *previous = *newest;
            *newest = n;
        } else if (n > *previous) {
            *previous = n;
        }
    }
    closedir(d);
}

/* RFC3339Nano as Go prints it: fraction without trailing zeros. */
static void go_nano(const char *ts, size_t len, sl_buf_t *out)
{
    const char *dot = memchr(ts, '.', len);
    if (!dot) {
        sl_buf_append(out, ts, len);
        return;
    }
    const char *zone = dot + 1;
    while (zone < ts + len && *zone >= '0' && *zone <= '9')
        zone++;
    const char *last = zone;
    while (last > dot + 1 && last[-1] == '0')
        last--;
    if (last == dot + 1)
        sl_buf_append(out, ts, (size_t)(dot - ts));
    else
        sl_buf_append(out, ts, (size_t)(last - ts));
    sl_buf_append(out, zone, (size_t)(ts + len - zone));
}

static void put_limited(logstream_t *l, const char *s, size_t n)
{
    if (l->limit >= 0 && l->written + (long long)n > l->limit) {
        n = (size_t)(l->limit - l->written);
        l->done = true;
    }
    sl_buf_append(&l->out, s, n);
    l->written += (long long)n;
}

/* The rest of a line longer than LINE_PIECE: text only. */
static void emit_rest(logstream_t *l, const char *text, size_t len, bool complete)
{
    if (!l->long_skip)
        put_limited(l, text, len);
    if (!complete)
        return;
    l->in_long = false;
    if (!l->long_skip) {
        if (!l->long_partial && !l->done)
            put_limited(l, "\n", 1);
        l->line_start = !l->long_partial;
    }
}

/* One CRI line (without its newline), or the first piece of a longer one
 * (complete false: what follows up to the newline is more of its text). */
static void emit_line(logstream_t *l, const char *line, size_t len, bool complete)
{
    if (!complete) {
        l->in_long = true;
        l->long_skip = true; /* until the header is found good */
    }
    const char *sp1 = memchr(line, ' ', len);
    if (!sp1)
        return;
    const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(line + len - sp1 - 1));
    if (!sp2)
        return;
    const char *tag = sp2 + 1;
    const char *sp3 = memchr(tag, ' ', (size_t)(line + len - tag));
    const char *text = sp3 ? sp3 + 1 : line + len;
    size_t tlen = (size_t)(line + len - text);
    size_t taglen = (size_t)((sp3 ? sp3 : line + len) - tag);
    bool partial = taglen >= 1 && tag[0] == 'P';
    if (l->since_ns) {
        char ts[64];
        size_t tl = (size_t)(sp1 - line) < sizeof(ts) - 1 ? (size_t)(sp1 - line) : sizeof(ts) - 1;
        memcpy(ts, line, tl);
        ts[tl] = '\0';
        int64_t ns = 0;
        if (sl_kube_parse_rfc3339(ts, &ns) == 0 && ns < l->since_ns)
            return;
    }
    if (l->timestamps && l->line_start) {
        sl_buf_t t = SL_BUF_INIT;
        go_nano(line, (size_t)(sp1 - line), &t);
        sl_buf_putc(&t, ' ');
        put_limited(l, t.data, t.len);
        sl_buf_free(&t);
    }
    if (!l->done)
        put_limited(l, text, tlen);
    if (!complete) {
        l->long_skip = false;
        l->long_partial = partial;
        l->line_start = false;
        return;
    }
    if (!partial && !l->done)
        put_limited(l, "\n", 1);
    l->line_start = !partial;
}

/* Turn the lines of l->in into output: complete ones, and pieces of
 * LINE_PIECE bytes of longer ones, so l->in stays under LINE_PIECE. */
static void drain_lines(logstream_t *l)
{
    size_t start = 0;
    while (!l->done) {
        const char *p = l->in.data + start;
        size_t avail = l->in.len - start;
        const char *nl = memchr(p, '\n', avail);
        size_t n = nl ? (size_t)(nl - p) : avail;
        if (!nl && avail < LINE_PIECE)
            break;
        bool complete = nl && n <= LINE_PIECE;
        if (!complete)
            n = LINE_PIECE;
        if (l->in_long)
            emit_rest(l, p, n, complete);
        else
            emit_line(l, p, n, complete);
        start += n + (complete ? 1 : 0);
    }
    size_t rest = l->in.len - start;
    memmove(l->in.data, l->in.data + start, rest);
    l->in.len = rest;
    l->in.data[rest] = '\0';
}

char *sl_api_log_render(const char *data, size_t len, size_t chunk, bool timestamps,
                        long long limit, size_t *out_len, size_t *max_pending)
{
    logstream_t l = {
        .fd = -1, .dirfd = -1, .timestamps = timestamps, .limit = limit, .line_start = true};
    *max_pending = 0;
    for (size_t off = 0; off < len && !l.done && chunk; off += chunk) {
        size_t n = len - off < chunk ? len - off : chunk;
        sl_buf_append(&l.in, data + off, n);
        if (l.in.len > *max_pending)
            *max_pending = l.in.len;
        drain_lines(&l);
    }
    sl_buf_free(&l.in);
    *out_len = l.out.len;
    return l.out.data ? sl_buf_steal(&l.out) : sl_xstrdup("");
}

size_t sl_api_log_pending_bound(size_t chunk) { return LINE_PIECE + chunk; }

static ssize_t read_more(logstream_t *l)
{
    char buf[READ_CHUNK];
    ssize_t n = read(l->fd, buf, sizeof(buf));
    if (n > 0) {
        size_t before = l->out.len;
        sl_buf_append(&l->in, buf, (size_t)n);
        drain_lines(l);
        l->quiet = l->out.len > before ? 0 : l->quiet + n;
    }
    return n;
}

/* Has the followed container instance ended? */
static bool container_ended(logstream_t *l)
{
    long newest, prev;
    log_files(l->dirfd, l->owner, &newest, &prev);
    if (newest > l->file_no)
        return true;
    json_t *pod = sl_store_get(l->api->store, "pods", l->ns, l->pod);
    if (!pod)
        return true;
    bool ended = false;
    const char *uid = sl_kube_uid(pod);
    const char *phase = sl_kube_path_str(pod, "status.phase");
    if (!uid || strcmp(uid, l->uid))
        ended = true;
    else if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
        ended = true;
    const char *lists[] = {"status.containerStatuses", "status.initContainerStatuses"};
    for (int k = 0; k < 2 && !ended; k++) {
        size_t i;
        json_t *cs;
        json_array_foreach(sl_kube_path(pod, lists[k]), i, cs)
        {
            const char *n = json_string_value(json_object_get(cs, "name"));
            if (!n || strcmp(n, l->container))
                continue;
            long rc = (long)json_integer_value(json_object_get(cs, "restartCount"));
            bool term = json_object_get(json_object_get(cs, "state"), "terminated") != NULL;
            if (rc > l->file_no || (rc == l->file_no && term))
                ended = true;
        }
    }
    json_decref(pod);
    return ended;
}

static bool peer_gone(int fd)
{
    if (fd < 0)
        return false;
    struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
    if (poll(&p, 1, 0) <= 0)
        return false;
    if (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
        return true;
    char c;
    return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static bool refill(logstream_t *l)
{
    for (;;) {
        if (l->done || atomic_load(&l->api->stopping))
            return false;
        ssize_t n = l->fd >= 0 ? read_more(l) : 0;
        if (l->out.len)
            return true;
        if (n > 0 && l->quiet >= QUIET_MAX)
            return false; /* that much without a line: not a log */
        if (n > 0 && !peer_gone(l->conn_fd))
            continue;
        if (n > 0)
            return false;
        if (!l->follow || l->draining)
            return false;
        if (container_ended(l)) {
            l->draining = true; /* one last read of what was written before the end */
            continue;
        }
        if (peer_gone(l->conn_fd))
            return false;
        int64_t rv = sl_store_revision(l->api->store);
        sl_store_wait(l->api->store, rv, POLL_MS);
    }
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    logstream_t *l = cls;
    if (l->off >= l->out.len) {
        sl_buf_reset(&l->out);
        l->off = 0;
        if (!refill(l) && l->out.len == 0)
            return MHD_CONTENT_READER_END_OF_STREAM;
    }
    size_t n = l->out.len - l->off;
    if (n > max)
        n = max;
    memcpy(buf, l->out.data + l->off, n);
    l->off += n;
    return (ssize_t)n;
}

/* Offset of the start of the last n lines of fd (kubelet's tail), looking
 * back at most QUIET_MAX bytes. */
static off_t tail_offset(int fd, long n)
{
    off_t end = lseek(fd, 0, SEEK_END);
    if (end <= 0)
        return 0;
    if (n == 0)
        return end;
    char buf[8192];
    off_t pos = end;
    long lines = 0;
    while (pos > 0) {
        if (end - pos >= QUIET_MAX)
            return pos;
        size_t chunk = pos > (off_t)sizeof(buf) ? sizeof(buf) : (size_t)pos;
        pos -= (off_t)chunk;
        if (pread(fd, buf, chunk, pos) != (ssize_t)chunk)
            return 0;
        for (size_t i = chunk; i-- > 0;) {
            if (buf[i] != '\n')
                continue;
            off_t at = pos + (off_t)i;
            if (at == end - 1) /* the file's final newline ends the last line */
                continue;
            if (++lines == n)
                return at + 1;
        }
    }
    return 0;
}

static bool has_container(json_t *pod, const char *name)
{
    const char *lists[] = {"spec.containers", "spec.initContainers", "spec.ephemeralContainers"};
    for (int k = 0; k < 3; k++) {
        size_t i;
        json_t *c;
        json_array_foreach(sl_kube_path(pod, lists[k]), i, c)
        {
            const char *n = json_string_value(json_object_get(c, "name"));
            if (n && !strcmp(n, name))
                return true;
        }
    }
    return false;
}

/* container param, else the default-container annotation, else the only
 * container; NULL with err (SL_ERR_BAD_REQUEST) otherwise (kube's
 * validateContainer). */
const char *api_pick_container(api_req_t *r, json_t *pod, sl_error_t *err)
{
    const char *name = sl_kube_name(pod);
    const char *c = api_query(r, "container");
    if (c && *c) {
        if (has_container(pod, c))
            return c;
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "container %s is not valid for pod %s", c, name);
        return NULL;
    }
    const char *ann = sl_kube_annotation(pod, "kubectl.kubernetes.io/default-container");
    if (ann && has_container(pod, ann))
        return ann;
    json_t *cs = sl_kube_path(pod, "spec.containers");
    if (json_array_size(cs) == 1)
        return json_string_value(json_object_get(json_array_get(cs, 0), "name"));
    sl_buf_t b = SL_BUF_INIT;
    const char *lists[] = {"spec.initContainers", "spec.containers", "spec.ephemeralContainers"};
    for (int k = 0; k < 3; k++) {
        size_t i;
        json_t *x;
        json_array_foreach(sl_kube_path(pod, lists[k]), i, x)
        {
            const char *n = json_string_value(json_object_get(x, "name"));
            sl_buf_printf(&b, "%s%s", b.len ? " " : "", n ? n : "");
        }
    }
    if (json_array_size(cs) == 0)
        sl_errkindf(err, SL_ERR_BAD_REQUEST, "a container name must be specified for pod %s", name);
    else
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "a container name must be specified for pod %s, choose one of: [%s]", name,
                    b.data ? b.data : "");
    sl_buf_free(&b);
    return NULL;
}

static json_t *container_status(json_t *pod, const char *name)
{
    const char *lists[] = {"status.containerStatuses", "status.initContainerStatuses"};
    for (int k = 0; k < 2; k++) {
        size_t i;
        json_t *cs;
        json_array_foreach(sl_kube_path(pod, lists[k]), i, cs)
        {
            const char *n = json_string_value(json_object_get(cs, "name"));
            if (n && !strcmp(n, name))
                return cs;
        }
    }
    return NULL;
}

/* logs/<container> of the pod folder, opened beneath the pods root without
 * following a link; *owner: the pod folder's owner. -1 when absent. */
static int open_log_dir(sl_api_t *api, const char *ns, const char *name, const char *uid,
                        const char *container, uid_t *owner)
{
    int root = open(api->pods_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return -1;
    char *rel = sl_xasprintf("%s/%s-%s", ns, name, uid);
    int pod = sl_safefs_opendir(root, rel);
    free(rel);
    close(root);
    struct stat st;
    if (pod < 0 || fstat(pod, &st) < 0) {
        if (pod >= 0)
            close(pod);
        return -1;
    }
    *owner = st.st_uid;
    rel = sl_xasprintf("logs/%s", container);
    int fd = sl_safefs_opendir(pod, rel);
    free(rel);
    close(pod);
    return fd;
}

static long long num_param(api_req_t *r, const char *key, long long dflt, bool *bad)
{
    const char *v = api_query(r, key);
    if (!v || !*v)
        return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (*end)
        *bad = true;
    return x;
}

enum MHD_Result api_handle_log(api_req_t *r, const api_path_t *p)
{
    json_t *pod = sl_store_get(r->api->store, "pods", p->ns, p->name);
    if (!pod)
        return api_reply_status(r, api_store_error_status(p->res, p->name, errno, NULL));
    sl_error_t err = SL_ERROR_INIT;
    const char *container = api_pick_container(r, pod, &err);
    if (!container) {
        json_decref(pod);
        return api_reply_status(
            r, sl_kube_status_error(&err, p->res->name, p->res->group, p->res->kind, p->name));
    }
    bool bad = false;
    long long tail = num_param(r, "tailLines", -1, &bad);
    long long since_s = num_param(r, "sinceSeconds", 0, &bad);
    long long limit = num_param(r, "limitBytes", -1, &bad);
    const char *since_t = api_query(r, "sinceTime");
    int64_t since_ns = 0;
    if (bad || (since_t && *since_t && sl_kube_parse_rfc3339(since_t, &since_ns) < 0) ||
        (limit == 0) || since_s < 0) {
        json_decref(pod);
        return api_reply_status(r, sl_kube_status_bad_request("invalid log options"));
    }
    if (since_s > 0)
        since_ns = sl_kube_now_ns() - since_s * 1000000000LL;
    logstream_t *l = sl_xcalloc(1, sizeof(*l));
    l->api = r->api;
    l->fd = -1;
    l->dirfd = -1;
    l->ns = sl_xstrdup(p->ns);
    l->pod = sl_xstrdup(p->name);
    l->uid = sl_xstrdup(sl_kube_uid(pod) ? sl_kube_uid(pod) : "");
    l->container = sl_xstrdup(container);
    l->dirfd = open_log_dir(r->api, p->ns, p->name, l->uid, container, &l->owner);
    l->follow = api_query_bool(r, "follow");
    l->timestamps = api_query_bool(r, "timestamps");
    l->since_ns = since_ns;
    l->limit = limit;
    l->line_start = true;
    bool previous = api_query_bool(r, "previous");
    long newest, prev;
    log_files(l->dirfd, l->owner, &newest, &prev);
    long want = previous ? prev : newest;
    if (want < 0) {
        json_t *cs = container_status(pod, container);
        const char *node = sl_kube_path_str(pod, "spec.nodeName");
        char *m = NULL;
        if (previous) {
            m = sl_xasprintf("previous terminated container \"%s\" in pod \"%s\" not found",
                             container, p->name);
        } else if (node && *node) {
            const char *why = sl_kube_path_str(cs, "state.waiting.reason");
            m = sl_xasprintf("container \"%s\" in pod \"%s\" is waiting to start: %s", container,
                             p->name, why && *why ? why : "ContainerCreating");
        }
        json_decref(pod);
        if (m) {
            ls_free(l);
            json_t *st = sl_kube_status_bad_request(m);
            free(m);
            return api_reply_status(r, st);
        }
        ls_free(l); /* not scheduled yet: an empty log, as kube-apiserver answers */
        return api_reply_bytes(r, 200, "text/plain", "", 0);
    }
    json_decref(pod);
    if (previous)
        l->follow = false;
    l->file_no = want;
    char name[32];
    snprintf(name, sizeof(name), "%ld.log", want);
    l->fd = sl_safefs_open_read(l->dirfd, name, l->owner, NULL);
    if (l->fd < 0) {
        ls_free(l);
        return api_reply_status(r, sl_kube_status_internal("cannot open the container log"));
    }
    if (tail >= 0)
        lseek(l->fd, tail_offset(l->fd, tail), SEEK_SET);
    else
        lseek(l->fd, 0, SEEK_SET);
    const union MHD_ConnectionInfo *ci =
        r->conn ? MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
    l->conn_fd = ci ? ci->connect_fd : -1;
    return api_reply_stream(r, 200, "text/plain", reader, l, ls_free);
}
