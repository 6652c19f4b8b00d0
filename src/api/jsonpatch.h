/* jsonpatch.h — RFC 6902 JSON Patch. */
#ifndef SL_API_JSONPATCH_H
#define SL_API_JSONPATCH_H

#include <jansson.h>
#include <stdbool.h>

/* Apply patch (an array of operations) to a copy of doc; new reference, or
 * NULL with *why (caller frees). *decode_error tells a malformed patch
 * (kube-apiserver: 400) from one that does not apply (422). */
json_t *api_json_patch(json_t *doc, json_t *patch, char **why, bool *decode_error);

#endif
