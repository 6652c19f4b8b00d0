/* err.h — one error type: readable text that travels up with errno, a kind
 * the API maps to an HTTP code, and Kubernetes field errors.
 *
 * Convention (from flux-core): functions return -1 (or NULL) with errno set,
 * and fill an optional sl_error_t with text a user can act on.
 * sl_errprintf() always returns -1 and preserves errno, so callers can write
 *     return sl_errprintf(err, "open %s: %s", path, strerror(errno));
 *
 * An error may also carry a kind (sl_errkind_t: NotFound, Conflict, ...) and
 * a list of field errors (k8s.io/apimachinery/pkg/util/validation/field):
 *     sl_error_t err = SL_ERROR_INIT;
 *     sl_err_field(&err, SL_FE_REQUIRED, "spec.containers[0].image", NULL, NULL);
 *     ...
 *     sl_err_invalid(&err, name, "must be lower case", "spec.containers[%zu].name", i);
 *     ...
 *     sl_error_clear(&err);   (frees the field list)
 * Only the API edge turns an error into a Kubernetes Status
 * (sl_kube_status_error(), src/kube/status.h); everything below speaks
 * sl_error_t. A plain text-only error needs no clear: the field list is
 * allocated by the first field error only, and an error that never had one
 * may be left uninitialized before sl_errprintf()/sl_errkindf() -- unless
 * it goes to the API edge: sl_kube_status_error() reads the subject and the
 * causes of every error, so one that reaches it starts as SL_ERROR_INIT.
 */
#ifndef SL_ERR_H
#define SL_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* What went wrong, for the API's code and reason (kube's StatusReason). */
typedef enum sl_errkind {
    SL_ERR_GENERIC = 0,            /* no kind given: 500 InternalError at the API */
    SL_ERR_INVALID,                /* 422 Invalid (the field errors say why) */
    SL_ERR_BAD_REQUEST,            /* 400 BadRequest */
    SL_ERR_UNAUTHORIZED,           /* 401 Unauthorized */
    SL_ERR_FORBIDDEN,              /* 403 Forbidden */
    SL_ERR_NOT_FOUND,              /* 404 NotFound */
    SL_ERR_METHOD_NOT_ALLOWED,     /* 405 MethodNotAllowed */
    SL_ERR_NOT_ACCEPTABLE,         /* 406 NotAcceptable */
    SL_ERR_CONFLICT,               /* 409 Conflict */
    SL_ERR_ALREADY_EXISTS,         /* 409 AlreadyExists */
    SL_ERR_GONE,                   /* 410 Gone */
    SL_ERR_EXPIRED,                /* 410 Expired (a resourceVersion or continue token too old) */
    SL_ERR_TOO_LARGE,              /* 413 RequestEntityTooLarge */
    SL_ERR_UNSUPPORTED_MEDIA_TYPE, /* 415 UnsupportedMediaType */
    SL_ERR_TOO_MANY_REQUESTS,      /* 429 TooManyRequests */
    SL_ERR_INTERNAL,               /* 500 InternalError */
    SL_ERR_UNAVAILABLE,            /* 503 ServiceUnavailable */
    SL_ERR_TIMEOUT,                /* 504 Timeout */
} sl_errkind_t;

/* field.ErrorType */
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

/* How the bad value prints: nothing, Go's %q for strings, %v for integers,
 * or a text already rendered (e.g. a JSON value) printed as it is. */
typedef enum sl_fe_vkind { SL_FE_V_NONE, SL_FE_V_STRING, SL_FE_V_INT, SL_FE_V_RAW } sl_fe_vkind_t;

typedef struct sl_fielderr {
    sl_fe_type_t type;
    char *reason; /* a cause that is no field.ErrorType (sl_err_cause): its reason, the
                   * detail its message; else NULL */
    char *field;  /* "spec.containers[1].resources.limits.memory" */
    sl_fe_vkind_t vkind;
    char *value;      /* SL_FE_V_STRING/RAW: the bad value (may be ""); else NULL */
    long long ivalue; /* SL_FE_V_INT */
    char *detail;     /* may be "" */
} sl_fielderr_t;

/* Room for kube-apiserver's longer texts (a label selector with several bad
 * values, a pod's list of containers): they are not bounded, but 4 KiB holds
 * every one the tests meet; a longer one is cut there. */
#define SL_ERROR_TEXT_MAX 4096

/* What an error is about when it is not what the request addressed (the
 * namespace of a create that is not found, the options of a write): the
 * API edge's resource, group, kind and name give way to these. */
typedef struct sl_errsubject {
    char *resource, *group, *kind, *name; /* owned; NULL stays NULL */
    bool set;
} sl_errsubject_t;

typedef struct sl_error {
    char text[SL_ERROR_TEXT_MAX];
    sl_errkind_t kind;
    bool whole;              /* the text is the Status message itself (sl_errwholef) */
    int retry_after;         /* seconds a client should wait before trying again (0: none;
                              * kube's details.retryAfterSeconds) */
    sl_errsubject_t subject; /* sl_err_subject() */
    sl_fielderr_t *fields;   /* owned; NULL until the first field error */
    size_t nfields, capfields;
} sl_error_t;

#define SL_ERROR_INIT                                                                              \
    {                                                                                              \
        .text = ""                                                                                 \
    }

/* Fill err (may be NULL) with a formatted message, kind SL_ERR_GENERIC;
 * returns -1, errno kept. Field errors already there stay. */
int sl_errprintf(sl_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same with a kind. */
int sl_errkindf(sl_error_t *err, sl_errkind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same, the text being the whole message: the API edge puts it in the
 * Status as it is, where the kind would add words of its own (413's
 * "Request entity too large: ", 403's "pods \"p\" is forbidden: ", the
 * fixed texts of NotFound and AlreadyExists). sl_errprintf() and
 * sl_errkindf() end it. */
int sl_errwholef(sl_error_t *err, sl_errkind_t kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The error is about this object rather than the one the API edge names
 * (copies; NULL stays NULL; err may be NULL). Like field errors, a subject
 * needs sl_error_clear(). */
void sl_err_subject(sl_error_t *err, const char *resource, const char *group, const char *kind,
                    const char *name);

/* Prepend "prefix: " to the existing text (context added on the way up);
 * kind and field errors stay. */
int sl_errprefix(sl_error_t *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free the field errors and empty err (text "", kind generic). err must
 * have been initialized (SL_ERROR_INIT) or filled by the functions here. */
void sl_error_clear(sl_error_t *err);

/* Append a field error (err may be NULL: nothing happens). The kind becomes
 * SL_ERR_INVALID when it was generic. value prints with %q (NULL: ""); the
 * _int form with %v, the _raw form as it is; _none shows no value (Required,
 * Forbidden and TooLong never show one). detail may be NULL. */
void sl_err_field(sl_error_t *err, sl_fe_type_t type, const char *field, const char *value,
                  const char *detail);
void sl_err_field_int(sl_error_t *err, sl_fe_type_t type, const char *field, long long value,
                      const char *detail);
void sl_err_field_raw(sl_error_t *err, sl_fe_type_t type, const char *field, const char *value,
                      const char *detail);
void sl_err_field_none(sl_error_t *err, sl_fe_type_t type, const char *field, const char *detail);
/* Append a cause that is no field error (kube's StatusCause with a reason
 * of its own, such as NamespaceTerminating; field may be NULL): the kind
 * stays; the Status of a kind other than Invalid lists these in
 * details.causes. */
void sl_err_cause(sl_error_t *err, const char *reason, const char *field, const char *message);
/* Append a copy of every field error (and cause) of src. */
void sl_err_fields_extend(sl_error_t *dst, const sl_error_t *src);

size_t sl_err_nfields(const sl_error_t *err);
const sl_fielderr_t *sl_err_fieldat(const sl_error_t *err, size_t i);

/* The validators' shorthands: one field error of a type, its field path
 * printf-formatted (err may be NULL: nothing happens). Required and
 * Forbidden show no value; NotSupported's detail lists supported, a
 * NULL-terminated list ("supported values: \"a\", \"b\""). */
void sl_err_required(sl_error_t *err, const char *detail, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_err_forbidden(sl_error_t *err, const char *detail, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_err_invalid(sl_error_t *err, const char *value, const char *detail, const char *fieldfmt,
                    ...) __attribute__((format(printf, 4, 5)));
void sl_err_duplicate(sl_error_t *err, const char *value, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_err_not_found(sl_error_t *err, const char *value, const char *fieldfmt, ...)
    __attribute__((format(printf, 3, 4)));
void sl_err_not_supported(sl_error_t *err, const char *value, const char *const *supported,
                          const char *fieldfmt, ...) __attribute__((format(printf, 4, 5)));

/* A heap error of kind SL_ERR_INVALID with no field errors yet, for a
 * validator's list that outlives a frame; sl_error_free() clears and frees
 * it (NULL is a no-op). */
sl_error_t *sl_error_new_invalid(void);
void sl_error_free(sl_error_t *err);

/* The cause type string: "FieldValueInvalid", ... */
const char *sl_fe_reason(sl_fe_type_t type);
/* ErrorBody(): the message without the field ("Invalid value: \"x\": detail"). Caller frees. */
char *sl_fielderr_body(const sl_fielderr_t *e);
/* Error(): "field: body". Caller frees. */
char *sl_fielderr_text(const sl_fielderr_t *e);
/* field.ErrorList.ToAggregate().Error(): one error alone, several as
 * "[e1, e2]", duplicates (same text) dropped; "" for none. Caller frees. */
char *sl_err_fields_aggregate(const sl_error_t *err);
/* A text-only error whose text is e's Error() ("field: Invalid value:
 * \"x\": detail"), for code that reports one field error as text (the
 * shim's spec parser): the same words as the API's, no list kept, kind
 * generic. Returns -1, errno kept. */
int sl_errfield(sl_error_t *err, const sl_fielderr_t *e);
/* One error text per line ("field: body\n"...), for the CLI. Caller frees. */
char *sl_err_fields_lines(const sl_error_t *err);

#endif
