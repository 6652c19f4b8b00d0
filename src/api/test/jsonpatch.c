/* jsonpatch — RFC 6902 operations and evanphx/json-patch error texts. */
#include "api/jsonpatch.h"
#include "common/buf.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static char *run(const char *doc, const char *patch, size_t limit, int *code)
{
    json_t *d = json_loads(doc, 0, NULL), *p = json_loads(patch, JSON_DECODE_ANY, NULL);
    sl_error_t err = SL_ERROR_INIT;
    json_t *out = api_json_patch(d, p, limit, &err);
    char *s = out ? json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS) : strdup(err.text);
    /* the code kube-apiserver answers for the error's kind */
    *code = out                              ? 0
            : err.kind == SL_ERR_BAD_REQUEST ? 400
            : err.kind == SL_ERR_TOO_LARGE   ? 413
            : err.kind == SL_ERR_INVALID     ? 422
                                             : -1;
    json_decref(out);
    json_decref(d);
    json_decref(p);
    return s;
}

static void check(const char *doc, const char *patch, const char *want, const char *name)
{
    int code = 0;
    char *got = run(doc, patch, 0, &code);
    is_str(got, want, "%s", name);
    free(got);
}

int main(void)
{
    check("{\"a\":{\"b\":1}}", "[{\"op\":\"add\",\"path\":\"/a/c\",\"value\":2}]", "{\"a\":{\"b\":1,\"c\":2}}", "add to object");
    check("{\"l\":[1,3]}", "[{\"op\":\"add\",\"path\":\"/l/1\",\"value\":2}]", "{\"l\":[1,2,3]}", "add into array");
    check("{\"l\":[1]}", "[{\"op\":\"add\",\"path\":\"/l/-\",\"value\":2}]", "{\"l\":[1,2]}", "append with -");
    check("{\"a\":1,\"b\":2}", "[{\"op\":\"remove\",\"path\":\"/a\"}]", "{\"b\":2}", "remove");
    check("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":5}]", "{\"a\":5}", "replace");
    check("{\"a\":1}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/b\"}]", "{\"b\":1}", "move");
    check("{\"a\":[1]}", "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/b\"}]", "{\"a\":[1],\"b\":[1]}", "copy");
    check("{\"a/b\":1,\"c~d\":2}", "[{\"op\":\"remove\",\"path\":\"/a~1b\"},{\"op\":\"remove\",\"path\":\"/c~0d\"}]", "{}", "escapes ~1 ~0");
    check("{\"a\":1}", "[{\"op\":\"test\",\"path\":\"/a\",\"value\":1},{\"op\":\"add\",\"path\":\"/t\",\"value\":true}]", "{\"a\":1,\"t\":true}", "test passes");
    check("{\"a\":1}", "[{\"op\":\"test\",\"path\":\"/a\",\"value\":2}]", "testing value /a failed: test failed", "test fails");
    check("{}", "[{\"op\":\"remove\",\"path\":\"/x\"}]", "remove operation does not apply: doc is missing path: \"/x\"", "remove missing");
    check("{}", "[{\"op\":\"add\",\"path\":\"/x/y\",\"value\":1}]", "add operation does not apply: doc is missing path: \"/x/y\"", "add under missing parent");
    check("{}", "[{\"op\":\"frob\",\"path\":\"/x\"}]", "Unexpected kind: frob", "unknown op");
    int code = 0;
    char *got = run("{}", "{\"op\":\"add\"}", 0, &code);
    ok(code == 400, "a patch that is not a list is a decode error (400)");
    is_str(got, "json: cannot unmarshal object into Go value of type jsonpatch.Patch", "its text");
    free(got);

    /* copy budget: {"a":{"s":"xxxxxxxx"}} has 16 bytes of JSON at /a */
    const char *dbl = "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/a/c1\"},"
                      "{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/a/c2\"}]";
    got = run("{\"a\":{\"s\":\"xxxxxxxx\"}}", dbl, 100, &code);
    ok(!strncmp(got, "{\"a\":{\"c1\":", 11), "copies within the budget apply");
    free(got);
    got = run("{\"a\":{\"s\":\"xxxxxxxx\"}}", dbl, 40, &code);
    is_str(got,
           "Unable to complete the copy, the accumulated size increase of copy is 54, exceeding "
           "the limit 40",
           "the copy that passes the budget is refused (16 + 38 > 40), evanphx's text");
    ok(code == 422, "... 422");
    free(got);
    sl_buf_t many = {0};
    sl_buf_append(&many, "[", 1);
    for (int i = 0; i <= API_JSONPATCH_MAX_OPS; i++)
        sl_buf_printf(&many, "%s{\"op\":\"test\",\"path\":\"/a\",\"value\":1}", i ? "," : "");
    sl_buf_append(&many, "]", 1);
    got = run("{\"a\":1}", many.data, 0, &code);
    is_str(got, "The allowed maximum operations in a JSON patch is 10000, got 10001",
           "10001 operations: kube-apiserver's text");
    ok(code == 413, "... 413");
    free(got);
    sl_buf_free(&many);
    return tap_done();
}
