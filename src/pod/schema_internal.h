/* schema_internal.h — the generated field table's shape (schema_table.c). */
#ifndef SL_POD_SCHEMA_INTERNAL_H
#define SL_POD_SCHEMA_INTERNAL_H

#include <stddef.h>

enum { SL_SF_LEAF, SL_SF_STRUCT, SL_SF_ARRAY, SL_SF_MAP };

typedef struct sl_sfield {
    const char *name;
    int kind; /* SL_SF_* */
    int type; /* index into sl_schema_types for STRUCT/ARRAY/MAP, else -1 */
} sl_sfield_t;

typedef struct sl_stype {
    const char *name;
    const sl_sfield_t *fields; /* sorted by name */
    size_t n;
} sl_stype_t;

extern const sl_stype_t sl_schema_types[];
extern const size_t sl_schema_ntypes;

#endif
