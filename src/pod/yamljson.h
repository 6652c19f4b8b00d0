/* yamljson.h — YAML documents → jansson JSON, the way Kubernetes' loader
 * (sigs.k8s.io/yaml over go-yaml v2, YAML 1.1) converts them: plain scalars
 * become null, booleans (true/false/yes/no/on/off), integers (decimal, 0x
 * hex, 0-prefixed octal, so `defaultMode: 0644` is 420) or floats; quoted
 * and block scalars stay strings (tags are not honoured: libyaml's loader
 * cannot tell an explicit !!str from none). Aliases are resolved, as far
 * as go-yaml allows (a document whose nodes come mostly from expanding
 * aliases fails with "yaml: document contains excessive aliasing"); mapping
 * keys are always strings.
 */
#ifndef SL_POD_YAMLJSON_H
#define SL_POD_YAMLJSON_H

#include <jansson.h>
#include <stddef.h>

#include "common/err.h"

/* Every document of text (len bytes) as a JSON array of documents (empty
 * documents skipped). JSON input works too (JSON is YAML). New reference,
 * or NULL with errno=EINVAL and err giving the line and column. */
json_t *sl_yaml_to_json(const char *text, size_t len, sl_error_t *err);

#endif
