/* quote: every input survives a round trip through /bin/sh unchanged. */
#include "common/argv.h"
#include "common/proc.h"
#include "common/quote.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <stdlib.h>

static void roundtrip(const char *in, const char *label)
{
    char *q = sl_shell_quote(in);
    char *script = sl_xasprintf("printf %%s %s", q);
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    char *out = NULL;
    int rc = sl_run(argv, NULL, 0, 5000, &out, NULL);
    ok(rc == 0 && out && strcmp(out, in) == 0, "round trip: %s", label);
    free(out);
    free(script);
    free(q);
}

int main(void)
{
    char *q = sl_shell_quote("plain-word_1.2/x=y");
    is_str(q, "plain-word_1.2/x=y", "safe words stay bare");
    free(q);
    q = sl_shell_quote("");
    is_str(q, "''", "empty string is ''");
    free(q);
    q = sl_shell_quote("it's");
    is_str(q, "'it'\\''s'", "single quote is closed, escaped, reopened");
    free(q);

    roundtrip("hello world", "space");
    roundtrip("$(touch /tmp/pwned) `id` $HOME ${X}", "substitutions");
    roundtrip("a'b\"c\\d", "quotes and backslash");
    roundtrip("line1\nline2\n", "newlines");
    roundtrip("*?[a-z]~ ; | & > < #", "globs and operators");
    roundtrip("\x01\x7f\xff\xfe utf8: \xc3\xa9", "control and high bytes");
    roundtrip("-n", "leading dash");
    roundtrip("''''", "only quotes");

    /* pseudo-random bytes */
    srand(42);
    for (int i = 0; i < 50; i++) {
        char s[40];
        int n = rand() % 39;
        for (int j = 0; j < n; j++)
            s[j] = (char)(1 + rand() % 255);
        s[n] = '\0';
        char label[32];
        snprintf(label, sizeof(label), "random %d", i);
        roundtrip(s, label);
    }

    sl_argv_t a = SL_ARGV_INIT;
    sl_argv_add(&a, "echo");
    sl_argv_add(&a, "a b");
    sl_argv_addf(&a, "%d", 42);
    char *j = sl_argv_join(&a);
    is_str(j, "echo 'a b' 42", "argv join quotes each element");
    ok(a.v[a.n] == NULL, "argv stays NULL-terminated");
    free(j);
    sl_argv_free(&a);
    return tap_done();
}
