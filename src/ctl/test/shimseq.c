/* shimseq — pushed shim events applied in order, each once; the missed
 * ones read from events.jsonl (runs of a requeued job included). */
#include "ctl/shimseq.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static ctl_shimseq_pos_t P(long long pid, long long seq) { return (ctl_shimseq_pos_t){pid, seq}; }

/* the seq values selected, as "pid:seq pid:seq" */
static char *sel(const char *data, ctl_shimseq_pos_t from, ctl_shimseq_pos_t upto,
                 ctl_shimseq_pos_t *last)
{
    json_t *a = ctl_shimseq_select(data, from, upto, last);
    static char buf[256];
    buf[0] = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(a, i, ev)
    {
        char one[32];
        snprintf(one, sizeof(one), "%s%s%lld", i ? " " : "",
                 json_string_value(json_object_get(ev, "event")),
                 (long long)json_integer_value(json_object_get(ev, "seq")));
        strncat(buf, one, sizeof(buf) - strlen(buf) - 1);
    }
    json_decref(a);
    return buf;
}

int main(void)
{
    tap_plan(20);
    ok(ctl_shimseq_classify(P(0, 0), P(7, 1)) == CTL_SHIMSEQ_APPLY,
       "the first event of a run applies");
    ok(ctl_shimseq_classify(P(7, 3), P(7, 4)) == CTL_SHIMSEQ_APPLY, "the next event applies");
    ok(ctl_shimseq_classify(P(7, 3), P(7, 3)) == CTL_SHIMSEQ_DUP &&
           ctl_shimseq_classify(P(7, 3), P(7, 1)) == CTL_SHIMSEQ_DUP,
       "an event at or before the position is a duplicate");
    ok(ctl_shimseq_classify(P(7, 3), P(7, 5)) == CTL_SHIMSEQ_GAP, "one skipped: a gap");
    ok(ctl_shimseq_classify(P(0, 0), P(7, 4)) == CTL_SHIMSEQ_GAP,
       "after a restart (no position) an event past seq 1 is a gap");
    ok(ctl_shimseq_classify(P(7, 9), P(8, 1)) == CTL_SHIMSEQ_APPLY,
       "a new run (another shimPid) starting at 1 applies");
    ok(ctl_shimseq_classify(P(7, 9), P(8, 3)) == CTL_SHIMSEQ_GAP,
       "a new run whose first events were missed is a gap");
    ok(ctl_shimseq_classify(P(7, 3), P(0, 0)) == CTL_SHIMSEQ_APPLY,
       "an event without shimPid or seq applies (no order known)");

    const char *file = "{\"event\":\"pod-started\",\"shimPid\":7,\"seq\":1}\n"
                       "{\"event\":\"started\",\"shimPid\":7,\"seq\":2}\n"
                       "{\"event\":\"exited\",\"shimPid\":7,\"seq\":3}\n"
                       "not json\n"
                       "{\"event\":\"pod-finished\",\"shimPid\":7,\"seq\":4}\n"
                       "{\"event\":\"pod-started\",\"shimPid\":8,\"seq\":1}\n"
                       "{\"event\":\"started\",\"seq\":2}\n"
                       "{\"event\":\"exited\",\"shimPid\":8,\"seq\":3}\n";
    ctl_shimseq_pos_t last;
    is_str(sel(file, P(0, 0), P(0, 0), &last),
           "pod-started1 started2 exited3 pod-finished4 pod-started1 started2 exited3",
           "no position: every event, both runs, in file order; a line that is not JSON left out");
    ok(last.pid == 8 && last.seq == 3, "the position after is the last run's last event");
    is_str(sel(file, P(7, 2), P(0, 0), &last),
           "exited3 pod-finished4 pod-started1 started2 exited3",
           "from 7:2: the rest of that run, then the later run whole");
    is_str(sel(file, P(8, 1), P(0, 0), &last), "started2 exited3",
           "from 8:1: the earlier run is left out; a line without shimPid is its run's");
    ok(last.pid == 8 && last.seq == 3, "position 8:3");
    is_str(sel(file, P(7, 0), P(7, 2), &last), "pod-started1 started2",
           "a gap before 7:3: events 1 and 2 of run 7");
    ok(last.pid == 7 && last.seq == 2, "position 7:2");
    is_str(sel(file, P(8, 0), P(8, 2), &last), "pod-started1 started2",
           "a gap before 8:3 of a new run: its own events only");
    is_str(sel(file, P(8, 3), P(0, 0), &last), "", "at the end: nothing");
    ok(last.pid == 8 && last.seq == 3, "the position is kept when nothing is selected");
    is_str(sel(file, P(9, 2), P(0, 0), &last), "", "a run the file does not have: nothing");
    is_str(sel(NULL, P(0, 0), P(0, 0), &last), "", "no file: nothing");
    return tap_done();
}
