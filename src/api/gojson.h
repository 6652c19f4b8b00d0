/* gojson.h — JSON syntax checking with Go encoding/json's error texts. */
#ifndef SL_API_GOJSON_H
#define SL_API_GOJSON_H

#include <stddef.h>

/* NULL when data[0..len) is one valid JSON value (surrounded by optional
 * whitespace); else the error text Go's json.Unmarshal gives, e.g.
 * "unexpected end of JSON input" or "invalid character 'x' looking for
 * beginning of value". Caller frees. */
char *api_gojson_error(const char *data, size_t len);

#endif
