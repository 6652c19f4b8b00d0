/* http.h — what only the server's own files (src/api/http/) share: a
 * request's first call and its end, routing, authentication and
 * impersonation, the connection count of a request, in-process requests
 * and the upgraded sessions' entry points. Handlers include
 * api/http/request.h instead. */
#ifndef SL_API_HTTP_HTTP_H
#define SL_API_HTTP_HTTP_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

/* api/http/request.h, which this header leaves out so that request.c,
 * the bottom layer, may include it */
typedef struct api_req api_req_t;
typedef struct api_path api_path_t;
typedef struct sl_api sl_api_t;

/* --- requests (server.c: their first call and end) --- */
/* The checks of a request's first call, before any body byte is read:
 * authentication (auth.c) and the declared body size. MHD_YES with nothing
 * queued: go on; otherwise a reply (401, 413) is queued. */
enum MHD_Result api_req_begin(api_req_t *r);
/* The 413 of a body over the limit. */
enum MHD_Result api_reply_too_large(api_req_t *r);
/* Free a request and what it holds (not r->inproc). */
void api_req_free(api_req_t *r);

/* --- the connection of a request (identity.c) --- */
/* Count r's connection against its authenticated user (after
 * api_authenticate). 0: go on; -1: the user is at its cap, a 429 Status
 * was queued and the connection closes after it. */
int api_conn_admit(api_req_t *r);
/* The end of a watch that api_conn_watch_begin counted (the request's end). */
void api_conn_watch_end(api_req_t *r);

/* --- routing (router.c) --- */
enum MHD_Result api_route(api_req_t *r);
/* Is url the shim push endpoint (which has its own per-pod tokens)? */
bool api_is_shim_push(const char *url);

/* --- authentication (auth.c, impersonate.c) --- */
/* Who is asking (r->user). 0: go on (also in development mode and for the
 * shim push); -1: a 401 Status was queued. */
int api_authenticate(api_req_t *r);
/* kubectl --as (impersonate.c): after api_authenticate and api_conn_admit
 * (the connection counts against the caller), the Impersonate-* headers,
 * each authorized as the verb impersonate; r->user becomes the user they
 * name. 0: go on (no headers, or all granted); -1: a 400 or 403 queued. */
int api_impersonate(api_req_t *r);
/* The verb of a non-resource request ("get" for GET and HEAD, else the
 * method in lower case, in buf). */
const char *api_nonresource_verb(const char *method, char *buf, size_t len);

/* --- in-process requests (inproc.c builds them, request.c reads them) --- */
/* an sl_api_serve() request's query, headers and captured reply */
struct api_inproc {
    char **query; /* key, value (value NULL for "k" without '='), ... */
    size_t nquery;
    const char *const *headers;
    struct sl_api_response *out;
};
const char *api_inproc_query(struct api_inproc *q, const char *key);
const char *api_inproc_header(struct api_inproc *q, const char *name);
/* Capture a reply (data copied). */
void api_inproc_reply(api_req_t *r, unsigned code, const char *ctype, const char *data, size_t len);

/* --- exec, attach and port-forward (exec.c, wsexec.c, portfwd.c) --- */
/* GET|POST .../pods/NAME/exec and /attach, after authorization (create). */
enum MHD_Result api_handle_exec(api_req_t *r, const api_path_t *p);
/* GET .../pods/NAME/portforward (portfwd.c), after authorization. */
enum MHD_Result api_handle_portforward(api_req_t *r, const api_path_t *p);
/* Wait for the exec and port-forward sessions to end (api->stopping is set). */
void api_exec_drain(sl_api_t *api);

#endif
