/* output.c — a report as a table with its verdict, or as JSON; its times. */
#include "report/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *sl_rpt_fmt_time(time_t t, char *buf, size_t len)
{
    struct tm tm;
    if (!t || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
        snprintf(buf, len, "Unknown");
    return buf;
}

const char *sl_rpt_fmt_secs(time_t a, time_t b, char *buf, size_t len)
{
    if (a && b)
        snprintf(buf, len, "%llds", (long long)(b - a));
    else
        snprintf(buf, len, "-");
    return buf;
}

int sl_rpt_parse_time(const char *s, time_t *out)
{
    *out = 0;
    if (!strcmp(s, "Unknown") || !strcmp(s, "None") || !*s)
        return 0;
    struct tm tm = {0};
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || *end)
        return -1;
    tm.tm_isdst = -1;
    *out = mktime(&tm);
    return 0;
}

#define ROW "%6s  %-*s %-*s %-*s %-*s %-16s %5s %5s  %s\n"

/* a column at least min wide, and as wide as its longest field */
static int col_width(const sl_rpt_t *r, size_t field, int min)
{
    int w = min;
    for (size_t i = 0; i < r->njobs; i++) {
        const char *v = *(const char *const *)((const char *)&r->jobs[i] + field);
        if (v && (int)strlen(v) > w)
            w = (int)strlen(v);
    }
    return w;
}

void sl_rpt_print(const sl_rpt_t *r, FILE *f)
{
    int ow = col_width(r, offsetof(rpt_job_t, origin), 22),
        uw = col_width(r, offsetof(rpt_job_t, user), 10),
        aw = col_width(r, offsetof(rpt_job_t, account), 10),
        nw = col_width(r, offsetof(rpt_job_t, nodes), 10);
    fprintf(f, ROW, "JOBID", ow, "ORIGIN", uw, "USER", aw, "ACCOUNT", nw, "NODES", "GPU(node:idx)",
            "WAIT", "RUN", "EXIT");
    for (size_t i = 0; i < r->njobs; i++) {
        const rpt_job_t *j = &r->jobs[i];
        char w[32], run[32];
        fprintf(f, ROW, j->id, ow, j->origin, uw, j->user, aw, j->account, nw, j->nodes, j->held,
                sl_rpt_fmt_secs(j->submit, j->start, w, sizeof(w)),
                sl_rpt_fmt_secs(j->start, j->end, run, sizeof(run)), j->exit_code);
    }
    for (size_t i = 0; i < r->problems.n; i++)
        fprintf(f, "%s\n", r->problems.v[i]);
    if (r->problems.n)
        fprintf(f, "FAILED: %zu problem(s) above\n", r->problems.n);
    else
        fprintf(f,
                "no GPU was held by two jobs at once: %zu holdings of %zu (node, GPU) pair(s) by "
                "%zu GPU job(s), from their recorded indices and accounting's Start/End\n",
                r->n_held, r->n_pairs, r->n_gpu_jobs);
    if (!r->problems.n && r->n_shared)
        fprintf(f,
                "shards: %zu time(s) two jobs held shards of one GPU at once, as shard GRES "
                "allows; no GPU held whole was shared\n",
                r->n_shared);
}

static json_t *job_json(const sl_rpt_t *r, const rpt_job_t *j)
{
    char t[3][32];
    json_t *gpus = json_array();
    size_t first = 0, n = rpt_records_of(r, j->id, &first);
    for (size_t i = first; i < first + n; i++)
        json_array_append_new(
            gpus, json_pack("{s:s,s:i}", "node", r->recs[i].node, "index", r->recs[i].gpu));
    json_t *o = json_pack(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:I,s:s,s:s,s:s,s:s,s:s}", "id", j->id, "origin", j->origin,
        "name", j->name, "user", j->user, "account", j->account, "nodes", j->nodes, "gpus", gpus,
        "gres_gpu", (json_int_t)j->gpus, "submit", sl_rpt_fmt_time(j->submit, t[0], 32), "start",
        sl_rpt_fmt_time(j->start, t[1], 32), "end", sl_rpt_fmt_time(j->end, t[2], 32), "exit_code",
        j->exit_code, "state", j->state);
    json_object_set_new(o, "wait_s",
                        j->submit && j->start ? json_integer(j->start - j->submit) : json_null());
    json_object_set_new(o, "run_s",
                        j->start && j->end ? json_integer(j->end - j->start) : json_null());
    return o;
}

json_t *sl_rpt_json(const sl_rpt_t *r)
{
    json_t *jobs = json_array(), *problems = json_array();
    for (size_t i = 0; i < r->njobs; i++)
        json_array_append_new(jobs, job_json(r, &r->jobs[i]));
    for (size_t i = 0; i < r->problems.n; i++)
        json_array_append_new(problems, json_string(r->problems.v[i]));
    return json_pack("{s:o,s:o,s:b,s:I,s:I,s:I,s:I}", "jobs", jobs, "problems", problems, "ok",
                     r->problems.n == 0, "holdings", (json_int_t)r->n_held, "gpu_pairs",
                     (json_int_t)r->n_pairs, "gpu_jobs", (json_int_t)r->n_gpu_jobs, "shared_pairs",
                     (json_int_t)r->n_shared);
}
