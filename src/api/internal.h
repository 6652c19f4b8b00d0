/* internal.h — what the files of src/api/ share: the server state, the
 * request being served, reply helpers and the handlers' entry points.
 * Not an interface for other modules (that is server.h). */
#ifndef SL_API_INTERNAL_H
#define SL_API_INTERNAL_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/resource.h"
#include "api/server.h"
#include "auth/authn.h"
#include "auth/policy.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/err.h"
#include "kube/selector.h"
#include "store/store.h"

struct api_hub;
#define API_MAX_RESOURCES 64

struct sl_api {
    struct MHD_Daemon *mhd;
    struct MHD_Daemon *plain_mhd; /* loopback plain-HTTP listener, or NULL */
    int plain_port;
    struct api_hub *hubs[API_MAX_RESOURCES]; /* per resource, index in api_resources */
    sl_store_t *store;                       /* borrowed */
    char *pods_root;
    char *server_address; /* "127.0.0.1:6443", for APIVersions */
    char *client_ca_pem;
    struct http_tls *tls; /* the certificate and key, reloadable (tlscred.h); NULL: plain */
    /* NULL: development mode, nothing checked. Atomic: SIGHUP swaps it
     * (sl_api_set_policy) while requests read it */
    const sl_authz_policy_t *_Atomic policy;
    sl_authn_t *authn;       /* NULL: no credential can succeed */
    _Atomic size_t max_body; /* atomic: SIGHUP changes them (sl_api_set_limits) */
    _Atomic size_t max_object;
    int bookmark_ms;
    long long event_ttl_ns;
    int port;
    pthread_mutex_t hook_lock;       /* shim_event and its arg: set while serving */
    sl_api_shim_event_fn shim_event; /* hook_lock */
    void *shim_event_arg;            /* hook_lock */
    struct http_conns *conns;        /* connections, watches, streams per identity (http/conns.h) */
    struct api_rowcache *rows;       /* printed Table rows for reuse (rowcache.h) */
    struct api_facts *facts;         /* what creates read besides their object (facts.h) */
    atomic_int stopping;             /* streams end when set */
    pthread_t janitor;
    bool janitor_started;
    /* the pods' last usage samples (podmetrics.h) */
    struct api_podmetrics *podmetrics;

    /* exec (exec.c, wsexec.c): NULL paths take the defaults; the live
     * sessions (their threads) */
    char *shim_path, *slurm_conf;
    unsigned exec_idle_s, exec_max_s;
    size_t exec_max_message;   /* a client's WebSocket message at most */
    unsigned exec_max_streams; /* sessions and forwarded connections per identity */
    atomic_int exec_sessions;
};

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

/* The shared change window of res (watchhub.h), or NULL. */
static inline struct api_hub *api_hub_for(sl_api_t *api, const api_resource_t *res)
{
    size_t i = (size_t)(res - api_resources);
    return i < API_MAX_RESOURCES ? api->hubs[i] : NULL;
}

/* --- requests (server.c: their first call and end; request.c: what a
 * handler reads of them) --- */
/* The checks of a request's first call, before any body byte is read:
 * authentication (auth.c) and the declared body size. MHD_YES with nothing
 * queued: go on; otherwise a reply (401, 413) is queued. */
enum MHD_Result api_req_begin(api_req_t *r);
/* The 413 of a body over the limit. */
enum MHD_Result api_reply_too_large(api_req_t *r);
/* Free a request and what it holds (not r->inproc). */
void api_req_free(api_req_t *r);
const char *api_query(api_req_t *r, const char *key);
const char *api_header(api_req_t *r, const char *name);
/* Boolean query parameter: "true"/"1" → true (as kube-apiserver's decoder). */
bool api_query_bool(api_req_t *r, const char *key);
void api_warn(api_req_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --- connections, watches and streams per identity (identity.c over http/conns.c) --- */
/* Count r's connection against its authenticated user (after
 * api_authenticate). 0: go on; -1: the user is at its cap, a 429 Status
 * was queued and the connection closes after it. */
int api_conn_admit(api_req_t *r);
/* The same for a named identity (the shim push: "shim:<pod uid>"); at the
 * cap, with refuse false, no reply is queued: the reply that the caller
 * sends closes the connection. */
int api_conn_attach(api_req_t *r, const char *name, bool refuse);
/* A watch starts: counted against r's user until api_conn_watch_end (which
 * the request's end calls). 0, or -1 with a 429 Status queued. */
int api_conn_watch_begin(api_req_t *r);
void api_conn_watch_end(api_req_t *r);
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

/* --- the service proxy (svcproxy.c): /api/v1/namespaces/NS/services/
 * [SCHEME:]NAME[:PORT]/proxy[/PATH] --- */
bool api_service_proxy_path(const char *url, char **ns, char **id, const char **rest);
enum MHD_Result api_handle_service_proxy(api_req_t *r);

/* --- GET /metrics (metrics.c), after the router authorized it --- */
enum MHD_Result api_serve_metrics(api_req_t *r);

/* --- routing (router.c) --- */
enum MHD_Result api_route(api_req_t *r);
/* Is url the shim push endpoint (which has its own per-pod tokens)? */
bool api_is_shim_push(const char *url);

/* --- authentication and authorization (auth.c) --- */
/* Who is asking (r->user). 0: go on (also in development mode and for the
 * shim push); -1: a 401 Status was queued. */
int api_authenticate(api_req_t *r);
/* May r->user do verb on this resource? (kube-apiserver's request
 * attributes; resource NULL for a non-resource URL, judged by r->url.)
 * 0: allowed (always in development mode); -1: a 403 Status was queued. */
int api_authorize(api_req_t *r, const char *verb, const char *group, const char *resource,
                  const char *sub, const char *ns, const char *name);
/* kubectl --as (impersonate.c): after api_authenticate and api_conn_admit
 * (the connection counts against the caller), the Impersonate-* headers,
 * each authorized as the verb impersonate; r->user becomes the user they
 * name. 0: go on (no headers, or all granted); -1: a 400 or 403 queued. */
int api_impersonate(api_req_t *r);
/* The user whose reads filter a list or watch of res object by object, or
 * NULL when the whole collection may be shown: a namespace counts as inside
 * itself, so listing namespaces shows each caller the namespaces it may get
 * (kube-apiserver would answer 403 to the list; here everyone may list and
 * sees only their own). */
const sl_auth_user_t *api_list_filter(api_req_t *r, const api_resource_t *res);
/* May user get obj (of res)? true in development mode and for user NULL. */
bool api_may_read(sl_api_t *api, const sl_auth_user_t *user, const api_resource_t *res,
                  json_t *obj);
/* The verb of a non-resource request ("get" for GET and HEAD, else the
 * method in lower case, in buf). */
const char *api_nonresource_verb(const char *method, char *buf, size_t len);

/* May r's user act as Unix user uid (exec, attach or port-forward into a
 * pod that runs as it; change a workload that does; objects.c)? Yes when
 * its policy mapping is that uid, for an admin (adminGroups) and in
 * development mode: 0; else -1 with *why (caller frees), what naming the
 * pod or workload ("pod \"p\""). */
int api_may_act_as(api_req_t *r, uid_t uid, const char *what, char **why);

/* --- admission of pods (admission.c) --- */
/* Create: the server-owned annotation slurmlink.io/user becomes the
 * authenticated user (a client's value is dropped). Runs before validation. */
void api_admit_pod_identity(api_req_t *r, json_t *pod);
/* Create, after validation: the creator must map to a Unix user (else
 * SL_ERR_FORBIDDEN) and every securityContext.runAsUser must be that user's
 * uid (field errors, the 422). 0 when admitted, else -1 with err. */
int api_admit_pod_create(api_req_t *r, json_t *pod, sl_error_t *err);
/* The same rules for the pod templates of a new workload (its kind's row
 * names them: src/kinds/kind.h; any other resource: 0), their fields named
 * in the object. */
int api_admit_workload_create(api_req_t *r, const api_resource_t *res, json_t *obj,
                              sl_error_t *err);
/* Update: slurmlink.io/user may not change (field errors); absent, it is
 * kept. 0, or -1 with err. */
int api_admit_pod_update(api_req_t *r, json_t *pod, json_t *old, sl_error_t *err);
/* --- resource quotas (quota.c) --- */
/* Pod create in a namespace with quotas (or the policy's default quota):
 * takes the store's write lock (a transaction) and checks the pod against
 * them (creating the policy's default one when it has none). 0: admitted,
 * the lock is held until api_quota_end (r->quota_txn); -1: err is a
 * Forbidden (or a 500), the lock is released. A namespace without: 0, no
 * lock taken. */
int api_quota_begin(api_req_t *r, json_t *pod, sl_error_t *err);
/* Whether a create of resource (plural) is held against quotas as a pod's
 * is: pods and persistentvolumeclaims. */
bool api_quota_counts(const char *resource);
/* After the store create (created: it succeeded): update the quotas'
 * status and commit, or roll back (nothing when begin took no lock). -1
 * when the commit failed. */
int api_quota_end(api_req_t *r, json_t *pod, bool created, sl_error_t *err);
/* The same for several pods of namespace ns admitted together, all or
 * none (a gang's): their summed usage against each quota; txn: a
 * transaction even without quotas, so that they are stored all or none. */
int api_quota_begin_pods(api_req_t *r, const char *ns, json_t *pods, bool txn, sl_error_t *err);
int api_quota_end_pods(api_req_t *r, const char *ns, json_t *pods, bool created, sl_error_t *err);
/* The janitor's pass: default quotas from the policy, status.used of the
 * quotas recomputed from the pods, in the namespaces w says may need it. */
typedef struct api_quota_watch api_quota_watch_t;
void api_quota_sync(sl_api_t *api, api_quota_watch_t *w);

/* --- which namespaces the quota recount looks at (quotawatch.c) --- */
/* A watch that looks at every namespace on its first pass. */
api_quota_watch_t *api_quota_watch_new(void);
void api_quota_watch_free(api_quota_watch_t *w);
/* Read the change logs since the last pass and mark the namespaces to look at. */
void api_quota_watch_collect(api_quota_watch_t *w, sl_store_t *store);
bool api_quota_watch_wants(const api_quota_watch_t *w, const char *ns);
/* The pass is over: next time, the namespaces marked by the next collect and
 * those in *again (taken; emptied). */
void api_quota_watch_done(api_quota_watch_t *w, sl_argv_t *again);

/* --- data of config maps and secrets (datakeys.c) --- */
/* -1 when s is valid base64 as Go's decoder of []byte fields reads it
 * (*decoded, optional, gets the decoded size), else the offset its
 * "illegal base64 data at input byte N" names. */
long api_go_base64_error(const char *s, size_t n, size_t *decoded);
/* 0, or -1 with err (SL_ERR_BAD_REQUEST) naming the decode error of the
 * first value of obj.field that is not base64. */
int api_data_decode_check(json_t *obj, const char *field, sl_error_t *err);
/* ValidateConfigMap / ValidateSecret's data rules, appended to errs. */
void api_validate_configmap_data(json_t *obj, sl_error_t *errs);
void api_validate_secret_data(json_t *obj, sl_error_t *errs);

/* The serialised size of obj against the object limit: 0, or -1 with an
 * SL_ERR_TOO_LARGE err (a whole text: "the object is too large to store"). */
int api_check_object_size(sl_api_t *api, json_t *obj, sl_error_t *err);

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

/* --- exec (exec.c, wsexec.c) --- */
/* GET|POST .../pods/NAME/exec and /attach, after authorization (create). */
enum MHD_Result api_handle_exec(api_req_t *r, const api_path_t *p);
/* GET .../pods/NAME/portforward (portfwd.c), after authorization. */
enum MHD_Result api_handle_portforward(api_req_t *r, const api_path_t *p);
/* Wait for the exec and port-forward sessions to end (api->stopping is set). */
void api_exec_drain(sl_api_t *api);
/* The container a log or exec request names (logs.c). */
const char *api_pick_container(api_req_t *r, json_t *pod, sl_error_t *err);

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

/* --- decode.c: request bodies as kube-apiserver decodes them --- */
/* Parse the body (JSON, or YAML for application/yaml) into an object for
 * resource res: checks apiVersion/kind (filled in when absent) and runs the
 * kind's strict decoding per the fieldValidation parameter. NULL with err
 * on failure (its Status: api_error_status(res, NULL, err)); err must
 * start as SL_ERROR_INIT and be cleared. */
json_t *api_decode_object(api_req_t *r, const api_resource_t *res, json_t *old, sl_error_t *err);
/* Parse a body as JSON (or YAML) without any kind checks; NULL with err
 * (SL_ERR_BAD_REQUEST) on a syntax error worded like Go's encoding/json. */
json_t *api_parse_body(const char *data, size_t len, bool yaml, sl_error_t *err);
/* The options kind of a write, for their 422s: CreateOptions (POST),
 * UpdateOptions (PUT), PatchOptions (PATCH). */
const char *api_options_kind(const api_req_t *r);
/* err (field errors) is about the request's options (api_options_kind):
 * its subject, for the 422 on them. */
void api_options_subject(const api_req_t *r, sl_error_t *err);
/* Strict/Warn/Ignore for this request; NULL with the field error in err
 * (about the options) when the parameter has an unsupported value. */
const char *api_field_validation(api_req_t *r, sl_error_t *err);
/* Run res's decode_check on obj and apply the fieldValidation directive.
 * -1 with a BadRequest err on a strict error. old, the stored object of an
 * update (NULL on create): warnings it draws too (an ignored field the
 * server set, such as spec.nodeName) are not repeated, as kube-apiserver
 * warns on update only about what the update brings. */
int api_check_fields(api_req_t *r, const api_resource_t *res, json_t *obj, json_t *old,
                     const char *directive, sl_error_t *err);

/* --- table.c: Table output --- */
/* 0: plain JSON, 1: Table meta.k8s.io/v1, 2: Table meta.k8s.io/v1beta1,
 * -1: nothing acceptable (406). */
int api_wants_table(api_req_t *r);
/* includeObject: 0 None, 1 Metadata (default), 2 Object. */
int api_include_object(api_req_t *r);
/* A Table of objects (array, borrowed) of resource res. */
json_t *api_table(const api_resource_t *res, json_t *objects, const char *rv, int table_ver,
                  int include, bool with_columns);
/* One row for obj. */
json_t *api_table_row(const api_resource_t *res, json_t *obj, int include, long long now_ns);

/* --- delete.c --- */
typedef struct api_delopts {
    bool has_grace;
    long long grace;
    char pre_uid[64];
    char pre_rv[32];
    bool dry;
    char propagation[16]; /* propagationPolicy ("" when not given) */
} api_delopts_t;
/* Delete (or start deleting) old, a stored object of res. 0: removed,
 * *result = its last state; 1: still there with deletionTimestamp set
 * (graceful pod, finalizers, namespace), *result = it; -1: err (its
 * Status for res and old's name). */
int api_delete_object(sl_api_t *api, const api_resource_t *res, json_t *old, const api_delopts_t *o,
                      json_t **result, sl_error_t *err);
/* The rule for removing a pod at once on DELETE (see delete.c). */
bool api_pod_delete_now(json_t *pod, long long grace);

/* --- kinds.c, pod_kind.c --- */
/* ValidateObjectMeta: name (DNS label or subdomain), labels, annotations. */
void api_validate_meta(json_t *obj, bool name_is_label, sl_error_t *errs);
/* A validator's result: -1 when err holds field errors, else 0. */
int api_fields_result(const sl_error_t *err);
/* Unknown fields of obj as kind (src/pod/schema.h) appended to unknown. */
int api_schema_unknown(const char *kind, json_t *obj, json_t *unknown);

/* --- lifecycle.c: defaults namespaces, graceful pod deletion, janitor --- */
int api_bootstrap(sl_api_t *api, sl_error_t *err);
int api_janitor_start(sl_api_t *api, sl_error_t *err);
void api_janitor_stop(sl_api_t *api);
/* --- namespace.c: the namespace controller --- */
/* One pass over a Terminating namespace: delete its content, set its
 * conditions, drop the "kubernetes" finalizer once it is empty, remove it
 * once no finalizer is left. A no-op for a namespace not being deleted. */
void api_namespace_sweep(sl_api_t *api, const char *ns);
/* true when spec.finalizers of the Namespace ns is not empty. */
bool api_namespace_has_spec_finalizers(json_t *ns);
/* Ensure a `default` ServiceAccount in ns (idempotent). */
void api_ensure_default_sa(sl_api_t *api, const char *ns);

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
