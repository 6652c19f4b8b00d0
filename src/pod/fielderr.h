/* fielderr.h — the former names of the field-error calls, kept while
 * branches that still use them are merged: every one is a name of the one
 * error API (src/common/err.h), and scripts/fold-fielderrs.py rewrites the
 * uses and removes this header.
 *
 * Texts are kube-apiserver's, byte for byte (src/common/err.c):
 *
 *   spec.containers[0].name: Duplicate value: "a"
 *   metadata.name: Required value: name or generateName is required
 *   spec.volumes[0]: Required value: must specify a volume type
 */
#ifndef SL_POD_FIELDERR_H
#define SL_POD_FIELDERR_H

#include "common/err.h"

/* A field error list is an sl_error_t of kind SL_ERR_INVALID. */
typedef sl_error_t sl_fielderrs_t;

#define sl_fielderrs_create sl_error_new_invalid
#define sl_fielderrs_destroy sl_error_free
#define sl_fielderrs_add sl_err_field
#define sl_fielderrs_add_int sl_err_field_int
#define sl_fe_required sl_err_required
#define sl_fe_forbidden sl_err_forbidden
#define sl_fe_invalid sl_err_invalid
#define sl_fe_duplicate sl_err_duplicate
#define sl_fe_not_found sl_err_not_found
#define sl_fe_not_supported sl_err_not_supported
#define sl_fielderrs_extend sl_err_fields_extend
#define sl_fielderrs_count sl_err_nfields
#define sl_fielderrs_get sl_err_fieldat
#define sl_fielderrs_aggregate sl_err_fields_aggregate
#define sl_fielderrs_lines sl_err_fields_lines

#endif
