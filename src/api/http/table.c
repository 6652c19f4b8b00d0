/* table.c — server-side printing (meta.k8s.io Table), as kubectl asks for
 * with `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,...`. The
 * columns and cells come from each kind's printer (printers.c); rows carry
 * the object as PartialObjectMetadata (includeObject=Metadata, the default),
 * the whole object (Object) or nothing (None). */
#include "api/http/table.h"
#include "api/http/request.h"
#include "api/resource.h"
#include "http/media.h"
#include "kube/meta.h"

#include <string.h>

int api_wants_table(api_req_t *r)
{
    http_media_t m[8];
    int n = http_accept_parse(api_header(r, "Accept"), m, 8);
    for (int i = 0; i < n; i++) {
        bool json = http_media_json(&m[i]);
        if (json && !strcmp(m[i].as, "Table") && !strcmp(m[i].g, "meta.k8s.io")) {
            if (!strcmp(m[i].v, "v1"))
                return 1;
            if (!strcmp(m[i].v, "v1beta1"))
                return 2;
            continue;
        }
        if (json && !m[i].as[0])
            return 0;
        if (!strcmp(m[i].type, "application/yaml") && !m[i].as[0])
            return 0; /* answered as JSON, which is valid YAML */
    }
    return -1;
}

int api_include_object(api_req_t *r)
{
    const char *v = api_query(r, "includeObject");
    if (v && !strcmp(v, "None"))
        return 0;
    if (v && !strcmp(v, "Object"))
        return 2;
    return 1;
}

json_t *api_table_row(const api_resource_t *res, json_t *obj, int include, long long now_ns)
{
    json_t *cells = res->ops && res->ops->table_cells ? res->ops->table_cells(obj, now_ns) : NULL;
    if (!cells) {
        char age[32];
        cells = json_pack("[s, s]", sl_kube_name(obj) ? sl_kube_name(obj) : "",
                          sl_kube_age(sl_kube_meta_str(obj, "creationTimestamp"), now_ns, age,
                                      sizeof(age)));
    }
    json_t *row = json_object();
    /* printers may hand back {"cells":[...],"conditions":[...]} */
    if (json_is_object(cells)) {
        json_object_set(row, "cells", json_object_get(cells, "cells"));
        json_t *c = json_object_get(cells, "conditions");
        if (c)
            json_object_set(row, "conditions", c);
        json_decref(cells);
    } else {
        json_object_set_new(row, "cells", cells);
    }
    if (include == 1) {
        json_t *meta = json_object_get(obj, "metadata");
        json_object_set_new(row, "object",
                            json_pack("{s:s, s:s, s:o}", "kind", "PartialObjectMetadata",
                                      "apiVersion", "meta.k8s.io/v1", "metadata",
                                      meta ? json_incref(meta) : json_object()));
    } else if (include == 2) {
        json_object_set(row, "object", obj);
    }
    return row;
}

json_t *api_table(const api_resource_t *res, json_t *objects, const char *rv, int table_ver,
                  int include, bool with_columns)
{
    long long now = sl_kube_now_ns();
    const char *av = table_ver == 2 ? "meta.k8s.io/v1beta1" : "meta.k8s.io/v1";
    json_t *rows = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(objects, i, o)
    {
        json_t *row = api_table_row(res, o, include, now);
        if (table_ver == 2 && include == 1)
            json_object_set_new(json_object_get(row, "object"), "apiVersion",
                                json_string("meta.k8s.io/v1beta1"));
        json_array_append_new(rows, row);
    }
    json_t *cols;
    if (!with_columns)
        cols = json_array();
    else if (res->ops && res->ops->table_columns)
        cols = res->ops->table_columns();
    else
        cols = json_pack("[{s:s, s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:s, s:i}]", "name", "Name",
                         "type", "string", "format", "name", "description", "", "priority", 0,
                         "name", "Age", "type", "string", "format", "", "description", "",
                         "priority", 0);
    json_t *t = json_pack("{s:s, s:s, s:{s:s}, s:o, s:o}", "kind", "Table", "apiVersion", av,
                          "metadata", "resourceVersion", rv ? rv : "", "columnDefinitions", cols,
                          "rows", rows);
    return t;
}
