/* server.c — the libmicrohttpd daemon: threads, TLS, limits, and the
 * accumulation of request bodies; every complete request goes to the
 * router (router.c).
 *
 * Threading: one thread per connection (MHD_USE_THREAD_PER_CONNECTION).
 * That is the simplest correct model for long-lived streams: a watch's
 * content reader may block on sl_store_wait() without stalling anyone else.
 * Connections are capped in total and per identity (http/conns.c: the
 * not-yet-authenticated ones share a small budget and a short timeout),
 * and idle ones time out, so stuck clients cannot exhaust the server.
 *
 * A request's first call (headers only) authenticates it (auth.c) before
 * any body byte is read; the optional second daemon is the loopback
 * plain-HTTP listener, whose requests act as the policy's anonymous
 * identity. */
#include "api/server.h"
#include "api/facts.h"
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/http/watchhub.h"
#include "api/lifecycle.h"
#include "api/podmetrics.h"
#include "api/resource.h"
#include "api/rowcache.h"
#include "auth/authn.h"
#include "auth/policy.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "http/conns.h"
#include "http/tlscred.h"
#include "http/url.h"
#include "kube/status.h"
#include "metrics/metrics.h"
#include "store/store.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define DEFAULT_MAX_BODY (3u * 1024 * 1024) /* kube-apiserver's MaxRequestBodyBytes */
/* etcd's default --max-request-bytes: kube-apiserver cannot store more */
#define DEFAULT_MAX_OBJECT (1536u * 1024)
/* A body sent without Content-Length (chunked) that passes the limit is
 * read and dropped to its end, since MHD can answer only then, so the
 * client still gets its 413 (kube-apiserver answers at once). Only an
 * authenticated client gets here and each holds a bounded number of
 * connections; a body that has not ended this long after the limit closes
 * the connection. */
#define DISCARD_MS (30 * 1000)
/* printed Table rows kept (rowcache.h): ~400 B a pod, 10,000 pods in 4.2 MB */
#define API_ROWCACHE_BYTES (8u * 1024 * 1024)

static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return http_unescape(s);
}

enum MHD_Result api_reply_too_large(api_req_t *r)
{
    return api_reply_status(r, sl_kube_status_too_large((long long)r->api->max_body));
}

enum MHD_Result api_req_begin(api_req_t *r)
{
    /* who asks comes first (kube-apiserver's filter order), and before any
     * body is read: an unauthenticated client cannot make the server buffer
     * megabytes */
    if (api_authenticate(r) < 0 || api_conn_admit(r) < 0 || api_impersonate(r) < 0)
        return MHD_YES;
    const char *cl = api_header(r, "Content-Length");
    if (cl) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(cl, &end, 10);
        if (errno || *end || n > r->api->max_body)
            return api_reply_too_large(r); /* answered before the body is read */
    }
    return MHD_YES;
}

void api_req_free(api_req_t *r)
{
    if (!r)
        return;
    api_conn_watch_end(r);
    sl_buf_free(&r->body);
    json_decref(r->warnings);
    sl_auth_user_destroy(r->user);
    free(r);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls)
{
    (void)version;
    sl_api_t *api = cls;
    api_req_t *r = *req_cls;
    if (!r) { /* first call: headers only */
        r = sl_xcalloc(1, sizeof(*r));
        r->api = api;
        r->conn = conn;
        r->method = method;
        r->url = url;
        r->start_ms = sl_now_ms();
        r->start_s = sl_metrics_now();
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_DAEMON);
        r->plain = api->plain_mhd && ci && ci->daemon == api->plain_mhd;
        *req_cls = r;
        return api_req_begin(r);
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (r->replied)
            return MHD_YES;
        if (r->code != 413 && r->body.len + n > api->max_body) {
            /* chunked upload past the limit: MHD lets us answer only once
             * the body is complete, so drop the bytes, but not forever */
            r->code = 413;
            r->discard_since_ms = sl_now_ms();
            sl_buf_free(&r->body);
        }
        if (r->code != 413)
            sl_buf_append(&r->body, upload, n);
        else if (sl_now_ms() - r->discard_since_ms > DISCARD_MS)
            return MHD_NO;
        return MHD_YES;
    }
    if (r->replied)
        return MHD_YES;
    if (r->code == 413)
        return api_reply_too_large(r);
    if (!r->body.data)
        sl_buf_append(&r->body, "", 0); /* always a valid (empty) string */
    return api_route(r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    api_req_t *r = *req_cls;
    if (!r)
        return;
    sl_debug("%s %s -> %u (%lld ms)%s", r->method, r->url, r->code, sl_now_ms() - r->start_ms,
             toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (not completed)");
    char vbuf[16];
    const char *verb = r->m_verb ? r->m_verb : api_nonresource_verb(r->method, vbuf, sizeof(vbuf));
    sl_metrics_api_request(verb, r->m_resource ? r->m_resource : "", r->m_sub, r->code,
                           sl_metrics_now() - r->start_s);
    api_req_free(r);
    *req_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t n = strlen(line);
    while (n && line[n - 1] == '\n')
        line[--n] = '\0';
    sl_debug("http: %s", line);
}

static int load_pem(const char *path, char **out, sl_error_t *err)
{
    *out = sl_read_file(path, NULL, err);
    return *out ? 0 : -1;
}

static int parse_addr(const char *what, const char *listen, int port, struct sockaddr_in *addr,
                      sl_error_t *err)
{
    memset(addr, 0, sizeof(*addr));
    addr->sin_family = AF_INET;
    addr->sin_port = htons((unsigned short)port);
    if (inet_pton(AF_INET, listen, &addr->sin_addr) != 1) {
        errno = EINVAL;
        return sl_errprintf(err, "%s address '%s' is not an IPv4 address", what, listen);
    }
    return 0;
}

/* Options that make no sense together are refused at start, so a
 * misconfiguration cannot silently open the server. */
static int check_opts(const sl_api_opts_t *o, sl_error_t *err)
{
    errno = EINVAL;
    if (!o || !o->store || (!o->listen && !o->no_listen))
        return sl_errprintf(err, "api: a store and a listen address are required");
    if (!o->tls_cert != !o->tls_key)
        return sl_errprintf(err, "TLS needs both a certificate and a key");
    if ((o->client_ca || o->token_file) && !o->policy)
        return sl_errprintf(err, "client certificates and tokens need a policy: without one "
                                 "the server does not authenticate at all");
    if (o->policy && !o->tls_cert && !o->no_listen)
        return sl_errprintf(err, "a policy needs TLS (a certificate and a key): credentials "
                                 "must not cross the network in clear text");
    if (o->plain_listen && !o->policy)
        return sl_errprintf(err, "the plain-HTTP listener needs a policy (its requests act as "
                                 "the policy's anonymous identity)");
    if (o->client_ca && !o->tls_cert && !o->no_listen)
        return sl_errprintf(err, "client certificates need TLS");
    errno = 0;
    return 0;
}

static unsigned or_default(unsigned v, unsigned def) { return v ? v : def; }

/* The connection limits of opts with their defaults. */
static http_conn_limits_t conn_limits(const sl_api_opts_t *o)
{
    http_conn_limits_t l = {
        .max_connections = or_default(o->max_connections, 1024),
        .max_unauth = or_default(o->max_unauthenticated, 128),
        .max_per_user = or_default(o->max_per_user, 256),
        .max_watches = or_default(o->max_watches_per_user, 128),
        .idle_s = or_default(o->idle_timeout_s, 120),
        .handshake_s = or_default(o->handshake_timeout_s, 10),
    };
    /* the unauthenticated never hold more than half of the slots */
    if (l.max_unauth > l.max_connections / 2)
        l.max_unauth = l.max_connections / 2 ? l.max_connections / 2 : 1;
    if (l.handshake_s > l.idle_s)
        l.handshake_s = l.idle_s;
    return l;
}

static struct MHD_Daemon *start_mhd(sl_api_t *api, const sl_api_opts_t *opts, unsigned flags,
                                    int port, struct sockaddr_in *addr,
                                    struct MHD_OptionItem *extra)
{
    http_conn_limits_t l = conn_limits(opts);
    /* a new connection has the handshake timeout; http/conns.c gives it the idle
     * timeout once a request on it is authenticated */
    return MHD_start_daemon(
        flags, (uint16_t)port, NULL, NULL, on_request, api, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_CONNECTION_TIMEOUT, l.handshake_s, MHD_OPTION_CONNECTION_LIMIT,
        l.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT, opts->max_per_ip,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, api, MHD_OPTION_NOTIFY_CONNECTION,
        http_conns_notify, api->conns, MHD_OPTION_UNESCAPE_CALLBACK, unescape, api,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, api, MHD_OPTION_ARRAY, extra, MHD_OPTION_END);
}

/* the listen addresses of opts into addr and paddr; the plain-HTTP one only
 * on loopback. */
static int parse_addrs(const sl_api_opts_t *opts, struct sockaddr_in *addr,
                       struct sockaddr_in *paddr, sl_error_t *err)
{
    if (!opts->no_listen && parse_addr("listen", opts->listen, opts->port, addr, err) < 0)
        return -1;
    if (!opts->plain_listen || opts->no_listen)
        return 0;
    if (parse_addr("plain-HTTP listen", opts->plain_listen, opts->plain_port, paddr, err) < 0)
        return -1;
    /* kubectl sends no credentials over plain HTTP, so everyone who can
     * reach this listener is the same user: only this machine may */
    if ((ntohl(paddr->sin_addr.s_addr) >> 24) != 127) {
        errno = EINVAL;
        sl_errprintf(err,
                     "the plain-HTTP listener must be on a loopback address (127.0.0.0/8), "
                     "not %s",
                     opts->plain_listen);
        return -1;
    }
    return 0;
}

/* a new server with the settings of opts, nothing loaded or started yet */
static sl_api_t *api_alloc(const sl_api_opts_t *opts)
{
    sl_api_t *api = sl_xcalloc(1, sizeof(*api));
    api->store = opts->store;
    api->pods_root = sl_xstrdup(opts->pods_root ? opts->pods_root : "/var/lib/slurmlink/pods");
    api->shim_path = opts->shim_path ? sl_xstrdup(opts->shim_path) : NULL;
    api->slurm_conf = opts->slurm_conf ? sl_xstrdup(opts->slurm_conf) : NULL;
    api->exec_idle_s = opts->exec_idle_s ? opts->exec_idle_s : 4 * 3600;
    api->exec_max_s = opts->exec_max_s ? opts->exec_max_s : 24 * 3600;
    api->exec_max_message = opts->exec_max_message ? opts->exec_max_message : 1u << 20;
    api->exec_max_streams = opts->exec_max_streams ? opts->exec_max_streams : 128;
    api->max_body = opts->max_body ? opts->max_body : DEFAULT_MAX_BODY;
    api->max_object = opts->max_object ? opts->max_object : DEFAULT_MAX_OBJECT;
    api->bookmark_ms = (opts->bookmark_interval_s > 0 ? opts->bookmark_interval_s : 60) * 1000;
    api->event_ttl_ns = (long long)(opts->event_ttl_s ? opts->event_ttl_s : 3600) * 1000000000LL;
    pthread_mutex_init(&api->hook_lock, NULL);
    api->shim_event = opts->shim_event;
    api->shim_event_arg = opts->shim_event_arg;
    api->policy = opts->policy;
    api->plain_port = -1;
    http_conn_limits_t limits = conn_limits(opts);
    api->conns = http_conns_create(&limits);
    api->rows = api_rowcache_create(API_ROWCACHE_BYTES);
    api->facts = api_facts_create();
    api->podmetrics = api_podmetrics_create();
    atomic_init(&api->stopping, 0);
    return api;
}

/* the TLS certificate and key, the client CA, the authenticator, the
 * bootstrap objects and the watch hubs */
static int api_load(sl_api_t *api, const sl_api_opts_t *opts, sl_error_t *err)
{
    if (opts->tls_cert && !(api->tls = http_tls_create(opts->tls_cert, opts->tls_key, err)))
        return -1;
    http_conns_set_tls(api->conns, api->tls);
    if (opts->client_ca && load_pem(opts->client_ca, &api->client_ca_pem, err) < 0)
        return -1;
    if ((opts->client_ca || opts->token_file) &&
        !(api->authn = sl_authn_create(opts->client_ca, opts->token_file, err)))
        return -1;
    if (api_bootstrap(api, err) < 0)
        return -1;
    for (size_t i = 0; api_resources[i].name && i < API_MAX_RESOURCES; i++)
        api->hubs[i] = api_hub_create(api->store, api_resources[i].store_name,
                                      opts->watch_window ? opts->watch_window : 1024,
                                      opts->watch_window_bytes);
    return 0;
}

/* the main listener (TLS when opts has a certificate) on addr */
static int listen_main(sl_api_t *api, const sl_api_opts_t *opts, unsigned flags,
                       struct sockaddr_in *addr, sl_error_t *err)
{
    /* trusting the client CA makes MHD ask for a client certificate
     * (GNUTLS_CERT_REQUEST, not REQUIRE): tokens are the other way in,
     * and the certificate itself is checked per request (authn.c) */
    struct MHD_OptionItem tls_opts[] = {
        {MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)http_tls_retrieve},
        {api->client_ca_pem ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0, api->client_ca_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem no_opts[] = {{MHD_OPTION_END, 0, NULL}};
    errno = 0;
    api->mhd = start_mhd(api, opts, flags | (opts->tls_cert ? MHD_USE_TLS : 0), opts->port, addr,
                         opts->tls_cert ? tls_opts : no_opts);
    if (!api->mhd) {
        int e = errno ? errno : EADDRINUSE;
        sl_errprintf(err, "cannot listen on %s:%d: %s", opts->listen, opts->port, strerror(e));
        errno = e;
        return -1;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(api->mhd, MHD_DAEMON_INFO_BIND_PORT);
    api->port = di ? di->port : opts->port;
    api->server_address = sl_xasprintf("%s:%d", opts->listen, api->port);
    return 0;
}

/* the plain-HTTP listener on paddr */
static int listen_plain(sl_api_t *api, const sl_api_opts_t *opts, unsigned flags,
                        struct sockaddr_in *paddr, sl_error_t *err)
{
    struct MHD_OptionItem no_opts[] = {{MHD_OPTION_END, 0, NULL}};
    errno = 0;
    api->plain_mhd = start_mhd(api, opts, flags, opts->plain_port, paddr, no_opts);
    if (!api->plain_mhd) {
        int e = errno ? errno : EADDRINUSE;
        sl_errprintf(err, "cannot listen on %s:%d (plain HTTP): %s", opts->plain_listen,
                     opts->plain_port, strerror(e));
        errno = e;
        return -1;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(api->plain_mhd, MHD_DAEMON_INFO_BIND_PORT);
    api->plain_port = di ? di->port : opts->plain_port;
    return 0;
}

static int api_listen(sl_api_t *api, const sl_api_opts_t *opts, struct sockaddr_in *addr,
                      struct sockaddr_in *paddr, sl_error_t *err)
{
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_POLL | MHD_USE_ERROR_LOG | MHD_ALLOW_UPGRADE;
    if (opts->no_listen) {
        api->port = -1;
        api->server_address = sl_xstrdup("127.0.0.1:0");
        return 0;
    }
    if (listen_main(api, opts, flags, addr, err) < 0)
        return -1;
    if (opts->plain_listen && listen_plain(api, opts, flags, paddr, err) < 0)
        return -1;
    return 0;
}

sl_api_t *sl_api_create(const sl_api_opts_t *opts, sl_error_t *err)
{
    if (check_opts(opts, err) < 0)
        return NULL;
    struct sockaddr_in addr, paddr;
    if (parse_addrs(opts, &addr, &paddr, err) < 0)
        return NULL;
    sl_api_t *api = api_alloc(opts);
    if (api_load(api, opts, err) < 0 || api_listen(api, opts, &addr, &paddr, err) < 0 ||
        api_janitor_start(api, err) < 0) {
        int e = errno;
        sl_api_destroy(api);
        errno = e;
        return NULL;
    }
    return api;
}

int sl_api_port(const sl_api_t *api) { return api ? api->port : -1; }

int sl_api_plain_port(const sl_api_t *api) { return api ? api->plain_port : -1; }

void sl_api_destroy(sl_api_t *api)
{
    if (!api)
        return;
    /* streams poll this flag; the store wakeup gets blocked watches out of
     * sl_store_wait() at once */
    atomic_store(&api->stopping, 1);
    sl_store_kick(api->store); /* not sticky: the store may outlive us */
    api_janitor_stop(api);
    api_exec_drain(api); /* upgraded connections end before their daemon */
    if (api->mhd)
        MHD_stop_daemon(api->mhd);
    if (api->plain_mhd)
        MHD_stop_daemon(api->plain_mhd);
    for (size_t i = 0; i < API_MAX_RESOURCES; i++)
        api_hub_destroy(api->hubs[i]);
    http_conns_destroy(api->conns);
    api_rowcache_destroy(api->rows);
    api_facts_destroy(api->facts);
    api_podmetrics_free(api->podmetrics);
    pthread_mutex_destroy(&api->hook_lock);
    free(api->pods_root);
    free(api->shim_path);
    free(api->slurm_conf);
    free(api->server_address);
    http_tls_destroy(api->tls);
    free(api->client_ca_pem);
    sl_authn_destroy(api->authn);
    free(api);
}

void sl_api_set_limits(sl_api_t *api, const sl_api_opts_t *opts)
{
    http_conn_limits_t l = conn_limits(opts);
    if (api->conns)
        http_conns_set_limits(api->conns, &l);
    api->max_body = opts->max_body ? opts->max_body : DEFAULT_MAX_BODY;
    api->max_object = opts->max_object ? opts->max_object : DEFAULT_MAX_OBJECT;
}

int sl_api_set_policy(sl_api_t *api, const sl_authz_policy_t *policy)
{
    if (!policy || !api->policy) {
        errno = EINVAL;
        return -1;
    }
    api->policy = policy;
    return 0;
}

int sl_api_reload_tls(sl_api_t *api, const char *cert, const char *key, char serial[80],
                      sl_error_t *err)
{
    if (!api->tls) {
        errno = EINVAL;
        return sl_errprintf(err, "the API serves no TLS");
    }
    return http_tls_reload(api->tls, cert, key, serial, err);
}

void sl_api_set_shim_hook(sl_api_t *api, sl_api_shim_event_fn fn, void *arg)
{
    /* the API serves already: pushes of jobs that ran while we were away
     * arrive at once, on its threads */
    pthread_mutex_lock(&api->hook_lock);
    api->shim_event_arg = arg;
    api->shim_event = fn;
    pthread_mutex_unlock(&api->hook_lock);
}
