/* internal.h — helpers shared by the pod parser's files (not an interface). */
#ifndef SL_POD_INTERNAL_H
#define SL_POD_INTERNAL_H

#include "pod/pod.h"

typedef struct pod_ctx {
    sl_pod_t *pod;
    sl_error_t *errs;
} pod_ctx_t;

/* calloc'ed memory owned by the pod (freed by sl_pod_destroy). */
void *pod_alloc(sl_pod_t *pod, size_t n, size_t size);

/* "<path>.<key>: Invalid value: <json>: must be of type <want>" */
void pod_type_error(pod_ctx_t *c, const json_t *v, const char *path, const char *key,
                    const char *want);

/* Typed getters: absent or null → NULL/def; wrong type → a field error at
 * path.key and NULL/def. */
const char *pod_str(pod_ctx_t *c, const json_t *o, const char *key, const char *path);
const json_t *pod_obj(pod_ctx_t *c, const json_t *o, const char *key, const char *path);
const json_t *pod_arr(pod_ctx_t *c, const json_t *o, const char *key, const char *path);
int64_t pod_int(pod_ctx_t *c, const json_t *o, const char *key, const char *path, int64_t def);
int pod_bool(pod_ctx_t *c, const json_t *o, const char *key, const char *path, int def);
/* A map of string→string (labels, nodeSelector...) into kv pairs. */
sl_pod_kv_t *pod_strmap(pod_ctx_t *c, const json_t *o, const char *key, const char *path,
                        size_t *n);

/* "must be a number between 0 and 0777 (octal), both inclusive" check for file modes. */
void pod_check_mode(pod_ctx_t *c, int64_t mode, const char *path);
/* relative path without '..' (volume item paths, subPath). */
void pod_check_relpath(pod_ctx_t *c, const char *v, const char *path);

/* volume.c */
void pod_parse_volumes(pod_ctx_t *c, const json_t *spec);
/* hosts.c: spec.hostAliases */
void pod_parse_host_aliases(pod_ctx_t *c, const json_t *spec);
/* probe.c: the container's probes validated into k->probes */
void pod_parse_probes(pod_ctx_t *c, const json_t *ctr, const char *path, sl_pod_container_t *k);
/* resources.c */
void pod_parse_resources(pod_ctx_t *c, const json_t *ctr, const char *path, sl_pod_resources_t *r);

#endif
