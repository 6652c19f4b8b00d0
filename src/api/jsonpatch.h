/* jsonpatch.h — RFC 6902 JSON Patch. */
#ifndef SL_API_JSONPATCH_H
#define SL_API_JSONPATCH_H

#include <jansson.h>
#include <stdbool.h>

/* kube-apiserver's maxJSONPatchOperations. */
#define API_JSONPATCH_MAX_OPS 10000

/* Apply patch (an array of operations) to a copy of doc; new reference, or
 * NULL with *why (caller frees) and *code, kube-apiserver's answer: 400 a
 * malformed patch, 413 more than API_JSONPATCH_MAX_OPS operations, 422 one
 * that does not apply or whose `copy` operations together duplicate more
 * than copy_limit bytes of JSON (0: no limit). */
json_t *api_json_patch(json_t *doc, json_t *patch, size_t copy_limit, char **why, int *code);

#endif
