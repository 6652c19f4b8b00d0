/* yamljson.c — libyaml's document loader, converted node by node. */
#include "pod/yamljson.h"

#include "common/xalloc.h"

#include <errno.h>
#include <math.h>
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

static json_t *convert(yaml_document_t *doc, yaml_node_t *n, int depth)
{
    if (!n || depth > 200)
        return NULL;
    switch (n->type) {
    case YAML_SCALAR_NODE: return scalar(n);
    case YAML_SEQUENCE_NODE: {
        json_t *a = json_array();
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            json_t *v = convert(doc, yaml_document_get_node(doc, *it), depth + 1);
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
            json_t *v = convert(doc, yaml_document_get_node(doc, pr->value), depth + 1);
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
        json_t *j = convert(&doc, root, 0);
        yaml_document_delete(&doc);
        if (!j) {
            sl_errprintf(err, "YAML: unsupported structure (non-scalar mapping key or nesting "
                              "too deep)");
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
