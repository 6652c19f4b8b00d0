/* jobindex — a Job's index sets as interval strings (completedIndexes) and
 * as Slurm --array values, and back. */
#include "kinds/job/jobindex.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static void iv(const char *bits, const char *want)
{
    size_t n = strlen(bits);
    unsigned char set[64];
    for (size_t i = 0; i < n; i++)
        set[i] = bits[i] == '1';
    char *s = ctl_index_intervals(set, n);
    is_str(s, want, "%s → \"%s\"", bits, want);
    unsigned char back[64];
    ok(ctl_index_parse(s, back, n) == 0 && !memcmp(back, set, n), "\"%s\" parses back", s);
    free(s);
}

int main(void)
{
    tap_plan(23);
    iv("", "");
    iv("0000", "");
    iv("1111", "0-3");
    iv("11110100", "0-3,5");
    iv("1010111", "0,2,4-6");
    iv("01", "1");
    unsigned char set[8];
    ok(ctl_index_parse("0-3,2", set, 8) == 0 && set[0] && set[3] && !set[4],
       "overlapping intervals are accepted");
    ok(ctl_index_parse("3-1", set, 8) < 0, "a reversed interval is refused");
    ok(ctl_index_parse("0,8", set, 8) < 0, "an index past the end is refused");
    ok(ctl_index_parse("0,,1", set, 8) < 0 && ctl_index_parse("x", set, 8) < 0 &&
           ctl_index_parse("1,", set, 8) < 0,
       "malformed strings are refused");
    unsigned char six[6] = {1, 1, 1, 1, 1, 1};
    char *a = ctl_index_array_spec(six, 6, 2);
    is_str(a, "0-5%2", "--array of 6 tasks, 2 at a time");
    free(a);
    unsigned char two[8] = {0, 0, 0, 1, 0, 0, 0, 1};
    a = ctl_index_array_spec(two, 8, 0);
    is_str(a, "3,7", "--array of two retried indexes, no throttle");
    free(a);
    unsigned char ok5[5] = {1, 0, 0, 0, 0}, three[5] = {1, 1, 0, 1, 0};
    json_t *rules =
        json_loads("[{\"succeededIndexes\": \"3-4\"}, {\"succeededCount\": 1}]", 0, NULL);
    is_int(ctl_index_success_rule(rules, ok5, 5), 1, "successPolicy: the first rule met is rule 1");
    is_int(ctl_index_success_rule(rules, (unsigned char[5]){0}, 5), -1, "none succeeded: no rule");
    json_decref(rules);
    rules = json_loads("[{\"succeededIndexes\": \"0-3\", \"succeededCount\": 3}]", 0, NULL);
    is_int(ctl_index_success_rule(rules, three, 5), 0, "succeededCount of succeededIndexes");
    is_int(ctl_index_success_rule(rules, ok5, 5), -1, "too few of them");
    json_decref(rules);
    rules = json_loads("[{\"succeededIndexes\": \"0,3\"}]", 0, NULL);
    is_int(ctl_index_success_rule(rules, three, 5), 0, "all of succeededIndexes");
    json_decref(rules);
    return tap_done();
}
