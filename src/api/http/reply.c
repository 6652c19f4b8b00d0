/* reply.c — queueing responses: JSON objects, Status errors, streams, and
 * the Warning headers a request collected. */
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/resource.h"
#include "common/buf.h"
#include "common/log.h"
#include "kube/status.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* `299 - "text"` with `"` and `\` escaped (k8s.io/apimachinery/pkg/util/net
 * NewWarningHeader); control characters are dropped like kube does. */
static void add_warnings(api_req_t *r, struct MHD_Response *resp)
{
    size_t i;
    json_t *w;
    json_array_foreach(r->warnings, i, w)
    {
        sl_buf_t b = SL_BUF_INIT;
        sl_buf_puts(&b, "299 - \"");
        for (const char *p = json_string_value(w); *p; p++) {
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                continue;
            if (*p == '"' || *p == '\\')
                sl_buf_putc(&b, '\\');
            sl_buf_putc(&b, *p);
        }
        sl_buf_putc(&b, '"');
        MHD_add_response_header(resp, "Warning", b.data);
        sl_buf_free(&b);
    }
}

/* hdrs: extra headers, name, value, ..., NULL (may be NULL); a
 * Cache-Control among them replaces the default one. */
static enum MHD_Result queue_hdrs(api_req_t *r, unsigned code, const char *ctype,
                                  struct MHD_Response *resp, const char *const *hdrs)
{
    if (!resp)
        return MHD_NO;
    if (ctype)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    bool cache_control = false;
    for (size_t i = 0; hdrs && hdrs[i] && hdrs[i + 1]; i += 2) {
        MHD_add_response_header(resp, hdrs[i], hdrs[i + 1]);
        cache_control |= !strcasecmp(hdrs[i], MHD_HTTP_HEADER_CACHE_CONTROL);
    }
    if (!cache_control)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache, private");
    if (r->retry_after > 0) {
        char s[16];
        snprintf(s, sizeof(s), "%d", r->retry_after);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, s);
    }
    if (r->close_conn)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    add_warnings(r, resp);
    enum MHD_Result ret = MHD_queue_response(r->conn, code, resp);
    MHD_destroy_response(resp);
    r->replied = true;
    r->code = code;
    return ret;
}

static enum MHD_Result queue(api_req_t *r, unsigned code, const char *ctype,
                             struct MHD_Response *resp)
{
    return queue_hdrs(r, code, ctype, resp, NULL);
}

/* A request served in-process (inproc.c) has no connection: the reply is
 * captured instead of queued. */
static enum MHD_Result capture(api_req_t *r, unsigned code, const char *ctype, const char *data,
                               size_t len)
{
    api_inproc_reply(r, code, ctype, data, len);
    r->replied = true;
    r->code = code;
    return MHD_YES;
}

enum MHD_Result api_reply_bytes(api_req_t *r, unsigned code, const char *ctype, const char *data,
                                size_t len)
{
    if (r->inproc)
        return capture(r, code, ctype, data, len);
    return queue(r, code, ctype,
                 MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY));
}

enum MHD_Result api_reply_persistent(api_req_t *r, unsigned code, const char *ctype,
                                     const char *data, size_t len, const char *const *hdrs)
{
    if (r->inproc)
        return capture(r, code, ctype, data, len);
    return queue_hdrs(r, code, ctype,
                      MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_PERSISTENT),
                      hdrs);
}

enum MHD_Result api_reply_owned(api_req_t *r, unsigned code, const char *ctype, char *text,
                                size_t len)
{
    if (r->inproc) {
        enum MHD_Result ret = capture(r, code, ctype, text, len);
        free(text);
        return ret;
    }
    struct MHD_Response *resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!resp)
        free(text);
    return queue(r, code, ctype, resp);
}

enum MHD_Result api_reply_json_ct(api_req_t *r, unsigned code, const char *ctype, json_t *obj)
{
    char *s = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    if (!s)
        return api_reply_bytes(r, 500, "application/json", "{}", 2);
    size_t n = strlen(s);
    /* kube-apiserver ends JSON bodies with a newline; some tools expect it */
    char *t = realloc(s, n + 2);
    if (t) {
        t[n++] = '\n';
        t[n] = '\0';
        s = t;
    }
    return api_reply_owned(r, code, ctype, s, n);
}

enum MHD_Result api_reply_json(api_req_t *r, unsigned code, json_t *obj)
{
    return api_reply_json_ct(r, code, "application/json", obj);
}

enum MHD_Result api_reply_status(api_req_t *r, json_t *status)
{
    json_int_t code = json_integer_value(json_object_get(status, "code"));
    if (code < 100 || code > 599)
        code = 500;
    json_t *retry = json_object_get(json_object_get(status, "details"), "retryAfterSeconds");
    if (json_integer_value(retry) > 0) /* as kube-apiserver's status writer */
        r->retry_after = (int)json_integer_value(retry);
    return api_reply_json(r, (unsigned)code, status);
}

json_t *api_error_status(const api_resource_t *res, const char *name, sl_error_t *err)
{
    json_t *st = res ? sl_kube_status_error(err, res->name, res->group, res->kind, name)
                     : sl_kube_status_error(err, NULL, NULL, NULL, name);
    sl_error_clear(err);
    return st;
}

enum MHD_Result api_reply_error(api_req_t *r, const api_resource_t *res, const char *name,
                                sl_error_t *err)
{
    return api_reply_status(r, api_error_status(res, name, err));
}

enum MHD_Result api_reply_stream(api_req_t *r, unsigned code, const char *ctype,
                                 MHD_ContentReaderCallback reader, void *cls,
                                 MHD_ContentReaderFreeCallback free_fn)
{
    return api_reply_stream_hdrs(r, code, ctype, reader, cls, free_fn, NULL);
}

enum MHD_Result api_reply_stream_hdrs(api_req_t *r, unsigned code, const char *ctype,
                                      MHD_ContentReaderCallback reader, void *cls,
                                      MHD_ContentReaderFreeCallback free_fn,
                                      const char *const *hdrs)
{
    if (r->inproc) { /* no connection to stream to: the status, no body */
        if (free_fn)
            free_fn(cls);
        return capture(r, code, ctype, "", 0);
    }
    /* 32 KiB blocks: big enough for a 10,000-pod initial watch burst to
     * move in few syscalls, small enough that one event goes out at once */
    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 32 * 1024, reader, cls, free_fn);
    if (!resp) {
        if (free_fn)
            free_fn(cls);
        return MHD_NO;
    }
    return queue_hdrs(r, code, ctype, resp, hdrs);
}
