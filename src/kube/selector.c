/* selector.c — label selectors (the lexer/parser of
 * k8s.io/apimachinery/pkg/labels/selector.go, error texts included) and
 * field selectors (k8s.io/apimachinery/pkg/fields plus the per-resource
 * field sets of kube-apiserver's registries). */
#include "kube/selector.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"

enum op { OP_EQ, OP_DEQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS, OP_GT, OP_LT };

struct req {
    char *key;
    enum op op;
    char **vals; /* sorted, unique (a Go sets.String) */
    size_t nvals;
};

enum sel_kind { SEL_LABEL, SEL_FIELD };

struct sl_kube_selector {
    enum sel_kind kind;
    int nothing; /* LabelSelectorAsSelector(nil): matches nothing */
    struct req *reqs;
    size_t n;
    const struct field_def *fields; /* field selectors: the resource's field table */
};

/* ---- common ----------------------------------------------------------- */

static sl_kube_selector_t *sel_new(enum sel_kind kind)
{
    sl_kube_selector_t *s = sl_xcalloc(1, sizeof *s);
    s->kind = kind;
    return s;
}

static void req_free(struct req *r)
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
        req_free(&s->reqs[i]);
    free(s->reqs);
    free(s);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* values as a sorted set (duplicates dropped), like sets.String.List() */
static void set_add(struct req *r, const char *v)
{
    for (size_t i = 0; i < r->nvals; i++)
        if (strcmp(r->vals[i], v) == 0)
            return;
    r->vals = sl_xrealloc(r->vals, (r->nvals + 1) * sizeof *r->vals);
    r->vals[r->nvals++] = sl_xstrdup(v);
    qsort(r->vals, r->nvals, sizeof *r->vals, cmp_str);
}

static void sel_add(sl_kube_selector_t *s, struct req *r)
{
    s->reqs = sl_xrealloc(s->reqs, (s->n + 1) * sizeof *s->reqs);
    s->reqs[s->n++] = *r;
    memset(r, 0, sizeof *r);
}

static int cmp_req(const void *a, const void *b)
{
    return strcmp(((const struct req *)a)->key, ((const struct req *)b)->key);
}

static void sel_sort(sl_kube_selector_t *s)
{
    if (s->n > 1)
        qsort(s->reqs, s->n, sizeof *s->reqs, cmp_req);
}

static int fail(sl_error_t *err, sl_buf_t *msg)
{
    errno = EINVAL;
    sl_errprintf(err, "%s", msg->data ? msg->data : "invalid selector");
    sl_buf_free(msg);
    return -1;
}

/* ---- label requirement validation (labels.NewRequirement) ------------- */

static int is_int64(const char *s)
{
    char *end;
    if (!*s)
        return 0;
    errno = 0;
    strtoll(s, &end, 10);
    return !*end && errno == 0;
}

/* Appends the field errors of a requirement to errs (", "-joined). */
static void validate_req(const struct req *r, const char *root, sl_buf_t *errs, int *nerr)
{
    const char *why;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        sl_buf_printf(errs, "%s", (*nerr)++ ? ", " : "");                                          \
        sl_buf_printf(errs, __VA_ARGS__);                                                          \
    } while (0)
    if (!sl_kube_is_label_key(r->key, &why))
        ADD("%skey: Invalid value: \"%s\": %s", root, r->key, why);
    switch (r->op) {
    case OP_IN:
    case OP_NOTIN:
        if (r->nvals == 0)
            ADD("%svalues: Invalid value: []: for 'in', 'notin' operators, values set can't "
                "be empty",
                root);
        break;
    case OP_EQ:
    case OP_DEQ:
    case OP_NE:
        if (r->nvals != 1)
            ADD("%svalues: Invalid value: [...]: exact-match compatibility requires one single "
                "value",
                root);
        break;
    case OP_EXISTS:
    case OP_NOTEXISTS:
        if (r->nvals != 0)
            ADD("%svalues: Invalid value: [...]: values set must be empty for exists and does "
                "not exist",
                root);
        break;
    case OP_GT:
    case OP_LT:
        if (r->nvals != 1)
            ADD("%svalues: Invalid value: [...]: for 'Gt', 'Lt' operators, exactly one value "
                "is required",
                root);
        for (size_t i = 0; i < r->nvals; i++)
            if (!is_int64(r->vals[i]))
                ADD("%svalues[%zu]: Invalid value: \"%s\": for 'Gt', 'Lt' operators, the "
                    "value must be an integer",
                    root, i, r->vals[i]);
        break;
    }
    for (size_t i = 0; i < r->nvals; i++)
        if (!sl_kube_is_label_value(r->vals[i], &why))
            ADD("%svalues[%zu][%s]: Invalid value: \"%s\": %s", root, i, r->key, r->vals[i], why);
#undef ADD
}

/* field.ErrorList.ToAggregate().Error(): one error bare, several in [] */
static char *aggregate(sl_buf_t *errs, int nerr)
{
    char *s = nerr > 1 ? sl_xasprintf("[%s]", errs->data) : sl_xstrdup(errs->data);
    sl_buf_free(errs);
    return s;
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
    const char *why;
    if (!sl_kube_is_label_key(it.lit, &why)) {
        sl_buf_printf(msg, "<nil>: Invalid value: \"%s\": %s", it.lit, why);
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
    it = next(p, KEY_AND_OP);
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
    if (r->op == OP_IN || r->op == OP_NOTIN) {
        it = next(p, VALUES);
        if (it.tok != T_OPAR) {
            sl_buf_printf(msg, "found '%s' expected: '('", it.lit);
            return -1;
        }
        struct item first = peek(p, VALUES);
        if (first.tok == T_CPAR) {
            next(p, VALUES);
            set_add(r, "");
            return 0;
        }
        if (first.tok != T_ID && first.tok != T_COMMA) {
            sl_buf_printf(msg, "found '%s', expected: ',', ')' or identifier", first.lit);
            return -1;
        }
        for (;;) { /* parseIdentifiersList */
            it = next(p, VALUES);
            if (it.tok == T_ID) {
                set_add(r, it.lit);
                struct item la2 = peek(p, VALUES);
                if (la2.tok == T_COMMA)
                    continue;
                if (la2.tok == T_CPAR)
                    break;
                sl_buf_printf(msg, "found '%s', expected: ',' or ')'", la2.lit);
                return -1;
            } else if (it.tok == T_COMMA) {
                if (r->nvals == 0)
                    set_add(r, "");
                enum tok t2 = peek(p, VALUES).tok;
                if (t2 == T_CPAR) {
                    set_add(r, "");
                    break;
                }
                if (t2 == T_COMMA)
                    set_add(r, "");
            } else {
                sl_buf_printf(msg, "found '%s', expected: ',', or identifier", it.lit);
                return -1;
            }
        }
        if (next(p, VALUES).tok != T_CPAR) {
            sl_buf_printf(msg, "found '%s', expected: ')'", first.lit);
            return -1;
        }
        return 0;
    }
    /* parseExactValue */
    la = peek(p, VALUES).tok;
    if (la == T_EOS || la == T_COMMA) {
        set_add(r, "");
        return 0;
    }
    it = next(p, VALUES);
    if (it.tok != T_ID) {
        sl_buf_printf(msg, "found '%s', expected: identifier", it.lit);
        return -1;
    }
    set_add(r, it.lit);
    return 0;
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
        int nerr = 0;
        if (parse_req(&p, &r, &why) == 0)
            validate_req(&r, "", &why, &nerr);
        else
            nerr = 1;
        if (nerr) {
            char *agg = aggregate(&why, nerr);
            sl_buf_printf(msg, "unable to parse requirement: %s", agg);
            free(agg);
            req_free(&r);
            rc = -1;
            break;
        }
        sel_add(s, &r);
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
    sl_kube_selector_t *s = sel_new(SEL_LABEL);
    sl_buf_t msg = SL_BUF_INIT;
    if (text && parse_labels(s, text, &msg) < 0) {
        fail(err, &msg);
        sl_kube_selector_destroy(s);
        return NULL;
    }
    sl_buf_free(&msg);
    sel_sort(s);
    return s;
}

sl_kube_selector_t *sl_kube_label_selector_from_json(json_t *ls, sl_error_t *err)
{
    sl_kube_selector_t *s = sel_new(SEL_LABEL);
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
        set_add(&r, json_is_string(v) ? json_string_value(v) : "");
        sl_buf_t why = SL_BUF_INIT;
        int nerr = 0;
        validate_req(&r, "", &why, &nerr);
        sel_add(s, &r);
        if (nerr) {
            char *agg = aggregate(&why, nerr);
            sl_buf_puts(&msg, agg);
            free(agg);
            goto fail;
        }
        sl_buf_free(&why);
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
            req_free(&r);
            goto fail;
        }
        size_t j;
        json_t *val;
        json_array_foreach(json_object_get(v, "values"), j, val)
            set_add(&r, json_is_string(val) ? json_string_value(val) : "");
        sl_buf_t why = SL_BUF_INIT;
        int nerr = 0;
        validate_req(&r, "", &why, &nerr);
        sel_add(s, &r);
        if (nerr) {
            char *agg = aggregate(&why, nerr);
            sl_buf_puts(&msg, agg);
            free(agg);
            goto fail;
        }
        sl_buf_free(&why);
    }
    sl_buf_free(&msg);
    sel_sort(s);
    return s;
fail:
    fail(err, &msg);
    sl_kube_selector_destroy(s);
    return NULL;
}

/* ---- field selectors --------------------------------------------------- */

enum ftype { F_STR, F_BOOL, F_INT, F_EVENT_SOURCE, F_POD_IP };

struct field_def {
    const char *label; /* as in the selector */
    const char *path;  /* dotted JSON path */
    enum ftype type;
};

static const struct field_def generic_fields[] = {
    {"metadata.name", "metadata.name", F_STR},
    {"metadata.namespace", "metadata.namespace", F_STR},
    {NULL, NULL, F_STR}};

static const struct field_def pod_fields[] = {
    {"metadata.name", "metadata.name", F_STR},
    {"metadata.namespace", "metadata.namespace", F_STR},
    {"spec.nodeName", "spec.nodeName", F_STR},
    {"spec.restartPolicy", "spec.restartPolicy", F_STR},
    {"spec.schedulerName", "spec.schedulerName", F_STR},
    {"spec.serviceAccountName", "spec.serviceAccountName", F_STR},
    {"spec.hostNetwork", "spec.hostNetwork", F_BOOL},
    {"status.phase", "status.phase", F_STR},
    {"status.podIP", "status", F_POD_IP},
    {"status.nominatedNodeName", "status.nominatedNodeName", F_STR},
    {NULL, NULL, F_STR}};

static const struct field_def event_fields[] = {
    {"metadata.name", "metadata.name", F_STR},
    {"metadata.namespace", "metadata.namespace", F_STR},
    {"involvedObject.kind", "involvedObject.kind", F_STR},
    {"involvedObject.namespace", "involvedObject.namespace", F_STR},
    {"involvedObject.name", "involvedObject.name", F_STR},
    {"involvedObject.uid", "involvedObject.uid", F_STR},
    {"involvedObject.apiVersion", "involvedObject.apiVersion", F_STR},
    {"involvedObject.resourceVersion", "involvedObject.resourceVersion", F_STR},
    {"involvedObject.fieldPath", "involvedObject.fieldPath", F_STR},
    {"reason", "reason", F_STR},
    {"reportingComponent", "reportingComponent", F_STR},
    {"source", "source.component", F_EVENT_SOURCE},
    {"type", "type", F_STR},
    {NULL, NULL, F_STR}};

static const struct field_def node_fields[] = {{"metadata.name", "metadata.name", F_STR},
                                               {"spec.unschedulable", "spec.unschedulable", F_BOOL},
                                               {NULL, NULL, F_STR}};

static const struct field_def namespace_fields[] = {{"metadata.name", "metadata.name", F_STR},
                                                    {"status.phase", "status.phase", F_STR},
                                                    {NULL, NULL, F_STR}};

static const struct field_def secret_fields[] = {
    {"metadata.name", "metadata.name", F_STR},
    {"metadata.namespace", "metadata.namespace", F_STR},
    {"type", "type", F_STR},
    {NULL, NULL, F_STR}};

static const struct field_def job_fields[] = {{"metadata.name", "metadata.name", F_STR},
                                              {"metadata.namespace", "metadata.namespace", F_STR},
                                              {"status.successful", "status.succeeded", F_INT},
                                              {NULL, NULL, F_STR}};

static const struct {
    const char *resource;
    const struct field_def *fields;
} field_tables[] = {
    {"pods", pod_fields},       {"events", event_fields},
    {"nodes", node_fields},     {"namespaces", namespace_fields},
    {"secrets", secret_fields}, {"jobs", job_fields},
    {"jobs.batch", job_fields},
};

static const struct field_def *fields_for(const char *resource)
{
    for (size_t i = 0; resource && i < sizeof field_tables / sizeof field_tables[0]; i++)
        if (strcmp(field_tables[i].resource, resource) == 0)
            return field_tables[i].fields;
    return generic_fields;
}

static const struct field_def *field_find(const struct field_def *t, const char *label)
{
    for (; t->label; t++)
        if (strcmp(t->label, label) == 0)
            return t;
    return NULL;
}

/* fields.UnescapeValue: only \\ \, \= are escapes; bare , and = are errors. */
static char *unescape(const char *s, sl_buf_t *msg)
{
    sl_buf_t v = SL_BUF_INIT;
    sl_buf_puts(&v, "");
    for (const char *p = s; *p; p++) {
        if (*p == '\\') {
            if (p[1] == '\\' || p[1] == ',' || p[1] == '=') {
                sl_buf_putc(&v, *++p);
                continue;
            }
            if (!p[1])
                sl_buf_puts(msg, "invalid field selector: invalid escape sequence: \\");
            else
                sl_buf_printf(msg, "invalid field selector: invalid escape sequence: \\%c", p[1]);
            sl_buf_free(&v);
            return NULL;
        }
        if (*p == ',' || *p == '=') {
            /* Go prints the rune with %v: its code point */
            sl_buf_printf(msg, "invalid field selector: unescaped character in value: %d", *p);
            sl_buf_free(&v);
            return NULL;
        }
        sl_buf_putc(&v, *p);
    }
    return sl_buf_steal(&v);
}

static int parse_fields(sl_kube_selector_t *s, const char *text, sl_buf_t *msg)
{
    /* splitTerms: cut at commas not preceded by an escaping backslash */
    size_t nterms = 0;
    char **terms = NULL;
    sl_buf_t cur = SL_BUF_INIT;
    sl_buf_puts(&cur, "");
    for (const char *p = text;; p++) {
        if (*p == '\\' && p[1]) {
            sl_buf_putc(&cur, *p++);
            sl_buf_putc(&cur, *p);
            continue;
        }
        if (*p == ',' || !*p) {
            terms = sl_xrealloc(terms, (nterms + 1) * sizeof *terms);
            terms[nterms++] = sl_buf_steal(&cur);
            sl_buf_puts(&cur, "");
            if (!*p)
                break;
            continue;
        }
        sl_buf_putc(&cur, *p);
    }
    sl_buf_free(&cur);
    qsort(terms, nterms, sizeof *terms, cmp_str);
    int rc = 0;
    for (size_t i = 0; i < nterms && rc == 0; i++) {
        char *t = terms[i];
        if (!*t)
            continue;
        /* splitTerm: the first position where "!=", "==" or "=" starts */
        char *opp = NULL;
        enum op op = OP_EQ;
        size_t oplen = 0;
        for (char *q = t; *q && !opp; q++) {
            if (!strncmp(q, "!=", 2))
                opp = q, op = OP_NE, oplen = 2;
            else if (!strncmp(q, "==", 2))
                opp = q, op = OP_DEQ, oplen = 2;
            else if (*q == '=')
                opp = q, op = OP_EQ, oplen = 1;
        }
        if (!opp) {
            sl_buf_printf(msg, "invalid selector: '%s'; can't understand '%s'", text, t);
            rc = -1;
            break;
        }
        char *val = unescape(opp + oplen, msg);
        if (!val) {
            rc = -1;
            break;
        }
        struct req r = {.key = sl_xstrndup(t, (size_t)(opp - t)), .op = op};
        r.vals = sl_xmalloc(sizeof *r.vals);
        r.vals[0] = val;
        r.nvals = 1;
        if (!field_find(s->fields, r.key)) {
            sl_buf_printf(msg, "field label not supported: %s", r.key);
            req_free(&r);
            rc = -1;
            break;
        }
        sel_add(s, &r);
    }
    for (size_t i = 0; i < nterms; i++)
        free(terms[i]);
    free(terms);
    return rc;
}

sl_kube_selector_t *sl_kube_field_selector_parse(const char *text, const char *resource,
                                                 sl_error_t *err)
{
    sl_kube_selector_t *s = sel_new(SEL_FIELD);
    s->fields = fields_for(resource);
    sl_buf_t msg = SL_BUF_INIT;
    if (text && parse_fields(s, text, &msg) < 0) {
        fail(err, &msg);
        sl_kube_selector_destroy(s);
        return NULL;
    }
    sl_buf_free(&msg);
    sel_sort(s);
    return s;
}

/* The selectable value of a field (kube-apiserver's fields.Set): missing
 * strings read as "", booleans as "true"/"false". */
static const char *field_value(json_t *obj, const struct field_def *f, char *buf, size_t len)
{
    json_t *v = sl_kube_path(obj, f->path);
    switch (f->type) {
    case F_STR: return json_is_string(v) ? json_string_value(v) : "";
    case F_BOOL: return json_is_true(v) ? "true" : "false";
    case F_INT: snprintf(buf, len, "%lld", (long long)json_integer_value(v)); return buf;
    case F_EVENT_SOURCE: {
        const char *c = json_string_value(v);
        if (!c || !*c)
            c = json_string_value(json_object_get(obj, "reportingController"));
        return c ? c : "";
    }
    case F_POD_IP: {
        /* the first of status.podIPs, else status.podIP */
        json_t *ips = json_object_get(v, "podIPs");
        const char *ip = json_string_value(json_object_get(json_array_get(ips, 0), "ip"));
        if (!ip)
            ip = json_string_value(json_object_get(v, "podIP"));
        return ip ? ip : "";
    }
    }
    return "";
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
        if (!v || !is_int64(v) || r->nvals != 1 || !is_int64(r->vals[0]))
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
        const struct field_def *f = field_find(s->fields, r->key);
        char buf[32];
        const char *v = f ? field_value(obj, f, buf, sizeof buf) : "";
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
