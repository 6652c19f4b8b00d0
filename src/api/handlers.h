/* handlers.h — the handlers the router (api/http/router.c) calls, after
 * it parsed the path and authorized the request: discovery and OpenAPI,
 * the verbs on objects, watches, logs, the shim push, the service proxy
 * and /metrics. */
#ifndef SL_API_HANDLERS_H
#define SL_API_HANDLERS_H

#include <microhttpd.h>
#include <stdbool.h>

#include "api/http/request.h"

/* --- the service proxy (svcproxy.c): /api/v1/namespaces/NS/services/
 * [SCHEME:]NAME[:PORT]/proxy[/PATH] --- */
bool api_service_proxy_path(const char *url, char **ns, char **id, const char **rest);
enum MHD_Result api_handle_service_proxy(api_req_t *r);

/* --- GET /metrics (metrics.c), after the router authorized it --- */
enum MHD_Result api_serve_metrics(api_req_t *r);

/* --- discovery.c / openapi.c --- */
enum MHD_Result api_serve_version(api_req_t *r);
enum MHD_Result api_serve_api_versions(api_req_t *r); /* /api */
enum MHD_Result api_serve_group_list(api_req_t *r);   /* /apis */
enum MHD_Result api_serve_group(api_req_t *r, const char *group);
enum MHD_Result api_serve_resource_list(api_req_t *r, const char *group, const char *version);
enum MHD_Result api_serve_openapi(api_req_t *r, const char *rest); /* after /openapi/v3 */
enum MHD_Result api_serve_openapi_v2(api_req_t *r);                /* empty, protobuf */

/* --- objects.c (create/get/list/update/delete), patch.c, watch.c, logs.c --- */
enum MHD_Result api_handle_create(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_get(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_list(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_update(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_patch(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_delete(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_delete_collection(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_watch(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_log(api_req_t *r, const api_path_t *p);
enum MHD_Result api_handle_shim_event(api_req_t *r);

#endif
