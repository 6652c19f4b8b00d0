/* fielderr.c — Kubernetes field errors and their exact texts. */
#include "pod/fielderr.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct sl_fielderrs {
    sl_fielderr_t *v;
    size_t n, cap;
};

sl_fielderrs_t *sl_fielderrs_create(void) { return sl_xcalloc(1, sizeof(sl_fielderrs_t)); }

void sl_fielderrs_destroy(sl_fielderrs_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].field);
        free(l->v[i].value);
        free(l->v[i].detail);
    }
    free(l->v);
    free(l);
}

static sl_fielderr_t *push(sl_fielderrs_t *l, sl_fe_type_t type, const char *field,
                           const char *detail)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = sl_xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    sl_fielderr_t *e = &l->v[l->n++];
    memset(e, 0, sizeof(*e));
    e->type = type;
    e->field = sl_xstrdup(field ? field : "");
    e->detail = sl_xstrdup(detail ? detail : "");
    return e;
}

void sl_fielderrs_add(sl_fielderrs_t *l, sl_fe_type_t type, const char *field, const char *value,
                      const char *detail)
{
    sl_fielderr_t *e = push(l, type, field, detail);
    e->vkind = SL_FE_V_STRING;
    e->value = sl_xstrdup(value ? value : "");
}

void sl_fielderrs_add_int(sl_fielderrs_t *l, sl_fe_type_t type, const char *field, long long value,
                          const char *detail)
{
    sl_fielderr_t *e = push(l, type, field, detail);
    e->vkind = SL_FE_V_INT;
    e->ivalue = value;
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
    for (size_t i = 0; src && i < src->n; i++) {
        const sl_fielderr_t *s = &src->v[i];
        sl_fielderr_t *e = push(dst, s->type, s->field, s->detail);
        e->vkind = s->vkind;
        e->value = s->value ? sl_xstrdup(s->value) : NULL;
        e->ivalue = s->ivalue;
    }
}

size_t sl_fielderrs_count(const sl_fielderrs_t *l) { return l ? l->n : 0; }

const sl_fielderr_t *sl_fielderrs_get(const sl_fielderrs_t *l, size_t i)
{
    return l && i < l->n ? &l->v[i] : NULL;
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
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, type_text(e->type));
    switch (e->type) {
    case SL_FE_REQUIRED:
    case SL_FE_FORBIDDEN:
    case SL_FE_TOO_LONG: break;
    default:
        if (e->vkind == SL_FE_V_INT) {
            sl_buf_printf(&b, ": %lld", e->ivalue);
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

char *sl_fielderrs_aggregate(const sl_fielderrs_t *l)
{
    size_t n = sl_fielderrs_count(l), kept = 0;
    char **texts = sl_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        char *t = sl_fielderr_text(&l->v[i]);
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
    return sl_buf_steal(&b);
}

char *sl_fielderrs_lines(const sl_fielderrs_t *l)
{
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < sl_fielderrs_count(l); i++) {
        char *t = sl_fielderr_text(&l->v[i]);
        sl_buf_printf(&b, "%s\n", t);
        free(t);
    }
    return sl_buf_steal(&b);
}

json_t *sl_fielderrs_details(const sl_fielderrs_t *l, const char *group, const char *kind,
                             const char *name)
{
    json_t *d = json_object();
    json_t *causes = json_array();
    json_object_set_new(d, "name", json_string(name ? name : ""));
    if (group && *group)
        json_object_set_new(d, "group", json_string(group));
    json_object_set_new(d, "kind", json_string(kind ? kind : ""));
    for (size_t i = 0; i < sl_fielderrs_count(l); i++) {
        const sl_fielderr_t *e = &l->v[i];
        char *body = sl_fielderr_body(e);
        json_array_append_new(causes, json_pack("{s:s, s:s, s:s}", "reason", sl_fe_reason(e->type),
                                                "message", body, "field", e->field));
        free(body);
    }
    json_object_set_new(d, "causes", causes);
    return d;
}

json_t *sl_fielderrs_status(const sl_fielderrs_t *l, const char *group, const char *kind,
                            const char *name)
{
    char *qkind = group && *group ? sl_xasprintf("%s.%s", kind, group) : sl_xstrdup(kind);
    char *qname = sl_go_quote(name ? name : "");
    char *agg = sl_fielderrs_aggregate(l);
    char *msg = *agg ? sl_xasprintf("%s %s is invalid: %s", qkind, qname, agg)
                     : sl_xasprintf("%s %s is invalid", qkind, qname);
    json_t *st =
        json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:o, s:i}", "kind", "Status", "apiVersion", "v1",
                  "metadata", "status", "Failure", "message", msg, "reason", "Invalid", "details",
                  sl_fielderrs_details(l, group, kind, name), "code", 422);
    free(qkind);
    free(qname);
    free(agg);
    free(msg);
    return st;
}
