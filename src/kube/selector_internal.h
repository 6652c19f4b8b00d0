/* selector_internal.h — shared by selector.c, labels.c and fields.c; not
 * part of the interface (see selector.h). */
#ifndef SL_KUBE_SELECTOR_INTERNAL_H
#define SL_KUBE_SELECTOR_INTERNAL_H

#include <stdbool.h>

#include "common/buf.h"
#include "kube/selector.h"

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

enum ftype { F_STR, F_BOOL, F_INT, F_EVENT_SOURCE, F_POD_IP };

struct field_def {
    const char *label; /* as in the selector */
    const char *path;  /* dotted JSON path */
    enum ftype type;
};

sl_kube_selector_t *sl_kube_sel_new(enum sel_kind kind);
void sl_kube_sel_req_free(struct req *r);
int sl_kube_sel_cmp_str(const void *a, const void *b);
/* add v to the sorted, duplicate-free value set of r */
void sl_kube_sel_set_add(struct req *r, const char *v);
/* move r (zeroed after) into s */
void sl_kube_sel_add(sl_kube_selector_t *s, struct req *r);
/* requirements sorted by key, as kube-apiserver keeps them */
void sl_kube_sel_sort(sl_kube_selector_t *s);
/* errno EINVAL, err from msg (freed); returns -1 */
int sl_kube_sel_fail(sl_error_t *err, sl_buf_t *msg);
int sl_kube_sel_is_int64(const char *s);
const struct field_def *sl_kube_sel_field_find(const struct field_def *t, const char *label);
const char *sl_kube_sel_field_value(json_t *obj, const struct field_def *f, char *buf, size_t len);

#endif
