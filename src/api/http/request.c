/* request.c — what a handler reads of the request it serves: query
 * parameters, headers and warnings, from libmicrohttpd's connection or,
 * for sl_api_serve() (inproc.c), from the tables of an in-process request,
 * whose reply is captured here too. The bottom of src/api: it calls no
 * handler, router or server function, so that those can all call it. */
#include "api/http/request.h"
#include "api/http/http.h"
#include "api/http/state.h"
#include "api/inproc.h"
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *api_query(api_req_t *r, const char *key)
{
    if (r->inproc)
        return api_inproc_query(r->inproc, key);
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key);
}

const char *api_header(api_req_t *r, const char *name)
{
    if (r->inproc)
        return api_inproc_header(r->inproc, name);
    return MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name);
}

bool api_query_bool(api_req_t *r, const char *key)
{
    const char *v = api_query(r, key);
    return v && (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "True"));
}

void api_warn(api_req_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    if (!s)
        return;
    if (!r->warnings)
        r->warnings = json_array();
    /* kube-apiserver drops duplicate warnings of one request */
    size_t i;
    json_t *w;
    json_array_foreach(r->warnings, i, w) if (!strcmp(json_string_value(w), s))
    {
        free(s);
        return;
    }
    json_array_append_new(r->warnings, json_string(s));
    free(s);
}

/* POST /internal/v1/shim/events (a trailing slash ignored, as the router
 * does): the shim push, which has its own per-pod tokens */
bool api_is_shim_push(const char *url)
{
    const char *p = url ? url : "";
    if (*p == '/')
        p++;
    return !strcmp(p, "internal/v1/shim/events") || !strcmp(p, "internal/v1/shim/events/");
}

const char *api_inproc_query(struct api_inproc *q, const char *key)
{
    /* MHD returns the first of repeated keys */
    for (size_t i = 0; i < q->nquery; i++)
        if (!strcmp(q->query[2 * i], key))
            return q->query[2 * i + 1];
    return NULL;
}

const char *api_inproc_header(struct api_inproc *q, const char *name)
{
    /* header names are case-insensitive (MHD compares them so too) */
    for (size_t i = 0; q->headers && q->headers[i] && q->headers[i + 1]; i += 2)
        if (!strcasecmp(q->headers[i], name))
            return q->headers[i + 1];
    return NULL;
}

void api_inproc_reply(api_req_t *r, unsigned code, const char *ctype, const char *data, size_t len)
{
    sl_api_response_t *o = r->inproc->out;
    if (o->body) /* one reply per request, as MHD_queue_response */
        return;
    o->code = code;
    o->content_type = sl_xstrdup(ctype ? ctype : "");
    o->body = sl_xmalloc(len + 1);
    if (len)
        memcpy(o->body, data, len);
    o->body[len] = '\0';
    o->body_len = len;
}
