/* inproc.h — one request through the server's own request path, without a
 * socket: the same authentication (bearer tokens; there is no TLS session,
 * so no client certificate), body limit, routing, authorization, decoding,
 * admission and handlers as a request that came over the network; the
 * reply is captured instead of sent. For the fuzz harness (src/fuzz) and
 * tests; create the server with sl_api_opts_t.no_listen.
 *
 * The target is the raw request-target: the path and query are unescaped
 * here exactly as the server's libmicrohttpd callback unescapes them.
 * Streams (watch, logs with follow) answer with their status code and
 * content type but no body. Thread-safe like the server itself. */
#ifndef SL_API_INPROC_H
#define SL_API_INPROC_H

#include <stdbool.h>
#include <stddef.h>

#include "api/server.h"

typedef struct sl_api_request {
    const char *method;         /* "GET" */
    const char *target;         /* "/api/v1/namespaces/default/pods?limit=5" */
    const char *const *headers; /* name, value, name, value, ..., NULL (may be NULL) */
    const char *body;           /* may be NULL */
    size_t body_len;
    bool plain; /* as if on the plain-HTTP listener */
} sl_api_request_t;

typedef struct sl_api_response {
    unsigned code;
    char *content_type; /* "" when the reply has none */
    char *body;         /* NUL-terminated copy; body_len bytes */
    size_t body_len;
} sl_api_response_t;

/* Serve q; fills *out (clear it with sl_api_response_clear). 0, or -1 with
 * errno EINVAL for a missing method or target. */
int sl_api_serve(sl_api_t *api, const sl_api_request_t *q, sl_api_response_t *out);
void sl_api_response_clear(sl_api_response_t *r); /* NULL is a no-op */

#endif
