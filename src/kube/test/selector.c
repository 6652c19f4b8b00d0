/* selector: every label operator, kube-apiserver's parse errors, field
 * selectors per resource, JSON label selectors. */
#include <errno.h>
#include <stdlib.h>

#include "common/tap.h"
#include "kube/selector.h"

static json_t *labeled(const char *json_labels)
{
    json_t *l = json_loads(json_labels, 0, NULL);
    return json_pack("{s:{s:s,s:o}}", "metadata", "name", "x", "labels", l);
}

/* parse sel, match against labels, compare */
static void lm(const char *sel, const char *labels, int want)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_kube_selector_t *s = sl_kube_label_selector_parse(sel, &err);
    json_t *o = labeled(labels);
    ok(s && sl_kube_selector_match(s, o) == want, "'%s' %s %s%s%s", sel,
       want ? "matches" : "does not match", labels,
       s ? "" : " -- parse error: ", s ? "" : err.text);
    json_decref(o);
    sl_kube_selector_destroy(s);
}

static void lerr(const char *sel, const char *want)
{
    sl_error_t err = SL_ERROR_INIT;
    errno = 0;
    sl_kube_selector_t *s = sl_kube_label_selector_parse(sel, &err);
    ok(!s && errno == EINVAL, "'%s' is rejected", sel);
    is_str(err.text, want, "error text for '%s'", sel);
    sl_kube_selector_destroy(s);
}

static void lstr(const char *sel, const char *want)
{
    sl_kube_selector_t *s = sl_kube_label_selector_parse(sel, NULL);
    char *str = sl_kube_selector_string(s);
    is_str(str, want, "canonical form of '%s'", sel);
    free(str);
    sl_kube_selector_destroy(s);
}

static void test_labels(void)
{
    const char *L = "{\"app\":\"web\",\"tier\":\"fe\",\"n\":\"5\",\"empty\":\"\"}";
    lm("", L, 1);
    lm("   ", L, 1);
    lm("app=web", L, 1);
    lm("app==web", L, 1);
    lm("app=db", L, 0);
    lm("app!=db", L, 1);
    lm("app!=web", L, 0);
    lm("missing!=x", L, 1);
    lm("app in (web,db)", L, 1);
    lm("app in (db)", L, 0);
    lm("missing in (a)", L, 0);
    lm("app notin (db,cache)", L, 1);
    lm("app notin (web)", L, 0);
    lm("missing notin (a)", L, 1);
    lm("app", L, 1);
    lm("missing", L, 0);
    lm("!missing", L, 1);
    lm("!app", L, 0);
    lm("app=web,tier=fe", L, 1);
    lm("app=web,tier=be", L, 0);
    lm("app = web , tier in ( fe , be ) , !missing", L, 1);
    lm("n>4", L, 1);
    lm("n>5", L, 0);
    lm("n<6", L, 1);
    lm("app>1", L, 0);
    lm("empty=", L, 1);
    lm("empty in ()", L, 1);
    lm("app in (web,)", L, 1);
    lm("in in (in)", "{\"in\":\"in\"}", 1);
    lm("example.com/role=gpu", "{\"example.com/role\":\"gpu\"}", 1);

    lerr("app in", "unable to parse requirement: found '' expected: '('");
    lerr("app in (a", "unable to parse requirement: found '', expected: ',' or ')'");
    lm("app=", L, 0);
    lerr("=web", "found '=', expected: !, identifier, or 'end of string'");
    lerr("app=web,", "found '', expected: identifier after ','");
    lerr("app=web tier=fe", "found 'tier', expected: ',' or 'end of string'");
    lm("empty==", L, 1);
    lerr("app (x)",
         "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt");
    lerr("!app=x", "found '=', expected: ',' or 'end of string'");
    lerr("a$b=c",
         "unable to parse requirement: <nil>: Invalid value: \"a$b\": name part must consist of "
         "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
         "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
         "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
    lerr("app=a$",
         "unable to parse requirement: values[0][app]: Invalid value: \"a$\": a valid label must "
         "be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
         "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
    lerr("n>x", "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' "
                "operators, the value must be an integer");
    lerr("app in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'");
    lerr("app in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier");

    lstr("tier=fe,app in (web,db),!x,y", "app in (db,web),tier=fe,!x,y");

    sl_kube_selector_t *s = sl_kube_label_selector_parse("app=web,x in (1)", NULL);
    is_str(sl_kube_selector_exact(s, "app"), "web", "exact value of app");
    is_str(sl_kube_selector_exact(s, "x"), "1", "in with one value is exact");
    ok(sl_kube_selector_exact(s, "tier") == NULL, "no exact value for an absent key");
    ok(!sl_kube_selector_empty(s), "not empty");
    sl_kube_selector_destroy(s);
    s = sl_kube_label_selector_parse(NULL, NULL);
    ok(s && sl_kube_selector_empty(s), "NULL text: empty selector");
    json_t *nolabels = json_pack("{s:{s:s}}", "metadata", "name", "x");
    ok(sl_kube_selector_match(s, nolabels), "empty selector matches an object without labels");
    sl_kube_selector_destroy(s);
    s = sl_kube_label_selector_parse("!a", NULL);
    ok(sl_kube_selector_match(s, nolabels), "!a matches an object without labels");
    sl_kube_selector_destroy(s);
    json_decref(nolabels);
    ok(sl_kube_selector_match(NULL, NULL), "NULL selector matches");
}

static void test_json_selector(void)
{
    json_t *o = labeled("{\"job-name\":\"j1\",\"idx\":\"3\"}");
    json_t *js = json_loads("{\"matchLabels\":{\"job-name\":\"j1\"},\"matchExpressions\":"
                            "[{\"key\":\"idx\",\"operator\":\"In\",\"values\":[\"2\",\"3\"]},"
                            "{\"key\":\"gone\",\"operator\":\"DoesNotExist\"}]}",
                            0, NULL);
    sl_kube_selector_t *s = sl_kube_label_selector_from_json(js, NULL);
    ok(s && sl_kube_selector_match(s, o), "matchLabels + matchExpressions match");
    char *str = sl_kube_selector_string(s);
    is_str(str, "!gone,idx in (2,3),job-name=j1", "JSON selector as string");
    free(str);
    sl_kube_selector_destroy(s);
    json_decref(js);

    js = json_loads(
        "{\"matchExpressions\":[{\"key\":\"idx\",\"operator\":\"NotIn\",\"values\":[\"3\"]}]}", 0,
        NULL);
    s = sl_kube_label_selector_from_json(js, NULL);
    ok(s && !sl_kube_selector_match(s, o), "NotIn excludes");
    sl_kube_selector_destroy(s);
    json_decref(js);

    s = sl_kube_label_selector_from_json(NULL, NULL);
    ok(s && !sl_kube_selector_match(s, o), "null selector matches nothing");
    sl_kube_selector_destroy(s);
    js = json_object();
    s = sl_kube_label_selector_from_json(js, NULL);
    ok(s && sl_kube_selector_match(s, o), "{} matches everything");
    sl_kube_selector_destroy(s);
    json_decref(js);

    sl_error_t err;
    js = json_loads(
        "{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\",\"values\":[\"1\"]}]}", 0, NULL);
    s = sl_kube_label_selector_from_json(js, &err);
    ok(!s, "Gt is not a LabelSelector operator");
    is_str(err.text, "\"Gt\" is not a valid label selector operator", "operator error text");
    json_decref(js);
    js = json_loads("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]}", 0,
                    NULL);
    s = sl_kube_label_selector_from_json(js, &err);
    ok(!s, "In without values is rejected");
    has_str(err.text, "values set can't be empty", "empty In error text");
    json_decref(js);
    json_decref(o);
}

static json_t *mkpod(const char *ns, const char *name, const char *phase, const char *node)
{
    return json_pack("{s:s,s:{s:s,s:s},s:{s:s,s:b},s:{s:s}}", "kind", "Pod", "metadata", "name",
                     name, "namespace", ns, "spec", "nodeName", node, "hostNetwork", 0, "status",
                     "phase", phase);
}

static void fm(const char *resource, const char *sel, json_t *obj, int want)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_kube_selector_t *s = sl_kube_field_selector_parse(sel, resource, &err);
    ok(s && sl_kube_selector_match(s, obj) == want, "%s: '%s' %s%s", resource, sel,
       want ? "matches" : "does not match", s ? "" : err.text);
    sl_kube_selector_destroy(s);
}

static void ferr(const char *resource, const char *sel, const char *want)
{
    sl_error_t err = SL_ERROR_INIT;
    errno = 0;
    sl_kube_selector_t *s = sl_kube_field_selector_parse(sel, resource, &err);
    ok(!s && errno == EINVAL, "%s: '%s' rejected", resource, sel);
    is_str(err.text, want, "error text for '%s'", sel);
    sl_kube_selector_destroy(s);
}

static void test_fields(void)
{
    json_t *p = mkpod("default", "p1", "Running", "n1");
    fm("pods", "", p, 1);
    fm("pods", "metadata.name=p1", p, 1);
    fm("pods", "metadata.name==p1", p, 1);
    fm("pods", "metadata.name!=p1", p, 0);
    fm("pods", "metadata.name=p2", p, 0);
    fm("pods", "metadata.namespace=default,metadata.name=p1", p, 1);
    fm("pods", "status.phase=Running,spec.nodeName=n1", p, 1);
    fm("pods", "status.phase!=Succeeded,status.phase!=Failed", p, 1);
    json_t *p2 = mkpod("a", "b", "Pending", "");
    fm("pods", "spec.nodeName=", p2, 1);
    json_decref(p2);
    fm("pods", "spec.hostNetwork=false", p, 1);
    fm("pods", "status.podIP=", p, 1);
    ferr("pods", "foo=bar", "field label not supported: foo");
    ferr("pods", "involvedObject.name=x", "field label not supported: involvedObject.name");
    ferr("pods", "metadata.name",
         "invalid selector: 'metadata.name'; can't understand 'metadata.name'");
    ferr("pods", "metadata.name=a\\b", "invalid field selector: invalid escape sequence: \\b");
    json_decref(p);

    json_t *e = json_loads(
        "{\"metadata\":{\"name\":\"p1.17\",\"namespace\":\"default\"},"
        "\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"p1\","
        "\"uid\":\"u-1\",\"apiVersion\":\"v1\"},\"reason\":\"Started\",\"type\":\"Normal\","
        "\"source\":{\"component\":\"slurmlink\"}}",
        0, NULL);
    fm("events", "involvedObject.name=p1,involvedObject.namespace=default,involvedObject.uid=u-1",
       e, 1);
    fm("events", "involvedObject.kind=Pod,involvedObject.apiVersion=v1", e, 1);
    fm("events", "involvedObject.uid=u-2", e, 0);
    fm("events", "reason=Started,type=Normal,source=slurmlink", e, 1);
    fm("events", "involvedObject.fieldPath=", e, 1);
    ferr("events", "status.phase=x", "field label not supported: status.phase");
    json_decref(e);

    json_t *n =
        json_loads("{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"unschedulable\":true}}", 0, NULL);
    fm("nodes", "metadata.name=n1,spec.unschedulable=true", n, 1);
    ferr("nodes", "metadata.namespace=x", "field label not supported: metadata.namespace");
    json_decref(n);

    json_t *cm = json_loads("{\"metadata\":{\"name\":\"a,b=c\",\"namespace\":\"x\"}}", 0, NULL);
    fm("configmaps", "metadata.name=a\\,b\\=c", cm, 1);
    ferr("configmaps", "data.x=1", "field label not supported: data.x");
    json_decref(cm);

    sl_kube_selector_t *s =
        sl_kube_field_selector_parse("metadata.namespace=d,metadata.name=p\\,1", "pods", NULL);
    is_str(sl_kube_selector_exact(s, "metadata.name"), "p,1", "exact field value, unescaped");
    char *str = sl_kube_selector_string(s);
    is_str(str, "metadata.name=p\\,1,metadata.namespace=d", "field selector string, sorted");
    free(str);
    sl_kube_selector_destroy(s);
}

int main(void)
{
    test_labels();
    test_json_selector();
    test_fields();
    return tap_done();
}
