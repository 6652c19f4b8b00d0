/* jsonpatch.h — RFC 6902 JSON Patch. */
#ifndef SL_API_JSONPATCH_H
#define SL_API_JSONPATCH_H

#include <jansson.h>

#include "common/err.h"
#include <stdbool.h>

/* kube-apiserver's maxJSONPatchOperations. */
#define API_JSONPATCH_MAX_OPS 10000

/* Apply patch (an array of operations) to a copy of doc; new reference, or
 * NULL with err's text and kind kube-apiserver's answer: SL_ERR_BAD_REQUEST
 * a malformed patch, SL_ERR_TOO_LARGE more than API_JSONPATCH_MAX_OPS
 * operations, SL_ERR_INVALID (no field errors) one that does not apply or
 * whose `copy` operations together duplicate more than copy_limit bytes of
 * JSON (0: no limit). */
json_t *api_json_patch(json_t *doc, json_t *patch, size_t copy_limit, sl_error_t *err);

#endif
