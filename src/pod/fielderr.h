/* fielderr.h — Kubernetes field errors (k8s.io/apimachinery/pkg/util/validation/field).
 *
 * A validator appends errors to an sl_fielderrs_t; the API layer turns the
 * list into a 422 Invalid Status with details.causes[], and the CLI prints
 * one error per line. Texts are kube-apiserver's, byte for byte:
 *
 *   spec.containers[0].name: Duplicate value: "a"
 *   metadata.name: Required value: name or generateName is required
 *   spec.volumes[0]: Required value: must specify a volume type
 *
 * The list owns copies of every string given to it.
 */
#ifndef SL_POD_FIELDERR_H
#define SL_POD_FIELDERR_H

#include <jansson.h>
#include <stddef.h>

typedef enum sl_fe_type {
    SL_FE_REQUIRED,      /* FieldValueRequired: "Required value" (value never shown) */
    SL_FE_INVALID,       /* FieldValueInvalid: "Invalid value: <v>" */
    SL_FE_NOT_SUPPORTED, /* FieldValueNotSupported: "Unsupported value: <v>" */
    SL_FE_DUPLICATE,     /* FieldValueDuplicate: "Duplicate value: <v>" */
    SL_FE_FORBIDDEN,     /* FieldValueForbidden: "Forbidden" (value never shown) */
    SL_FE_TOO_LONG,      /* FieldValueTooLong: "Too long" (value never shown) */
    SL_FE_TOO_MANY,      /* FieldValueTooMany: "Too many: <n>" */
    SL_FE_NOT_FOUND,     /* FieldValueNotFound: "Not found: <v>" */
} sl_fe_type_t;

/* How the bad value prints: Go's %q for strings, %v for integers. */
typedef enum sl_fe_vkind { SL_FE_V_NONE, SL_FE_V_STRING, SL_FE_V_INT } sl_fe_vkind_t;

typedef struct sl_fielderr {
    sl_fe_type_t type;
    char *field; /* "spec.containers[1].resources.limits.memory" */
    sl_fe_vkind_t vkind;
    char *value;      /* SL_FE_V_STRING: the raw bad value (may be ""); else NULL */
    long long ivalue; /* SL_FE_V_INT */
    char *detail;     /* may be "" */
} sl_fielderr_t;

typedef struct sl_fielderrs sl_fielderrs_t;

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

/* The cause type string: "FieldValueInvalid", ... */
const char *sl_fe_reason(sl_fe_type_t type);
/* ErrorBody(): the message without the field ("Invalid value: \"x\": detail"). Caller frees. */
char *sl_fielderr_body(const sl_fielderr_t *e);
/* Error(): "field: body". Caller frees. */
char *sl_fielderr_text(const sl_fielderr_t *e);
/* The aggregate as kube-apiserver prints it: one error alone, several as
 * "[e1, e2]", duplicates (same text) dropped. "" for an empty list. Caller frees. */
char *sl_fielderrs_aggregate(const sl_fielderrs_t *l);
/* One error text per line ("field: body\n"...), for the CLI. Caller frees. */
char *sl_fielderrs_lines(const sl_fielderrs_t *l);

/* details of the Invalid Status: {"name", "group"?, "kind", "causes": [{reason, message, field}]}.
 * group may be NULL or "" (core). New reference. */
json_t *sl_fielderrs_details(const sl_fielderrs_t *l, const char *group, const char *kind,
                             const char *name);
/* The whole 422 Status object: message "Pod \"x\" is invalid: ...", reason Invalid,
 * details as above. kind is e.g. "Pod" (group-qualified "Job.batch" when group given).
 * New reference. */
json_t *sl_fielderrs_status(const sl_fielderrs_t *l, const char *group, const char *kind,
                            const char *name);

#endif
