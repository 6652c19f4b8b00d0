/* err.c — error text, kinds and Kubernetes field errors with kube's texts. */
#include "err.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vfill(sl_error_t *err, const char *fmt, va_list ap)
{
    vsnprintf(err->text, sizeof(err->text), fmt, ap);
    err->whole = false;
    err->retry_after = 0;
}

int sl_errprintf(sl_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vfill(err, fmt, ap);
        va_end(ap);
        err->kind = SL_ERR_GENERIC;
    }
    errno = saved;
    return -1;
}

int sl_errkindf(sl_error_t *err, sl_errkind_t kind, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vfill(err, fmt, ap);
        va_end(ap);
        err->kind = kind;
    }
    errno = saved;
    return -1;
}

int sl_errwholef(sl_error_t *err, sl_errkind_t kind, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vfill(err, fmt, ap);
        va_end(ap);
        err->kind = kind;
        err->whole = true;
    }
    errno = saved;
    return -1;
}

static char *dup_or_null(const char *s) { return s ? sl_xstrdup(s) : NULL; }

static void subject_free(sl_errsubject_t *s)
{
    free(s->resource);
    free(s->group);
    free(s->kind);
    free(s->name);
    memset(s, 0, sizeof(*s));
}

void sl_err_subject(sl_error_t *err, const char *resource, const char *group, const char *kind,
                    const char *name)
{
    if (!err)
        return;
    subject_free(&err->subject);
    err->subject.resource = dup_or_null(resource);
    err->subject.group = dup_or_null(group);
    err->subject.kind = dup_or_null(kind);
    err->subject.name = dup_or_null(name);
    err->subject.set = true;
}

int sl_errprefix(sl_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        char prefix[256];
        char old[sizeof(err->text)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);
        memcpy(old, err->text, sizeof(old));
        size_t pl = strlen(prefix);
        if (pl > sizeof(err->text) - 3)
            pl = sizeof(err->text) - 3;
        memcpy(err->text, prefix, pl);
        memcpy(err->text + pl, ": ", 2);
        size_t room = sizeof(err->text) - pl - 3;
        size_t ol = strnlen(old, room);
        memcpy(err->text + pl + 2, old, ol);
        err->text[pl + 2 + ol] = '\0';
    }
    errno = saved;
    return -1;
}

void sl_error_clear(sl_error_t *err)
{
    if (!err)
        return;
    subject_free(&err->subject);
    for (size_t i = 0; i < err->nfields; i++) {
        free(err->fields[i].reason);
        free(err->fields[i].field);
        free(err->fields[i].value);
        free(err->fields[i].detail);
    }
    free(err->fields);
    *err = (sl_error_t)SL_ERROR_INIT;
}

static sl_fielderr_t *push_any(sl_error_t *err, sl_fe_type_t type, const char *field,
                               const char *detail)
{
    if (err->nfields == err->capfields) {
        err->capfields = err->capfields ? err->capfields * 2 : 8;
        err->fields = sl_xrealloc(err->fields, err->capfields * sizeof(*err->fields));
    }
    sl_fielderr_t *e = &err->fields[err->nfields++];
    memset(e, 0, sizeof(*e));
    e->type = type;
    e->field = sl_xstrdup(field ? field : "");
    e->detail = sl_xstrdup(detail ? detail : "");
    return e;
}

/* A field error: the first one makes a generic error Invalid. */
static sl_fielderr_t *push(sl_error_t *err, sl_fe_type_t type, const char *field,
                           const char *detail)
{
    if (err->kind == SL_ERR_GENERIC)
        err->kind = SL_ERR_INVALID;
    return push_any(err, type, field, detail);
}

void sl_err_cause(sl_error_t *err, const char *reason, const char *field, const char *message)
{
    if (!err)
        return;
    sl_fielderr_t *e = push_any(err, SL_FE_INVALID, field, message);
    e->reason = sl_xstrdup(reason ? reason : "");
}

void sl_err_field(sl_error_t *err, sl_fe_type_t type, const char *field, const char *value,
                  const char *detail)
{
    if (!err)
        return;
    sl_fielderr_t *e = push(err, type, field, detail);
    e->vkind = SL_FE_V_STRING;
    e->value = sl_xstrdup(value ? value : "");
}

void sl_err_field_int(sl_error_t *err, sl_fe_type_t type, const char *field, long long value,
                      const char *detail)
{
    if (!err)
        return;
    sl_fielderr_t *e = push(err, type, field, detail);
    e->vkind = SL_FE_V_INT;
    e->ivalue = value;
}

void sl_err_field_raw(sl_error_t *err, sl_fe_type_t type, const char *field, const char *value,
                      const char *detail)
{
    if (!err)
        return;
    sl_fielderr_t *e = push(err, type, field, detail);
    e->vkind = SL_FE_V_RAW;
    e->value = sl_xstrdup(value ? value : "");
}

void sl_err_field_none(sl_error_t *err, sl_fe_type_t type, const char *field, const char *detail)
{
    if (err)
        push(err, type, field, detail);
}

void sl_err_fields_extend(sl_error_t *dst, const sl_error_t *src)
{
    for (size_t i = 0; dst && src && i < src->nfields; i++) {
        const sl_fielderr_t *s = &src->fields[i];
        sl_fielderr_t *e = s->reason ? push_any(dst, s->type, s->field, s->detail)
                                     : push(dst, s->type, s->field, s->detail);
        e->reason = dup_or_null(s->reason);
        e->vkind = s->vkind;
        e->value = s->value ? sl_xstrdup(s->value) : NULL;
        e->ivalue = s->ivalue;
    }
}

/* the field path of a shorthand, formatted (the caller frees) */
#define VFIELD(fmt, path)                                                                          \
    va_list ap_;                                                                                   \
    va_start(ap_, fmt);                                                                            \
    char *path = NULL;                                                                             \
    if (vasprintf(&path, fmt, ap_) < 0)                                                            \
        abort();                                                                                   \
    va_end(ap_)

void sl_err_required(sl_error_t *err, const char *detail, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_err_field(err, SL_FE_REQUIRED, path, "", detail);
    free(path);
}

void sl_err_forbidden(sl_error_t *err, const char *detail, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_err_field(err, SL_FE_FORBIDDEN, path, "", detail);
    free(path);
}

void sl_err_invalid(sl_error_t *err, const char *value, const char *detail, const char *fieldfmt,
                    ...)
{
    VFIELD(fieldfmt, path);
    sl_err_field(err, SL_FE_INVALID, path, value, detail);
    free(path);
}

void sl_err_duplicate(sl_error_t *err, const char *value, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_err_field(err, SL_FE_DUPLICATE, path, value, NULL);
    free(path);
}

void sl_err_not_found(sl_error_t *err, const char *value, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_err_field(err, SL_FE_NOT_FOUND, path, value, NULL);
    free(path);
}

void sl_err_not_supported(sl_error_t *err, const char *value, const char *const *supported,
                          const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_buf_t d = SL_BUF_INIT;
    for (size_t i = 0; supported && supported[i]; i++) {
        char *q = sl_go_quote(supported[i]);
        sl_buf_printf(&d, "%s%s", i ? ", " : "supported values: ", q);
        free(q);
    }
    sl_err_field(err, SL_FE_NOT_SUPPORTED, path, value, d.data ? d.data : "");
    sl_buf_free(&d);
    free(path);
}

sl_error_t *sl_error_new_invalid(void)
{
    sl_error_t *err = sl_xcalloc(1, sizeof(*err));
    err->kind = SL_ERR_INVALID;
    return err;
}

void sl_error_free(sl_error_t *err)
{
    if (!err)
        return;
    sl_error_clear(err);
    free(err);
}

size_t sl_err_nfields(const sl_error_t *err) { return err ? err->nfields : 0; }

const sl_fielderr_t *sl_err_fieldat(const sl_error_t *err, size_t i)
{
    return err && i < err->nfields ? &err->fields[i] : NULL;
}

const char *sl_fe_reason(sl_fe_type_t type)
{
    switch (type) {
    case SL_FE_REQUIRED: return "FieldValueRequired";
    case SL_FE_INVALID: return "FieldValueInvalid";
    case SL_FE_NOT_SUPPORTED: return "FieldValueNotSupported";
    case SL_FE_DUPLICATE: return "FieldValueDuplicate";
    case SL_FE_FORBIDDEN: return "FieldValueForbidden";
    case SL_FE_TOO_LONG: return "FieldValueTooLong";
    case SL_FE_TOO_MANY: return "FieldValueTooMany";
    case SL_FE_NOT_FOUND: return "FieldValueNotFound";
    }
    return "FieldValueInvalid";
}

static const char *type_text(sl_fe_type_t type)
{
    switch (type) {
    case SL_FE_REQUIRED: return "Required value";
    case SL_FE_INVALID: return "Invalid value";
    case SL_FE_NOT_SUPPORTED: return "Unsupported value";
    case SL_FE_DUPLICATE: return "Duplicate value";
    case SL_FE_FORBIDDEN: return "Forbidden";
    case SL_FE_TOO_LONG: return "Too long";
    case SL_FE_TOO_MANY: return "Too many";
    case SL_FE_NOT_FOUND: return "Not found";
    }
    return "Invalid value";
}

char *sl_fielderr_body(const sl_fielderr_t *e)
{
    if (e->reason) /* a cause of its own: its message */
        return sl_xstrdup(e->detail ? e->detail : "");
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, type_text(e->type));
    switch (e->type) {
    case SL_FE_REQUIRED:
    case SL_FE_FORBIDDEN:
    case SL_FE_TOO_LONG: break;
    default:
        if (e->vkind == SL_FE_V_INT) {
            sl_buf_printf(&b, ": %lld", e->ivalue);
        } else if (e->vkind == SL_FE_V_RAW) {
            sl_buf_printf(&b, ": %s", e->value ? e->value : "");
        } else if (e->vkind == SL_FE_V_STRING) {
            char *q = sl_go_quote(e->value ? e->value : "");
            sl_buf_printf(&b, ": %s", q);
            free(q);
        }
    }
    if (e->detail && *e->detail)
        sl_buf_printf(&b, ": %s", e->detail);
    return sl_buf_steal(&b);
}

char *sl_fielderr_text(const sl_fielderr_t *e)
{
    char *body = sl_fielderr_body(e);
    char *s = sl_xasprintf("%s: %s", e->field, body);
    free(body);
    return s;
}

int sl_errfield(sl_error_t *err, const sl_fielderr_t *e)
{
    int saved = errno;
    char *t = sl_fielderr_text(e);
    sl_errprintf(err, "%s", t);
    free(t);
    errno = saved;
    return -1;
}

char *sl_err_fields_aggregate(const sl_error_t *err)
{
    size_t n = sl_err_nfields(err), kept = 0;
    char **texts = sl_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        char *t = sl_fielderr_text(&err->fields[i]);
        int dup = 0;
        for (size_t j = 0; j < kept && !dup; j++)
            dup = strcmp(texts[j], t) == 0;
        if (dup)
            free(t);
        else
            texts[kept++] = t;
    }
    sl_buf_t b = SL_BUF_INIT;
    if (kept == 1) {
        sl_buf_puts(&b, texts[0]);
    } else if (kept > 1) {
        sl_buf_putc(&b, '[');
        for (size_t i = 0; i < kept; i++)
            sl_buf_printf(&b, "%s%s", i ? ", " : "", texts[i]);
        sl_buf_putc(&b, ']');
    }
    for (size_t i = 0; i < kept; i++)
        free(texts[i]);
    free(texts);
    char *s = sl_buf_steal(&b);
    return s ? s : sl_xstrdup("");
}

char *sl_err_fields_lines(const sl_error_t *err)
{
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < sl_err_nfields(err); i++) {
        char *t = sl_fielderr_text(&err->fields[i]);
        sl_buf_printf(&b, "%s\n", t);
        free(t);
    }
    char *s = sl_buf_steal(&b);
    return s ? s : sl_xstrdup("");
}
