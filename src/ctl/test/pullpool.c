/* Unit tests: the bounded pool of image pulls (pullpool.h): at most the
 * total, at most the per-namespace count, slots given back, no limit. */
#include "ctl/pullpool.h"
#include "common/tap.h"

int main(void)
{
    ctl_pullpool_t *pp = ctl_pullpool_create(3, 2);
    ok(ctl_pullpool_take(pp, "a") && ctl_pullpool_take(pp, "a"), "two pulls of namespace a");
    ok(!ctl_pullpool_take(pp, "a"), "a third of a waits (2 per namespace)");
    ok(ctl_pullpool_take(pp, "b"), "one of b");
    ok(!ctl_pullpool_take(pp, "c"), "one of c waits (3 in all)");
    is_int(ctl_pullpool_running(pp, NULL), 3, "3 running");
    is_int(ctl_pullpool_running(pp, "a"), 2, "2 of a");
    ctl_pullpool_give(pp, "a");
    ok(ctl_pullpool_take(pp, "c"), "a slot given back: c's pull starts");
    ctl_pullpool_give(pp, "b");
    ctl_pullpool_give(pp, "c");
    ctl_pullpool_give(pp, "a");
    is_int(ctl_pullpool_running(pp, NULL), 0, "all given back");
    is_int(ctl_pullpool_running(pp, "a"), 0, "none of a");
    ctl_pullpool_give(pp, "z"); /* never taken: no effect */
    is_int(ctl_pullpool_running(pp, NULL), 0, "a slot never taken is not given back");
    ctl_pullpool_destroy(pp);
    pp = ctl_pullpool_create(0, 0);
    int n = 0;
    for (int i = 0; i < 100; i++)
        n += ctl_pullpool_take(pp, "a");
    is_int(n, 100, "0: no limit");
    ctl_pullpool_destroy(pp);
    return tap_done();
}
