/* meta.h — small helpers on Kubernetes object metadata, timestamps, ages,
 * UUIDs and names. Pure functions; json_t arguments are borrowed. */
#ifndef SL_KUBE_META_H
#define SL_KUBE_META_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* metadata.<field> as a string (borrowed, valid while obj is), or NULL when
 * absent or not a string. obj may be NULL. */
const char *sl_kube_meta_str(json_t *obj, const char *field);
/* Set metadata.<field> = value (creates metadata); value NULL deletes it. */
void sl_kube_meta_set_str(json_t *obj, const char *field, const char *value);
/* metadata (created if absent; borrowed). NULL if obj is not an object. */
json_t *sl_kube_meta(json_t *obj);

const char *sl_kube_name(json_t *obj);
const char *sl_kube_namespace(json_t *obj);
const char *sl_kube_uid(json_t *obj);
/* metadata.labels.<key> / metadata.annotations.<key> (borrowed) or NULL. */
const char *sl_kube_label(json_t *obj, const char *key);
const char *sl_kube_annotation(json_t *obj, const char *key);
/* Set (value NULL deletes) a label/annotation; creates the maps. */
void sl_kube_set_label(json_t *obj, const char *key, const char *value);
void sl_kube_set_annotation(json_t *obj, const char *key, const char *value);

/* metadata.resourceVersion as a number: 0 when absent, -1 when present but
 * not a positive decimal integer (kube-apiserver answers such an rv with
 * 400 BadRequest / 409 Conflict depending on the verb). */
int64_t sl_kube_rv(json_t *obj);
/* Parse a resourceVersion string the same way ("" or NULL → 0). */
int64_t sl_kube_rv_parse(const char *s);
void sl_kube_set_rv(json_t *obj, int64_t rv);

/* Walk a dotted path of object keys ("status.phase", "spec.nodeName");
 * borrowed, NULL when any step is missing. */
json_t *sl_kube_path(json_t *obj, const char *dotted);
/* Same, string or NULL. */
const char *sl_kube_path_str(json_t *obj, const char *dotted);
/* The object member k of o (borrowed), made an empty object when it is
 * missing or not an object: where a defaulting step writes. */
json_t *sl_kube_child(json_t *o, const char *k);
/* SetDefaults': o's member k set to v when it is missing or null; v is
 * stolen either way. */
void sl_kube_default(json_t *o, const char *k, json_t *v);
/* A deep copy of v when it is an object, else an empty object (new
 * reference): a template's metadata or spec for an object made from it. */
json_t *sl_kube_object_copy(json_t *v);
/* The first condition of that type in the array conds (a status's
 * "conditions"; borrowed), or NULL. */
json_t *sl_kube_condition(json_t *conds, const char *type);
/* Whether some condition of that type in conds has that status (as Go's
 * hasJobCondition and kubectl's pod printer read them); NULL conds: false. */
bool sl_kube_condition_is(json_t *conds, const char *type, const char *status);
/* sl_kube_condition_is(conds, type, "True") */
bool sl_kube_condition_true(json_t *conds, const char *type);
/* A condition as apimachinery's meta.SetStatusCondition takes it: status
 * "True", "False" or "Unknown"; observed_generation 0 for none (the field
 * is then absent, Go's omitempty). */
typedef struct sl_kube_cond {
    const char *type, *status, *reason, *message;
    long long observed_generation;
} sl_kube_cond_t;
/* SetStatusCondition on st's "conditions" (made when missing; st an
 * object): a condition of a new type is appended with lastTransitionTime
 * now; an existing one's lastTransitionTime becomes now only when its
 * status changes, and its reason, message and observedGeneration become
 * c's. now: an RFC 3339 time, NULL for the current one. 1 when st changed,
 * else 0. Also for the core kinds' conditions (NamespaceCondition), which
 * follow the same rules. */
int sl_kube_set_condition(json_t *st, const sl_kube_cond_t *c, const char *now);

/* RFC 3339 timestamps in UTC, as Kubernetes writes them. frac_digits 0
 * gives "2024-01-02T03:04:05Z" (metav1.Time), 6 "…05.123456Z" (MicroTime),
 * 9 "…05.123456789Z" (CRI logs). Caller frees. */
char *sl_kube_rfc3339(int64_t unix_ns, int frac_digits);
char *sl_kube_now_rfc3339(void);       /* seconds */
char *sl_kube_now_rfc3339_micro(void); /* microseconds (MicroTime) */
int64_t sl_kube_now_ns(void);          /* realtime clock, ns since epoch */
/* Parse RFC 3339 (any fraction, "Z" or ±hh:mm offset) into ns since the
 * epoch. 0 on success, -1 with EINVAL. */
int sl_kube_parse_rfc3339(const char *s, int64_t *unix_ns);

/* kubectl's AGE column: duration.HumanDuration from
 * k8s.io/apimachinery/pkg/util/duration ("0s", "45s", "3m12s", "10m",
 * "2h5m", "2d4h", "12d", "3y45d", "<invalid>" for negative beyond -1s).
 * Writes into buf (NUL-terminated, truncated to len) and returns buf. */
char *sl_kube_human_duration(int64_t ns, char *buf, size_t len);
/* Age of an RFC 3339 timestamp relative to now_ns, formatted as above;
 * "<unknown>" when ts is NULL or unparsable (as kubectl prints). */
char *sl_kube_age(const char *ts, int64_t now_ns, char *buf, size_t len);

/* The time from then_ns to now_ns, printed as sl_kube_human_duration does
 * (what printers use for "ago" and AGE: a duration that grows with now). */
char *sl_kube_since(int64_t then_ns, int64_t now_ns, char *buf, size_t len);
/* Printing templates: between sl_kube_durations_begin(d, max) and
 * sl_kube_durations_end(), this thread's sl_kube_since calls (sl_kube_age's
 * too) write SL_KUBE_DURATION_MARK in place of the text and record the
 * duration in d (up to max); sl_kube_human_duration of a fixed duration
 * prints as always. sl_kube_durations_end gives how
 * many were printed (more than max: those beyond were not recorded). Lets
 * a printed Table row be reused later with its ages printed anew. */
#define SL_KUBE_DURATION_MARK "\x01"
void sl_kube_durations_begin(int64_t *d, size_t max);
size_t sl_kube_durations_end(void);

/* Random v4 UUID, lower-case, 36 chars + NUL. */
void sl_kube_uuid4(char out[37]);
/* n random chars from Kubernetes' generateName alphabet
 * [bcdfghjklmnpqrstvwxz2456789] + NUL (out must hold n + 1). */
void sl_kube_rand_suffix(char *out, size_t n);

/* The one home of Kubernetes' name rules (k8s.io/apimachinery/pkg/util/
 * validation). DNS-1123 label (≤63, [a-z0-9-], alnum at both ends) and
 * subdomain (≤253, labels joined by '.'), as used for object names; NULL
 * is neither. The Pod validation module (pod/names.c) words the field
 * errors from the matchers and messages below. */
bool sl_kube_is_dns1123_label(const char *s);
bool sl_kube_is_dns1123_subdomain(const char *s);
/* The regular expressions alone, without the length bounds:
 * [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0:n], that joined by '.' over s, and
 * a qualified name's name part ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. */
bool sl_kube_match_dns1123_label(const char *s, size_t n);
bool sl_kube_match_dns1123_subdomain(const char *s);
bool sl_kube_match_qname(const char *s, size_t n);
/* kube-apiserver's texts for the three */
#define SL_KUBE_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define SL_KUBE_QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define SL_KUBE_LABEL_MSG                                                                          \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "            \
    "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "             \
    "'123-abc', regex used for validation is '" SL_KUBE_LABEL_FMT "')"
#define SL_KUBE_SUBDOMAIN_MSG                                                                      \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "          \
    "'-' or '.', and must start and end with an alphanumeric character (e.g. "                     \
    "'example.com', regex used for validation is '" SL_KUBE_LABEL_FMT                              \
    "(\\." SL_KUBE_LABEL_FMT ")*')"
#define SL_KUBE_QNAME_MSG                                                                          \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "            \
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "          \
    "used for validation is '" SL_KUBE_QNAME_FMT "')"
#define SL_KUBE_LABEL_VALUE_MSG                                                                    \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', "           \
    "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "         \
    "or 'my_value',  or '12345', regex used for validation is '(" SL_KUBE_QNAME_FMT ")?')"
/* Label key (optional DNS-1123 subdomain prefix + '/' + name ≤63 of
 * [A-Za-z0-9._-], alnum at both ends) and label value (≤63, may be empty).
 * On failure err (may be NULL) gets kube-apiserver's message, kind
 * SL_ERR_INVALID (the caller names the field). */
bool sl_kube_is_label_key(const char *s, sl_error_t *err);
bool sl_kube_is_label_value(const char *s, sl_error_t *err);

/* A Node's schedulability as the node lifecycle controller shows it:
 * spec.unschedulable (set to on) and the taint
 * node.kubernetes.io/unschedulable:NoSchedule present exactly while on
 * (other taints kept). */
#define SL_KUBE_TAINT_UNSCHEDULABLE "node.kubernetes.io/unschedulable"
void sl_kube_node_set_unschedulable(json_t *node, bool on);

#endif
