/* pollgap — the job poll's spacing: the configured period while a poll is
 * cheap; ten times a poll's duration when the job table makes it costly (a
 * poll reads every job slurmctld holds, of every user), within a ceiling. */
#include "common/tap.h"
#include "ctl/internal.h"

int main(void)
{
    tap_plan(6);
    is_int(ctl_poll_gap(250, 0), 250, "an instant poll: the period");
    is_int(ctl_poll_gap(250, 20), 250, "20 ms: still the period (a tenth of it would be 200)");
    is_int(ctl_poll_gap(250, 66), 660, "66 ms (18,000 jobs held): ten times that");
    is_int(ctl_poll_gap(1000, 66), 1000, "a longer period configured: kept");
    is_int(ctl_poll_gap(250, 2000), CTL_POLL_GAP_MAX_MS, "a 2 s poll: the ceiling");
    is_int(ctl_poll_gap(60000, 2000), 60000, "the ceiling never shortens a configured period");
    return tap_done();
}
