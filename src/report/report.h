/* report.h — the summary of a mixed sbatch + pod load and its checks
 * (`slurmlink report`): one line per job (id, origin sbatch or
 * namespace/name, user, account, nodes, GPUs held as node:index, queue
 * wait, run time, exit code), then a verdict computed from the GPU index
 * each job recorded on each of its nodes and accounting's Start/End:
 *   - no (node, GPU) held by two jobs in overlapping [Start, End);
 *   - a job given gres/gpu=N recorded exactly N (node, GPU) pairs, on its
 *     own nodes, and has ended;
 *   - a pod's job agrees with the pod: JobName namespace/name, NodeList
 *     spec.nodeName, ExitCode the container's exitCode.
 * The module reads no Slurm itself: the caller adds the jobs (from
 * accounting, src/slurmif, or a `sacct -X -P` table), the records and pods. */
#ifndef SL_REPORT_H
#define SL_REPORT_H

#include <jansson.h>
#include <stdio.h>
#include <time.h>

#include "common/err.h"

typedef struct sl_rpt sl_rpt_t;

/* One job as accounting has it; the report copies the strings. */
typedef struct sl_rpt_job {
    const char *id, *name, *user, *account;
    const char *nodes;           /* Slurm host list: "node[1-2]" */
    const char *alloc_tres;      /* "cpu=4,gres/gpu=2,node=2": gres/gpu=N is the GPU count */
    const char *exit_code;       /* "0:0" */
    const char *state, *comment; /* comment: "slurmlink:uid=UID" marks a pod's job */
    time_t submit, start, end;   /* 0: not (yet) */
} sl_rpt_job_t;

sl_rpt_t *sl_rpt_create(void);
void sl_rpt_free(sl_rpt_t *r); /* NULL: a no-op */

void sl_rpt_add_job(sl_rpt_t *r, const sl_rpt_job_t *j);
/* A `sacct -X -P -o JobID,JobName,User,Account,NodeList,AllocTRES,Submit,
 * Start,End,ExitCode,State,Comment` table (any field order, header first;
 * step lines skipped). -1 with err naming `what` and the line. */
int sl_rpt_add_sacct(sl_rpt_t *r, const char *text, const char *what, sl_error_t *err);
/* Every `gpu-record job=J node=N gpu=I` in text (anywhere on a line; other
 * text is ignored, so job outputs and pod logs go in as they are). */
void sl_rpt_add_records(sl_rpt_t *r, const char *text);
/* A PodList (`kubectl get pods -A -o json`, GET /api/v1/pods): -1 with err
 * when it is not one. A pod's slurmlink.io/gpus annotation (the GPUs Slurm
 * bound to its job, as its shim saw them) adds its records, as gpu-record
 * lines would. */
int sl_rpt_add_pods(sl_rpt_t *r, json_t *list, const char *what, sl_error_t *err);

/* Run the checks (once, after the adds): the number of problems found. */
size_t sl_rpt_check(sl_rpt_t *r);
/* The table, the problems, the verdict line (after sl_rpt_check). */
void sl_rpt_print(const sl_rpt_t *r, FILE *f);
/* The same as JSON: {"jobs": [...], "problems": [...], "ok": bool, ...}. */
json_t *sl_rpt_json(const sl_rpt_t *r);

/* "2026-12-01T10:00:20" (local time, as sacct prints it); "Unknown" for 0. */
const char *sl_rpt_fmt_time(time_t t, char *buf, size_t len);
/* "19s" from a to b; "-" when either is unknown. */
const char *sl_rpt_fmt_secs(time_t a, time_t b, char *buf, size_t len);
/* Parse sacct's time ("2026-12-01T10:00:20"; "Unknown", "None": 0); -1 if neither. */
int sl_rpt_parse_time(const char *s, time_t *out);

#endif
