/* jsonpatch — RFC 6902 operations and evanphx/json-patch error texts. */
#include "api/jsonpatch.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static char *run(const char *doc, const char *patch, bool *decode)
{
    json_t *d = json_loads(doc, 0, NULL), *p = json_loads(patch, JSON_DECODE_ANY, NULL);
    char *why = NULL;
    json_t *out = api_json_patch(d, p, &why, decode);
    char *s = out ? json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS) : why;
    if (out)
        free(why);
    json_decref(out);
    json_decref(d);
    json_decref(p);
    return s;
}

static void check(const char *doc, const char *patch, const char *want, const char *name)
{
    bool decode = false;
    char *got = run(doc, patch, &decode);
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
    bool decode = false;
    char *got = run("{}", "{\"op\":\"add\"}", &decode);
    ok(decode, "a patch that is not a list is a decode error");
    is_str(got, "json: cannot unmarshal object into Go value of type jsonpatch.Patch", "its text");
    free(got);
    return tap_done();
}
