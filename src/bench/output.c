/* output.c — the bench's results: accessors, JSON, the files, the terminal
 * report and the list of problems. */
#include "bench/internal.h"
#include "bench/report.h"

#include "common/fsutil.h"
#include "common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sl_bench_run_t *sl_bench_runs(const sl_bench_t *b, size_t *n)
{
    *n = b->nruns;
    return b->runs;
}

const sl_bench_summary_t *sl_bench_summaries(const sl_bench_t *b, size_t *n)
{
    *n = b->sum ? b->npaths : 0;
    return b->sum;
}

const sl_bench_tput_t *sl_bench_tputs(const sl_bench_t *b, size_t *n)
{
    *n = b->ntput;
    return b->tput;
}

const char *sl_bench_out_dir(const sl_bench_t *b) { return b->c.out_dir; }

json_t *sl_bench_to_json(const sl_bench_t *b)
{
    json_t *j = sl_bench_json(b->meta, b->runs, b->nruns, b->sum, b->sum ? b->npaths : 0, b->tput,
                              b->ntput);
    json_object_set_new(json_object_get(j, "meta"), "out_dir", json_string(b->c.out_dir));
    return j;
}

static int put(const sl_bench_t *b, const char *name, char *text, sl_error_t *err)
{
    char *path = sl_xasprintf("%s/%s", b->c.out_dir, name);
    int rc = sl_write_file(path, text, strlen(text), 0644, err);
    free(path);
    free(text);
    return rc;
}

static char *subtitle(const sl_bench_t *b)
{
    const char *host = json_string_value(json_object_get(b->meta, "host"));
    if (b->o.throughput)
        return sl_xasprintf("%s | %d pods at once per path | %s | %s", b->c.workload_desc,
                            b->o.throughput, host, b->c.stamp);
    return sl_xasprintf("%s | %d warm runs per path after %d warm-up | %s | %s", b->c.workload_desc,
                        b->o.runs, b->o.warmup, host, b->c.stamp);
}

int sl_bench_write_files(const sl_bench_t *b, sl_error_t *err)
{
    size_t ns = b->sum ? b->npaths : 0;
    if (put(b, "runs.csv", sl_bench_csv_runs(b->runs, b->nruns), err) < 0)
        return -1;
    if (!b->o.throughput && put(b, "summary.csv", sl_bench_csv_summary(b->sum, ns), err) < 0)
        return -1;
    if (b->o.throughput && put(b, "throughput.csv", sl_bench_csv_tput(b->tput, b->ntput), err) < 0)
        return -1;
    json_t *j = sl_bench_to_json(b);
    char *text = json_dumps(j, JSON_INDENT(2));
    json_decref(j);
    size_t len = strlen(text);
    text = sl_xrealloc(text, len + 2);
    memcpy(text + len, "\n", 2);
    if (put(b, "bench.json", text, err) < 0)
        return -1;
    char *sub = subtitle(b);
    char *svg = sl_bench_svg("slurmlink bench: end to end, submit to result seen", sub, b->sum,
                             b->o.throughput ? 0 : ns, b->tput, b->ntput);
    free(sub);
    return put(b, "bench.svg", svg, err);
}

void sl_bench_print(const sl_bench_t *b, FILE *f, int utf8)
{
    char *sub = subtitle(b);
    fprintf(f, "slurmlink bench on %s\n%s\n\n", b->c.dir, sub);
    free(sub);
    size_t ns = b->sum ? b->npaths : 0;
    if (b->o.throughput) {
        sl_bench_print_tput(f, b->tput, b->ntput);
    } else {
        sl_bench_print_table(f, b->sum, ns, BENCH_BASELINE);
        fputc('\n', f);
        sl_bench_print_chart(f, b->sum, ns, 50, utf8);
    }
    fprintf(f, "\nfiles: %s/{runs.csv,%s,bench.json,bench.svg}\n", b->c.out_dir,
            b->o.throughput ? "throughput.csv" : "summary.csv");
}

int sl_bench_problems(const sl_bench_t *b, FILE *f)
{
    int n = 0;
    for (size_t i = 0; i < b->nruns; i++) {
        const sl_bench_run_t *r = &b->runs[i];
        char why[128];
        const char *what = r->error[0]                                   ? r->error
                           : sl_bench_run_check(r, why, sizeof(why)) < 0 ? why
                                                                         : NULL;
        if (!what)
            continue;
        if (f && n < 20)
            fprintf(f, "!! %s %s %d%s%s: %s\n", r->path,
                    r->batch    ? "batch pod"
                    : r->warmup ? "warm-up"
                                : "run",
                    r->index, r->pod[0] ? " pod " : "", r->pod, what);
        n++;
    }
    if (f && n > 20)
        fprintf(f, "!! ... %d problems in all (see runs.csv)\n", n);
    return n;
}
