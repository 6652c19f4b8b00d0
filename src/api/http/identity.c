/* identity.c — a request's connection, watches and streams counted
 * against who makes it (http/conns.h keeps the counts): the authenticated
 * user, "" in development mode, the shim push's "shim:<uid>"; and the
 * Status of a refusal (429 TooManyRequests, 503 while descriptors are
 * short). */
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "http/conns.h"
#include "kube/status.h"

#include <stdlib.h>

static enum MHD_Result too_many(api_req_t *r, const char *what, const char *who, unsigned cap)
{
    sl_info("429 for %s %s: \"%s\" already holds %u %s, its cap", r->method, r->url, who, cap,
            what);
    json_t *st =
        sl_kube_status(429, "TooManyRequests", "Too many requests, please try again later.",
                       json_pack("{s:i}", "retryAfterSeconds", 1));
    return api_reply_status(r, st);
}

/* The identity a request counts against: its user, "" in development
 * mode (not capped), NULL for a request not (yet) authenticated. */
static const char *ident_name(api_req_t *r)
{
    if (!r->api->policy)
        return "";
    return r->user ? r->user->name : NULL;
}

int api_conn_attach(api_req_t *r, const char *name, bool refuse)
{
    unsigned cap = 0;
    if (http_conns_attach(r->api->conns, r->conn, name, &cap) == 0)
        return 0;
    r->close_conn = true; /* the connection goes, its slot with it */
    if (refuse)
        too_many(r, "connections", name, cap);
    return -1;
}

int api_conn_admit(api_req_t *r) { return api_conn_attach(r, ident_name(r), true); }

int api_conn_watch_begin(api_req_t *r)
{
    const char *name = ident_name(r);
    unsigned cap = 0;
    int rc = http_conns_watch_begin(r->api->conns, r->conn, name, &cap);
    if (rc < 0) {
        too_many(r, "watches", name, cap);
        return -1;
    }
    if (rc > 0)
        r->watch_of = sl_xstrdup(name);
    return 0;
}

void api_conn_watch_end(api_req_t *r)
{
    if (!r->watch_of)
        return;
    http_conns_watch_end(r->api->conns, r->conn, r->watch_of);
    free(r->watch_of);
    r->watch_of = NULL;
}

int api_streams_take_as(sl_api_t *api, const char *who, unsigned n, unsigned *code, char **why)
{
    http_streams_refusal_t no = {0};
    unsigned cap = api->exec_max_streams;
    int rc = http_conns_streams_take(api->conns, who, n, cap, &no);
    if (rc == -2) {
        *code = 503;
        *why = sl_xasprintf("slurmlinkd is short of file descriptors (%ld left, %ld of them kept "
                            "for the store, the controllers and new clients): try again later",
                            no.fds_left, no.fds_reserve);
        return -1;
    }
    if (rc < 0) {
        *code = 429;
        *why = sl_xasprintf("user \"%s\" holds %u of its %u streams (exec and attach sessions, "
                            "forwarded connections; exec.max_streams_per_user): this one needs %u",
                            who, no.held, cap, n);
        return -1;
    }
    return 0;
}

void api_streams_give(sl_api_t *api, const char *who, unsigned n)
{
    http_conns_streams_give(api->conns, who, n);
}

int api_streams_take(api_req_t *r, unsigned n, char **who, json_t **st)
{
    const char *name = ident_name(r);
    unsigned code = 0;
    char *why = NULL;
    *who = NULL;
    *st = NULL;
    if (api_streams_take_as(r->api, name ? name : "", n, &code, &why) < 0) {
        sl_info("%u for %s %s: %s", code, r->method, r->url, why);
        *st = code == 429 ? sl_kube_status(429, "TooManyRequests", why,
                                           json_pack("{s:i}", "retryAfterSeconds", 1))
                          : sl_kube_status(503, "ServiceUnavailable", why, NULL);
        free(why);
        return -1;
    }
    *who = sl_xstrdup(name ? name : "");
    return 0;
}
