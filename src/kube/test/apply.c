/* apply: server-side apply creates, updates, prunes what a manager stopped
 * applying, keeps what others own, records managedFields. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/tap.h"
#include "kube/meta.h"
#include "kube/patch.h"

static json_t *J(const char *s)
{
    json_error_t e;
    json_t *j = json_loads(s, 0, &e);
    if (!j)
        fprintf(stderr, "bad test JSON: %s\n", e.text);
    return j;
}

static char *at(json_t *o, const char *path)
{
    json_t *v = sl_kube_path(o, path);
    return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
}

static void is_at(json_t *o, const char *path, const char *want, const char *label)
{
    char *s = at(o, path);
    is_str(s, want, "%s (%s)", label, path);
    free(s);
}

#define CFG1                                                                                       \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"d\","    \
    "\"labels\":{\"app\":\"web\",\"tier\":\"1\"}},\"spec\":{\"containers\":[{\"name\":\"c\","      \
    "\"image\":\"busybox\",\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":"   \
    "\"2\"}]},{\"name\":\"side\",\"image\":\"s\"}],\"tolerations\":[{\"key\":\"k\"}]}}"

#define CFG2                                                                                       \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"namespace\":\"d\","    \
    "\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":"           \
    "\"busybox:1.36\",\"env\":[{\"name\":\"B\",\"value\":\"2\"}]}]}}"

static json_t *managers_of(json_t *o, const char *field_path)
{
    json_t *out = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(sl_kube_path(o, "metadata.managedFields"), i, e)
    {
        if (sl_kube_path(json_object_get(e, "fieldsV1"), field_path))
            json_array_append(out, json_object_get(e, "manager"));
    }
    return out;
}

#define LABEL_CFG(v)                                                                               \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{\"x\":\""    \
    v "\"}}}"
#define IMAGE_CFG(v)                                                                               \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{"             \
    "\"containers\":[{\"name\":\"c\",\"image\":\"" v "\"}],\"activeDeadlineSeconds\":5}}"

static void conflicts(void)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *a = J(LABEL_CFG("1")), *b = J(LABEL_CFG("2")), *same = J(LABEL_CFG("1"));
    json_t *live = sl_kube_apply(NULL, a, "alice", false, &err);
    ok(live != NULL, "alice applies label x=1");
    errno = 0;
    json_t *r = sl_kube_apply(live, b, "bob", false, &err);
    ok(r == NULL && errno == EBUSY && err.kind == SL_ERR_CONFLICT,
       "bob applying x=2 without force: a conflict");
    is_str(err.text, "Apply failed with 1 conflict: conflict with \"alice\": .metadata.labels.x",
           "the conflict's message names the manager and the field");
    ok(sl_err_nfields(&err) == 1 && sl_err_fieldat(&err, 0)->reason &&
           !strcmp(sl_err_fieldat(&err, 0)->reason, "FieldManagerConflict") &&
           !strcmp(sl_err_fieldat(&err, 0)->field, ".metadata.labels.x"),
       "one FieldManagerConflict cause for .metadata.labels.x");
    sl_error_clear(&err);
    json_t *shared = sl_kube_apply(live, same, "bob", false, &err);
    ok(shared != NULL, "bob applying the same value is no conflict");
    json_t *m = managers_of(shared, "f:metadata.f:labels.f:x");
    is_int(json_array_size(m), 2, "... and both own the field");
    json_decref(m);
    json_t *forced = sl_kube_apply(live, b, "bob", true, &err);
    ok(forced != NULL, "bob with force");
    is_at(forced, "metadata.labels.x", "\"2\"", "force sets the value");
    m = managers_of(forced, "f:metadata.f:labels.f:x");
    ok(json_array_size(m) == 1 && !strcmp(json_string_value(json_array_get(m, 0)), "bob"),
       "force takes the field from alice");
    json_decref(m);

    json_t *ia = J(IMAGE_CFG("one")), *ib = J(IMAGE_CFG("two"));
    json_t *l2 = sl_kube_apply(forced, ia, "alice", false, &err);
    ok(l2 != NULL, "alice applies an image");
    json_t *r2 = sl_kube_apply(l2, ib, "bob", false, &err);
    ok(r2 == NULL, "bob applying another image conflicts");
    is_str(err.text,
           "Apply failed with 1 conflict: conflict with \"alice\": "
           ".spec.containers[name=\"c\"].image",
           "a keyed list item's path");
    sl_error_clear(&err);
    json_t *both = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                     "\"labels\":{\"x\":\"3\"}},\"spec\":{\"containers\":[{\"name\":\"c\","
                     "\"image\":\"two\"}]}}");
    json_t *r3 = sl_kube_apply(l2, both, "carol", false, &err);
    ok(r3 == NULL, "carol against two managers");
    is_str(err.text,
           "Apply failed with 2 conflicts: conflicts with \"alice\":\n"
           "- .spec.containers[name=\"c\"].image\n"
           "conflicts with \"bob\":\n"
           "- .metadata.labels.x",
           "several conflicts are listed per manager, managers sorted");
    sl_error_clear(&err);
    json_decref(both);
    json_decref(ia);
    json_decref(ib);
    json_decref(l2);
    json_decref(forced);
    json_decref(shared);
    json_decref(live);
    json_decref(a);
    json_decref(b);
    json_decref(same);
}

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *cfg1 = J(CFG1), *cfg2 = J(CFG2);

    json_t *live = sl_kube_apply(NULL, cfg1, "kubectl", false, &err);
    ok(live != NULL, "apply creates");
    is_at(live, "metadata.labels", "{\"app\":\"web\",\"tier\":\"1\"}", "labels applied");
    json_t *mf = json_object_get(json_object_get(live, "metadata"), "managedFields");
    is_int(json_array_size(mf), 1, "one managedFields entry");
    json_t *e = json_array_get(mf, 0);
    is_str(json_string_value(json_object_get(e, "manager")), "kubectl", "manager");
    is_str(json_string_value(json_object_get(e, "operation")), "Apply", "operation Apply");
    is_str(json_string_value(json_object_get(e, "fieldsType")), "FieldsV1", "fieldsType");
    json_t *fv = json_object_get(e, "fieldsV1");
    ok(sl_kube_path(fv, "f:metadata.f:labels.f:app") != NULL,
       "fieldsV1 has f:metadata.f:labels.f:app");
    json_t *cs = sl_kube_path(fv, "f:spec.f:containers");
    json_t *c = json_object_get(cs, "k:{\"name\":\"c\"}");
    ok(c && json_object_get(c, ".") && json_object_get(c, "f:image") &&
           json_object_get(json_object_get(c, "f:env"), "k:{\"name\":\"A\"}"),
       "keyed list items in FieldsV1 form");
    ok(json_object_get(fv, "f:apiVersion") == NULL && sl_kube_path(fv, "f:metadata.f:name") == NULL,
       "apiVersion, kind and name are not owned");

    /* what the server and controllers add meanwhile */
    sl_kube_meta_set_str(live, "uid", "u-1");
    sl_kube_set_rv(live, 5);
    sl_kube_set_annotation(live, "controller", "note");
    json_object_set_new(live, "status", json_pack("{s:s}", "phase", "Running"));

    json_t *r = sl_kube_apply(live, cfg2, "kubectl", false, &err);
    ok(r != NULL, "second apply%s%s", r ? "" : ": ", r ? "" : err.text);
    is_at(r, "metadata.labels", "{\"app\":\"web\"}", "label dropped from the config is removed");
    is_at(r, "metadata.annotations", "{\"controller\":\"note\"}", "fields of other writers stay");
    is_at(r, "status.phase", "\"Running\"", "status stays");
    is_at(r, "metadata.uid", "\"u-1\"", "uid stays");
    json_t *ctrs = sl_kube_path(r, "spec.containers");
    is_int(json_array_size(ctrs), 1, "container dropped from the config is removed");
    is_at(json_array_get(ctrs, 0), "image", "\"busybox:1.36\"", "image updated");
    is_at(json_array_get(ctrs, 0), "env", "[{\"name\":\"B\",\"value\":\"2\"}]",
          "env var dropped from the config is removed");
    ok(sl_kube_path(r, "spec.tolerations") == NULL,
       "atomic list dropped from the config is removed");
    is_int(json_array_size(json_object_get(json_object_get(r, "metadata"), "managedFields")), 1,
           "still one managedFields entry");

    /* a second manager shares a label; the first stops applying it */
    json_t *other = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                      "\"labels\":{\"app\":\"web\",\"team\":\"ai\"}}}");
    json_t *r2 = sl_kube_apply(r, other, "helm", false, &err);
    is_int(json_array_size(json_object_get(json_object_get(r2, "metadata"), "managedFields")), 2,
           "two apply managers");
    json_t *cfg3 = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
                     "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox:1.36\"}]}}");
    json_t *r3 = sl_kube_apply(r2, cfg3, "kubectl", false, &err);
    is_at(r3, "metadata.labels", "{\"app\":\"web\",\"team\":\"ai\"}",
          "a label another apply manager owns survives");
    ok(sl_kube_path(r3, "spec.containers") &&
           json_array_size(sl_kube_path(r3, "spec.containers")) == 1,
       "containers kept");

    /* ordering follows the configuration */
    json_t *ord = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},"
                    "\"spec\":{\"containers\":[{\"name\":\"z\",\"image\":\"1\"},{\"name\":\"c\","
                    "\"image\":\"busybox:1.36\"}]}}");
    json_t *r4 = sl_kube_apply(r3, ord, "kubectl", false, &err);
    is_at(r4, "spec.containers",
          "[{\"name\":\"z\",\"image\":\"1\"},{\"name\":\"c\",\"image\":\"busybox:1.36\"}]",
          "list order of the configuration");

    /* conflicts: another apply manager's field set to another value */
    conflicts();

    json_t *bad = J("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"p\"}}");
    errno = 0;
    ok(sl_kube_apply(r4, bad, "kubectl", false, &err) == NULL && errno == EINVAL,
       "kind mismatch rejected");
    has_str(err.text, "does not match", "kind mismatch text");
    json_t *arr = json_array();
    ok(sl_kube_apply(NULL, arr, "kubectl", false, &err) == NULL, "non-object rejected");
    ok(sl_kube_apply(NULL, cfg1, "", false, &err) == NULL, "empty field manager rejected");
    has_str(err.text, "fieldManager is required", "field manager text");

    json_decref(arr);
    json_decref(bad);
    json_decref(ord);
    json_decref(r4);
    json_decref(cfg3);
    json_decref(r3);
    json_decref(other);
    json_decref(r2);
    json_decref(r);
    json_decref(live);
    json_decref(cfg1);
    json_decref(cfg2);
    return tap_done();
}
