/* openapi_schemas.h — the component schemas of the OpenAPI v3 documents,
 * one JSON object text per group-version (generated: openapi_schemas.c,
 * `make openapi`). */
#ifndef SL_API_OPENAPI_SCHEMAS_H
#define SL_API_OPENAPI_SCHEMAS_H

#include <stddef.h>

typedef struct api_openapi_schemas {
    const char *group, *version; /* NULL group: end of the table */
    const char *json;            /* {"io.k8s.api.core.v1.Pod":{...},...} */
    size_t len;
} api_openapi_schemas_t;

extern const api_openapi_schemas_t api_openapi_schemas[];

#endif
