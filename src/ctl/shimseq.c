/* shimseq.c — the order of the shim's events (see shimseq.h). */
#include "ctl/shimseq.h"

#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

static long long int_of(json_t *ev, const char *key)
{
    json_t *v = json_object_get(ev, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

ctl_shimseq_pos_t ctl_shimseq_of(json_t *ev)
{
    return (ctl_shimseq_pos_t){int_of(ev, "shimPid"), int_of(ev, "seq")};
}

ctl_shimseq_verdict_t ctl_shimseq_classify(ctl_shimseq_pos_t pos, ctl_shimseq_pos_t ev)
{
    if (ev.pid <= 0 || ev.seq <= 0)
        return CTL_SHIMSEQ_APPLY;
    if (ev.pid == pos.pid)
        return ev.seq <= pos.seq       ? CTL_SHIMSEQ_DUP
               : ev.seq == pos.seq + 1 ? CTL_SHIMSEQ_APPLY
                                       : CTL_SHIMSEQ_GAP;
    return ev.seq == 1 ? CTL_SHIMSEQ_APPLY : CTL_SHIMSEQ_GAP; /* a new run */
}

/* is the line's event one to take: past `from`, in file order */
typedef struct walk {
    ctl_shimseq_pos_t from;
    int in_from_run; /* from's run was reached: later runs are taken whole */
    long long run;   /* the run of the lines read (the latest shimPid seen) */
} walk_t;

static int take(walk_t *w, ctl_shimseq_pos_t at)
{
    if (!w->from.pid)
        return 1;
    if (at.pid == w->from.pid) {
        w->in_from_run = 1;
        return at.seq > w->from.seq;
    }
    return w->in_from_run;
}

json_t *ctl_shimseq_select(const char *data, ctl_shimseq_pos_t from, ctl_shimseq_pos_t upto,
                           ctl_shimseq_pos_t *last)
{
    json_t *out = json_array();
    *last = from;
    walk_t w = {.from = from};
    char *copy = sl_xstrdup(data ? data : ""), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *ev = json_loads(line, 0, NULL);
        if (!json_is_object(ev)) {
            json_decref(ev);
            continue;
        }
        ctl_shimseq_pos_t at = ctl_shimseq_of(ev);
        if (at.pid > 0)
            w.run = at.pid;
        at.pid = w.run;
        if (upto.pid && at.pid == upto.pid && at.seq > upto.seq) {
            json_decref(ev);
            break;
        }
        if (take(&w, at)) {
            json_array_append_new(out, ev);
            *last = at;
        } else {
            json_decref(ev);
        }
    }
    free(copy);
    return out;
}
