/* patch: RFC 7386 examples, strategic merge directives with the patches
 * kubectl computes, inputs left untouched. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/tap.h"
#include "kube/patch.h"

static json_t *J(const char *s)
{
    json_error_t e;
    json_t *j = json_loads(s, JSON_DECODE_ANY, &e);
    if (!j)
        fprintf(stderr, "bad test JSON: %s: %s\n", s, e.text);
    return j;
}

static char *canon(json_t *j)
{
    return j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
}

static void mp(const char *target, const char *patch, const char *want)
{
    json_t *t = J(target), *p = J(patch), *w = J(want);
    json_t *r = sl_kube_merge_patch(t, p);
    char *got = canon(r), *exp = canon(w);
    is_str(got, exp, "merge patch %s + %s", target, patch);
    free(got);
    free(exp);
    json_decref(t);
    json_decref(p);
    json_decref(w);
    json_decref(r);
}

/* strategic merge, compared in key-sorted form (list order kept) */
static void smp(const char *label, const char *orig, const char *patch, const char *want)
{
    json_t *o = J(orig), *p = J(patch), *w = J(want);
    char *before = canon(o);
    sl_error_t err = SL_ERROR_INIT;
    json_t *r = sl_kube_strategic_merge("v1", "Pod", o, p, &err);
    char *got = canon(r), *exp = canon(w), *after = canon(o);
    is_str(got, exp, "%s%s%s", label, r ? "" : ": ", r ? "" : err.text);
    ok(strcmp(before, after) == 0, "%s: original untouched", label);
    free(got);
    free(exp);
    free(before);
    free(after);
    json_decref(o);
    json_decref(p);
    json_decref(w);
    json_decref(r);
}

static void smp_err(const char *label, const char *orig, const char *patch, const char *want)
{
    json_t *o = J(orig), *p = J(patch);
    sl_error_t err = SL_ERROR_INIT;
    errno = 0;
    json_t *r = sl_kube_strategic_merge("v1", "Pod", o, p, &err);
    ok(!r && errno == EINVAL, "%s: rejected", label);
    has_str(err.text, want, "%s: error text", label);
    json_decref(r);
    json_decref(o);
    json_decref(p);
}

static void rfc7386(void)
{
    /* RFC 7386, Appendix A */
    mp("{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    mp("{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}");
    mp("{\"a\":\"b\"}", "{\"a\":null}", "{}");
    mp("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}");
    mp("{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}");
    mp("{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}");
    mp("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}");
    mp("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}");
    mp("[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]");
    mp("{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]");
    mp("{\"a\":\"foo\"}", "null", "null");
    mp("{\"a\":\"foo\"}", "\"bar\"", "\"bar\"");
    mp("{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}");
    mp("[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}");
    mp("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}");
    json_t *p = J("{\"x\":1}");
    json_t *r = sl_kube_merge_patch(NULL, p);
    char *s = canon(r);
    is_str(s, "{\"x\":1}", "merge patch onto nothing");
    free(s);
    json_decref(r);
    json_decref(p);
}

#define POD                                                                                        \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"app\":"    \
    "\"web\",\"old\":\"x\"},\"finalizers\":[\"a\",\"b\"],\"ownerReferences\":[{\"uid\":\"u1\","    \
    "\"name\":\"j\"}]},\"spec\":{\"nodeSelector\":{\"gpu\":\"v100\",\"zone\":\"z\"},"              \
    "\"tolerations\":[{\"key\":\"t1\"}],\"securityContext\":{\"runAsUser\":1000},"                 \
    "\"volumes\":[{\"name\":\"v\",\"hostPath\":{\"path\":\"/x\"}}],"                               \
    "\"containers\":[{\"name\":\"app\",\"image\":\"busybox:1.35\",\"command\":[\"sleep\"],"        \
    "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}],"                 \
    "\"ports\":[{\"containerPort\":80}]},{\"name\":\"side\",\"image\":\"s\"}]},"                   \
    "\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"True\"},"                 \
    "{\"type\":\"Ready\",\"status\":\"False\"}]}}"

static char *pod_with(const char *from, const char *to)
{
    const char *pos = strstr(POD, from);
    if (!pos)
        abort();
    size_t a = (size_t)(pos - POD);
    char *s = malloc(strlen(POD) - strlen(from) + strlen(to) + 1);
    memcpy(s, POD, a);
    strcpy(s + a, to);
    strcat(s, pos + strlen(from));
    return s;
}

static void check(const char *label, const char *patch, const char *from, const char *to)
{
    char *want = pod_with(from, to);
    smp(label, POD, patch, want);
    free(want);
}

static void strategic(void)
{
    /* what kubectl apply sends after a label change and an image bump */
    check("apply: label change, unchanged container merged by name",
          "{\"metadata\":{\"labels\":{\"old\":\"y\"}},\"spec\":{\"$setElementOrder/containers\":"
          "[{\"name\":\"app\"},{\"name\":\"side\"}],\"containers\":[{\"image\":\"busybox:1.35\","
          "\"name\":\"app\",\"command\":[\"sleep\"]}]}}",
          "\"old\":\"x\"},\"finalizers\"", "\"old\":\"y\"},\"finalizers\"");
    char *w = pod_with("busybox:1.35", "busybox:1.36");
    smp("image bump keeps command, env, ports and the other container", POD,
        "{\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"busybox:1.36\"}]}}", w);
    free(w);
    check("null deletes a label", "{\"metadata\":{\"labels\":{\"old\":null}}}", ",\"old\":\"x\"}",
          "}");
    check("apply removes a container: $patch delete + $setElementOrder",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"app\"}],\"containers\":"
          "[{\"$patch\":\"delete\",\"name\":\"side\"}]}}",
          ",{\"name\":\"side\",\"image\":\"s\"}]", "]");
    check("env: change one, add one, delete one, ordered by $setElementOrder/env",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"app\"},{\"name\":\"side\"}],"
          "\"containers\":[{\"name\":\"app\",\"$setElementOrder/env\":[{\"name\":\"C\"},"
          "{\"name\":\"A\"}],\"env\":[{\"name\":\"A\",\"value\":\"9\"},{\"name\":\"C\","
          "\"value\":\"3\"},{\"$patch\":\"delete\",\"name\":\"B\"}]}]}}",
          "[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}]",
          "[{\"name\":\"C\",\"value\":\"3\"},{\"name\":\"A\",\"value\":\"9\"}]");
    check("new list item without $setElementOrder goes before server items (as in Go)",
          "{\"spec\":{\"containers\":[{\"name\":\"new\",\"image\":\"n\"}]}}", "\"containers\":[",
          "\"containers\":[{\"name\":\"new\",\"image\":\"n\"},");
    check("$setElementOrder places a new container",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"app\"},{\"name\":\"new\"},"
          "{\"name\":\"side\"}],\"containers\":[{\"name\":\"new\",\"image\":\"n\"}]}}",
          "]},{\"name\":\"side\"", "]},{\"name\":\"new\",\"image\":\"n\"},{\"name\":\"side\"");
    check("$setElementOrder reorders without content changes",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"side\"},{\"name\":\"app\"}]}}",
          "\"containers\":[{\"name\":\"app\",\"image\":\"busybox:1.35\",\"command\":[\"sleep\"],"
          "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}],"
          "\"ports\":[{\"containerPort\":80}]},{\"name\":\"side\",\"image\":\"s\"}]",
          "\"containers\":[{\"name\":\"side\",\"image\":\"s\"},{\"name\":\"app\",\"image\":"
          "\"busybox:1.35\",\"command\":[\"sleep\"],\"env\":[{\"name\":\"A\",\"value\":\"1\"},"
          "{\"name\":\"B\",\"value\":\"2\"}],\"ports\":[{\"containerPort\":80}]}]");
    check("$patch: replace on a map replaces it",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"replace\",\"gpu\":\"a100\"}}}",
          "{\"gpu\":\"v100\",\"zone\":\"z\"}", "{\"gpu\":\"a100\"}");
    check("maps merge by default", "{\"spec\":{\"nodeSelector\":{\"gpu\":\"a100\"}}}",
          "{\"gpu\":\"v100\",\"zone\":\"z\"}", "{\"gpu\":\"a100\",\"zone\":\"z\"}");
    check("$patch: replace in a list replaces the list",
          "{\"spec\":{\"containers\":[{\"name\":\"only\",\"image\":\"o\"},{\"$patch\":\"replace\"}]"
          "}}",
          "\"containers\":[{\"name\":\"app\",\"image\":\"busybox:1.35\",\"command\":[\"sleep\"],"
          "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}],"
          "\"ports\":[{\"containerPort\":80}]},{\"name\":\"side\",\"image\":\"s\"}]",
          "\"containers\":[{\"name\":\"only\",\"image\":\"o\"}]");
    check("$patch: delete on a map empties it",
          "{\"spec\":{\"securityContext\":{\"$patch\":\"delete\"}}}", "{\"runAsUser\":1000}", "{}");
    check("$retainKeys clears the other members of a union (volume source)",
          "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{},\"$retainKeys\":[\"emptyDir\","
          "\"name\"]}]}}",
          "{\"name\":\"v\",\"hostPath\":{\"path\":\"/x\"}}", "{\"name\":\"v\",\"emptyDir\":{}}");
    check("$deleteFromPrimitiveList removes from a set",
          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"a\"]}}", "[\"a\",\"b\"]",
          "[\"b\"]");
    check("finalizers merge as a set, ordered by $setElementOrder",
          "{\"metadata\":{\"$setElementOrder/"
          "finalizers\":[\"a\",\"c\",\"b\"],\"finalizers\":[\"c\"]}}",
          "[\"a\",\"b\"]", "[\"a\",\"c\",\"b\"]");
    check("finalizers without order: new value first, duplicates dropped",
          "{\"metadata\":{\"finalizers\":[\"b\",\"z\"]}}", "[\"a\",\"b\"]", "[\"a\",\"b\",\"z\"]");
    check("tolerations have no patch strategy: replaced",
          "{\"spec\":{\"tolerations\":[{\"key\":\"t2\"}]}}", "[{\"key\":\"t1\"}]",
          "[{\"key\":\"t2\"}]");
    check("command is atomic: replaced",
          "{\"spec\":{\"containers\":[{\"name\":\"app\","
          "\"command\":[\"sh\",\"-c\",\"x\"]}]}}",
          "[\"sleep\"]", "[\"sh\",\"-c\",\"x\"]");
    check("status conditions merge by type, order kept",
          "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}",
          "{\"type\":\"Ready\",\"status\":\"False\"}", "{\"type\":\"Ready\",\"status\":\"True\"}");
    check("ports merge by containerPort (a number)",
          "{\"spec\":{\"containers\":[{\"name\":\"app\",\"ports\":[{\"containerPort\":80,"
          "\"name\":\"http\"}]}]}}",
          "[{\"containerPort\":80}]", "[{\"containerPort\":80,\"name\":\"http\"}]");
    check("ownerReferences merge by uid",
          "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"u1\",\"controller\":true}]}}",
          "[{\"uid\":\"u1\",\"name\":\"j\"}]",
          "[{\"uid\":\"u1\",\"name\":\"j\",\"controller\":true}]");
    check(
        "an added subtree loses its nulls and directives",
        "{\"spec\":{\"affinity\":{\"nodeAffinity\":null,\"x\":{\"$patch\":\"replace\",\"y\":1}}}}",
        "\"securityContext\"", "\"affinity\":{\"x\":{\"y\":1}},\"securityContext\"");
    check("a scalar replaces a map", "{\"spec\":{\"nodeSelector\":\"none\"}}",
          "{\"gpu\":\"v100\",\"zone\":\"z\"}", "\"none\"");
    check("empty patch changes nothing", "{}", "\"p\"", "\"p\"");

    smp_err("list item without its merge key", POD,
            "{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}",
            "does not contain declared merge key: name");
    smp_err("unknown $patch", POD, "{\"spec\":{\"$patch\":\"bogus\"}}",
            "unknown patch type: \"bogus\" in map");
    smp_err("$patch: merge in a list", POD, "{\"spec\":{\"containers\":[{\"$patch\":\"merge\"}]}}",
            "merging lists cannot yet be specified in the patch");
    smp_err(
        "$retainKeys must list patched keys", POD,
        "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{},\"$retainKeys\":[\"name\"]}]}}",
        "invalid patch format of retainKeys");
    smp_err("$setElementOrder must be a list", POD,
            "{\"spec\":{\"$setElementOrder/containers\":{}}}",
            "invalid patch format of setElementOrder list");
    smp_err("patch must be an object", POD, "[1]", "must be a JSON object");

    /* a Job: the pod template inside merges by the Pod rules */
    json_t *job =
        J("{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"spec\":{\"template\":{\"spec\":"
          "{\"containers\":[{\"name\":\"c\",\"image\":\"a\",\"env\":[{\"name\":\"X\"}]}]}}}}");
    json_t *p = J(
        "{\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"b\"}]}}}}");
    json_t *r = sl_kube_strategic_merge("batch/v1", "Job", job, p, NULL);
    json_t *c0 = json_array_get(
        json_object_get(
            json_object_get(json_object_get(json_object_get(r, "spec"), "template"), "spec"),
            "containers"),
        0);
    ok(json_object_get(c0, "env") != NULL &&
           !strcmp(json_string_value(json_object_get(c0, "image")), "b"),
       "Job template containers merge by name");
    json_decref(r);
    json_decref(p);
    json_decref(job);
    /* an unknown kind: lists replace */
    json_t *cm = J("{\"data\":{\"a\":\"1\"},\"list\":[{\"name\":\"x\",\"v\":1}]}");
    p = J("{\"data\":{\"b\":\"2\"},\"list\":[{\"name\":\"x\",\"w\":2}]}");
    r = sl_kube_strategic_merge("v1", "ConfigMap", cm, p, NULL);
    char *s = canon(r);
    is_str(s, "{\"data\":{\"a\":\"1\",\"b\":\"2\"},\"list\":[{\"name\":\"x\",\"w\":2}]}",
           "ConfigMap: maps merge, untagged lists replace");
    free(s);
    json_decref(r);
    json_decref(p);
    json_decref(cm);
}

int main(void)
{
    rfc7386();
    strategic();
    return tap_done();
}
