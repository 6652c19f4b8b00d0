/* yamljson.c — libyaml's document loader, converted node by node.
 *
 * libyaml resolves an alias to the node of its anchor, so the document is
 * a graph in which one node may be reached many times: converting it
 * expands every alias, and nine nested aliases of nine items each make a
 * few hundred bytes into tens of megabytes. The expansion is bounded with
 * go-yaml's rule (decode.go, allowedAliasRatio), which sigs.k8s.io/yaml and
 * so kube-apiserver use: once more than 100 nodes came from aliases and
 * more than 1000 were converted, the share from aliases may be at most 99%
 * (up to 400,000 nodes), falling to 10% at 4,000,000; beyond it the
 * document fails with go-yaml's text. A node is reached through an alias
 * when it was converted before (libyaml anchors precede their aliases). */
#include "pod/yamljson.h"

#include "common/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int anyof(const char *s, const char *const *v)
{
    for (; *v; v++)
        if (!strcmp(s, *v))
            return 1;
    return 0;
}

/* YAML 1.1 integer forms go-yaml v2 resolves (underscores allowed). */
static int parse_int(const char *s, long long *out)
{
    char buf[128];
    size_t n = 0;
    for (const char *p = s; *p; p++)
        if (*p != '_') {
            if (n + 1 >= sizeof(buf))
                return 0;
            buf[n++] = *p;
        }
    buf[n] = 0;
    const char *p = buf;
    int neg = 0;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    if (!*p)
        return 0;
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        base = 2;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'o' || p[1] == 'O')) {
        base = 8;
        p += 2;
    } else if (p[0] == '0' && p[1]) {
        base = 8;
        p++;
    }
    if (!*p)
        return 0;
    for (const char *q = p; *q; q++) {
        int d = *q >= '0' && *q <= '9'   ? *q - '0'
                : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10
                : *q >= 'A' && *q <= 'F' ? *q - 'A' + 10
                                         : 99;
        if (d >= base)
            return 0;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, base);
    if (errno || *end || v > (unsigned long long)INT64_MAX + (unsigned long long)neg)
        return 0;
    *out = neg ? -(long long)v : (long long)v;
    return 1;
}

static int parse_float(const char *s, double *out)
{
    static const char *const inf[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
    static const char *const ninf[] = {"-.inf", "-.Inf", "-.INF", NULL};
    static const char *const nan_[] = {".nan", ".NaN", ".NAN", NULL};
    if (anyof(s, inf) || anyof(s, ninf) || anyof(s, nan_))
        return 0; /* JSON cannot hold them: keep the text */
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0, dot = 0;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p == '.' && !dot)
            dot = 1;
        else if (*p == '_')
            continue;
        else
            break;
    }
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    } else if (!dot) {
        return 0; /* an integer, not a float */
    }
    if (*p)
        return 0;
    char *end;
    *out = strtod(s, &end);
    return isfinite(*out);
}

static json_t *scalar(const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    /* libyaml's loader gives every untagged scalar the str tag, so an explicit
     * !!str cannot be told apart: plain scalars are always resolved */
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return json_stringn(s, n->data.scalar.length);
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", NULL};
    static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes", "YES",
                                        "on",   "On",   "ON",   "y",   "Y",   NULL};
    static const char *const falses[] = {"false", "False", "FALSE", "no", "No", "NO",
                                         "off",   "Off",   "OFF",   "n",  "N",  NULL};
    if (anyof(s, nulls))
        return json_null();
    if (anyof(s, trues))
        return json_true();
    if (anyof(s, falses))
        return json_false();
    long long i;
    double d;
    if (parse_int(s, &i))
        return json_integer(i);
    if (parse_float(s, &d))
        return json_real(d);
    return json_stringn(s, n->data.scalar.length);
}

#define ALIAS_LOW 400000.0
#define ALIAS_HIGH 4000000.0
#define EXCESSIVE_ALIASING "yaml: document contains excessive aliasing"

typedef struct walk {
    yaml_document_t *doc;
    unsigned char *seen; /* per node: converted before */
    double decoded, aliased;
    int in_alias;   /* depth of nested alias expansions */
    bool excessive; /* go-yaml's limit was passed */
} walk_t;

static double allowed_alias_ratio(double decoded)
{
    if (decoded <= ALIAS_LOW)
        return 0.99;
    if (decoded >= ALIAS_HIGH)
        return 0.10;
    return 0.99 - 0.89 * ((decoded - ALIAS_LOW) / (ALIAS_HIGH - ALIAS_LOW));
}

/* Count one node as go-yaml's decoder does; false past the limit. */
static bool count_node(walk_t *w)
{
    w->decoded++;
    if (w->in_alias)
        w->aliased++;
    if (w->aliased > 100 && w->decoded > 1000 &&
        w->aliased / w->decoded > allowed_alias_ratio(w->decoded)) {
        w->excessive = true;
        return false;
    }
    return true;
}

static json_t *convert_node(walk_t *w, yaml_node_t *n, int depth);

static json_t *convert(walk_t *w, yaml_node_t *n, int depth)
{
    if (!n || depth > 200)
        return NULL;
    size_t i = (size_t)(n - w->doc->nodes.start);
    bool alias = w->seen[i];
    w->seen[i] = 1;
    w->in_alias += alias;
    json_t *j = count_node(w) ? convert_node(w, n, depth) : NULL;
    w->in_alias -= alias;
    return j;
}

static json_t *convert_node(walk_t *w, yaml_node_t *n, int depth)
{
    yaml_document_t *doc = w->doc;
    switch (n->type) {
    case YAML_SCALAR_NODE: return scalar(n);
    case YAML_SEQUENCE_NODE: {
        json_t *a = json_array();
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            json_t *v = convert(w, yaml_document_get_node(doc, *it), depth + 1);
            if (!v) {
                json_decref(a);
                return NULL;
            }
            json_array_append_new(a, v);
        }
        return a;
    }
    case YAML_MAPPING_NODE: {
        json_t *o = json_object();
        for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
             pr++) {
            yaml_node_t *k = yaml_document_get_node(doc, pr->key);
            if (!k || k->type != YAML_SCALAR_NODE) {
                json_decref(o);
                return NULL;
            }
            json_t *v = convert(w, yaml_document_get_node(doc, pr->value), depth + 1);
            if (!v) {
                json_decref(o);
                return NULL;
            }
            char *key = sl_xstrndup((const char *)k->data.scalar.value, k->data.scalar.length);
            json_object_set_new(o, key, v);
            free(key);
        }
        return o;
    }
    default: return NULL;
    }
}

json_t *sl_yaml_to_json(const char *text, size_t len, sl_error_t *err)
{
    yaml_parser_t p;
    json_t *docs = json_array();
    if (!yaml_parser_initialize(&p))
        abort();
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    for (;;) {
        yaml_document_t doc;
        if (!yaml_parser_load(&p, &doc)) {
            sl_errprintf(err, "YAML line %zu column %zu: %s", p.problem_mark.line + 1,
                         p.problem_mark.column + 1, p.problem ? p.problem : "parse error");
            yaml_parser_delete(&p);
            json_decref(docs);
            errno = EINVAL;
            return NULL;
        }
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root) {
            yaml_document_delete(&doc);
            break;
        }
        walk_t w = {.doc = &doc,
                    .seen = sl_xcalloc((size_t)(doc.nodes.top - doc.nodes.start) + 1, 1)};
        json_t *j = convert(&w, root, 0);
        free(w.seen);
        yaml_document_delete(&doc);
        if (!j) {
            sl_errprintf(err, "%s",
                         w.excessive ? EXCESSIVE_ALIASING
                                     : "YAML: unsupported structure (non-scalar mapping key "
                                       "or nesting too deep)");
            yaml_parser_delete(&p);
            json_decref(docs);
            errno = EINVAL;
            return NULL;
        }
        if (!json_is_null(j))
            json_array_append_new(docs, j);
        else
            json_decref(j);
    }
    yaml_parser_delete(&p);
    return docs;
}
