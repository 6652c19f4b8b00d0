/* meta: accessors, resourceVersion parsing, RFC 3339, kubectl ages, UUIDs, names. */
#include <stdlib.h>
#include <string.h>

#include "common/tap.h"
#include "kube/meta.h"

#define S 1000000000LL

static void age(long long secs, const char *want)
{
    char buf[32];
    is_str(sl_kube_human_duration(secs * S, buf, sizeof buf), want, "HumanDuration(%llds)", secs);
}

int main(void)
{
    json_t *o =
        json_loads("{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"resourceVersion\":\"42\","
                   "\"labels\":{\"a\":\"b\"}},\"status\":{\"phase\":\"Running\"}}",
                   0, NULL);
    is_str(sl_kube_name(o), "p", "name");
    is_str(sl_kube_namespace(o), "ns", "namespace");
    is_int(sl_kube_rv(o), 42, "rv as a number");
    is_str(sl_kube_label(o, "a"), "b", "label");
    ok(sl_kube_annotation(o, "x") == NULL, "missing annotation");
    sl_kube_set_annotation(o, "x", "y");
    is_str(sl_kube_annotation(o, "x"), "y", "annotation set");
    sl_kube_set_label(o, "a", NULL);
    ok(sl_kube_label(o, "a") == NULL, "label deleted");
    sl_kube_set_rv(o, 7);
    is_str(sl_kube_meta_str(o, "resourceVersion"), "7", "set rv");
    is_str(sl_kube_path_str(o, "status.phase"), "Running", "dotted path");
    ok(sl_kube_path(o, "status.nope.x") == NULL, "missing path");
    json_t *conds =
        json_pack("[{s:s}, {s:i}, {s:s, s:s}, {s:s, s:s}]", "type", "Ready", "type", 1, "type",
                  "PodScheduled", "status", "False", "type", "PodScheduled", "status", "True");
    ok(sl_kube_condition(conds, "PodScheduled") == json_array_get(conds, 2),
       "condition: the first of its type (a type that is not a string skipped)");
    ok(sl_kube_condition(conds, "Initialized") == NULL && sl_kube_condition(NULL, "Ready") == NULL,
       "condition: NULL for a type not there, or no array");
    ok(sl_kube_condition_true(conds, "PodScheduled"),
       "condition true: some condition of the type is True, not only the first");
    ok(!sl_kube_condition_true(conds, "Ready"), "condition true: a condition without a status");
    ok(!sl_kube_condition_true(conds, "Initialized") && !sl_kube_condition_true(NULL, "Ready"),
       "condition true: false for a type not there, or no array");
    ok(sl_kube_condition_is(conds, "PodScheduled", "False") &&
           !sl_kube_condition_is(conds, "PodScheduled", "Unknown"),
       "condition is: any status asked for");
    json_decref(conds);
    /* SetStatusCondition (apimachinery meta/conditions.go) */
    json_t *st = json_object();
    sl_kube_cond_t c1 = {"Ready", "False", "Waiting", "not yet", 3};
    is_int(sl_kube_set_condition(st, &c1, "t1"), 1, "set condition: a new one is a change");
    json_t *cd = sl_kube_condition(json_object_get(st, "conditions"), "Ready");
    char *js = json_dumps(cd, 0);
    is_str(js,
           "{\"type\": \"Ready\", \"status\": \"False\", \"observedGeneration\": 3, "
           "\"lastTransitionTime\": \"t1\", \"reason\": \"Waiting\", \"message\": \"not yet\"}",
           "set condition: metav1.Condition's fields, in its order, the time given");
    free(js);
    is_int(sl_kube_set_condition(st, &c1, "t2"), 0, "set condition: the same again is no change");
    sl_kube_cond_t c2 = {"Ready", "False", "StillWaiting", "later", 4};
    is_int(sl_kube_set_condition(st, &c2, "t3"), 1, "set condition: a new reason is a change");
    is_str(json_string_value(json_object_get(cd, "lastTransitionTime")), "t1",
           "set condition: the transition time stays while the status does");
    ok(!strcmp(json_string_value(json_object_get(cd, "reason")), "StillWaiting") &&
           !strcmp(json_string_value(json_object_get(cd, "message")), "later") &&
           json_integer_value(json_object_get(cd, "observedGeneration")) == 4,
       "set condition: reason, message and observedGeneration updated");
    sl_kube_cond_t c3 = {"Ready", "True", "Done", "ok", 0};
    is_int(sl_kube_set_condition(st, &c3, "t4"), 1, "set condition: a new status is a change");
    ok(!strcmp(json_string_value(json_object_get(cd, "lastTransitionTime")), "t4") &&
           !json_object_get(cd, "observedGeneration"),
       "set condition: the transition time moves with the status; generation 0 drops the field");
    sl_kube_cond_t c4 = {"Other", "Unknown", "R", "m", 0};
    sl_kube_set_condition(st, &c4, NULL);
    const char *lt = json_string_value(json_object_get(
        sl_kube_condition(json_object_get(st, "conditions"), "Other"), "lastTransitionTime"));
    ok(lt && strlen(lt) == 20 && json_array_size(json_object_get(st, "conditions")) == 2,
       "set condition: a second type appended, the current time when none is given");
    json_decref(st);
    json_decref(o);
    is_int(sl_kube_rv_parse(""), 0, "empty rv");
    is_int(sl_kube_rv_parse("abc"), -1, "bad rv");
    is_int(sl_kube_rv_parse("0"), -1, "zero rv is not a revision");
    is_int(sl_kube_rv_parse("123"), 123, "rv 123");

    char *t = sl_kube_rfc3339(1700000000LL * S + 123456789, 0);
    is_str(t, "2023-11-14T22:13:20Z", "RFC 3339 seconds");
    free(t);
    t = sl_kube_rfc3339(1700000000LL * S + 123456789, 6);
    is_str(t, "2023-11-14T22:13:20.123456Z", "RFC 3339 micro");
    free(t);
    t = sl_kube_rfc3339(1700000000LL * S + 123456789, 9);
    is_str(t, "2023-11-14T22:13:20.123456789Z", "RFC 3339 nano");
    free(t);
    int64_t ns;
    ok(sl_kube_parse_rfc3339("2023-11-14T22:13:20Z", &ns) == 0 && ns == 1700000000LL * S,
       "parse Z");
    ok(sl_kube_parse_rfc3339("2023-11-14T23:13:20.5+01:00", &ns) == 0 &&
           ns == 1700000000LL * S + 500000000,
       "parse offset and fraction");
    ok(sl_kube_parse_rfc3339("2023-11-14 22:13:20", &ns) < 0, "no zone: rejected");
    ok(sl_kube_parse_rfc3339("yesterday", &ns) < 0, "garbage rejected");
    t = sl_kube_now_rfc3339();
    ok(strlen(t) == 20 && t[19] == 'Z', "now: %s", t);
    free(t);

    age(-5, "<invalid>");
    age(-1, "0s");
    age(0, "0s");
    age(5, "5s");
    age(119, "119s");
    age(120, "2m");
    age(192, "3m12s");
    age(600, "10m");
    age(179 * 60 + 59, "179m");
    age(3 * 3600, "3h");
    age(3 * 3600 + 5 * 60, "3h5m");
    age(8 * 3600 + 5 * 60, "8h");
    age(47 * 3600, "47h");
    age(52 * 3600, "2d4h");
    age(48 * 3600, "2d");
    age(8 * 24 * 3600, "8d");
    age(400 * 24 * 3600, "400d");
    age(3 * 365 * 24 * 3600 + 45 * 24 * 3600, "3y45d");
    age(10LL * 365 * 24 * 3600, "10y");
    char buf[32];
    is_str(sl_kube_age(NULL, 0, buf, sizeof buf), "<unknown>", "age of nothing");
    is_str(sl_kube_age("2023-11-14T22:13:20Z", (1700000000LL + 16) * S, buf, sizeof buf), "16s",
           "age of a timestamp");

    char u1[37], u2[37];
    sl_kube_uuid4(u1);
    sl_kube_uuid4(u2);
    ok(strlen(u1) == 36 && u1[8] == '-' && u1[14] == '4' && strchr("89ab", u1[19]), "uuid v4 %s",
       u1);
    ok(strcmp(u1, u2) != 0, "uuids differ");
    char sfx[6];
    sl_kube_rand_suffix(sfx, 5);
    ok(strlen(sfx) == 5 && strspn(sfx, "bcdfghjklmnpqrstvwxz2456789") == 5, "suffix %s", sfx);

    ok(sl_kube_is_dns1123_label("my-pod-1"), "label ok");
    ok(!sl_kube_is_dns1123_label("My-pod"), "upper case refused");
    ok(!sl_kube_is_dns1123_label("-a"), "leading dash refused");
    ok(!sl_kube_is_dns1123_label("a.b"), "dot refused in label");
    ok(sl_kube_is_dns1123_subdomain("a.b-c.d"), "subdomain ok");
    ok(!sl_kube_is_dns1123_subdomain("a..b"), "empty part refused");
    ok(!sl_kube_is_dns1123_subdomain("a.-b"), "part starting with dash refused");
    char l63[64], l64[65], s253[254], s254[255];
    memset(l63, 'a', 63), l63[63] = '\0';
    memset(l64, 'a', 64), l64[64] = '\0';
    ok(sl_kube_is_dns1123_label(l63) && !sl_kube_is_dns1123_label(l64), "label: 63 bytes at most");
    ok(sl_kube_match_dns1123_label(l64, 64), "label regexp alone: no length bound");
    for (int i = 0; i < 254; i++)
        s254[i] = i % 2 ? '.' : 'a';
    s254[253] = 'b', s254[254] = '\0';
    memcpy(s253, s254 + 1, 254); /* ".a.a...b": a dot first */
    s253[0] = 'c';
    ok(strlen(s253) == 253 && sl_kube_is_dns1123_subdomain(s253), "subdomain: 253 bytes");
    ok(!sl_kube_is_dns1123_subdomain(s254) && sl_kube_match_dns1123_subdomain(s254),
       "subdomain: 254 refused, though its regexp matches");
    ok(!sl_kube_is_dns1123_label(NULL) && !sl_kube_is_dns1123_subdomain(NULL) &&
           !sl_kube_is_dns1123_label("") && !sl_kube_is_dns1123_subdomain(""),
       "NULL and empty are neither");
    ok(!sl_kube_is_dns1123_subdomain("a.") && !sl_kube_is_dns1123_subdomain(".a") &&
           !sl_kube_is_dns1123_subdomain("a-.b"),
       "subdomain: each part starts and ends alphanumeric");
    ok(sl_kube_match_qname("My_name.1", 9) && !sl_kube_match_qname("_a", 2) &&
           !sl_kube_match_qname("a/b", 3) && !sl_kube_match_qname("", 0),
       "qualified name part");
    sl_error_t why = SL_ERROR_INIT;
    ok(sl_kube_is_label_key("example.com/My_Key.1", &why), "label key with prefix");
    ok(!sl_kube_is_label_key("a/b/c", &why), "two slashes refused");
    ok(!sl_kube_is_label_key("/x", &why), "empty prefix refused");
    is_str(why.text, "prefix part must be non-empty", "empty prefix text");
    ok(sl_kube_is_label_value("", &why), "empty value ok");
    ok(!sl_kube_is_label_value("-x", &why), "value starting with dash refused");
    char longv[70];
    memset(longv, 'a', 64);
    longv[64] = 0;
    ok(!sl_kube_is_label_value(longv, &why), "64 chars refused");
    is_str(why.text, "must be no more than 63 characters", "length text");

    /* a node's cordon: spec.unschedulable and its taint, other taints kept */
    json_t *n = json_loads("{\"spec\":{\"taints\":[{\"key\":\"gpu\",\"effect\":\"NoSchedule\"}]}}",
                           0, NULL);
    sl_kube_node_set_unschedulable(n, true);
    sl_kube_node_set_unschedulable(n, true);
    char *s = json_dumps(json_object_get(n, "spec"), JSON_SORT_KEYS | JSON_COMPACT);
    is_str(s,
           "{\"taints\":[{\"effect\":\"NoSchedule\",\"key\":\"gpu\"},{\"effect\":\"NoSchedule\","
           "\"key\":\"node.kubernetes.io/unschedulable\"}],\"unschedulable\":true}",
           "cordoned: the taint once, the other kept");
    free(s);
    sl_kube_node_set_unschedulable(n, false);
    s = json_dumps(json_object_get(n, "spec"), JSON_SORT_KEYS | JSON_COMPACT);
    is_str(s, "{\"taints\":[{\"effect\":\"NoSchedule\",\"key\":\"gpu\"}],\"unschedulable\":false}",
           "uncordoned: the taint gone");
    free(s);
    json_t *bare = json_object();
    sl_kube_node_set_unschedulable(bare, false);
    ok(!json_object_get(json_object_get(bare, "spec"), "taints"), "no empty taints list");
    json_decref(bare);
    json_decref(n);
    return tap_done();
}
