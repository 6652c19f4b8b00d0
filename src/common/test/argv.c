/* argv: a vector stays NULL-terminated as it grows, its strings are its
 * own, and sl_strv_free takes back what sl_argv_t hands over (the ASan
 * build of this test fails on a leak or a double free). */
#include "common/argv.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    sl_argv_t a = SL_ARGV_INIT;
    char word[] = "one";
    sl_argv_add(&a, word);
    word[0] = 'X';
    is_str(a.v[0], "one", "a string is copied");
    for (int i = 0; i < 40; i++)
        sl_argv_addf(&a, "w%d", i);
    const char *const more[] = {"x y", "it's", NULL};
    sl_argv_addv(&a, more);
    ok(a.n == 43 && a.v[43] == NULL, "43 words, NULL-terminated after growing");
    ok(!strcmp(a.v[40], "w39") && !strcmp(a.v[41], "x y") && !strcmp(a.v[42], "it's"),
       "addf and addv append in order");
    char *j = sl_argv_join(&a);
    ok(j && strstr(j, "one w0 ") == j && strstr(j, "'x y'"), "join quotes what needs it: %s",
       j ? j + strlen(j) - 20 : "");
    free(j);
    char **v = a.v; /* handed over: the vector and its strings */
    a.v = NULL;
    a.n = a.cap = 0;
    sl_strv_free(v); /* a leak or a double free fails asan-common_argv */
    sl_strv_free(NULL);
    sl_argv_free(&a);
    is_int((int)a.n, 0, "an emptied vector frees to nothing");
    return tap_done();
}
