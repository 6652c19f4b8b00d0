/* fielderr.h — Kubernetes field errors (k8s.io/apimachinery/pkg/util/validation/field).
 *
 * A validator appends errors to an sl_fielderrs_t (an sl_error_t); the API
 * edge turns it into a 422 Invalid Status with details.causes[], and the CLI
 * prints one error per line. Texts are kube-apiserver's, byte for byte:
 *
 *   spec.containers[0].name: Duplicate value: "a"
 *   metadata.name: Required value: name or generateName is required
 *   spec.volumes[0]: Required value: must specify a volume type
 *
 * The list owns copies of every string given to it.
 */
#ifndef SL_POD_FIELDERR_H
#define SL_POD_FIELDERR_H

#include "common/err.h"

#include <stddef.h>

/* A field error list is an sl_error_t (src/common/err.h) of kind
 * SL_ERR_INVALID; these are the validators' shorthands for building one.
 * The API turns it into the 422 Status (sl_kube_status_error()). */
typedef sl_error_t sl_fielderrs_t;

/* A heap error of kind SL_ERR_INVALID with no field errors yet. */
sl_fielderrs_t *sl_fielderrs_create(void);
void sl_fielderrs_destroy(sl_fielderrs_t *l); /* NULL is a no-op */

/* Append; value/detail may be NULL. The string forms print value with %q
 * (NULL value prints as ""); the int form with %v. */
void sl_fielderrs_add(sl_fielderrs_t *l, sl_fe_type_t type, const char *field, const char *value,
                      const char *detail);
void sl_fielderrs_add_int(sl_fielderrs_t *l, sl_fe_type_t type, const char *field, long long value,
                          const char *detail);
/* Shorthands with a printf-formatted field path. */
void sl_fe_required(sl_fielderrs_t *l, const char *detail, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_fe_forbidden(sl_fielderrs_t *l, const char *detail, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_fe_invalid(sl_fielderrs_t *l, const char *value, const char *detail, const char *fieldfmt,
                   ...) __attribute__((format(printf, 4, 5)));
void sl_fe_duplicate(sl_fielderrs_t *l, const char *value, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_fe_not_found(sl_fielderrs_t *l, const char *value, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
/* supported: NULL-terminated list of valid values ("supported values: \"a\", \"b\""). */
void sl_fe_not_supported(sl_fielderrs_t *l, const char *value, const char *const *supported,
                         const char *fieldfmt, ...) __attribute__((format(printf, 4, 5)));
/* Append a copy of every error of src to dst. */
void sl_fielderrs_extend(sl_fielderrs_t *dst, const sl_fielderrs_t *src);

size_t sl_fielderrs_count(const sl_fielderrs_t *l);
const sl_fielderr_t *sl_fielderrs_get(const sl_fielderrs_t *l, size_t i);

/* sl_err_fields_aggregate() / sl_err_fields_lines() under their old names. */
char *sl_fielderrs_aggregate(const sl_fielderrs_t *l);
char *sl_fielderrs_lines(const sl_fielderrs_t *l);

#endif
