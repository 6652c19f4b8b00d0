/* fields.c — field selector parsing (k8s.io/apimachinery/pkg/fields:
 * splitTerms, splitTerm, UnescapeValue) and the selectable fields of each
 * resource, as kube-apiserver's registries define them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/selector_internal.h"

/* ---- field selectors --------------------------------------------------- */

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

const struct field_def *sl_kube_sel_field_find(const struct field_def *t, const char *label)
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
    qsort(terms, nterms, sizeof *terms, sl_kube_sel_cmp_str);
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
        if (!sl_kube_sel_field_find(s->fields, r.key)) {
            sl_buf_printf(msg, "field label not supported: %s", r.key);
            sl_kube_sel_req_free(&r);
            rc = -1;
            break;
        }
        sl_kube_sel_add(s, &r);
    }
    for (size_t i = 0; i < nterms; i++)
        free(terms[i]);
    free(terms);
    return rc;
}

sl_kube_selector_t *sl_kube_field_selector_parse(const char *text, const char *resource,
                                                 sl_error_t *err)
{
    sl_kube_selector_t *s = sl_kube_sel_new(SEL_FIELD);
    s->fields = fields_for(resource);
    sl_buf_t msg = SL_BUF_INIT;
    if (text && parse_fields(s, text, &msg) < 0) {
        sl_kube_sel_fail(err, &msg);
        sl_kube_selector_destroy(s);
        return NULL;
    }
    sl_buf_free(&msg);
    sl_kube_sel_sort(s);
    return s;
}

/* The selectable value of a field (kube-apiserver's fields.Set): missing
 * strings read as "", booleans as "true"/"false". */
const char *sl_kube_sel_field_value(json_t *obj, const struct field_def *f, char *buf, size_t len)
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
