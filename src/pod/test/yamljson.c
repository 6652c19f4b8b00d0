/* yamljson: YAML → JSON as Kubernetes' loader converts it; alias expansion
 * bounded with go-yaml's rule. */
#include "pod/yamljson.h"
#include "common/buf.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static char *convert(const char *yaml, char *why, size_t whylen)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *docs = sl_yaml_to_json(yaml, strlen(yaml), &err);
    size_t n = strnlen(err.text, whylen - 1);
    memcpy(why, err.text, n);
    why[n] = '\0';
    char *s = docs ? json_dumps(docs, JSON_COMPACT) : NULL;
    json_decref(docs);
    return s;
}

/* Nine levels of nine aliases of the level below: 9^7 leaves. */
static char *bomb(int levels)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < levels; i++) {
        sl_buf_printf(&b, "a%d: &a%d [", i, i);
        for (int k = 0; k < 9; k++)
            sl_buf_printf(&b, "%s*a%d", k ? ", " : "", i - 1);
        sl_buf_puts(&b, "]\n");
    }
    return sl_buf_steal(&b);
}

int main(void)
{
    char why[256];
    char *s = convert("l: &l {app: web}\nm: *l\nn: *l\n", why, sizeof(why));
    is_str(s, "[{\"l\":{\"app\":\"web\"},\"m\":{\"app\":\"web\"},\"n\":{\"app\":\"web\"}}]",
           "a few aliases are resolved");
    free(s);

    char *y = bomb(3); /* 9 + 81 + 729 leaves: under go-yaml's 1000 nodes */
    s = convert(y, why, sizeof(why));
    ok(s != NULL, "three levels (under 1000 nodes) convert");
    free(s);
    free(y);

    y = bomb(7);
    s = convert(y, why, sizeof(why));
    ok(s == NULL, "seven levels (9^7 leaves from a few hundred bytes) are refused");
    is_str(why, "yaml: document contains excessive aliasing", "... with go-yaml's text");
    free(s);
    free(y);

    /* a large document that is mostly itself, with a few aliases, is fine */
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "base: &b {k: v}\nitems:\n");
    for (int i = 0; i < 5000; i++)
        sl_buf_printf(&b, "- {n: %d, ref: %s}\n", i, i % 50 ? "plain" : "*b");
    s = convert(b.data, why, sizeof(why));
    ok(s != NULL, "5000 items with 100 aliases convert (%s)", why);
    free(s);
    sl_buf_free(&b);
    return tap_done();
}
