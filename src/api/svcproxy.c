/* svcproxy.c — the service proxy: GET, HEAD, POST, PUT, PATCH and DELETE on
 * /api/v1/namespaces/NS/services/[SCHEME:]NAME[:PORT]/proxy[/PATH] sent
 * to one ready endpoint of the Service with the client's method, headers
 * (less the hop-by-hop ones and its credentials), body and query, and the
 * answer streamed back (libcurl's multi interface, driven by the reader of
 * the streamed response: one thread per connection).
 *
 * Where it goes is computed at the request from the stored pods the
 * Service selects (kinds/service svc_ready_targets: the node address the
 * controller wrote as status.podIP, the port the pod's spec names), never
 * from an Endpoints object; and only a port that the pod's own Unix user
 * listens on in its shim's network namespace (the check port-forward
 * makes): the nodes' network is every job's, so a port of another
 * tenant's job, of a daemon or of slurmlinkd itself is refused. The
 * client's URL never names the host: libcurl's URL API takes host, port,
 * path and query apart. Authorized as services/proxy (a write of the
 * namespace, as pods/proxy). */
#include "api/handlers.h"
#include "api/http/exec.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "kinds/service/service.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "store/store.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#define PX_MAX_TARGETS 64
#define PX_CONNECT_S 10L

typedef struct px {
    CURLM *m;
    CURL *e;
    CURLU *url; /* CURLOPT_CURLU reads it during the transfer */
    struct curl_slist *req_hdrs;
    char **resp_hdrs; /* name, value, ..., NULL */
    size_t nresp, capresp;
    sl_buf_t out; /* received, not yet given to MHD */
    size_t off;
    bool headers_done, done;
    CURLcode result;
    sl_api_t *api;
} px_t;

/* ---- the request's parts ---- */

/* [SCHEME:]NAME[:PORT] (SplitSchemeNamePort); false when malformed */
static bool split_id(char *id, const char **scheme, const char **name, const char **port)
{
    char *a = strchr(id, ':'), *b = a ? strchr(a + 1, ':') : NULL;
    *scheme = "http";
    *port = "";
    *name = id;
    if (b && strchr(b + 1, ':'))
        return false;
    if (b) {
        *a = *b = '\0';
        *scheme = id, *name = a + 1, *port = b + 1;
        if (strcmp(*scheme, "http") && strcmp(*scheme, "https"))
            return false;
    } else if (a) {
        *a = '\0';
        *port = a + 1;
    }
    return **name != '\0';
}

static const char *proxy_verb(const char *m)
{
    return !strcmp(m, "GET") || !strcmp(m, "HEAD") ? "get"
           : !strcmp(m, "POST")                    ? "create"
           : !strcmp(m, "PUT")                     ? "update"
           : !strcmp(m, "PATCH")                   ? "patch"
           : !strcmp(m, "DELETE")                  ? "delete"
                                                   : NULL;
}

/* the client's headers that go on: not hop-by-hop, not its credentials */
static bool header_kept(const char *k)
{
    static const char *const drop[] = {"Authorization",
                                       "Connection",
                                       "Keep-Alive",
                                       "Proxy-Authenticate",
                                       "Proxy-Authorization",
                                       "TE",
                                       "Trailer",
                                       "Transfer-Encoding",
                                       "Upgrade",
                                       "Host",
                                       "Content-Length",
                                       "Expect",
                                       NULL};
    for (int i = 0; drop[i]; i++)
        if (!strcasecmp(k, drop[i]))
            return false;
    return strncasecmp(k, "Impersonate-", 12) != 0;
}

static enum MHD_Result add_req_header(void *cls, enum MHD_ValueKind kind, const char *k,
                                      const char *v)
{
    (void)kind;
    px_t *p = cls;
    if (header_kept(k)) {
        char *line = sl_xasprintf("%s: %s", k, v ? v : "");
        p->req_hdrs = curl_slist_append(p->req_hdrs, line);
        free(line);
    }
    return MHD_YES;
}

typedef struct qb {
    CURL *e;
    sl_buf_t b;
} qb_t;

static enum MHD_Result add_query(void *cls, enum MHD_ValueKind kind, const char *k, const char *v)
{
    (void)kind;
    qb_t *q = cls;
    char *ek = curl_easy_escape(q->e, k, 0), *ev = v ? curl_easy_escape(q->e, v, 0) : NULL;
    if (q->b.len)
        sl_buf_putc(&q->b, '&');
    sl_buf_puts(&q->b, ek ? ek : "");
    if (v) {
        sl_buf_putc(&q->b, '=');
        sl_buf_puts(&q->b, ev ? ev : "");
    }
    curl_free(ek);
    curl_free(ev);
    return MHD_YES;
}

/* ---- libcurl's side ---- */

static bool resp_header_kept(const char *k, size_t n)
{
    static const char *const drop[] = {"Connection",         "Keep-Alive", "Transfer-Encoding",
                                       "Content-Length",     "Trailer",    "Upgrade",
                                       "Proxy-Authenticate", NULL};
    for (int i = 0; drop[i]; i++)
        if (strlen(drop[i]) == n && !strncasecmp(k, drop[i], n))
            return false;
    return true;
}

static void resp_headers_free(px_t *p)
{
    for (size_t i = 0; i < p->nresp; i++)
        free(p->resp_hdrs[i]);
    p->nresp = 0;
    if (p->resp_hdrs)
        p->resp_hdrs[0] = NULL;
}

static void resp_header_add(px_t *p, const char *k, size_t kn, const char *v, size_t vn)
{
    if (p->nresp + 3 > p->capresp) {
        p->capresp = p->capresp ? 2 * p->capresp : 32;
        p->resp_hdrs = sl_xrealloc(p->resp_hdrs, p->capresp * sizeof(char *));
    }
    p->resp_hdrs[p->nresp++] = sl_xstrndup(k, kn);
    p->resp_hdrs[p->nresp++] = sl_xstrndup(v, vn);
    p->resp_hdrs[p->nresp] = NULL;
}

static size_t on_header(char *data, size_t size, size_t nitems, void *cls)
{
    px_t *p = cls;
    size_t n = size * nitems, len = n;
    while (len && (data[len - 1] == '\n' || data[len - 1] == '\r'))
        len--;
    if (!len) { /* the end of a header block: a final answer, or a 1xx */
        long code = 0;
        curl_easy_getinfo(p->e, CURLINFO_RESPONSE_CODE, &code);
        if (code >= 200)
            p->headers_done = true;
        return n;
    }
    if (len >= 5 && !strncmp(data, "HTTP/", 5)) { /* a new status line */
        resp_headers_free(p);
        return n;
    }
    const char *colon = memchr(data, ':', len);
    if (!colon || !resp_header_kept(data, (size_t)(colon - data)))
        return n;
    const char *v = colon + 1;
    while (v < data + len && (*v == ' ' || *v == '\t'))
        v++;
    resp_header_add(p, data, (size_t)(colon - data), v, (size_t)(data + len - v));
    return n;
}

static size_t on_body(char *data, size_t size, size_t nitems, void *cls)
{
    px_t *p = cls;
    sl_buf_append(&p->out, data, size * nitems);
    return size * nitems;
}

/* one turn of the transfer: waits up to timeout_ms for the sockets */
static void drive(px_t *p, int timeout_ms)
{
    int running = 0, left;
    curl_multi_poll(p->m, NULL, 0, timeout_ms, NULL);
    curl_multi_perform(p->m, &running);
    CURLMsg *msg;
    while ((msg = curl_multi_info_read(p->m, &left)))
        if (msg->msg == CURLMSG_DONE) {
            p->done = true;
            p->result = msg->data.result;
        }
    if (!running)
        p->done = true;
}

static void px_free(void *cls)
{
    px_t *p = cls;
    if (p->m && p->e)
        curl_multi_remove_handle(p->m, p->e);
    if (p->e)
        curl_easy_cleanup(p->e);
    if (p->m)
        curl_multi_cleanup(p->m);
    curl_url_cleanup(p->url);
    curl_slist_free_all(p->req_hdrs);
    resp_headers_free(p);
    free(p->resp_hdrs);
    sl_buf_free(&p->out);
    free(p);
}

static ssize_t px_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    px_t *p = cls;
    while (p->off >= p->out.len) {
        sl_buf_reset(&p->out);
        p->off = 0;
        if (p->done)
            return p->result == CURLE_OK ? MHD_CONTENT_READER_END_OF_STREAM
                                         : MHD_CONTENT_READER_END_WITH_ERROR;
        if (atomic_load(&p->api->stopping))
            return MHD_CONTENT_READER_END_WITH_ERROR;
        drive(p, 1000);
    }
    size_t n = p->out.len - p->off;
    if (n > max)
        n = max;
    memcpy(buf, p->out.data + p->off, n);
    p->off += n;
    return (ssize_t)n;
}

/* the URL from its parts: the target's host and port, the client's path
 * (escaped again) and query */
static int set_url(px_t *p, api_req_t *r, const char *scheme, const svc_target_t *t,
                   const char *rest)
{
    CURLU *u = curl_url();
    char port[16];
    snprintf(port, sizeof port, "%d", t->port);
    qb_t q = {p->e, SL_BUF_INIT};
    if (!r->inproc)
        MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, add_query, &q);
    int bad = curl_url_set(u, CURLUPART_SCHEME, scheme, 0) ||
              curl_url_set(u, CURLUPART_HOST, t->ip, 0) ||
              curl_url_set(u, CURLUPART_PORT, port, 0) ||
              curl_url_set(u, CURLUPART_PATH, *rest ? rest : "/", CURLU_URLENCODE) ||
              (q.b.len && curl_url_set(u, CURLUPART_QUERY, q.b.data, 0));
    sl_buf_free(&q.b);
    if (!bad)
        curl_easy_setopt(p->e, CURLOPT_CURLU, u);
    p->url = u;
    return bad ? -1 : 0;
}

/* the transfer's options: method, body, headers, no redirects, no proxy
 * from the environment, http(s) only, the backend's certificate not
 * checked (kube's service proxy does not check it either) */
static void set_request(px_t *p, api_req_t *r)
{
    CURL *e = p->e;
    const char *m = r->method;
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, PX_CONNECT_S);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, p);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, p);
    if (!r->inproc)
        MHD_get_connection_values(r->conn, MHD_HEADER_KIND, add_req_header, p);
    p->req_hdrs = curl_slist_append(p->req_hdrs, "Expect:");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, p->req_hdrs);
    if (!strcmp(m, "HEAD")) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (strcmp(m, "GET")) {
        if (r->body.len || strcmp(m, "DELETE")) {
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body.len);
            curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, r->body.len ? r->body.data : "");
        }
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m);
    }
}

/* who listens on the target's port: 1 the pod's own user (the proxy goes
 * there), 0 no one yet, 2 another (or below 1024, the API's own port, or
 * cannot tell: refused) */
static int port_state(api_req_t *r, json_t *svc, const svc_target_t *t)
{
    if (t->port < 1024 || t->port == r->api->port || t->port == r->api->plain_port)
        return 2;
    json_t *pod = sl_store_get(r->api->store, "pods", sl_kube_namespace(svc), t->pod);
    int who = pod ? api_pod_port_listened(r, pod, t->port) : 0;
    json_decref(pod);
    return who == 1 || who == 0 ? who : 2;
}

/* a ready target the proxy may reach, at random: 0 with *t, or -1 with
 * err (503 when none is ready or listening, 403 when the ready ones'
 * ports are others') */
static int pick_target(api_req_t *r, json_t *svc, const char *port, svc_target_t *t,
                       sl_error_t *err)
{
    svc_target_t *all = sl_xcalloc(PX_MAX_TARGETS, sizeof *all);
    int n = svc_ready_targets(r->api->store, svc, port, all, PX_MAX_TARGETS, err), ok = 0;
    int refused = -1, silent = -1;
    for (int i = 0; i < n; i++) {
        int s = port_state(r, svc, &all[i]);
        if (s == 1)
            all[ok++] = all[i];
        else if (s == 2 && refused < 0)
            refused = i;
        else if (s == 0 && silent < 0)
            silent = i;
    }
    if (ok)
        *t = all[(size_t)rand() % (size_t)ok];
    else if (n == 0)
        sl_errkindf(err, SL_ERR_UNAVAILABLE, "no endpoints available for service \"%s\"",
                    sl_kube_name(svc));
    else if (refused >= 0)
        sl_errkindf(err, SL_ERR_FORBIDDEN,
                    "the service proxy reaches only a port the pod's own user listens on (1024 "
                    "and up): not port %d of pod %s",
                    all[refused].port, all[refused].pod);
    else if (silent >= 0)
        sl_errkindf(err, SL_ERR_UNAVAILABLE,
                    "error trying to reach service: nothing listens on port %d of pod %s",
                    all[silent].port, all[silent].pod);
    free(all);
    return ok ? 0 : -1;
}

/* the transfer started, up to the answer's headers: 0, or -1 with err */
static int px_start(px_t *p, api_req_t *r, const char *scheme, const svc_target_t *t,
                    const char *rest, sl_error_t *err)
{
    p->m = curl_multi_init();
    p->e = curl_easy_init();
    if (!p->m || !p->e)
        return sl_errkindf(err, SL_ERR_INTERNAL, "libcurl: out of memory");
    set_request(p, r);
    if (set_url(p, r, scheme, t, rest) < 0)
        return sl_errkindf(err, SL_ERR_BAD_REQUEST, "invalid proxy path %s", rest);
    curl_multi_add_handle(p->m, p->e);
    while (!p->headers_done && !p->done && !atomic_load(&r->api->stopping))
        drive(p, 1000);
    if (!p->headers_done)
        return sl_errkindf(err, SL_ERR_UNAVAILABLE, "error trying to reach service: %s:%d: %s",
                           t->ip, t->port, curl_easy_strerror(p->result));
    return 0;
}

/* /api/v1/namespaces/NS/services/ID/proxy[/REST]: *ns and *id copied,
 * *rest into url */
bool api_service_proxy_path(const char *url, char **ns, char **id, const char **rest)
{
    static const char pre[] = "/api/v1/namespaces/";
    if (strncmp(url, pre, sizeof pre - 1))
        return false;
    const char *a = url + sizeof pre - 1, *b = strchr(a, '/');
    if (!b || b == a || strncmp(b, "/services/", 10))
        return false;
    const char *c = b + 10, *d = strchr(c, '/');
    if (!d || d == c || strncmp(d, "/proxy", 6) || (d[6] && d[6] != '/'))
        return false;
    *ns = sl_xstrndup(a, (size_t)(b - a));
    *id = sl_xstrndup(c, (size_t)(d - c));
    *rest = d + 6;
    return true;
}

static enum MHD_Result px_forward(api_req_t *r, json_t *svc, const char *scheme, const char *port,
                                  const char *rest)
{
    sl_error_t err = SL_ERROR_INIT;
    svc_target_t t;
    char *who = NULL;
    json_t *st = NULL;
    if (pick_target(r, svc, port, &t, &err) < 0)
        return api_reply_error(r, api_resource_find("", "v1", "services"), sl_kube_name(svc), &err);
    if (api_streams_take(r, 1, &who, &st) < 0)
        return api_reply_status(r, st);
    px_t *p = sl_xcalloc(1, sizeof *p);
    p->api = r->api;
    if (px_start(p, r, scheme, &t, rest, &err) < 0) {
        px_free(p);
        api_streams_give(r->api, who, 1);
        free(who);
        return api_reply_error(r, api_resource_find("", "v1", "services"), sl_kube_name(svc), &err);
    }
    long code = 0;
    curl_easy_getinfo(p->e, CURLINFO_RESPONSE_CODE, &code);
    api_streams_give(r->api, who, 1); /* counted while it connects */
    free(who);
    return api_reply_stream_hdrs(r, (unsigned)code, NULL, px_reader, p, px_free,
                                 (const char *const *)p->resp_hdrs);
}

enum MHD_Result api_handle_service_proxy(api_req_t *r)
{
    char *ns = NULL, *id = NULL;
    const char *rest = NULL, *scheme, *name, *port;
    api_service_proxy_path(r->url, &ns, &id, &rest);
    const char *verb = proxy_verb(r->method);
    r->m_resource = "services";
    r->m_sub = "proxy";
    r->m_verb = verb;
    enum MHD_Result ret = MHD_YES;
    char *idc = sl_xstrdup(id);
    if (!split_id(idc, &scheme, &name, &port)) {
        sl_error_t err = SL_ERROR_INIT;
        sl_errkindf(&err, SL_ERR_BAD_REQUEST, "invalid service request \"%s\"", id);
        ret = api_reply_error(r, NULL, NULL, &err);
    } else if (api_authorize(r, verb ? verb : "proxy", "", "services", "proxy", ns, name) < 0) {
        ret = MHD_YES; /* the 403 is queued */
    } else if (!verb || r->inproc) {
        ret = api_reply_status(
            r, sl_kube_status(405, "MethodNotAllowed",
                              "the server does not allow this method on the requested resource",
                              json_object()));
    } else {
        json_t *svc = sl_store_get(r->api->store, "services", ns, name);
        ret = svc ? px_forward(r, svc, scheme, port, rest)
                  : api_reply_status(r, sl_kube_status_not_found("services", "", name));
        json_decref(svc);
    }
    free(idc);
    free(ns);
    free(id);
    return ret;
}
