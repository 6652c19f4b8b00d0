/* auth.c — who is asking, and may they: the two filters every request
 * passes before a handler runs (kube-apiserver's WithAuthentication and
 * WithAuthorization), with its 401 and 403 Status texts.
 *
 * Without a policy (development mode) both let everything through. The
 * shim push endpoint is never judged here: its per-pod bearer tokens are
 * checked by the controller's hook. The building blocks are src/auth
 * (credentials, policy) and src/pki (client certificates). */
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/resource.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "kube/status.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

static const char *peer(api_req_t *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s", r->inproc ? "in-process" : "?");
    if (!r->conn)
        return buf;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)ci->client_addr;
        char ip[INET_ADDRSTRLEN] = "";
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
        snprintf(buf, len, "%s:%u", ip, (unsigned)ntohs(in->sin_port));
    }
    return buf;
}

int api_authenticate(api_req_t *r)
{
    sl_api_t *api = r->api;
    if (!api->policy || api_is_shim_push(r->url))
        return 0;
    sl_error_t why = SL_ERROR_INIT;
    if (r->plain) {
        const sl_auth_user_t *anon = sl_authz_anonymous(api->policy);
        if (anon) {
            /* a site that opens this listener vouches for everyone on this
             * machine as that one identity */
            r->user = sl_auth_user_copy(anon);
            sl_auth_user_add_group(r->user, "system:authenticated");
            return 0;
        }
        sl_errprintf(&why, "plain HTTP, and the policy has no anonymous: identity");
    } else if (api->authn) {
        void *tls = NULL;
        if (r->conn) {
            const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
            tls = ci ? ci->tls_session : NULL;
        }
        r->user = sl_authn_request(api->authn, tls, api_header(r, "Authorization"), &why);
        if (r->user)
            return 0;
    } else {
        sl_errprintf(&why, "no client CA and no token file: no credential can succeed");
    }
    char who[64];
    /* the reason stays in the log: a client learns only "Unauthorized" */
    sl_info("unauthorized: %s %s from %s: %s", r->method, r->url, peer(r, who, sizeof(who)),
            why.text);
    api_reply_status(r, sl_kube_status_unauthorized(NULL));
    return -1;
}

int api_authorize(api_req_t *r, const char *verb, const char *group, const char *resource,
                  const char *sub, const char *ns, const char *name)
{
    sl_api_t *api = r->api;
    if (!api->policy || !r->user)
        return 0; /* development mode (authentication let nobody else through) */
    sl_authz_req_t q = {.user = r->user->name,
                        .groups = (const char *const *)r->user->groups,
                        .verb = verb,
                        .api_group = group ? group : "",
                        .resource = resource,
                        .subresource = sub,
                        .namespace = ns,
                        .name = name,
                        .path = r->url};
    sl_error_t err = SL_ERROR_INIT; /* the edge reads its subject and causes */
    int ok = sl_authz_check_req(api->policy, &q, &err);
    if (ok == 1)
        return 0;
    if (ok < 0) /* a request the policy cannot judge is refused */
        sl_errkindf(&err, SL_ERR_FORBIDDEN, "User \"%s\" cannot %s path \"%s\"", r->user->name,
                    verb, r->url);
    sl_info("forbidden: %s", err.text);
    api_reply_status(r, sl_kube_status_error(&err, resource, group, NULL, name));
    return -1;
}

const sl_auth_user_t *api_list_filter(api_req_t *r, const api_resource_t *res)
{
    if (!r->api->policy || !r->user || strcmp(res->name, "namespaces"))
        return NULL;
    return r->user;
}

bool api_may_read(sl_api_t *api, const sl_auth_user_t *user, const api_resource_t *res, json_t *obj)
{
    if (!api->policy || !user)
        return true;
    const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    sl_authz_req_t q = {.user = user->name,
                        .groups = (const char *const *)user->groups,
                        .verb = "get",
                        .api_group = res->group ? res->group : "",
                        .resource = res->name,
                        .namespace = name,
                        .name = name};
    return name && sl_authz_check_req(api->policy, &q, NULL) == 1;
}

/* kube-apiserver's verb for a non-resource URL: the method in lower case
 * (HEAD reads like GET). */
const char *api_nonresource_verb(const char *method, char *buf, size_t len)
{
    if (!strcmp(method, "HEAD"))
        return "get";
    size_t i = 0;
    for (; method[i] && i + 1 < len; i++)
        buf[i] = (char)tolower((unsigned char)method[i]);
    buf[i] = '\0';
    return buf;
}
