/* selector.h — Kubernetes label and field selectors: parse once, match many.
 *
 * Label selectors follow k8s.io/apimachinery/pkg/labels: `k=v`, `k==v`,
 * `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not
 * exist), `k>N`, `k<N` (integers); a comma means AND. Parse errors carry the
 * text kube-apiserver gives (e.g. "unable to parse requirement: found '',
 * expected: '('") so the HTTP layer can return them in a 400 BadRequest.
 *
 * Field selectors follow k8s.io/apimachinery/pkg/fields: `f=v`, `f==v`,
 * `f!=v`, comma = AND, `\` escapes `,` `=` and `\` in values. The
 * supported fields depend on the resource, as in kube-apiserver; an
 * unsupported field fails with errno EINVAL and the text
 * "field label not supported: <field>".
 *
 * The HTTP layer wraps those texts like kube-apiserver does, e.g.
 *   Unable to find "/v1, Resource=pods" that match label selector "",
 *   field selector "foo=bar": field label not supported: foo
 */
#ifndef SL_KUBE_SELECTOR_H
#define SL_KUBE_SELECTOR_H

#include <jansson.h>
#include <stdbool.h>

#include "common/err.h"

typedef struct sl_kube_selector sl_kube_selector_t;

/* Parse a label selector string. NULL or "" (or only blanks) gives a
 * selector that matches everything. NULL with errno EINVAL and err filled on
 * a syntax or validation error. Caller destroys. */
sl_kube_selector_t *sl_kube_label_selector_parse(const char *text, sl_error_t *err);

/* Build a label selector from a metav1.LabelSelector JSON object
 * ({"matchLabels":{...},"matchExpressions":[{"key","operator","values"}]},
 * as in a Job's spec.selector). NULL json matches nothing, as in
 * metav1.LabelSelectorAsSelector; {} matches everything. EINVAL on an
 * invalid operator or values. */
sl_kube_selector_t *sl_kube_label_selector_from_json(json_t *label_selector, sl_error_t *err);

/* Parse a field selector for objects of resource (plural: "pods", "events",
 * "nodes", "namespaces", ...; any other resource supports metadata.name and
 * metadata.namespace only). NULL or "" matches everything. */
sl_kube_selector_t *sl_kube_field_selector_parse(const char *text, const char *resource,
                                                 sl_error_t *err);

/* Does obj match? For a label selector, obj's metadata.labels is tested;
 * for a field selector, the selected fields (a missing field reads as "",
 * booleans as "true"/"false", as kube-apiserver's field sets do).
 * A NULL selector matches everything. */
bool sl_kube_selector_match(const sl_kube_selector_t *sel, json_t *obj);

/* Match a label selector against a labels object directly (NULL = none). */
bool sl_kube_selector_match_labels(const sl_kube_selector_t *sel, json_t *labels);

/* true when the selector places no restriction (matches everything). */
bool sl_kube_selector_empty(const sl_kube_selector_t *sel);

/* If the selector requires field/label `key` to equal one value (`k=v`,
 * `k==v` or `k in (v)`), return that value (owned by the selector), else NULL.
 * Lets list handlers use a direct lookup, e.g. metadata.name=p1. */
const char *sl_kube_selector_exact(const sl_kube_selector_t *sel, const char *key);

/* Canonical string form (requirements sorted by key, as kube-apiserver
 * prints them). Caller frees. */
char *sl_kube_selector_string(const sl_kube_selector_t *sel);

/* NULL is a no-op. */
void sl_kube_selector_destroy(sl_kube_selector_t *sel);

#endif
