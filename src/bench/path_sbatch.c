/* path_sbatch.c — the "Adjacent-Slurm" baseline: the batch script slurmlinkd
 * would submit for the pod, given to `sbatch --parsable` directly (argv, no
 * shell); completion polled through libslurm as a script or portal would. */
#include "bench/internal.h"

#include "common/proc.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct ack {
    sl_bench_run_t *r;
} ack_t;

static int on_line(void *arg, const char *line, long long t)
{
    ack_t *a = arg;
    if (a->r->job_id[0] || !*line)
        return 0;
    /* --parsable prints "id" or "id;cluster" */
    size_t n = strcspn(line, ";");
    if (n >= sizeof(a->r->job_id))
        n = sizeof(a->r->job_id) - 1;
    memcpy(a->r->job_id, line, n);
    a->r->job_id[n] = '\0';
    a->r->t_ack = t;
    return 0; /* let sbatch exit by itself */
}

static void submit_one(bench_ctx_t *c, sl_bench_run_t *r, long long deadline_ms)
{
    sl_translate_result_t *res = bench_direct_prepare(c, r);
    if (!res)
        return;
    sl_argv_t env = SL_ARGV_INIT, argv = SL_ARGV_INIT;
    bench_job_env(c, r->uid, &env);
    sl_argv_add(&argv, "sbatch");
    sl_argv_add(&argv, "--parsable");
    if (c->uid != 0) { /* as slurmlinkd does: the job belongs to the mapped user */
        sl_argv_addf(&argv, "--uid=%u", (unsigned)c->uid);
        sl_argv_addf(&argv, "--gid=%u", (unsigned)c->gid);
    }
    sl_argv_addf(&argv, "%s/job.sh", res->pod_dir);
    ack_t a = {r};
    char *errout = NULL;
    sl_error_t err = SL_ERROR_INIT;
    r->t_submit = sl_wall_us();
    int st = bench_child_run((const char *const *)argv.v, (const char *const *)env.v, on_line, &a,
                             &errout, deadline_ms, &err);
    if (st < 0)
        sl_bench_run_fail(r, "sbatch: %s", err.text);
    else if (st != 0 || !r->job_id[0]) {
        char *tail = sl_run_tail(errout, 300);
        sl_bench_run_fail(r, "sbatch exited %d: %s", st, tail);
        free(tail);
    } else if (strspn(r->job_id, "0123456789") != strlen(r->job_id))
        sl_bench_run_fail(r, "sbatch printed '%s', not a job id", r->job_id);
    free(errout);
    sl_argv_free(&env);
    sl_argv_free(&argv);
    sl_translate_result_destroy(res);
}

static int setup(bench_ctx_t *c, void **state, sl_error_t *err)
{
    (void)c;
    *state = NULL;
    char *out = NULL;
    const char *argv[] = {"sbatch", "--version", NULL};
    int st = sl_run(argv, NULL, 1, 10000, &out, err);
    free(out);
    if (st != 0) {
        errno = ENOENT;
        return st < 0 ? -1 : sl_errprintf(err, "sbatch --version exited %d", st);
    }
    return 0;
}

static void submit(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n)
{
    (void)state;
    long long deadline = sl_now_ms() + c->timeout_ms;
    for (size_t i = 0; i < n; i++) {
        submit_one(c, rs[i], deadline);
        bench_progress(c, "%s: %zu/%zu submitted", rs[i]->path, i + 1, n);
    }
}

/* The job's outcome as Slurm states it: the base state, CG flag ignored
 * (that is when `sacct`/`scontrol` first report COMPLETED or FAILED). */
static void seen(sl_bench_run_t *r, const sl_slurm_job_t *j, long long t)
{
    r->t_seen = t;
    snprintf(r->phase, sizeof(r->phase), "%s", j->state);
    if (strcmp(j->state, "COMPLETED"))
        sl_bench_run_fail(r, "Slurm job %s ended %s (exit %d, signal %d)", r->job_id, j->state,
                          j->exit_code, j->exit_signal);
}

/* Few jobs: one `slurm_load_job` each per poll (~1 ms); many: one load of
 * every job. Both as a polling client would. */
static void wait_jobs(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n,
                      long long deadline_ms)
{
    (void)state;
    size_t left = 0;
    for (size_t i = 0; i < n; i++)
        if (!rs[i]->error[0])
            left++;
    while (left) {
        if (sl_now_ms() > deadline_ms) {
            for (size_t i = 0; i < n; i++)
                if (!rs[i]->error[0] && !rs[i]->t_seen)
                    sl_bench_run_fail(rs[i], "Slurm job %s not finished in time", rs[i]->job_id);
            return;
        }
        sl_error_t err = SL_ERROR_INIT;
        if (left <= 8) {
            for (size_t i = 0; i < n; i++) {
                sl_bench_run_t *r = rs[i];
                if (r->error[0] || r->t_seen)
                    continue;
                sl_slurm_jobs_t *js = NULL;
                int rc = sl_slurm_job_load((uint32_t)strtoul(r->job_id, NULL, 10), &js, &err);
                long long t = sl_wall_us();
                if (rc < 0 && errno == ENOENT) {
                    sl_bench_run_fail(r, "Slurm forgot job %s before it was seen ending",
                                      r->job_id);
                    left--;
                } else if (rc >= 0 && sl_slurm_jobs_count(js) &&
                           bench_slurm_terminal(sl_slurm_jobs_at(js, 0)->state)) {
                    seen(r, sl_slurm_jobs_at(js, 0), t);
                    left--;
                }
                sl_slurm_jobs_free(js);
            }
        } else {
            time_t since = 0;
            sl_slurm_jobs_t *js = NULL;
            if (sl_slurm_jobs_load(&since, &js, &err) > 0) {
                long long t = sl_wall_us();
                for (size_t k = 0; k < sl_slurm_jobs_count(js); k++) {
                    const sl_slurm_job_t *j = sl_slurm_jobs_at(js, k);
                    if (!bench_slurm_terminal(j->state))
                        continue;
                    char id[24];
                    snprintf(id, sizeof(id), "%u", j->job_id);
                    for (size_t i = 0; i < n; i++)
                        if (!rs[i]->error[0] && !rs[i]->t_seen && !strcmp(rs[i]->job_id, id)) {
                            seen(rs[i], j, t);
                            left--;
                        }
                }
            }
            sl_slurm_jobs_free(js);
        }
        if (n > 1)
            bench_progress(c, "%s: %zu/%zu finished", rs[0]->path, n - left, n);
        if (left)
            sl_sleep_ms(c->poll_ms);
    }
}

const bench_path_t bench_path_sbatch = {
    .name = "sbatch",
    .what = "the script slurmlinkd would submit, run with sbatch --parsable; libslurm polled",
    .setup = setup,
    .submit = submit,
    .wait = wait_jobs,
    .teardown = NULL,
};
