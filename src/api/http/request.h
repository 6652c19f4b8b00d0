/* request.h — what a handler of the API needs of the HTTP layer: the
 * request being served and its parsed path, its query and headers,
 * warnings, the budgets a handler draws on (a watch, a stream, a pushing
 * shim's connection), the replies (JSON, bytes, streams, Status, the Status
 * of an sl_error_t) and the authorization decisions. The server's state is
 * api/http/state.h, Table output api/http/table.h; what only the server
 * uses (its first call of a request, routing, authentication, upgrades) is
 * api/http/http.h, private to src/api/http/. */
#ifndef SL_API_HTTP_REQUEST_H
#define SL_API_HTTP_REQUEST_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

#include "auth/authn.h"
#include "common/buf.h"
#include "common/err.h"

typedef struct sl_api sl_api_t;             /* api/server.h, api/http/state.h */
typedef struct api_resource api_resource_t; /* api/resource.h */
struct api_inproc;                          /* api/http/http.h */

/* One HTTP request (MHD calls the access handler several times per
 * request; this carries state between the calls). */
typedef struct api_req {
    sl_api_t *api;
    struct MHD_Connection *conn;
    const char *method; /* MHD-owned, valid until the request completes */
    const char *url;    /* path without the query, MHD-owned */
    sl_buf_t body;
    bool replied;     /* a response was queued (maybe before the body ended) */
    json_t *warnings; /* strings → `Warning: 299 - "..."` headers */
    long long start_ms;
    long long discard_since_ms;              /* a chunked body past the limit is dropped since */
    unsigned code;                           /* for the request log */
    bool plain;                              /* arrived on the plain-HTTP listener */
    sl_auth_user_t *user;                    /* authenticated user; NULL in development mode
                                              * and for the shim push */
    struct api_inproc *inproc;               /* set when served by sl_api_serve() (no socket) */
    char *watch_of;                          /* the identity whose watch count this request holds */
    bool close_conn;                         /* the reply closes the connection */
    int retry_after;                         /* > 0: a Retry-After header (seconds) */
    double start_s;                          /* monotonic start, for the request metrics */
    const char *m_verb, *m_resource, *m_sub; /* the metrics' labels (static strings) */
    bool quota_txn; /* a pod's admission holds the store's transaction (quota.c) */
} api_req_t;

/* The parsed resource path of /api/v1/... and /apis/G/V/... URLs. */
typedef struct api_path {
    const api_resource_t *res; /* NULL: unknown resource */
    const char *ns;            /* namespace from the URL, or NULL */
    const char *name;          /* object name, or NULL (collection) */
    const char *sub;           /* "status", "log", or NULL */
    bool watch_prefix;         /* legacy /api/v1/watch/... form */
} api_path_t;

/* --- what a handler reads of its request (request.c) --- */
const char *api_query(api_req_t *r, const char *key);
const char *api_header(api_req_t *r, const char *name);
/* Boolean query parameter: "true"/"1" → true (as kube-apiserver's decoder). */
bool api_query_bool(api_req_t *r, const char *key);
void api_warn(api_req_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- connections, watches and streams per identity (identity.c over http/conns.c) --- */
/* Count r's connection against a named identity (the shim push:
 * "shim:<pod uid>"). 0: go on; -1: the identity is at its cap: with refuse
 * a 429 Status was queued and the connection closes after it; without, no
 * reply is queued: the reply that the caller sends closes the connection. */
int api_conn_attach(api_req_t *r, const char *name, bool refuse);
/* A watch starts: counted against r's user until api_conn_watch_end (which
 * the request's end calls). 0, or -1 with a 429 Status queued. */
int api_conn_watch_begin(api_req_t *r);
/* Streams (exec and attach sessions, connections a port-forward makes to
 * a pod; identity.c): n more for r's identity. 0 with *who (caller frees;
 * give them back with it), or -1 with *st: a 429 Status naming
 * exec.max_streams_per_user, or a 503 while the process is short of
 * descriptors. _as: for identity who (a session's next request), -1 with
 * *code and *why (caller frees). */
int api_streams_take(api_req_t *r, unsigned n, char **who, json_t **st);
int api_streams_take_as(sl_api_t *api, const char *who, unsigned n, unsigned *code, char **why);
void api_streams_give(sl_api_t *api, const char *who, unsigned n);

/* --- replies (reply.c); each queues the response and returns MHD's result --- */
enum MHD_Result api_reply_bytes(api_req_t *r, unsigned code, const char *ctype, const char *data,
                                size_t len);
/* obj is stolen. */
enum MHD_Result api_reply_json(api_req_t *r, unsigned code, json_t *obj);
enum MHD_Result api_reply_json_ct(api_req_t *r, unsigned code, const char *ctype, json_t *obj);
/* A Status object (stolen); the HTTP code is its "code". */
enum MHD_Result api_reply_status(api_req_t *r, json_t *status);
/* The API edge for an sl_error_t: the Status sl_kube_status_error() builds
 * for res (may be NULL) and name (may be NULL), err cleared. */
json_t *api_error_status(const api_resource_t *res, const char *name, sl_error_t *err);
/* The same, sent. */
enum MHD_Result api_reply_error(api_req_t *r, const api_resource_t *res, const char *name,
                                sl_error_t *err);
/* Already-serialised JSON text (taken: freed by MHD). */
enum MHD_Result api_reply_owned(api_req_t *r, unsigned code, const char *ctype, char *text,
                                size_t len);
/* data outlives the response (static, or kept for the process): not copied.
 * hdrs: extra headers, name, value, ..., NULL (may be NULL); a Cache-Control
 * among them replaces the default "no-cache, private". */
enum MHD_Result api_reply_persistent(api_req_t *r, unsigned code, const char *ctype,
                                     const char *data, size_t len, const char *const *hdrs);
/* A streamed (chunked) response; free_fn(cls) runs when it ends. */
enum MHD_Result api_reply_stream(api_req_t *r, unsigned code, const char *ctype,
                                 MHD_ContentReaderCallback reader, void *cls,
                                 MHD_ContentReaderFreeCallback free_fn);
/* The same with extra headers (name, value, ..., NULL; may be NULL). */
enum MHD_Result api_reply_stream_hdrs(api_req_t *r, unsigned code, const char *ctype,
                                      MHD_ContentReaderCallback reader, void *cls,
                                      MHD_ContentReaderFreeCallback free_fn,
                                      const char *const *hdrs);

/* --- authorization (auth.c) --- */
/* May r->user do verb on this resource? (kube-apiserver's request
 * attributes; resource NULL for a non-resource URL, judged by r->url.)
 * 0: allowed (always in development mode); -1: a 403 Status was queued. */
int api_authorize(api_req_t *r, const char *verb, const char *group, const char *resource,
                  const char *sub, const char *ns, const char *name);
/* The user whose reads filter a list or watch of res object by object, or
 * NULL when the whole collection may be shown: a namespace counts as inside
 * itself, so listing namespaces shows each caller the namespaces it may get
 * (kube-apiserver would answer 403 to the list; here everyone may list and
 * sees only their own). */
const sl_auth_user_t *api_list_filter(api_req_t *r, const api_resource_t *res);
/* May user get obj (of res)? true in development mode and for user NULL. */
bool api_may_read(sl_api_t *api, const sl_auth_user_t *user, const api_resource_t *res,
                  json_t *obj);

#endif
