/* Unit tests: the bench's table, bar chart, CSV, JSON and SVG outputs. */
#include "bench/report.h"
#include "common/tap.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sl_bench_run_t mk(const char *path, int warm, int64_t base, int64_t ack, int64_t q,
                         int64_t w, int64_t v)
{
    sl_bench_run_t r;
    memset(&r, 0, sizeof(r));
    snprintf(r.path, sizeof(r.path), "%s", path);
    snprintf(r.pod, sizeof(r.pod), "bench-%s", path);
    r.warmup = warm;
    r.t_submit = base;
    r.t_ack = r.t_submit + ack;
    r.t_start = r.t_ack + q;
    r.t_end = r.t_start + w;
    r.t_seen = r.t_end + v;
    return r;
}

static char *print(void (*fn)(FILE *, const sl_bench_summary_t *, size_t, int, int),
                   const sl_bench_summary_t *s, size_t n, int width, int utf8)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f, s, n, width, utf8);
    fclose(f);
    return buf;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int count_str(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

int main(void)
{
    const int64_t T = 1796040000000000LL;
    sl_bench_run_t runs[8];
    size_t n = 0;
    runs[n++] = mk("sbatch", 1, T, 7000, 2000000, 100000, 300000);
    runs[n++] = mk("sbatch", 0, T + 10000000, 7000, 900000, 100000, 100000);  /* 1.107 */
    runs[n++] = mk("sbatch", 0, T + 20000000, 7000, 1100000, 100000, 100000); /* 1.307 */
    runs[n++] = mk("api", 0, T + 30000000, 20000, 1000000, 100000, 30000);    /* 1.150 */
    runs[n++] = mk("api", 0, T + 40000000, 20000, 1200000, 100000, 30000);    /* 1.350 */
    /* round numbers: warm-up 0, then 1 and 2, as the bench numbers them */
    runs[0].index = 0;
    runs[1].index = runs[3].index = 1;
    runs[2].index = runs[4].index = 2;
    runs[n] = mk("kubectl", 0, T + 50000000, 0, 0, 0, 0);
    runs[n].t_ack = runs[n].t_start = runs[n].t_end = runs[n].t_seen = 0;
    sl_bench_run_fail(&runs[n++], "kubectl: pod \"x\", \"y\" refused");
    const char *paths[] = {"sbatch", "kubectl", "api"};
    sl_bench_summary_t s[3];
    sl_bench_summarize(runs, n, paths, 3, "sbatch", s);

    /* table */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sl_bench_print_table(f, s, 3, "sbatch");
    fclose(f);
    has_str(buf, "sbatch        2/2     1.207    1.207    1.107    1.307",
            "sbatch row: mean, median, min, max");
    has_str(buf, "1.00x (baseline)", "baseline marked");
    has_str(buf, "api           2/2     1.250", "api row");
    has_str(buf, "1.04x (+0.043 s; paired median +0.043 s)",
            "api ratio, overhead and paired difference against sbatch");
    has_str(buf, "kubectl       0/1         -", "kubectl row shows no numbers");
    has_str(buf, "!! kubectl: 1 of 1 warm runs FAILED: kubectl: pod", "failure printed loudly");
    free(buf);

    /* chart */
    buf = print(sl_bench_print_chart, s, 3, 40, 0);
    has_str(buf, "End to end, warm mean (s):", "chart title");
    has_str(buf, "# work", "ASCII legend");
    has_str(buf, "(no good warm run)", "failed path has no bar");
    const char *line = strstr(buf, "\napi");
    ok(line != NULL, "api bar present");
    if (line) {
        const char *bar = line + 13;
        int cols = 0;
        while (strchr(">-#.", bar[cols]))
            cols++;
        /* axis max 1.5 s (step 0.5), 40 columns: 1.25 s is 33 columns */
        is_int(cols, 33, "api bar length proportional to its mean");
        ok(bar[0] == '>' || bar[0] == '-', "bar starts with the ack/queue segment");
        has_str(line, "1.250 s  1.04x", "bar labelled with mean and ratio");
    }
    has_str(buf, "\n            0            0.5           1            1.5 s\n",
            "axis ticks under their columns");
    is_int(count_lines(buf), 5, "title, 3 bars, axis");
    free(buf);
    buf = print(sl_bench_print_chart, s, 3, 40, 1);
    has_str(buf, "\u2588 work", "UTF-8 legend");
    free(buf);

    /* CSV */
    char *csv = sl_bench_csv_runs(runs, n);
    is_int(count_lines(csv), (int)n + 1, "runs CSV: header + one line per run");
    ok(!strncmp(csv, "path,batch,index,warmup,pod,uid,job_id,phase,t_submit_us,t_ack_us,",
                strlen("path,batch,index,warmup,pod,uid,job_id,phase,t_submit_us,t_ack_us,")),
       "runs CSV header");
    has_str(csv, "\"kubectl: pod \"\"x\"\", \"\"y\"\" refused\"", "error field quoted (RFC 4180)");
    has_str(csv, ",0.007000,0.900000,0.100000,0.100000,1.107000,1,", "phases and e2e of a run");
    free(csv);
    csv = sl_bench_csv_summary(s, 3);
    is_int(count_lines(csv), 4, "summary CSV: header + 3 paths");
    has_str(csv, "\napi,2,2,2,0,0,1.250000,1.250000,1.150000,1.350000,", "api summary line");
    has_str(csv, "\nsbatch,3,2,2,0,0,1.207000,", "sbatch summary line");
    free(csv);

    /* JSON */
    json_t *meta = json_pack("{s:s}", "command", "slurmlink bench --runs 2");
    json_t *j = sl_bench_json(meta, runs, n, s, 3, NULL, 0);
    char *txt = json_dumps(j, JSON_COMPACT);
    json_t *back = json_loads(txt, 0, NULL);
    ok(back != NULL, "JSON output parses");
    is_str(json_string_value(json_object_get(json_object_get(back, "meta"), "command")),
           "slurmlink bench --runs 2", "meta copied");
    is_int(json_array_size(json_object_get(back, "runs")), n, "every run in JSON");
    json_t *api = json_array_get(json_object_get(back, "summary"), 2);
    is_str(json_string_value(json_object_get(api, "path")), "api", "summary order kept");
    ok(json_real_value(json_object_get(json_object_get(api, "vs_baseline"), "ratio_mean")) > 1.03,
       "ratio in JSON");
    json_t *r1 = json_array_get(json_object_get(back, "runs"), 1);
    is_int(json_integer_value(json_object_get(r1, "t_ack_us")), T + 10007000, "raw microseconds");
    ok(json_is_true(json_object_get(r1, "ordered")), "ordered flag");
    json_t *r5 = json_array_get(json_object_get(back, "runs"), 5);
    ok(json_is_false(json_object_get(r5, "ordered")) &&
           json_string_value(json_object_get(r5, "error")),
       "a failed run carries its error");
    free(txt);
    json_decref(back);
    json_decref(j);
    json_decref(meta);

    /* SVG */
    sl_bench_tput_t t[1];
    for (int i = 0; i < 3; i++) {
        runs[i] = mk("sbatch", 0, T + i * 1000, 5000, 1000000, 1000, 1000);
        runs[i].batch = 1;
    }
    sl_bench_tput_compute(runs, 3, "sbatch", 1, &t[0]);
    char *svg = sl_bench_svg("bench <1> & \"2\"", "sub", s, 3, t, 1);
    ok(!strncmp(svg, "<?xml", 5), "SVG starts with the XML declaration");
    has_str(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", "SVG root element");
    has_str(svg, "bench &lt;1&gt; &amp; &quot;2&quot;", "title escaped");
    ok(count_str(svg, "<svg") == 1 && count_str(svg, "</svg>") == 1, "one svg element");
    /* 2 good paths x 4 phases + 4 legend swatches x 2 sections + 4 throughput bars + background */
    is_int(count_str(svg, "<rect"), 2 * 4 + 8 + 4 + 1, "stacked bars, legends, throughput bars");
    has_str(svg, "no good warm run", "failed path shown as such");
    has_str(svg, "\u00d71.04 vs sbatch", "ratio label");
    has_str(svg, "3 pods", "throughput label");
    ok(!strstr(svg, "nan") && !strstr(svg, "inf"), "no NaN or infinity in coordinates");
    int opens = count_str(svg, "<text"), closes = count_str(svg, "</text>");
    is_int(opens, closes, "every text element closed");
    free(svg);
    char *e = sl_bench_xml_escape("a\x01<b>'");
    is_str(e, "a &lt;b&gt;&apos;", "control characters replaced, markup escaped");
    free(e);

    /* throughput table */
    f = open_memstream(&buf, &len);
    sl_bench_print_tput(f, t, 1);
    fclose(f);
    has_str(buf, "sbatch           3     0.007 s", "throughput row: all acknowledged");
    free(buf);
    return tap_done();
}
