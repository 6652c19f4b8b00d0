/* report.h — bench output: terminal table and bar chart, CSV, JSON, SVG.
 *
 * Pure formatting of records and summaries (stats.h): no clock, no I/O
 * except onto the FILE given. Functions returning char * or json_t * hand
 * ownership to the caller (free() / json_decref()).
 *
 * Durations print in seconds with millisecond precision; raw times stay in
 * epoch microseconds in CSV and JSON so nothing is lost.
 */
#ifndef SL_BENCH_REPORT_H
#define SL_BENCH_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "bench/record.h"
#include "bench/stats.h"

/* The latency table: one line per path with warm mean, median, min, max,
 * the phase means and the ratio against the baseline; failures and
 * ordering violations are printed under it, never dropped. */
void sl_bench_print_table(FILE *f, const sl_bench_summary_t *s, size_t n, const char *baseline);

/* Horizontal bars in the study's style: one bar per path, its length the
 * warm mean end to end, stacked by phase, with a legend and a seconds axis.
 * width: columns for the longest bar; utf8: block characters, else ASCII. */
void sl_bench_print_chart(FILE *f, const sl_bench_summary_t *s, size_t n, int width, int utf8);

/* Throughput table: per path, time until all acknowledged, started,
 * finished, seen, and the rates. */
void sl_bench_print_tput(FILE *f, const sl_bench_tput_t *t, size_t n);

/* CSV (RFC 4180, header line first, "\n" line ends). */
char *sl_bench_csv_runs(const sl_bench_run_t *runs, size_t n);
char *sl_bench_csv_summary(const sl_bench_summary_t *s, size_t n);
char *sl_bench_csv_tput(const sl_bench_tput_t *t, size_t n);

/* Everything as one JSON object: {"meta": meta (borrowed, copied in; may be
 * NULL), "runs": [...], "summary": [...], "throughput": [...]}. */
json_t *sl_bench_json(const json_t *meta, const sl_bench_run_t *runs, size_t nruns,
                      const sl_bench_summary_t *s, size_t ns, const sl_bench_tput_t *t, size_t nt);
json_t *sl_bench_summary_json(const sl_bench_summary_t *s);
json_t *sl_bench_tput_json(const sl_bench_tput_t *t);

/* A standalone SVG document: the latency bars (stacked phases, min-max
 * whiskers, mean and ratio labels) and, when nt > 0, the throughput bars.
 * title and subtitle are escaped (they may carry user text). */
char *sl_bench_svg(const char *title, const char *subtitle, const sl_bench_summary_t *s, size_t ns,
                   const sl_bench_tput_t *t, size_t nt);

/* Escape text for XML character data and attribute values. Caller frees. */
char *sl_bench_xml_escape(const char *s);

#endif
