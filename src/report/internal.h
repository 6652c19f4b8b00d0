/* internal.h — what report.c, input.c and output.c share. */
#ifndef SL_REPORT_INTERNAL_H
#define SL_REPORT_INTERNAL_H

#include "common/argv.h"
#include "report/report.h"

typedef struct rpt_job {
    char *id, *name, *user, *account, *nodes, *tres, *exit_code, *state, *comment;
    time_t submit, start, end;
    unsigned gpus;   /* gres/gpu=N of AllocTRES */
    unsigned shards; /* gres/shard=N of AllocTRES */
    char *origin;    /* after the check: "sbatch", "ns/name", "NAME (pod)" */
    char *held;      /* after the check: "node1:0,node2:0" or "-" */
} rpt_job_t;

typedef struct rpt_record {
    char *job, *node;
    int gpu;
    int shards; /* 0: the whole GPU; N: N of its shards */
} rpt_record_t;

struct sl_rpt {
    rpt_job_t *jobs;
    size_t njobs, capjobs;
    rpt_record_t *recs;
    size_t nrecs, caprecs;
    json_t *pods; /* uid -> pod */
    sl_argv_t problems;
    size_t n_held, n_pairs, n_gpu_jobs;
    size_t n_shared; /* pairs of shard holders of one GPU at once (allowed) */
};

/* the records of job id, sorted by node then index: count (and *first) */
size_t rpt_records_of(const sl_rpt_t *r, const char *id, size_t *first);

#endif
