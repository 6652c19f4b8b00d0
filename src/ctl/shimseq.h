/* shimseq.h — the shim's events applied in order, each once. A shim run
 * numbers its events 1, 2, … (seq) and names itself in each (shimPid); it
 * appends every event to the pod folder's events.jsonl before it pushes
 * it, and a failed push is not retried (docs/shim-spec.md). So a pushed
 * event that is not the next one says some were missed: they are read from
 * the file first. Pure functions, no state: the position is the caller's. */
#ifndef SL_CTL_SHIMSEQ_H
#define SL_CTL_SHIMSEQ_H

#include <jansson.h>

/* the last event applied: its run (shimPid; 0: none yet) and seq */
typedef struct ctl_shimseq_pos {
    long long pid, seq;
} ctl_shimseq_pos_t;

typedef enum {
    CTL_SHIMSEQ_APPLY, /* the next event (or one without shimPid: no order known) */
    CTL_SHIMSEQ_DUP,   /* applied already (pushed and replayed both) */
    CTL_SHIMSEQ_GAP,   /* events before it were missed: replay them first */
} ctl_shimseq_verdict_t;

/* the event's run and seq (0 when absent or not integers) */
ctl_shimseq_pos_t ctl_shimseq_of(json_t *ev);

/* what to do with a pushed event ev after position pos */
ctl_shimseq_verdict_t ctl_shimseq_classify(ctl_shimseq_pos_t pos, ctl_shimseq_pos_t ev);

/* The events of events.jsonl text data that come after `from` (every one
 * when from.pid is 0; else those of from's run past from.seq, then those of
 * the runs written after it), stopping after `upto` (upto.pid 0: to the
 * end). A line without shimPid belongs to the run of the pod-started
 * before it; lines that are not JSON objects are left out. Returns a new
 * array (in file order); *last is the position of its last event (from
 * when it is empty). */
json_t *ctl_shimseq_select(const char *data, ctl_shimseq_pos_t from, ctl_shimseq_pos_t upto,
                           ctl_shimseq_pos_t *last);

#endif
