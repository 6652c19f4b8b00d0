/* fielderr.c — the validators' shorthands for field errors of an sl_error_t
 * (the texts are rendered in src/common/err.c). */
#include "pod/fielderr.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

sl_fielderrs_t *sl_fielderrs_create(void)
{
    sl_fielderrs_t *l = sl_xcalloc(1, sizeof(*l));
    l->kind = SL_ERR_INVALID;
    return l;
}

void sl_fielderrs_destroy(sl_fielderrs_t *l)
{
    if (!l)
        return;
    sl_error_clear(l);
    free(l);
}

void sl_fielderrs_add(sl_fielderrs_t *l, sl_fe_type_t type, const char *field, const char *value,
                      const char *detail)
{
    sl_err_field(l, type, field, value, detail);
}

void sl_fielderrs_add_int(sl_fielderrs_t *l, sl_fe_type_t type, const char *field, long long value,
                          const char *detail)
{
    sl_err_field_int(l, type, field, value, detail);
}

#define VFIELD(fmt, path)                                                                          \
    va_list ap_;                                                                                   \
    va_start(ap_, fmt);                                                                            \
    char *path = NULL;                                                                             \
    if (vasprintf(&path, fmt, ap_) < 0)                                                            \
        abort();                                                                                   \
    va_end(ap_)

void sl_fe_required(sl_fielderrs_t *l, const char *detail, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_fielderrs_add(l, SL_FE_REQUIRED, path, "", detail);
    free(path);
}

void sl_fe_forbidden(sl_fielderrs_t *l, const char *detail, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_fielderrs_add(l, SL_FE_FORBIDDEN, path, "", detail);
    free(path);
}

void sl_fe_invalid(sl_fielderrs_t *l, const char *value, const char *detail, const char *fieldfmt,
                   ...)
{
    VFIELD(fieldfmt, path);
    sl_fielderrs_add(l, SL_FE_INVALID, path, value, detail);
    free(path);
}

void sl_fe_duplicate(sl_fielderrs_t *l, const char *value, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_fielderrs_add(l, SL_FE_DUPLICATE, path, value, NULL);
    free(path);
}

void sl_fe_not_found(sl_fielderrs_t *l, const char *value, const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_fielderrs_add(l, SL_FE_NOT_FOUND, path, value, NULL);
    free(path);
}

void sl_fe_not_supported(sl_fielderrs_t *l, const char *value, const char *const *supported,
                         const char *fieldfmt, ...)
{
    VFIELD(fieldfmt, path);
    sl_buf_t d = SL_BUF_INIT;
    for (size_t i = 0; supported && supported[i]; i++) {
        char *q = sl_go_quote(supported[i]);
        sl_buf_printf(&d, "%s%s", i ? ", " : "supported values: ", q);
        free(q);
    }
    sl_fielderrs_add(l, SL_FE_NOT_SUPPORTED, path, value, d.data ? d.data : "");
    sl_buf_free(&d);
    free(path);
}

void sl_fielderrs_extend(sl_fielderrs_t *dst, const sl_fielderrs_t *src)
{
    sl_err_fields_extend(dst, src);
}

size_t sl_fielderrs_count(const sl_fielderrs_t *l) { return sl_err_nfields(l); }

const sl_fielderr_t *sl_fielderrs_get(const sl_fielderrs_t *l, size_t i)
{
    return sl_err_fieldat(l, i);
}

char *sl_fielderrs_aggregate(const sl_fielderrs_t *l) { return sl_err_fields_aggregate(l); }

char *sl_fielderrs_lines(const sl_fielderrs_t *l) { return sl_err_fields_lines(l); }
