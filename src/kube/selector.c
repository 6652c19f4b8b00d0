/* selector.c — what label and field selectors share: the parsed form,
 * matching, canonical strings. Parsing is in labels.c (label selectors,
 * after k8s.io/apimachinery/pkg/labels/selector.go, error texts included)
 * and fields.c (field selectors, after k8s.io/apimachinery/pkg/fields and
 * the per-resource field sets of kube-apiserver's registries). */
#include "kube/selector.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/selector_internal.h"

/* ---- common ----------------------------------------------------------- */

sl_kube_selector_t *sl_kube_sel_new(enum sel_kind kind)
{
    sl_kube_selector_t *s = sl_xcalloc(1, sizeof *s);
    s->kind = kind;
    return s;
}

void sl_kube_sel_req_free(struct req *r)
{
    free(r->key);
    for (size_t i = 0; i < r->nvals; i++)
        free(r->vals[i]);
    free(r->vals);
}

void sl_kube_selector_destroy(sl_kube_selector_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        sl_kube_sel_req_free(&s->reqs[i]);
    free(s->reqs);
    free(s);
}

int sl_kube_sel_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* values as a sorted set (duplicates dropped), like sets.String.List() */
void sl_kube_sel_set_add(struct req *r, const char *v)
{
    for (size_t i = 0; i < r->nvals; i++)
        if (strcmp(r->vals[i], v) == 0)
            return;
    r->vals = sl_xrealloc(r->vals, (r->nvals + 1) * sizeof *r->vals);
    r->vals[r->nvals++] = sl_xstrdup(v);
    qsort(r->vals, r->nvals, sizeof *r->vals, sl_kube_sel_cmp_str);
}

void sl_kube_sel_add(sl_kube_selector_t *s, struct req *r)
{
    s->reqs = sl_xrealloc(s->reqs, (s->n + 1) * sizeof *s->reqs);
    s->reqs[s->n++] = *r;
    memset(r, 0, sizeof *r);
}

static int cmp_req(const void *a, const void *b)
{
    return strcmp(((const struct req *)a)->key, ((const struct req *)b)->key);
}

void sl_kube_sel_sort(sl_kube_selector_t *s)
{
    if (s->n > 1)
        qsort(s->reqs, s->n, sizeof *s->reqs, cmp_req);
}

int sl_kube_sel_fail(sl_error_t *err, sl_buf_t *msg)
{
    errno = EINVAL;
    sl_errprintf(err, "%s", msg->data ? msg->data : "invalid selector");
    sl_buf_free(msg);
    return -1;
}

static int has_val(const struct req *r, const char *v)
{
    for (size_t i = 0; i < r->nvals; i++)
        if (strcmp(r->vals[i], v) == 0)
            return 1;
    return 0;
}

static bool match_label_req(const struct req *r, json_t *labels)
{
    json_t *jv = json_object_get(labels, r->key);
    const char *v = json_string_value(jv);
    switch (r->op) {
    case OP_EQ:
    case OP_DEQ:
    case OP_IN: return v && has_val(r, v);
    case OP_NE:
    case OP_NOTIN: return !v || !has_val(r, v);
    case OP_EXISTS: return v != NULL;
    case OP_NOTEXISTS: return v == NULL;
    case OP_GT:
    case OP_LT: {
        if (!v || !sl_kube_sel_is_int64(v) || r->nvals != 1 || !sl_kube_sel_is_int64(r->vals[0]))
            return false;
        long long a = strtoll(v, NULL, 10), b = strtoll(r->vals[0], NULL, 10);
        return r->op == OP_GT ? a > b : a < b;
    }
    }
    return false;
}

bool sl_kube_selector_match_labels(const sl_kube_selector_t *s, json_t *labels)
{
    if (!s)
        return true;
    if (s->nothing)
        return false;
    for (size_t i = 0; i < s->n; i++)
        if (!match_label_req(&s->reqs[i], labels))
            return false;
    return true;
}

bool sl_kube_selector_match(const sl_kube_selector_t *s, json_t *obj)
{
    if (!s)
        return true;
    if (s->kind == SEL_LABEL)
        return sl_kube_selector_match_labels(
            s, json_object_get(json_object_get(obj, "metadata"), "labels"));
    for (size_t i = 0; i < s->n; i++) {
        const struct req *r = &s->reqs[i];
        const struct field_def *f = sl_kube_sel_field_find(s->fields, r->key);
        char buf[32];
        const char *v = f ? sl_kube_sel_field_value(obj, f, buf, sizeof buf) : "";
        int eq = strcmp(v, r->vals[0]) == 0;
        if (r->op == OP_NE ? eq : !eq)
            return false;
    }
    return true;
}

bool sl_kube_selector_empty(const sl_kube_selector_t *s)
{
    return !s || (!s->nothing && s->n == 0);
}

const char *sl_kube_selector_exact(const sl_kube_selector_t *s, const char *key)
{
    for (size_t i = 0; s && i < s->n; i++) {
        const struct req *r = &s->reqs[i];
        if (strcmp(r->key, key) != 0)
            continue;
        if ((r->op == OP_EQ || r->op == OP_DEQ || r->op == OP_IN) && r->nvals == 1)
            return r->vals[0];
    }
    return NULL;
}

static void escape_field_value(sl_buf_t *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == ',' || *v == '=')
            sl_buf_putc(b, '\\');
        sl_buf_putc(b, *v);
    }
}

char *sl_kube_selector_string(const sl_kube_selector_t *s)
{
    static const char *const opstr[] = {
        [OP_EQ] = "=",       [OP_DEQ] = "==",        [OP_NE] = "!=",
        [OP_IN] = " in ",    [OP_NOTIN] = " notin ", [OP_EXISTS] = "",
        [OP_NOTEXISTS] = "", [OP_GT] = ">",          [OP_LT] = "<"};
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "");
    for (size_t i = 0; s && i < s->n; i++) {
        const struct req *r = &s->reqs[i];
        if (i)
            sl_buf_putc(&b, ',');
        if (s->kind == SEL_FIELD) {
            sl_buf_printf(&b, "%s%s", r->key, r->op == OP_NE ? "!=" : "=");
            escape_field_value(&b, r->vals[0]);
            continue;
        }
        if (r->op == OP_NOTEXISTS)
            sl_buf_putc(&b, '!');
        sl_buf_printf(&b, "%s%s", r->key, opstr[r->op]);
        if (r->op == OP_EXISTS || r->op == OP_NOTEXISTS)
            continue;
        if (r->op == OP_IN || r->op == OP_NOTIN)
            sl_buf_putc(&b, '(');
        for (size_t j = 0; j < r->nvals; j++)
            sl_buf_printf(&b, "%s%s", j ? "," : "", r->vals[j]);
        if (r->op == OP_IN || r->op == OP_NOTIN)
            sl_buf_putc(&b, ')');
    }
    return sl_buf_steal(&b);
}
