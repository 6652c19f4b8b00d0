/* files.c — CSV and JSON forms of runs, summaries and throughput batches. */
#include "bench/report.h"

#include "common/buf.h"

#include <string.h>

/* RFC 4180: quote a field that holds a comma, quote or line break */
static void csv_field(sl_buf_t *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sl_buf_puts(b, s);
        return;
    }
    sl_buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"')
            sl_buf_putc(b, '"');
        sl_buf_putc(b, *s);
    }
    sl_buf_putc(b, '"');
}

char *sl_bench_csv_runs(const sl_bench_run_t *runs, size_t n)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "path,batch,index,warmup,pod,uid,job_id,phase,t_submit_us,t_ack_us,"
                    "t_start_us,t_end_us,t_seen_us,ack_s,queue_s,work_s,visibility_s,e2e_s,"
                    "ordered,error\n");
    for (size_t i = 0; i < n; i++) {
        const sl_bench_run_t *r = &runs[i];
        char why[128];
        int ordered = !r->error[0] && sl_bench_run_check(r, why, sizeof(why)) == 0;
        csv_field(&b, r->path);
        sl_buf_printf(&b, ",%d,%d,%d,", r->batch, r->index, r->warmup);
        csv_field(&b, r->pod);
        sl_buf_putc(&b, ',');
        csv_field(&b, r->uid);
        sl_buf_putc(&b, ',');
        csv_field(&b, r->job_id);
        sl_buf_putc(&b, ',');
        csv_field(&b, r->phase);
        sl_buf_printf(&b, ",%lld,%lld,%lld,%lld,%lld", (long long)r->t_submit, (long long)r->t_ack,
                      (long long)r->t_start, (long long)r->t_end, (long long)r->t_seen);
        if (ordered) {
            for (int ph = 0; ph < SL_BENCH_NPHASES; ph++)
                sl_buf_printf(&b, ",%.6f", sl_bench_run_phase(r, ph));
            sl_buf_printf(&b, ",%.6f", sl_bench_run_e2e(r));
        } else {
            sl_buf_puts(&b, ",,,,,");
        }
        sl_buf_printf(&b, ",%d,", ordered);
        csv_field(&b, r->error[0] ? r->error : (ordered ? "" : why));
        sl_buf_putc(&b, '\n');
    }
    return sl_buf_steal(&b);
}

char *sl_bench_csv_summary(const sl_bench_summary_t *s, size_t n)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "path,runs,warm,ok,failed,disordered,e2e_mean_s,e2e_median_s,e2e_min_s,"
                    "e2e_max_s,ack_mean_s,queue_mean_s,work_mean_s,visibility_mean_s,"
                    "ack_median_s,queue_median_s,work_median_s,visibility_median_s,"
                    "ratio_mean,ratio_median,over_mean_s,over_median_s,paired_n,paired_mean_s,"
                    "paired_median_s\n");
    for (size_t i = 0; i < n; i++) {
        const sl_bench_summary_t *p = &s[i];
        csv_field(&b, p->path);
        sl_buf_printf(&b, ",%zu,%zu,%zu,%zu,%zu", p->runs, p->warm, p->ok, p->failed,
                      p->disordered);
        if (p->ok) {
            sl_buf_printf(&b, ",%.6f,%.6f,%.6f,%.6f", p->e2e.mean, p->e2e.median, p->e2e.min,
                          p->e2e.max);
            for (int ph = 0; ph < SL_BENCH_NPHASES; ph++)
                sl_buf_printf(&b, ",%.6f", p->phase[ph].mean);
            for (int ph = 0; ph < SL_BENCH_NPHASES; ph++)
                sl_buf_printf(&b, ",%.6f", p->phase[ph].median);
        } else {
            sl_buf_puts(&b, ",,,,,,,,,,,");
        }
        if (p->has_ratio)
            sl_buf_printf(&b, ",%.6f,%.6f,%.6f,%.6f,%zu,%.6f,%.6f\n", p->ratio_mean,
                          p->ratio_median, p->over_mean_s, p->over_median_s, p->paired_n,
                          p->paired_mean_s, p->paired_median_s);
        else
            sl_buf_puts(&b, ",,,,,,,\n");
    }
    return sl_buf_steal(&b);
}

char *sl_bench_csv_tput(const sl_bench_tput_t *t, size_t n)
{
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "path,batch,pods,acked,started,finished,seen,failed,all_acked_s,"
                    "all_started_s,all_finished_s,all_seen_s,submit_per_s,jobs_per_s\n");
    for (size_t i = 0; i < n; i++) {
        const sl_bench_tput_t *p = &t[i];
        csv_field(&b, p->path);
        sl_buf_printf(&b, ",%d,%zu,%zu,%zu,%zu,%zu,%zu,%.6f,%.6f,%.6f,%.6f,%.3f,%.3f\n", p->batch,
                      p->pods, p->acked, p->started, p->finished, p->seen, p->failed,
                      p->all_acked_s, p->all_started_s, p->all_finished_s, p->all_seen_s,
                      p->submit_per_s, p->jobs_per_s);
    }
    return sl_buf_steal(&b);
}

static json_t *stat_json(const sl_bench_stat_t *st)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f}", "n", (json_int_t)st->n, "mean", st->mean,
                     "median", st->median, "min", st->min, "max", st->max);
}

json_t *sl_bench_summary_json(const sl_bench_summary_t *p)
{
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:o}", "path", p->path, "runs",
                          (json_int_t)p->runs, "warm", (json_int_t)p->warm, "ok", (json_int_t)p->ok,
                          "failed", (json_int_t)p->failed, "disordered", (json_int_t)p->disordered,
                          "e2e_s", stat_json(&p->e2e));
    json_t *ph = json_object();
    for (int i = 0; i < SL_BENCH_NPHASES; i++)
        json_object_set_new(ph, sl_bench_phase_name(i), stat_json(&p->phase[i]));
    json_object_set_new(o, "phases_s", ph);
    if (p->has_ratio)
        json_object_set_new(o, "vs_baseline",
                            json_pack("{s:f, s:f, s:f, s:f, s:I, s:f, s:f}", "ratio_mean",
                                      p->ratio_mean, "ratio_median", p->ratio_median, "over_mean_s",
                                      p->over_mean_s, "over_median_s", p->over_median_s, "paired_n",
                                      (json_int_t)p->paired_n, "paired_mean_s", p->paired_mean_s,
                                      "paired_median_s", p->paired_median_s));
    else
        json_object_set_new(o, "vs_baseline", json_null());
    json_object_set_new(o, "first_error",
                        p->first_error[0] ? json_string(p->first_error) : json_null());
    return o;
}

json_t *sl_bench_tput_json(const sl_bench_tput_t *p)
{
    json_t *o =
        json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "path", p->path, "batch",
                  p->batch, "pods", (json_int_t)p->pods, "acked", (json_int_t)p->acked, "started",
                  (json_int_t)p->started, "finished", (json_int_t)p->finished, "seen",
                  (json_int_t)p->seen, "failed", (json_int_t)p->failed, "t0_us", (json_int_t)p->t0);
    json_object_set_new(o, "all_acked_s", json_real(p->all_acked_s));
    json_object_set_new(o, "all_started_s", json_real(p->all_started_s));
    json_object_set_new(o, "all_finished_s", json_real(p->all_finished_s));
    json_object_set_new(o, "all_seen_s", json_real(p->all_seen_s));
    json_object_set_new(o, "submit_per_s", json_real(p->submit_per_s));
    json_object_set_new(o, "jobs_per_s", json_real(p->jobs_per_s));
    json_object_set_new(o, "first_error",
                        p->first_error[0] ? json_string(p->first_error) : json_null());
    return o;
}

static json_t *run_json(const sl_bench_run_t *r)
{
    char why[128];
    int ordered = !r->error[0] && sl_bench_run_check(r, why, sizeof(why)) == 0;
    json_t *o = json_pack("{s:s, s:i, s:i, s:b, s:s, s:s, s:s, s:s, s:s}", "path", r->path, "batch",
                          r->batch, "index", r->index, "warmup", r->warmup, "pod", r->pod, "uid",
                          r->uid, "job_id", r->job_id, "phase", r->phase, "pod_dir", r->pod_dir);
    json_object_set_new(o, "t_submit_us", json_integer(r->t_submit));
    json_object_set_new(o, "t_ack_us", json_integer(r->t_ack));
    json_object_set_new(o, "t_start_us", json_integer(r->t_start));
    json_object_set_new(o, "t_end_us", json_integer(r->t_end));
    json_object_set_new(o, "t_seen_us", json_integer(r->t_seen));
    json_object_set_new(o, "ordered", json_boolean(ordered));
    if (ordered) {
        json_t *ph = json_object();
        for (int i = 0; i < SL_BENCH_NPHASES; i++)
            json_object_set_new(ph, sl_bench_phase_name(i), json_real(sl_bench_run_phase(r, i)));
        json_object_set_new(o, "phases_s", ph);
        json_object_set_new(o, "e2e_s", json_real(sl_bench_run_e2e(r)));
    }
    if (r->error[0])
        json_object_set_new(o, "error", json_string(r->error));
    else if (!ordered)
        json_object_set_new(o, "error", json_string(why));
    else
        json_object_set_new(o, "error", json_null());
    return o;
}

json_t *sl_bench_json(const json_t *meta, const sl_bench_run_t *runs, size_t nruns,
                      const sl_bench_summary_t *s, size_t ns, const sl_bench_tput_t *t, size_t nt)
{
    json_t *o = json_object();
    json_object_set_new(o, "meta", meta ? json_deep_copy(meta) : json_object());
    json_t *a = json_array();
    for (size_t i = 0; i < nruns; i++)
        json_array_append_new(a, run_json(&runs[i]));
    json_object_set_new(o, "runs", a);
    a = json_array();
    for (size_t i = 0; i < ns; i++)
        json_array_append_new(a, sl_bench_summary_json(&s[i]));
    json_object_set_new(o, "summary", a);
    a = json_array();
    for (size_t i = 0; i < nt; i++)
        json_array_append_new(a, sl_bench_tput_json(&t[i]));
    json_object_set_new(o, "throughput", a);
    return o;
}
