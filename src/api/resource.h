/* resource.h — the table of resources the API serves (group, version,
 * plural, kind, scope, verbs, short names, subresources) and the per-kind
 * hooks (defaults, validation, strategy) the generic handlers call.
 *
 * Discovery, routing and the generic handlers read this one table. A new
 * kind is its entry (resource.c) and its hooks (a *_kind.c), and, as it
 * needs them: Table columns (printers.c, a *_printers.c), its schema (pod/schema_table.c
 * or crd_schemas.c) and OpenAPI (openapi_schemas.c, generated), the
 * admission of the pod templates it holds (admission.c), cascading
 * deletion of what it owns (delete.c), strategic-merge keys
 * (kube/mergekeys.c), and for a workload its controller in src/ctl. */
#ifndef SL_API_RESOURCE_H
#define SL_API_RESOURCE_H

#include <jansson.h>
#include <stdbool.h>

#include "common/err.h"

enum {
    API_V_CREATE = 1 << 0,
    API_V_DELETE = 1 << 1,
    API_V_DELETECOLLECTION = 1 << 2,
    API_V_GET = 1 << 3,
    API_V_LIST = 1 << 4,
    API_V_PATCH = 1 << 5,
    API_V_UPDATE = 1 << 6,
    API_V_WATCH = 1 << 7,
};
#define API_V_ALL 0xff
#define API_V_READ (API_V_GET | API_V_LIST | API_V_WATCH)

struct api_req;
typedef struct api_resource api_resource_t;

/* Per-kind behaviour. Every hook is optional. The API layer has already
 * decoded the body, checked apiVersion/kind and name/namespace, and filled
 * server-owned metadata when these run. */
typedef struct api_kind_ops {
    /* Unknown and ignored fields of a decoded object: append
     * `unknown field "spec.x"` texts to unknown and "accepted but ignored"
     * warnings to warnings (both JSON arrays of strings). Return -1 with
     * err (kind SL_ERR_BAD_REQUEST) for a fatal decode error kube-apiserver
     * reports while decoding (e.g. a malformed quantity, a wrong type). */
    int (*decode_check)(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err);
    /* Fill defaults the way kube-apiserver's defaulting does. */
    void (*defaults)(json_t *obj);
    /* Create: reset what clients may not set (e.g. a Pod's status). */
    void (*prepare_create)(json_t *obj);
    /* Update of the main resource: keep what it may not change (a Pod's
     * status) from old. */
    void (*prepare_update)(json_t *obj, json_t *old);
    /* Validation: 0 when valid, else -1 with field errors in err (fresh,
     * SL_ERROR_INIT; the caller clears it and builds the 422 Status). */
    int (*validate_create)(json_t *obj, sl_error_t *err);
    int (*validate_update)(json_t *obj, json_t *old, sl_error_t *err);
    /* A write of the status subresource: obj is the stored object with the
     * client's status in it. As above. */
    int (*validate_status)(json_t *obj, json_t *old, sl_error_t *err);
    /* Table columns and one row's cells (both new refs). */
    json_t *(*table_columns)(void);
    json_t *(*table_cells)(json_t *obj, long long now_ns);
    /* has the scale subresource: an autoscaling/v1 Scale of spec.replicas,
     * spec.selector and status.replicas (scale.c) */
    bool scale_sub;
    /* the Scale's status.selector: NULL reads spec.selector (a
     * LabelSelector); else the dotted path of a string field holding the
     * selector's text, as a CRD's labelSelectorPath
     * ("status.hpaPodSelector") */
    const char *scale_selector_path;
    /* Extra fields kubectl describe / tables of a PodList need nothing
     * more; kept here for later kinds. */
} api_kind_ops_t;

struct api_resource {
    const char *group;     /* "" for the core group */
    const char *version;   /* "v1" */
    const char *name;      /* plural, lower case: "pods" */
    const char *singular;  /* "pod" */
    const char *kind;      /* "Pod" */
    const char *list_kind; /* "PodList" */
    bool namespaced;
    unsigned verbs;
    const char *short_names[4];
    const char *categories[3];
    bool status_sub;        /* has /status */
    bool log_sub;           /* has /log (pods) */
    const char *store_name; /* key in the store: "pods", "jobs.batch" */
    const api_kind_ops_t *ops;
};

/* at most this many rows (the server keeps a watch window for each) */
#define API_MAX_RESOURCES 64
/* The whole table, terminated by an entry with name == NULL: the core
 * resources (resource.c), then the workload kinds' rows (src/kinds/). */
extern const api_resource_t *const api_resources;

/* Lookup by group, version and plural (NULL when not served). */
const api_resource_t *api_resource_find(const char *group, const char *version, const char *plural);
/* "v1" or "batch/v1". */
const char *api_resource_api_version(const api_resource_t *r, char *buf, size_t len);

/* Kind hooks (resource_kinds.c, pod_kind.c). */
extern const api_kind_ops_t api_pod_ops;
extern const api_kind_ops_t api_namespace_ops;
extern const api_kind_ops_t api_node_ops;
extern const api_kind_ops_t api_event_ops;
extern const api_kind_ops_t api_configmap_ops;
extern const api_kind_ops_t api_secret_ops;
extern const api_kind_ops_t api_serviceaccount_ops;
extern const api_kind_ops_t api_resourcequota_ops;
extern const api_kind_ops_t api_job_ops;        /* src/kinds/job/api.c */
extern const api_kind_ops_t api_cronjob_ops;    /* src/kinds/cronjob/api.c */
extern const api_kind_ops_t api_pytorchjob_ops; /* src/kinds/pytorchjob/api.c */
extern const api_kind_ops_t api_mpijob_ops;     /* src/kinds/mpijob/api.c */
extern const api_kind_ops_t api_pvc_ops;        /* storage_kind.c */
extern const api_kind_ops_t api_pv_ops;
extern const api_kind_ops_t api_storageclass_ops;
extern const api_kind_ops_t api_deviceclass_ops; /* dra_kind.c */
extern const api_kind_ops_t api_resourceclaim_ops;
extern const api_kind_ops_t api_resourceclaimtemplate_ops;

#endif
