/* Unit tests: `slurmlink report`'s checks and formatting on made-up loads —
 * the overlap check (a planted double booking fails; back-to-back and two
 * GPUs of one node do not), the per-job record check, pods against
 * accounting, the sacct table, the times and node:index lists. */
#include "report/report.h"
#include "common/argv.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1796119200 /* a fixed instant; the jobs' times are offsets from it */

static sl_rpt_job_t job(const char *id, const char *name, const char *nodes, const char *tres,
                        int submit, int start, int end, const char *exit, const char *comment)
{
    sl_rpt_job_t j = {id,
                      name,
                      "alice",
                      "hpc",
                      nodes,
                      tres,
                      exit,
                      "COMPLETED",
                      comment,
                      T0 + submit,
                      start < 0 ? 0 : T0 + start,
                      end < 0 ? 0 : T0 + end};
    return j;
}

/* the fixed load: an MPI job on both nodes' GPU 0, then two pods one after
 * the other on node1 GPU 0 (End == next Start), a CPU job */
static sl_rpt_t *load(int pod11_start, const char *records)
{
    sl_rpt_t *r = sl_rpt_create();
    sl_rpt_job_t js[] = {
        job("10", "mpi", "node[1-2]", "cpu=4,gres/gpu=2,node=2", 0, 1, 20, "0:0", ""),
        job("11", "ml/train-a", "node1", "cpu=1,gres/gpu=1", 2, pod11_start, 30, "0:0",
            "slurmlink:uid=u-a"),
        job("12", "ml/infer", "node1", "cpu=1,gres/gpu=1", 3, 30, 35, "3:0", "slurmlink:uid=u-b"),
        job("13", "cpu-only", "node2", "cpu=1,node=1", 3, 4, 5, "0:0", ""),
    };
    for (size_t i = 0; i < 4; i++)
        sl_rpt_add_job(r, &js[i]);
    sl_rpt_add_records(
        r, records ? records
                   : "out\ngpu-record job=10 node=node1 gpu=0\n"
                     "gpu-record job=10 node=node2 gpu=0\n"
                     "2026-12-01T10:00:21Z stdout F gpu-record job=11 node=node1 gpu=0\n"
                     "gpu-record job=12 node=node1 gpu=0 gpu-record job=12 node=node1 gpu=0\n");
    json_t *pods = json_loads(
        "{\"items\":[{\"metadata\":{\"uid\":\"u-a\",\"namespace\":\"ml\",\"name\":\"train-a\"},"
        "\"spec\":{\"nodeName\":\"node1\"},\"status\":{\"containerStatuses\":[{\"state\":"
        "{\"terminated\":{\"exitCode\":0}}}]}},"
        "{\"metadata\":{\"uid\":\"u-b\",\"namespace\":\"ml\",\"name\":\"infer\"},"
        "\"spec\":{\"nodeName\":\"node1\"},\"status\":{\"containerStatuses\":[{\"state\":"
        "{\"terminated\":{\"exitCode\":3}}}]}}]}",
        0, NULL);
    sl_rpt_add_pods(r, pods, "pods", NULL);
    json_decref(pods);
    return r;
}

static char *printed(const sl_rpt_t *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sl_rpt_print(r, f);
    fclose(f);
    return buf;
}

static void clean_load(void)
{
    sl_rpt_t *r = load(20, NULL);
    is_int(sl_rpt_check(r), 0, "a clean load: no problem (back-to-back on node1 GPU 0)");
    char *out = printed(r);
    has_str(out,
            "\n    10  sbatch                 alice      hpc        node[1-2]  node1:0,node2:0     "
            "1s   19s  0:0\n",
            "the MPI job: sbatch, both nodes' GPU as node:index, wait and run time");
    has_str(out, "\n    11  ml/train-a ",
            "a pod's origin is namespace/name from the uid in its comment");
    has_str(out, " node1:0            27s    5s  3:0\n",
            "the pod that exited 3, listed with its code");
    has_str(out,
            "\n    13  sbatch                 alice      hpc        node2      -                   "
            "1s    1s  0:0\n",
            "a job without GPUs holds '-'");
    has_str(
        out,
        "no GPU was held by two jobs at once: 4 holdings of 2 (node, GPU) pair(s) by 3 GPU job(s)",
        "the all-clear counts holdings (a repeated record once), pairs and GPU jobs");
    json_t *j = sl_rpt_json(r);
    ok(json_is_true(json_object_get(j, "ok")) &&
           json_integer_value(
               json_object_get(json_array_get(json_object_get(j, "jobs"), 0), "wait_s")) == 1,
       "JSON: ok, and the MPI job waited 1 s");
    json_decref(j);
    free(out);
    sl_rpt_free(r);
}

/* one problem expected: its text, and the verdict */
static void fails(sl_rpt_t *r, const char *want, const char *what)
{
    size_t n = sl_rpt_check(r);
    char *out = printed(r);
    ok(n >= 1 && strstr(out, want) && strstr(out, "FAILED: ") && !strstr(out, "no GPU was held"),
       "%s", what);
    if (!strstr(out, want))
        printf("#   want [%s] in:\n%s", want, out);
    free(out);
    sl_rpt_free(r);
}

static void overlaps(void)
{
    /* planted: train-a starts at 15, while the MPI job holds node1 GPU 0 until 20 */
    fails(load(15, NULL), "OVERLAP: node1 GPU 0 held by job 10 (",
          "a planted double booking fails");
    sl_rpt_t *r = load(15, NULL);
    is_int(sl_rpt_check(r), 1, "... with exactly that one problem");
    sl_rpt_free(r);
    /* the same times on another index of node1 are no overlap */
    r = load(15, "gpu-record job=10 node=node1 gpu=0\ngpu-record job=10 node=node2 gpu=0\n"
                 "gpu-record job=11 node=node1 gpu=1\ngpu-record job=12 node=node1 gpu=0\n");
    is_int(sl_rpt_check(r), 0, "two GPUs of one node held at once is no overlap");
    sl_rpt_free(r);
}

static void records(void)
{
    fails(load(20, "gpu-record job=10 node=node1 gpu=0\ngpu-record job=11 node=node1 gpu=0\n"
                   "gpu-record job=12 node=node1 gpu=0\n"),
          "job 10: AllocTRES gres/gpu=2 but it recorded 1 GPU(s)",
          "fewer records than gres/gpu fail");
    fails(load(20, "gpu-record job=10 node=node1 gpu=0\ngpu-record job=10 node=node2 gpu=0\n"
                   "gpu-record job=11 node=node1 gpu=0\ngpu-record job=12 node=node2 gpu=0\n"),
          "job 12: recorded a GPU on node2, not one of its nodes node1",
          "a GPU on another node fails");
    fails(load(20, "gpu-record job=10 node=node1 gpu=0\ngpu-record job=10 node=node2 gpu=0\n"
                   "gpu-record job=11 node=node1 gpu=0\ngpu-record job=12 node=node1 gpu=0\n"
                   "gpu-record job=13 node=node2 gpu=0\n"),
          "job 13: AllocTRES gres/gpu=0 but it recorded 1 GPU(s)",
          "a CPU job that recorded a GPU fails");
    sl_rpt_t *r = sl_rpt_create();
    sl_rpt_job_t j = job("7", "run", "node1", "gres/gpu=1", 0, 1, -1, "0:0", "");
    sl_rpt_add_job(r, &j);
    sl_rpt_add_records(r, "gpu-record job=7 node=node1 gpu=0");
    fails(r, "job 7: holds GPUs but has not ended (Start ", "a GPU job not ended fails");
    r = sl_rpt_create();
    sl_rpt_add_job(r, &j);
    sl_rpt_add_records(r, "gpu-record job=7 node=node1 gpu=0x gpu-record job=77 node=node1 gpu=0");
    fails(r, "job 7: AllocTRES gres/gpu=1 but it recorded 0 GPU(s)",
          "a record needs a whole index and the whole job id");
}

static void pods(void)
{
    sl_rpt_t *r = sl_rpt_create();
    sl_rpt_job_t j = job("11", "ml/other", "node2", "cpu=1", 0, 1, 2, "1:0", "slurmlink:uid=u-a");
    sl_rpt_add_job(r, &j);
    json_t *p = json_loads("{\"items\":[{\"metadata\":{\"uid\":\"u-a\",\"namespace\":\"ml\","
                           "\"name\":\"train-a\"},\"spec\":{\"nodeName\":\"node1\"},"
                           "\"status\":{}}]}",
                           0, NULL);
    ok(sl_rpt_add_pods(r, p, "p", NULL) == 0, "a PodList is taken");
    json_decref(p);
    is_int(sl_rpt_check(r), 3, "a pod that disagrees on name, node and exit code: three problems");
    char *out = printed(r);
    has_str(out, "job 11: JobName ml/other but the pod is ml/train-a", "... the name");
    has_str(out, "job 11: sacct NodeList node2, pod ml/train-a spec.nodeName node1",
            "... the node");
    has_str(out, "job 11: sacct ExitCode 1:0, pod ml/train-a exitCode None", "... the exit code");
    free(out);
    sl_rpt_free(r);
    r = sl_rpt_create();
    sl_error_t err = SL_ERROR_INIT;
    p = json_loads("{\"kind\":\"Status\"}", 0, NULL);
    ok(sl_rpt_add_pods(r, p, "GET /api/v1/pods", &err) < 0 &&
           strstr(err.text, "GET /api/v1/pods: not a pod list"),
       "not a pod list: an error naming the input");
    json_decref(p);
    sl_error_clear(&err);
    sl_rpt_free(r);
}

/* a gang job (a PyTorchJob's Master and Worker): its pods, found by their
 * job-uid and job-id annotations, give its origin, their owner; each pod's
 * node must be one of the job's and its exit code 0 when the job's is */
static const char gang_pods[] =
    "{\"items\":[{\"metadata\":{\"uid\":\"p-m\",\"namespace\":\"ml\",\"name\":\"t-master-0\","
    "\"ownerReferences\":[{\"kind\":\"PyTorchJob\",\"name\":\"t\"}],\"annotations\":"
    "{\"slurmlink.io/job-uid\":\"w-1\",\"slurmlink.io/job-id\":\"30\",\"slurmlink.io/gpus\":"
    "\"{\\\"node\\\":\\\"node1\\\",\\\"indexes\\\":[0]}\"}},\"spec\":{\"nodeName\":\"node1\"},"
    "\"status\":{\"containerStatuses\":[{\"state\":{\"terminated\":{\"exitCode\":0}}}]}},"
    "{\"metadata\":{\"uid\":\"p-w\",\"namespace\":\"ml\",\"name\":\"t-worker-0\","
    "\"ownerReferences\":[{\"kind\":\"PyTorchJob\",\"name\":\"t\"}],\"annotations\":"
    "{\"slurmlink.io/job-uid\":\"w-1\",\"slurmlink.io/job-id\":\"30\",\"slurmlink.io/gpus\":"
    "\"{\\\"node\\\":\\\"NODE\\\",\\\"indexes\\\":[0]}\"}},\"spec\":{\"nodeName\":\"NODE\"},"
    "\"status\":{\"containerStatuses\":[{\"state\":{\"terminated\":{\"exitCode\":EXIT}}}]}}]}";

static sl_rpt_t *gang_load(const char *node, const char *exit, const char *name)
{
    sl_rpt_t *r = sl_rpt_create();
    sl_rpt_job_t j = job("30", name, "node[1-2]", "cpu=2,gres/gpu=2,node=2", 0, 1, 9, "0:0",
                         "slurmlink:uid=w-1 slurmlink:gang=1");
    sl_rpt_add_job(r, &j);
    char *text = sl_xstrdup(gang_pods), *at;
    while ((at = strstr(text, "NODE")) || (at = strstr(text, "EXIT"))) {
        const char *v = !strncmp(at, "NODE", 4) ? node : exit;
        char *t = NULL;
        if (asprintf(&t, "%.*s%s%s", (int)(at - text), text, v, at + 4) < 0)
            abort();
        free(text);
        text = t;
    }
    json_t *p = json_loads(text, 0, NULL);
    free(text);
    sl_rpt_add_pods(r, p, "p", NULL);
    json_decref(p);
    return r;
}

static void gang(void)
{
    sl_rpt_t *r = gang_load("node2", "0", "ml/t");
    is_int(sl_rpt_check(r), 0, "a gang job whose two pods ran on its nodes and exited 0: clean");
    char *out = printed(r);
    has_str(out, "ml/t (PyTorchJob)", "... its origin is the pods' owner, namespace/name (Kind)");
    has_str(out, "node1:0,node2:0", "... both pods' GPUs are its holdings");
    free(out);
    sl_rpt_free(r);
    fails(gang_load("node3", "0", "ml/t"),
          "job 30: sacct NodeList node[1-2], its pod t-worker-0 spec.nodeName node3",
          "a gang pod on a node not the job's fails");
    fails(gang_load("node2", "1", "ml/t"),
          "job 30: sacct ExitCode 0:0, its pod t-worker-0 did not exit 0",
          "a gang pod that failed in a job that exited 0:0 fails");
    fails(gang_load("node2", "0", "ml/tt"),
          "job 30: JobName ml/tt but its pods' PyTorchJob is ml/t",
          "a gang job's name not its owner's fails");
}

static void sacct_table(void)
{
    sl_rpt_t *r = sl_rpt_create();
    sl_error_t err = SL_ERROR_INIT;
    const char *h =
        "JobID|JobName|User|Account|NodeList|AllocTRES|Submit|Start|End|ExitCode|State|Comment\n";
    char *text = NULL;
    if (asprintf(&text, "%s%s%s", h,
                 "5|a|bob|acct|node1|gres/"
                 "gpu=1|2026-12-01T10:00:00|2026-12-01T10:00:02|Unknown|0:0|RUNNING|x|y\n",
                 "5.batch|batch|||node1||2026-12-01T10:00:00|2026-12-01T10:00:02|Unknown|0:0|"
                 "RUNNING|\n") < 0)
        abort();
    ok(sl_rpt_add_sacct(r, text, "t", &err) == 0,
       "a sacct table is read (the last field keeps its '|', steps skipped)");
    free(text);
    json_t *j = sl_rpt_json(r);
    sl_rpt_check(r);
    json_decref(j);
    j = sl_rpt_json(r);
    json_t *jobs = json_object_get(j, "jobs");
    ok(json_array_size(jobs) == 1 &&
           json_is_null(json_object_get(json_array_get(jobs, 0), "run_s")) &&
           json_integer_value(json_object_get(json_array_get(jobs, 0), "wait_s")) == 2,
       "one job, waited 2 s, no run time while End is Unknown");
    json_decref(j);
    ok(sl_rpt_add_sacct(r, "JobID|User\n1|x\n", "f", &err) < 0 &&
           !strcmp(err.text, "f: no field JobName in the header line"),
       "a table without a field names it: %s", err.text);
    ok(sl_rpt_add_sacct(r, "", "/dev/null", &err) < 0 && !strcmp(err.text, "/dev/null: empty"),
       "an empty table: %s", err.text);
    ok(sl_rpt_add_sacct(r,
                        "JobID|JobName|User|Account|NodeList|AllocTRES|Submit|Start|End|ExitCode|"
                        "State|Comment\n1|2\n",
                        "f", &err) < 0 &&
           strstr(err.text, "a line with 2 fields, the header has 12"),
       "a short line: %s", err.text);
    sl_error_clear(&err);
    sl_rpt_free(r);
}

static void formatting(void)
{
    char b[32];
    time_t t = 0;
    ok(sl_rpt_parse_time("2026-12-01T10:00:20", &t) == 0 &&
           !strcmp(sl_rpt_fmt_time(t, b, sizeof(b)), "2026-12-01T10:00:20"),
       "a sacct time reads and prints back the same");
    ok(sl_rpt_parse_time("Unknown", &t) == 0 && t == 0 &&
           !strcmp(sl_rpt_fmt_time(0, b, sizeof(b)), "Unknown"),
       "Unknown is no time, printed Unknown");
    ok(sl_rpt_parse_time("10:00", &t) < 0, "a time that is neither: -1");
    is_str(sl_rpt_fmt_secs(T0, T0 + 90, b, sizeof(b)), "90s", "a duration in seconds");
    is_str(sl_rpt_fmt_secs(T0, 0, b, sizeof(b)), "-", "no duration without both ends");
    char **h = sl_slurm_hostlist_expand("node[1-2],gpu3,n[08-10]");
    sl_argv_t v = {h, 0, 0};
    for (; h && h[v.n]; v.n++)
        ;
    char *s = sl_argv_join(&v);
    is_str(s, "node1 node2 gpu3 n08 n09 n10",
           "Slurm's host list form is expanded (zero padding kept)");
    free(s);
    sl_strv_free(h);
}

/* shards: two jobs holding shards of node1 GPU 1 at once is sharing, not an
 * overlap; a job holding GPU 1 whole meanwhile is one; counts match AllocTRES */
static void shards(void)
{
    const char *recs = "gpu-record job=20 node=node1 gpu=1 shards=1\n"
                       "gpu-record job=21 node=node1 gpu=1 shards=2\n";
    sl_rpt_t *r = sl_rpt_create();
    sl_rpt_job_t a = job("20", "sa", "node1", "cpu=1,gres/shard=1", 0, 1, 20, "0:0", "");
    sl_rpt_job_t b = job("21", "sb", "node1", "cpu=1,gres/shard=2", 0, 2, 21, "0:0", "");
    sl_rpt_add_job(r, &a);
    sl_rpt_add_job(r, &b);
    sl_rpt_add_records(r, recs);
    is_int(sl_rpt_check(r), 0, "two shard jobs on one GPU at once: no problem");
    char *out = printed(r);
    ok(strstr(out, "node1:1/shard:2") && strstr(out, "shards: 1 time(s) two jobs held shards"),
       "the table shows node:index/shard:N and the verdict counts the sharing");
    free(out);
    sl_rpt_free(r);
    r = sl_rpt_create();
    sl_rpt_job_t w = job("22", "whole", "node1", "cpu=1,gres/gpu=1", 0, 5, 8, "0:0", "");
    sl_rpt_add_job(r, &a);
    sl_rpt_add_job(r, &b);
    sl_rpt_add_job(r, &w);
    sl_rpt_add_records(r, "gpu-record job=22 node=node1 gpu=1\n");
    sl_rpt_add_records(r, recs);
    fails(r, "OVERLAP: node1 GPU 1 held by job 20 (", "a GPU held whole while shared fails");
    r = sl_rpt_create();
    sl_rpt_add_job(r, &b);
    sl_rpt_add_records(r, "gpu-record job=21 node=node1 gpu=1 shards=1\n");
    fails(r, "job 21: AllocTRES gres/shard=2 but it recorded 1 shard(s)",
          "fewer shards recorded than AllocTRES says fails");
}

/* long users, accounts and node lists keep the columns aligned: each row's
 * fields start where the header's names do */
static void wide_columns(void)
{
    sl_rpt_t *r = sl_rpt_create();
    sl_rpt_job_t a =
        job("20", "ml/t", "node[1-16],gpu-a100-[001-128]", "cpu=1", 0, 1, 2, "0:0", "");
    a.user = "_slurmlink-jobs";
    a.account = "physics-theory-group";
    sl_rpt_job_t b = job("21", "cpu", "node2", "cpu=1", 0, 1, 2, "0:0", "");
    sl_rpt_add_job(r, &a);
    sl_rpt_add_job(r, &b);
    sl_rpt_check(r);
    char *out = printed(r);
    char *l1 = strchr(out, '\n') + 1, *l2 = strchr(l1, '\n') + 1;
    size_t acc = (size_t)(strstr(out, "ACCOUNT") - out), nod = (size_t)(strstr(out, "NODES") - out),
           gpu = (size_t)(strstr(out, "GPU(") - out);
    ok(!strncmp(l1 + acc, "physics-theory-group ", 21) && !strncmp(l2 + acc, "hpc ", 4),
       "ACCOUNT starts under its name after a 15-character user");
    ok(!strncmp(l1 + nod, "node[1-16],gpu-a100-[001-128] ", 30) && !strncmp(l2 + nod, "node2 ", 6),
       "NODES starts under its name after a 20-character account");
    ok(!strncmp(l1 + gpu, "- ", 2) && !strncmp(l2 + gpu, "- ", 2),
       "GPU(node:idx) starts under its name after a 30-character node list");
    if (strncmp(l1 + acc, "physics", 7))
        printf("# %s", out);
    free(out);
    sl_rpt_free(r);
}

int main(void)
{
    tap_plan(45);
    clean_load();
    overlaps();
    records();
    pods();
    gang();
    sacct_table();
    formatting();
    shards();
    wide_columns();
    return tap_done();
}
