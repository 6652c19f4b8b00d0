/* server.c — HTTP server on libmicrohttpd: /healthz, /readyz, /version. */
#include "api/server.h"
#include "common/version.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <string.h>

struct sl_api {
    struct MHD_Daemon *mhd;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *ctype,
                             const char *body)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
                                                             MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload_data,
                               size_t *upload_data_size, void **req_cls)
{
    (void)cls;
    (void)version;
    (void)upload_data;
    if (*req_cls == NULL) { /* first call: headers only */
        *req_cls = (void *)1;
        return MHD_YES;
    }
    if (*upload_data_size) { /* bodies are not used by these endpoints */
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply(conn, 405, "application/json",
                     "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                     "\"Failure\",\"message\":\"method not allowed\",\"reason\":"
                     "\"MethodNotAllowed\",\"code\":405}");
    if (!strcmp(url, "/healthz") || !strcmp(url, "/readyz") || !strcmp(url, "/livez"))
        return reply(conn, 200, "text/plain; charset=utf-8", "ok");
    if (!strcmp(url, "/version"))
        return reply(conn, 200, "application/json",
                     "{\"major\":\"1\",\"minor\":\"32\",\"gitVersion\":\"v1.32.0-slurmlink." SLURMLINK_VERSION
                     "\",\"platform\":\"linux/amd64\"}");
    return reply(conn, 404, "application/json",
                 "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                 "\"Failure\",\"message\":\"the server could not find the requested resource\","
                 "\"reason\":\"NotFound\",\"details\":{},\"code\":404}");
}

sl_api_t *sl_api_create(const sl_api_opts_t *opts, sl_error_t *err)
{
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)opts->port);
    if (inet_pton(AF_INET, opts->listen, &addr.sin_addr) != 1) {
        errno = EINVAL;
        sl_errprintf(err, "listen address '%s' is not an IPv4 address", opts->listen);
        return NULL;
    }
    sl_api_t *api = sl_xcalloc(1, sizeof(*api));
    api->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG,
                                (uint16_t)opts->port, NULL, NULL, handler, api,
                                MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_CONNECTION_TIMEOUT,
                                (unsigned)120, MHD_OPTION_END);
    if (!api->mhd) {
        sl_errprintf(err, "cannot listen on %s:%d: %s", opts->listen, opts->port,
                     errno ? strerror(errno) : "port in use?");
        free(api);
        return NULL;
    }
    return api;
}

void sl_api_destroy(sl_api_t *api)
{
    if (!api)
        return;
    MHD_stop_daemon(api->mhd);
    free(api);
}
