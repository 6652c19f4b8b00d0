/* proc: sl_run with real children, and sl_run_tail, the end of a tool's
 * output that an error message quotes. */
#include "../proc.h"

#include <stdlib.h>
#include <string.h>

#include "../tap.h"

static void tail_cases(void)
{
    char *t = sl_run_tail(NULL, 100);
    is_str(t, "", "no output: an empty tail");
    free(t);
    t = sl_run_tail("ERROR: disk full\n\n", 100);
    is_str(t, "ERROR: disk full", "a short output is whole, without its trailing newlines");
    free(t);

    /* a long output: its end is kept, from a line's start within the limit */
    char big[2000];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(big + n, sizeof(big) - n, "line %02d of the noise before it\n", i);
    snprintf(big + n, sizeof(big) - n, "ERROR: the reason\n");
    t = sl_run_tail(big, 100);
    ok(strlen(t) <= 100 + 4, "a long output is clipped to the limit (%zu)", strlen(t));
    ok(strstr(t, "ERROR: the reason") != NULL, "the clip keeps the output's last line");
    ok(!strncmp(t, "... line ", 9), "the clip starts at a whole line, marked as clipped: %.20s", t);
    free(t);

    /* one long line: its last bytes */
    char line[500];
    memset(line, 'x', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\0';
    line[sizeof(line) - 2] = 'Z';
    t = sl_run_tail(line, 50);
    ok(strlen(t) == 54 && t[53] == 'Z' && !strncmp(t, "... ", 4),
       "a clipped single line keeps its last 50 bytes");
    free(t);
}

static void run_cases(void)
{
    const char *argv[] = {"/bin/sh", "-c", "printf 'out\\n'; printf 'err\\n' >&2; exit 3", NULL};
    char *out = NULL;
    sl_error_t err;
    int st = sl_run(argv, NULL, 1, 10000, &out, &err);
    is_int(st, 3, "sl_run returns the exit status");
    is_str(out, "out\nerr\n", "merged stdout and stderr are captured");
    free(out);
    out = NULL;
    st = sl_run(argv, NULL, 0, 10000, &out, &err);
    is_str(out, "out\n", "without merge only stdout is captured");
    free(out);
}

int main(void)
{
    tap_plan(9);
    tail_cases();
    run_cases();
    return tap_done();
}
