/* inproc.c — sl_api_serve(): a request without a connection (inproc.h).
 *
 * What libmicrohttpd does for a network request is done here in the same
 * order: split the target at '?', unescape the path and each query key and
 * value with the server's own callback (http_unescape), then the first-call
 * checks (api_req_begin: authentication, Content-Length), the body limit,
 * and api_route(). api_query()/api_header() read the tables below, and the
 * reply functions (reply.c) capture into them. */
#include "api/inproc.h"
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "common/xalloc.h"
#include "http/url.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

static void parse_query(struct api_inproc *q, const char *qs)
{
    char *copy = sl_xstrdup(qs);
    size_t cap = 0;
    char *save = NULL;
    for (char *kv = strtok_r(copy, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        if (eq)
            *eq = '\0';
        if (q->nquery == cap) {
            cap = cap ? cap * 2 : 8;
            q->query = sl_xrealloc(q->query, 2 * cap * sizeof(char *));
        }
        char *k = sl_xstrdup(kv), *v = eq ? sl_xstrdup(eq + 1) : NULL;
        http_unescape(k);
        if (v)
            http_unescape(v);
        q->query[2 * q->nquery] = k;
        q->query[2 * q->nquery + 1] = v;
        q->nquery++;
    }
    free(copy);
}

int sl_api_serve(sl_api_t *api, const sl_api_request_t *q, sl_api_response_t *out)
{
    memset(out, 0, sizeof(*out));
    if (!api || !q || !q->method || !q->target) {
        errno = EINVAL;
        return -1;
    }
    struct api_inproc ip = {.headers = q->headers, .out = out};
    const char *qm = strchr(q->target, '?');
    char *path = qm ? sl_xstrndup(q->target, (size_t)(qm - q->target)) : sl_xstrdup(q->target);
    http_unescape(path);
    if (qm)
        parse_query(&ip, qm + 1);

    api_req_t *r = sl_xcalloc(1, sizeof(*r));
    r->api = api;
    r->method = q->method;
    r->url = path;
    r->plain = q->plain;
    r->inproc = &ip;
    api_req_begin(r);
    if (!r->replied) {
        if (q->body_len > api->max_body)
            api_reply_too_large(r);
        else {
            sl_buf_append(&r->body, q->body ? q->body : "", q->body_len);
            api_route(r);
        }
    }
    if (!out->body) { /* a handler that answered nothing: MHD would close */
        out->code = 0;
        out->content_type = sl_xstrdup("");
        out->body = sl_xstrdup("");
    }
    api_req_free(r);
    for (size_t i = 0; i < 2 * ip.nquery; i++)
        free(ip.query[i]);
    free(ip.query);
    free(path);
    return 0;
}

void sl_api_response_clear(sl_api_response_t *r)
{
    if (!r)
        return;
    free(r->content_type);
    free(r->body);
    memset(r, 0, sizeof(*r));
}
