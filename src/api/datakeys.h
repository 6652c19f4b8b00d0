/* datakeys.h — the data of ConfigMaps and Secrets (datakeys.c). */
#ifndef SL_API_DATAKEYS_H
#define SL_API_DATAKEYS_H

#include <jansson.h>
#include <stddef.h>

#include "common/err.h"

/* --- data of config maps and secrets (datakeys.c) --- */
/* -1 when s is valid base64 as Go's decoder of []byte fields reads it
 * (*decoded, optional, gets the decoded size), else the offset its
 * "illegal base64 data at input byte N" names. */
long api_go_base64_error(const char *s, size_t n, size_t *decoded);
/* 0, or -1 with err (SL_ERR_BAD_REQUEST) naming the decode error of the
 * first value of obj.field that is not base64. */
int api_data_decode_check(json_t *obj, const char *field, sl_error_t *err);
/* ValidateConfigMap / ValidateSecret's data rules, appended to errs. */
void api_validate_configmap_data(json_t *obj, sl_error_t *errs);
void api_validate_secret_data(json_t *obj, sl_error_t *errs);

#endif
