/* table.h — Table output (meta.k8s.io Table) as kubectl asks for it with
 * its Accept header: the negotiation and the tables of objects, each row
 * printed by the resource's printer (api/printers.h). */
#ifndef SL_API_HTTP_TABLE_H
#define SL_API_HTTP_TABLE_H

#include <jansson.h>
#include <stdbool.h>

#include "api/http/request.h"

/* 0: plain JSON, 1: Table meta.k8s.io/v1, 2: Table meta.k8s.io/v1beta1,
 * -1: nothing acceptable (406). */
int api_wants_table(api_req_t *r);
/* includeObject: 0 None, 1 Metadata (default), 2 Object. */
int api_include_object(api_req_t *r);
/* A Table of objects (array, borrowed) of resource res. */
json_t *api_table(const api_resource_t *res, json_t *objects, const char *rv, int table_ver,
                  int include, bool with_columns);
/* One row for obj. */
json_t *api_table_row(const api_resource_t *res, json_t *obj, int include, long long now_ns);

#endif
