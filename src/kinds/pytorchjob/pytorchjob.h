/* ptj.h — what the files of kubeflow.org/v1 PyTorchJob share in src/api/
 * (src/kinds/pytorchjob/api.c: decoding, defaults, strategy; src/kinds/pytorchjob/validate.c: the
 * CRD schema's checks, the operator's webhook rules, the replicas' pod templates;
 * src/kinds/pytorchjob/printers.c: the Table). */
#ifndef SL_API_PTJ_H
#define SL_API_PTJ_H

#include <jansson.h>

#include "common/err.h"

#define PTJ_PORT_NAME "pytorchjob-port"
#define PTJ_PORT 23456
#define PTJ_CONTAINER "pytorch"

/* the CRD's schema of PyTorchJob (borrowed) */
json_t *api_ptj_schema(void);

int api_ptj_validate(json_t *job, sl_error_t *err);
int api_ptj_validate_update(json_t *job, json_t *old, sl_error_t *err);
int api_ptj_validate_status(json_t *job, json_t *old, sl_error_t *err);

json_t *api_ptj_columns(void);
json_t *api_ptj_cells(json_t *job, long long now);

#endif
