/* record.h — what `slurmlink bench` records about one pod run, and the rules
 * that make a record trustworthy.
 *
 * Every time is wall-clock (CLOCK_REALTIME) in microseconds since the epoch,
 * taken on this machine: t_submit, t_ack and t_seen by the bench itself,
 * t_start and t_end by slurmlink-shim inside the job (events.jsonl of the
 * run's pod folder, docs/shim-spec.md). 0 means "not reached".
 *
 *   t_submit  the client is about to send the pod (spawn sbatch, POST ...)
 *   t_ack     the API answered / sbatch printed the job id
 *   t_start   the (first) app container started
 *   t_end     the (last) app container exited for good
 *   t_seen    the client observed the terminal state
 *
 * A record is plain data (fixed-size strings, no pointers): copying it is
 * fine and nothing needs freeing.
 */
#ifndef SL_BENCH_RECORD_H
#define SL_BENCH_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct sl_bench_run {
    char path[16];      /* "sbatch", "kubectl", "api", "slurmrestd" */
    int index;          /* 0-based position within its path (warm-ups first) */
    int warmup;         /* 1: excluded from the statistics */
    int batch;          /* 0 for latency runs; throughput batch number (1..) */
    char pod[64];       /* pod name */
    char uid[40];       /* pod uid */
    char job_id[24];    /* Slurm job id ("" when unknown) */
    char pod_dir[1024]; /* where events.jsonl is */
    char phase[16];     /* terminal phase seen: "Succeeded", "Failed", "COMPLETED" ... */
    int64_t t_submit, t_ack, t_start, t_end, t_seen;
    char error[256]; /* "" when the run worked */
} sl_bench_run_t;

/* Set r->error (first error wins, so the cause is kept, not a consequence). */
void sl_bench_run_fail(sl_bench_run_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Check t_submit <= t_ack <= t_start <= t_end <= t_seen, every time set and
 * positive. Returns 0, or -1 with the first violation described in why
 * ("t_start is 12.345 ms before t_ack"). */
int sl_bench_run_check(const sl_bench_run_t *r, char *why, size_t len);

/* Parse RFC 3339 UTC with optional fraction ("2026-11-30T12:00:00.123456Z",
 * also "+00:00" and other offsets) into epoch microseconds. -1 if invalid. */
int64_t sl_bench_parse_time(const char *s);

/* Read the shim's events (text: events.jsonl, one JSON object per line) and
 * set *t_start to the earliest app-container `started` time and *t_end to the
 * latest app-container `exited` time that was not followed by a restart
 * (no restartInMs). Init containers are part of start-up, not of the work.
 * Lines that do not parse are skipped (a line being written may be cut).
 * Returns 0 when both were found, -1 with err saying which is missing. */
int sl_bench_events_times(const char *text, int64_t *t_start, int64_t *t_end, sl_error_t *err);

/* Read <pod_dir>/events.jsonl into the record's t_start/t_end; on failure
 * the record gets the error. Returns 0 / -1. */
int sl_bench_run_read_events(sl_bench_run_t *r);

#endif
