/* internal.h — what the resource handlers of src/api/ and the workload
 * kinds' API sides (src/kinds/NAME/api.c) share: object metadata validation,
 * the store's errors as Statuses, creating and updating objects, the
 * namespace and service account checks, who may act as a pod's user.
 * The other parts have headers of their own: admission.h, quota.h,
 * decode.h, delete.h, datakeys.h, lifecycle.h, handlers.h (the router's
 * targets); the HTTP layer's api/http/request.h (the request, replies,
 * Status, authorization), api/http/state.h (the server's state),
 * api/http/table.h. Not an interface for other modules (that is
 * server.h). */
#ifndef SL_API_INTERNAL_H
#define SL_API_INTERNAL_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "api/http/request.h"
#include "api/resource.h"
#include "common/argv.h"
#include "common/err.h"
#include "kube/selector.h"

/* --- exec, attach, port-forward and logs: who may, into which container --- */
/* May r's user act as Unix user uid (exec, attach or port-forward into a
 * pod that runs as it; change a workload that does; objects.c)? Yes when
 * its policy mapping is that uid, for an admin (adminGroups) and in
 * development mode: 0; else -1 with *why (caller frees), what naming the
 * pod or workload ("pod \"p\""). */
int api_may_act_as(api_req_t *r, uid_t uid, const char *what, char **why);
/* The container a log or exec request names (logs.c). */
const char *api_pick_container(api_req_t *r, json_t *pod, sl_error_t *err);

/* --- kinds.c, pod_kind.c --- */
/* ValidateObjectMeta: name (DNS label or subdomain), labels, annotations. */
void api_validate_meta(json_t *obj, bool name_is_label, sl_error_t *errs);
/* A validator's result: -1 when err holds field errors, else 0. */
int api_fields_result(const sl_error_t *err);
/* Unknown fields of obj as kind (src/pod/schema.h) appended to unknown. */
int api_schema_unknown(const char *kind, json_t *obj, json_t *unknown);

/* --- helpers shared by handlers (objects.c) --- */
/* The names of res's objects in ns (NULL: all namespaces), appended to out:
 * what a sweep reads first, then each object by itself, rather than every
 * object parsed at once. */
void api_store_names(sl_api_t *api, const api_resource_t *res, const char *ns, sl_argv_t *out);
/* The kind of a store errno (ENOENT NotFound, EEXIST AlreadyExists, ESTALE
 * Conflict, EINVAL BadRequest with text, else a 500 with text or
 * strerror) in err; returns -1. */
int api_store_error(int e, const char *text, sl_error_t *err);
/* objects.c: an update of a workload (a pod, or a kind whose pods run as
 * its creator: its spec, or its scale) only by its creator's Unix user (or
 * an admin); 0, or -1 with err (Forbidden) */
int api_check_workload_owner(api_req_t *r, const api_path_t *p, json_t *old, sl_error_t *err);
/* Its Status for res/name (an edge function). */
json_t *api_store_error_status(const api_resource_t *res, const char *name, int e,
                               const char *text);
/* Queue a reply with obj as JSON or as a one-row Table per Accept. obj stolen. */
enum MHD_Result api_reply_object(api_req_t *r, const api_resource_t *res, unsigned code,
                                 json_t *obj);
/* Set apiVersion and kind of obj from res (the store keeps them). */
void api_set_type(const api_resource_t *res, json_t *obj);
/* Create obj (decoded, kind checked) at p: namespace and service account
 * checks, defaults, validation, generateName, dryRun. -1 with err (its
 * Status for p->res and obj's name: api_error_status(p->res,
 * sl_kube_name(obj), err)); err must start as SL_ERROR_INIT and be cleared. */
int api_create_object(api_req_t *r, const api_path_t *p, json_t *obj, sl_error_t *err);
/* PUT and PATCH share this: *objp is the complete new object (replaced by
 * the stored result), old the stored one; expect_rv 0 = unconditional.
 * -1 with err on failure (its Status for p->res and p->name). */
int api_write_update(api_req_t *r, const api_path_t *p, json_t **objp, json_t *old,
                     int64_t expect_rv, sl_error_t *err);
/* labelSelector and fieldSelector of the request (both NULL-safe to
 * destroy). -1 on a parse error, err of kind SL_ERR_BAD_REQUEST (kube's 400
 * with the parser's text). */
int api_parse_selectors(api_req_t *r, const api_resource_t *res, sl_kube_selector_t **ls,
                        sl_kube_selector_t **fs, sl_error_t *err);
/* A Pod's service account must exist (ServiceAccount admission): 0, or -1
 * with an SL_ERR_FORBIDDEN err. */
int api_check_service_account(api_req_t *r, json_t *pod, sl_error_t *err);
/* Namespace check for writes: exists and is not terminating. 0 when ok,
 * else -1 with err: a NotFound of the namespace, or (a POST) a Forbidden
 * of res/name with kube's NamespaceTerminating cause (both subjects set). */
int api_check_namespace(api_req_t *r, const api_resource_t *res, const char *ns, const char *name,
                        sl_error_t *err);

#endif
