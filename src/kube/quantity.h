/* quantity.h — Kubernetes resource.Quantity, exactly as k8s.io/apimachinery parses it.
 *
 * Grammar (ParseQuantity): [+-] digits [. digits] suffix, suffix one of
 * n u m "" k M G T P E (decimal SI), Ki Mi Gi Ti Pi Ei (binary SI) or
 * e<int>/E<int> (decimal exponent). Kubernetes keeps the value rounded up
 * (away from zero) to 1n; so do we: the value is held as nanounits in a
 * 128-bit integer, which is exact for |value| < ~1.7e29. Larger values are
 * valid Kubernetes quantities but flagged `huge`: every conversion helper
 * then fails with ERANGE, so nothing silently wraps.
 *
 * Quirks kept on purpose (they are what kube-apiserver accepts): "Ki" and "-"
 * parse as 0, "1." is 1, binary values above 2^63-1 are capped, and the
 * e-exponent is truncated to 32 bits as Go's int32() does.
 */
#ifndef SL_KUBE_QUANTITY_H
#define SL_KUBE_QUANTITY_H

#include "common/err.h"

#include <jansson.h>
#include <stdint.h>

typedef enum sl_qformat {
    SL_QF_DECIMAL_SI,       /* 12M, 500m */
    SL_QF_BINARY_SI,        /* 12Mi */
    SL_QF_DECIMAL_EXPONENT, /* 12e6 */
} sl_qformat_t;

typedef struct sl_quantity {
    __int128 nanos; /* value × 10^9 (saturated when huge) */
    sl_qformat_t format;
    int huge; /* beyond what nanos holds exactly; sign still in nanos */
} sl_quantity_t;

/* Kubernetes' error texts (ErrFormatWrong, ErrNumeric, ErrSuffix). */
extern const char SL_QUANTITY_ERR_FORMAT[];
extern const char SL_QUANTITY_ERR_NUMERIC[];
extern const char SL_QUANTITY_ERR_SUFFIX[];

/* Parse s. Returns 0, or -1 with errno=EINVAL and err (may be NULL) of kind
 * SL_ERR_BAD_REQUEST (what kube-apiserver answers for a body whose quantity
 * does not decode) with one of the texts above. */
int sl_quantity_parse(const char *s, sl_quantity_t *q, sl_error_t *err);
/* A quantity from JSON as Quantity.UnmarshalJSON takes it: a string (trimmed)
 * or a number (its shortest decimal text). null is 0. Other types: EINVAL with
 * SL_QUANTITY_ERR_FORMAT. text (optional) receives the string form parsed
 * (caller frees). */
int sl_quantity_from_json(const json_t *v, sl_quantity_t *q, char **text, sl_error_t *err);

/* -1, 0, 1 like Quantity.Cmp. */
int sl_quantity_cmp(const sl_quantity_t *a, const sl_quantity_t *b);
int sl_quantity_sign(const sl_quantity_t *q);
/* 1 if the value is a whole number. */
int sl_quantity_is_integer(const sl_quantity_t *q);

/* value × 1000 rounded up (MilliValue: millicores). 0, or -1 with ERANGE. */
int sl_quantity_milli(const sl_quantity_t *q, int64_t *out);
/* value / unit rounded up (away from zero): unit 1 gives bytes or whole CPUs,
 * 1<<20 MiB. unit must be > 0. 0, or -1 with ERANGE. */
int sl_quantity_ceil_div(const sl_quantity_t *q, int64_t unit, int64_t *out);

/* Canonical text (Quantity.String()): "1500m", "1Gi", "1536Mi", "1k". Caller frees. */
char *sl_quantity_string(const sl_quantity_t *q);

#endif
