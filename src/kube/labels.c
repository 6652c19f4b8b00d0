/* labels.c — label selector parsing: the lexer and recursive-descent
 * parser of k8s.io/apimachinery/pkg/labels/selector.go with its error
 * texts, requirement validation (labels.NewRequirement) and
 * metav1.LabelSelector objects (LabelSelectorAsSelector). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/selector_internal.h"

/* ---- label requirement validation (labels.NewRequirement) ------------- */

int sl_kube_sel_is_int64(const char *s)
{
    char *end;
    if (!*s)
        return 0;
    errno = 0;
    strtoll(s, &end, 10);
    return !*end && errno == 0;
}

/* One Invalid field error of a requirement; value as printed ("\"x\"", "[]"). */
static void invalid(sl_error_t *fe, const char *value, const char *detail, const char *fieldfmt,
                    ...) __attribute__((format(printf, 4, 5)));
static void invalid(sl_error_t *fe, const char *value, const char *detail, const char *fieldfmt,
                    ...)
{
    va_list ap;
    va_start(ap, fieldfmt);
    char *f = NULL;
    if (vasprintf(&f, fieldfmt, ap) < 0)
        abort();
    va_end(ap);
    sl_err_field_raw(fe, SL_FE_INVALID, f, value, detail);
    free(f);
}

static void invalid_str(sl_error_t *fe, const char *value, const char *detail, const char *root,
                        const char *path)
{
    char *q = sl_xasprintf("\"%s\"", value);
    invalid(fe, q, detail, "%s%s", root, path);
    free(q);
}

/* The operator's rule on the number of values. */
static void validate_nvals(const struct req *r, const char *root, sl_error_t *fe)
{
    switch (r->op) {
    case OP_IN:
    case OP_NOTIN:
        if (r->nvals == 0)
            invalid(fe, "[]", "for 'in', 'notin' operators, values set can't be empty", "%svalues",
                    root);
        break;
    case OP_EQ:
    case OP_DEQ:
    case OP_NE:
        if (r->nvals != 1)
            invalid(fe, "[...]", "exact-match compatibility requires one single value", "%svalues",
                    root);
        break;
    case OP_EXISTS:
    case OP_NOTEXISTS:
        if (r->nvals != 0)
            invalid(fe, "[...]", "values set must be empty for exists and does not exist",
                    "%svalues", root);
        break;
    case OP_GT:
    case OP_LT:
        if (r->nvals != 1)
            invalid(fe, "[...]", "for 'Gt', 'Lt' operators, exactly one value is required",
                    "%svalues", root);
        for (size_t i = 0; i < r->nvals; i++)
            if (!sl_kube_sel_is_int64(r->vals[i])) {
                char *q = sl_xasprintf("\"%s\"", r->vals[i]);
                invalid(fe, q, "for 'Gt', 'Lt' operators, the value must be an integer",
                        "%svalues[%zu]", root, i);
                free(q);
            }
        break;
    }
}

/* Appends the field errors of a requirement to fe (labels.NewRequirement). */
static void validate_req(const struct req *r, const char *root, sl_error_t *fe)
{
    sl_error_t why = SL_ERROR_INIT;
    if (!sl_kube_is_label_key(r->key, &why))
        invalid_str(fe, r->key, why.text, root, "key");
    validate_nvals(r, root, fe);
    for (size_t i = 0; i < r->nvals; i++)
        if (!sl_kube_is_label_value(r->vals[i], &why)) {
            char *q = sl_xasprintf("\"%s\"", r->vals[i]);
            invalid(fe, q, why.text, "%svalues[%zu][%s]", root, i, r->key);
            free(q);
        }
}

/* The field errors of fe as one text appended to msg; 0 when there are none. */
static int take_errors(sl_error_t *fe, sl_buf_t *msg, const char *prefix)
{
    if (!sl_err_nfields(fe))
        return 0;
    char *agg = sl_err_fields_aggregate(fe);
    sl_buf_printf(msg, "%s%s", prefix, agg);
    free(agg);
    sl_error_clear(fe);
    return -1;
}

/* ---- label selector lexer and parser ---------------------------------- */

enum tok {
    T_ERROR,
    T_EOS,
    T_CPAR,
    T_COMMA,
    T_NOT,
    T_DEQ,
    T_EQ,
    T_GT,
    T_ID,
    T_IN,
    T_LT,
    T_NEQ,
    T_NOTIN,
    T_OPAR
};

struct item {
    enum tok tok;
    char *lit;
};

static const struct {
    const char *s;
    enum tok t;
} keywords[] = {{")", T_CPAR}, {",", T_COMMA},     {"!", T_NOT}, {"==", T_DEQ},
                {"=", T_EQ},   {">", T_GT},        {"in", T_IN}, {"<", T_LT},
                {"!=", T_NEQ}, {"notin", T_NOTIN}, {"(", T_OPAR}};

static enum tok keyword(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].s) == n && strncmp(keywords[i].s, s, n) == 0)
            return keywords[i].t;
    return T_ERROR;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static int is_special(char c) { return c && strchr("=!(),><", c) != NULL; }

/* One token from *p (advanced). */
static struct item lex(const char **p)
{
    const char *s = *p;
    while (is_ws(*s))
        s++;
    struct item it = {T_EOS, NULL};
    if (!*s) {
        it.lit = sl_xstrdup("");
    } else if (is_special(*s)) {
        /* longest run of special symbols that is still a keyword */
        size_t n = 0, best = 0;
        while (is_special(s[n])) {
            n++;
            if (keyword(s, n) != T_ERROR)
                best = n;
            else if (best)
                break;
        }
        if (!best) {
            it.tok = T_ERROR;
            it.lit = sl_xasprintf("error expected: keyword found '%.*s'", (int)n, s);
            s += n;
        } else {
            it.tok = keyword(s, best);
            it.lit = sl_xstrndup(s, best);
            s += best;
        }
    } else {
        size_t n = 0;
        while (s[n] && !is_special(s[n]) && !is_ws(s[n]))
            n++;
        enum tok k = keyword(s, n);
        it.tok = k == T_IN || k == T_NOTIN ? k : T_ID;
        it.lit = sl_xstrndup(s, n);
        s += n;
    }
    *p = s;
    return it;
}

struct parser {
    struct item *items;
    size_t n, pos;
};

enum ctx { KEY_AND_OP, VALUES };

static struct item peek(struct parser *p, enum ctx c)
{
    struct item it = p->items[p->pos];
    if (c == VALUES && (it.tok == T_IN || it.tok == T_NOTIN))
        it.tok = T_ID;
    return it;
}

static struct item next(struct parser *p, enum ctx c)
{
    struct item it = peek(p, c);
    if (p->pos + 1 < p->n)
        p->pos++;
    return it;
}

/* The operator after a key (kube's parseOperator). */
static int parse_operator(struct parser *p, struct req *r, sl_buf_t *msg)
{
    struct item it = next(p, KEY_AND_OP);
    switch (it.tok) {
    case T_IN: r->op = OP_IN; break;
    case T_EQ: r->op = OP_EQ; break;
    case T_DEQ: r->op = OP_DEQ; break;
    case T_GT: r->op = OP_GT; break;
    case T_LT: r->op = OP_LT; break;
    case T_NOTIN: r->op = OP_NOTIN; break;
    case T_NEQ: r->op = OP_NE; break;
    default:
        sl_buf_printf(msg, "found '%s', expected: in, notin, =, ==, !=, gt, lt", it.lit);
        return -1;
    }
    return 0;
}

/* The identifiers after "(" up to (not including) ")" (parseIdentifiersList). */
static int parse_identifiers(struct parser *p, struct req *r, sl_buf_t *msg)
{
    for (;;) {
        struct item it = next(p, VALUES);
        if (it.tok == T_ID) {
            sl_kube_sel_set_add(r, it.lit);
            struct item la2 = peek(p, VALUES);
            if (la2.tok == T_COMMA)
                continue;
            if (la2.tok == T_CPAR)
                return 0;
            sl_buf_printf(msg, "found '%s', expected: ',' or ')'", la2.lit);
            return -1;
        } else if (it.tok == T_COMMA) {
            if (r->nvals == 0)
                sl_kube_sel_set_add(r, "");
            enum tok t2 = peek(p, VALUES).tok;
            if (t2 == T_CPAR) {
                sl_kube_sel_set_add(r, "");
                return 0;
            }
            if (t2 == T_COMMA)
                sl_kube_sel_set_add(r, "");
        } else {
            sl_buf_printf(msg, "found '%s', expected: ',', or identifier", it.lit);
            return -1;
        }
    }
}

/* "(v1, v2)" after in / notin (parseValues). */
static int parse_set_values(struct parser *p, struct req *r, sl_buf_t *msg)
{
    struct item it = next(p, VALUES);
    if (it.tok != T_OPAR) {
        sl_buf_printf(msg, "found '%s' expected: '('", it.lit);
        return -1;
    }
    struct item first = peek(p, VALUES);
    if (first.tok == T_CPAR) {
        next(p, VALUES);
        sl_kube_sel_set_add(r, "");
        return 0;
    }
    if (first.tok != T_ID && first.tok != T_COMMA) {
        sl_buf_printf(msg, "found '%s', expected: ',', ')' or identifier", first.lit);
        return -1;
    }
    if (parse_identifiers(p, r, msg) < 0)
        return -1;
    if (next(p, VALUES).tok != T_CPAR) {
        sl_buf_printf(msg, "found '%s', expected: ')'", first.lit);
        return -1;
    }
    return 0;
}

/* The one value after =, ==, !=, gt, lt (parseExactValue); may be empty. */
static int parse_exact_value(struct parser *p, struct req *r, sl_buf_t *msg)
{
    enum tok la = peek(p, VALUES).tok;
    if (la == T_EOS || la == T_COMMA) {
        sl_kube_sel_set_add(r, "");
        return 0;
    }
    struct item it = next(p, VALUES);
    if (it.tok != T_ID) {
        sl_buf_printf(msg, "found '%s', expected: identifier", it.lit);
        return -1;
    }
    sl_kube_sel_set_add(r, it.lit);
    return 0;
}

/* parseRequirement; on error fills msg and returns -1. */
static int parse_req(struct parser *p, struct req *r, sl_buf_t *msg)
{
    memset(r, 0, sizeof *r);
    int op_set = 0;
    struct item it = next(p, VALUES);
    if (it.tok == T_NOT) {
        r->op = OP_NOTEXISTS;
        op_set = 1;
        it = next(p, VALUES);
    }
    if (it.tok != T_ID) {
        sl_buf_printf(msg, "found '%s', expected: identifier", it.lit);
        return -1;
    }
    sl_error_t why = SL_ERROR_INIT;
    if (!sl_kube_is_label_key(it.lit, &why)) {
        sl_buf_printf(msg, "<nil>: Invalid value: \"%s\": %s", it.lit, why.text);
        sl_error_clear(&why);
        return -1;
    }
    r->key = sl_xstrdup(it.lit);
    enum tok la = peek(p, VALUES).tok;
    if (la == T_EOS || la == T_COMMA) {
        if (!op_set)
            r->op = OP_EXISTS;
        return 0;
    }
    if (op_set)
        return 0; /* "!k" followed by junk: reported by the caller */
    if (parse_operator(p, r, msg) < 0)
        return -1;
    if (r->op == OP_IN || r->op == OP_NOTIN)
        return parse_set_values(p, r, msg);
    return parse_exact_value(p, r, msg);
}

static int parse_labels(sl_kube_selector_t *s, const char *text, sl_buf_t *msg)
{
    struct parser p = {0};
    const char *c = text;
    for (;;) {
        p.items = sl_xrealloc(p.items, (p.n + 1) * sizeof *p.items);
        p.items[p.n] = lex(&c);
        if (p.items[p.n++].tok == T_EOS)
            break;
    }
    int rc = 0;
    for (;;) {
        struct item it = peek(&p, VALUES);
        if (it.tok == T_EOS)
            break;
        if (it.tok != T_ID && it.tok != T_NOT) {
            sl_buf_printf(msg, "found '%s', expected: !, identifier, or 'end of string'", it.lit);
            rc = -1;
            break;
        }
        struct req r;
        sl_buf_t why = SL_BUF_INIT;
        sl_error_t fe = SL_ERROR_INIT;
        int bad = parse_req(&p, &r, &why) < 0;
        if (bad)
            sl_buf_printf(msg, "unable to parse requirement: %s", why.data ? why.data : "");
        else
            validate_req(&r, "", &fe);
        sl_buf_free(&why);
        if (bad || take_errors(&fe, msg, "unable to parse requirement: ") < 0) {
            sl_kube_sel_req_free(&r);
            rc = -1;
            break;
        }
        sl_kube_sel_add(s, &r);
        struct item t = next(&p, VALUES);
        if (t.tok == T_EOS)
            break;
        if (t.tok != T_COMMA) {
            sl_buf_printf(msg, "found '%s', expected: ',' or 'end of string'", t.lit);
            rc = -1;
            break;
        }
        struct item t2 = peek(&p, VALUES);
        if (t2.tok != T_ID && t2.tok != T_NOT) {
            sl_buf_printf(msg, "found '%s', expected: identifier after ','", t2.lit);
            rc = -1;
            break;
        }
    }
    for (size_t i = 0; i < p.n; i++)
        free(p.items[i].lit);
    free(p.items);
    return rc;
}

sl_kube_selector_t *sl_kube_label_selector_parse(const char *text, sl_error_t *err)
{
    sl_kube_selector_t *s = sl_kube_sel_new(SEL_LABEL);
    sl_buf_t msg = SL_BUF_INIT;
    if (text && parse_labels(s, text, &msg) < 0) {
        sl_kube_sel_fail(err, &msg);
        sl_kube_selector_destroy(s);
        return NULL;
    }
    sl_buf_free(&msg);
    sl_kube_sel_sort(s);
    return s;
}

sl_kube_selector_t *sl_kube_label_selector_from_json(json_t *ls, sl_error_t *err)
{
    sl_kube_selector_t *s = sl_kube_sel_new(SEL_LABEL);
    if (!ls || json_is_null(ls)) {
        s->nothing = 1;
        return s;
    }
    sl_buf_t msg = SL_BUF_INIT;
    if (!json_is_object(ls)) {
        sl_buf_puts(&msg, "label selector must be an object");
        goto fail;
    }
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(ls, "matchLabels"), k, v)
    {
        struct req r = {.key = sl_xstrdup(k), .op = OP_EQ};
        sl_kube_sel_set_add(&r, json_is_string(v) ? json_string_value(v) : "");
        sl_error_t fe = SL_ERROR_INIT;
        validate_req(&r, "", &fe);
        sl_kube_sel_add(s, &r);
        if (take_errors(&fe, &msg, "") < 0)
            goto fail;
    }
    size_t i;
    json_array_foreach(json_object_get(ls, "matchExpressions"), i, v)
    {
        const char *op = json_string_value(json_object_get(v, "operator"));
        const char *key = json_string_value(json_object_get(v, "key"));
        struct req r = {.key = sl_xstrdup(key ? key : "")};
        if (op && !strcmp(op, "In"))
            r.op = OP_IN;
        else if (op && !strcmp(op, "NotIn"))
            r.op = OP_NOTIN;
        else if (op && !strcmp(op, "Exists"))
            r.op = OP_EXISTS;
        else if (op && !strcmp(op, "DoesNotExist"))
            r.op = OP_NOTEXISTS;
        else {
            sl_buf_printf(&msg, "\"%s\" is not a valid label selector operator", op ? op : "");
            sl_kube_sel_req_free(&r);
            goto fail;
        }
        size_t j;
        json_t *val;
        json_array_foreach(json_object_get(v, "values"), j, val)
            sl_kube_sel_set_add(&r, json_is_string(val) ? json_string_value(val) : "");
        sl_error_t fe = SL_ERROR_INIT;
        validate_req(&r, "", &fe);
        sl_kube_sel_add(s, &r);
        if (take_errors(&fe, &msg, "") < 0)
            goto fail;
    }
    sl_buf_free(&msg);
    sl_kube_sel_sort(s);
    return s;
fail:
    sl_kube_sel_fail(err, &msg);
    sl_kube_selector_destroy(s);
    return NULL;
}
