/* Unit tests: the kubelet's crash-loop back-off sequence. */
#include "shimlib/backoff.h"
#include "common/tap.h"

#include <stdlib.h>

int main(void)
{
    sl_backoff_t b;
    unsetenv("SLURMLINK_SHIM_BACKOFF_MS");
    sl_backoff_init(&b);
    const long long want[] = {10000, 20000, 40000, 80000, 160000, 300000, 300000, 300000};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        is_int(sl_backoff_next(&b, 1000), want[i], "restart %zu waits %lld ms", i + 1, want[i]);

    /* a run of 10 minutes resets the sequence; 9:59.999 does not */
    is_int(sl_backoff_next(&b, SL_BACKOFF_RESET_MS - 1), 300000, "just under 10 min: still capped");
    is_int(sl_backoff_next(&b, SL_BACKOFF_RESET_MS), 10000, "10 min run resets to 10 s");
    is_int(sl_backoff_next(&b, 0), 20000, "then doubles again");

    setenv("SLURMLINK_SHIM_BACKOFF_MS", "100", 1);
    sl_backoff_init(&b);
    is_int(b.base_ms, 100, "env knob sets the base");
    is_int(b.max_ms, 3000, "and the cap to 30x base");
    is_int(sl_backoff_next(&b, 0), 100, "knob: 100");
    is_int(sl_backoff_next(&b, 0), 200, "knob: 200");
    for (int i = 0; i < 10; i++)
        sl_backoff_next(&b, 0);
    is_int(sl_backoff_next(&b, 0), 3000, "knob: capped at 3000");

    setenv("SLURMLINK_SHIM_BACKOFF_MS", "junk", 1);
    sl_backoff_init(&b);
    is_int(b.base_ms, SL_BACKOFF_BASE_MS, "junk knob ignored");
    setenv("SLURMLINK_SHIM_BACKOFF_MS", "0", 1);
    sl_backoff_init(&b);
    is_int(sl_backoff_next(&b, 0), 0, "knob 0: restart at once");
    is_int(sl_backoff_next(&b, 0), 0, "knob 0: stays 0");
    unsetenv("SLURMLINK_SHIM_BACKOFF_MS");
    return tap_done();
}
