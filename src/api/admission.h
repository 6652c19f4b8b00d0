/* admission.h — the admission of pods and of the pod templates of new
 * workloads (admission.c): the creator's identity, runAsUser, the object
 * size. */
#ifndef SL_API_ADMISSION_H
#define SL_API_ADMISSION_H

#include <jansson.h>

#include "api/http/request.h"
#include "common/err.h"

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

/* The serialised size of obj against the object limit: 0, or -1 with an
 * SL_ERR_TOO_LARGE err (a whole text: "the object is too large to store"). */
int api_check_object_size(sl_api_t *api, json_t *obj, sl_error_t *err);

#endif
