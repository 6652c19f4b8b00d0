/* delete.h — deleting a stored object (delete.c): grace periods,
 * preconditions, finalizers, propagation. */
#ifndef SL_API_DELETE_H
#define SL_API_DELETE_H

#include <jansson.h>
#include <stdbool.h>

#include "api/resource.h"
#include "api/server.h"
#include "common/err.h"

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

#endif
