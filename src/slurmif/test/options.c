/* sbatch long options → job_desc fields, and Slurm time formats (no RPC). */
#include "common/tap.h"
#include "slurmif/slurmif.h"

#include <slurm/slurm.h>

/* d holds the previous call's strings (or none, freshly initialised) */
static int apply(job_desc_msg_t *d, const char *const *opts, sl_error_t *err)
{
    sl_slurm_desc_free(d);
    slurm_init_job_desc_msg(d);
    return sl_slurm_apply_options(d, opts, err);
}

int main(void)
{
    tap_plan(65);
    is_int(sl_slurm_time_minutes("30"), 30, "MM");
    is_int(sl_slurm_time_minutes("1:30"), 2, "MM:SS rounds up to minutes");
    is_int(sl_slurm_time_minutes("2:00:00"), 120, "HH:MM:SS");
    is_int(sl_slurm_time_minutes("1-0"), 1440, "D-HH");
    is_int(sl_slurm_time_minutes("1-02:03"), 1440 + 123, "D-HH:MM");
    is_int(sl_slurm_time_minutes("0-00:00:01"), 1, "D-HH:MM:SS");
    is_int(sl_slurm_time_minutes("UNLIMITED"), -2, "unlimited");
    is_int(sl_slurm_time_minutes("1h"), -1, "1h is not a Slurm time");
    is_int(sl_slurm_time_minutes(""), -1, "empty is invalid");
    is_int(sl_slurm_time_minutes("1:2:3:4"), -1, "four fields invalid");

    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    sl_error_t err = SL_ERROR_INIT;
    const char *o1[] = {"--job-name=default/p1",
                        "--comment=slurmlink:uid=abc",
                        "--partition=gpu",
                        "--account=ai",
                        "--qos=normal",
                        "--time=90",
                        "--cpus-per-task=4",
                        "--mem=2G",
                        "--gres=gpu:2",
                        "--constraint=a100&ib",
                        "--exclusive",
                        "--nodes=1",
                        "--ntasks=2",
                        NULL};
    ok(apply(&d, o1, &err) == 0, "a full option set applies (%s)", err.text);
    is_str(d.name, "default/p1", "job name");
    is_str(d.comment, "slurmlink:uid=abc", "comment");
    is_str(d.partition, "gpu", "partition");
    is_str(d.account, "ai", "account");
    is_str(d.qos, "normal", "qos");
    is_int(d.time_limit, 90, "time limit in minutes");
    is_int(d.cpus_per_task, 4, "cpus per task");
    is_int(d.min_cpus, 8, "min cpus = ntasks * cpus-per-task");
    is_int(d.pn_min_memory, 2048, "--mem=2G is 2048 MB per node");
    is_str(d.tres_per_node, "gres:gpu:2", "--gres=gpu:2 becomes tres_per_node gres:gpu:2");
    is_str(d.features, "a100&ib", "constraint");
    is_int(d.shared, JOB_SHARED_NONE, "exclusive");
    is_int(d.min_nodes, 1, "nodes");
    is_int(d.num_tasks, 2, "ntasks");

    const char *o2[] = {"--mem-per-cpu=500", "--nodes=2-4", "--gpus-per-node=1", NULL};
    ok(apply(&d, o2, &err) == 0, "mem-per-cpu, node range, gpus-per-node");
    ok(d.pn_min_memory == (500 | MEM_PER_CPU), "mem-per-cpu sets the MEM_PER_CPU flag");
    is_int(d.min_nodes, 2, "node range low");
    is_int(d.max_nodes, 4, "node range high");
    is_str(d.tres_per_node, "gres:gpu:1", "gpus-per-node");

    const char *bad1[] = {"--uid=0", NULL};
    ok(apply(&d, bad1, &err) < 0, "--uid is refused");
    has_str(err.text, "--uid", "the error names --uid");
    const char *bad2[] = {"--time=soon", NULL};
    ok(apply(&d, bad2, &err) < 0, "a bad time is refused");
    has_str(err.text, "--time: invalid time \"soon\"", "the error names option and value");
    const char *bad3[] = {"--mem=lots", NULL};
    ok(apply(&d, bad3, &err) < 0, "a bad size is refused");
    const char *bad4[] = {"-p", NULL};
    ok(apply(&d, bad4, &err) < 0, "short options must have been normalised");
    const char *bad5[] = {"--cpus-per-task=0", NULL};
    ok(apply(&d, bad5, &err) < 0, "zero cpus refused");
    const char *bad6[] = {"--partition", NULL};
    ok(apply(&d, bad6, &err) < 0, "an option without its value is refused");
    has_str(err.text, "needs a value", "and says so");
    /* --nice like sbatch: an integer within +-(NICE_OFFSET - 3), 100 without a value */
    const char *n1[] = {"--nice=-5", NULL};
    ok(apply(&d, n1, &err) == 0, "--nice=-5 parses (slurmctld decides whether it is allowed)");
    ok(d.nice == NICE_OFFSET - 5, "... nice is NICE_OFFSET - 5");
    const char *n2[] = {"--nice", NULL};
    ok(apply(&d, n2, &err) == 0 && d.nice == NICE_OFFSET + 100, "--nice alone is 100");
    const char *n3[] = {"--nice=abc", NULL};
    ok(apply(&d, n3, &err) < 0, "--nice=abc is refused (not 0)");
    is_str(err.text, "--nice: invalid value \"abc\": must be an integer -2147483645..2147483645",
           "... naming the flag and the range");
    const char *n4[] = {"--nice=2147483646", NULL};
    ok(apply(&d, n4, &err) < 0, "--nice beyond sbatch's range is refused");
    const char *n5[] = {"--nice=5x", NULL};
    ok(apply(&d, n5, &err) < 0, "--nice=5x is refused");
    ok(sl_slurm_check_options(n3, &err) < 0,
       "sl_slurm_check_options refuses what submission would");
    ok(sl_slurm_check_options(n1, &err) == 0, "... and takes what it would");
    /* values the old parser took in part or not at all, and submitted anyway */
    const char *junk[][2] = {
        {"--extra-node-info=2x", "--extra-node-info"},
        {"--extra-node-info=1:2:3:4", "--extra-node-info"},
        {"--gpus=abc", "--gpus"},
        {"--gpus-per-task=gpu:", "--gpus-per-task"},
        {"--requeue=yes", "--requeue"},
        {"--partition=", "--partition"},
        {"--mail-type=,", "--mail-type"},
    };
    for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
        const char *j[] = {junk[i][0], NULL};
        err.text[0] = '\0';
        ok(apply(&d, j, &err) < 0, "%s is refused", junk[i][0]);
        has_str(err.text, junk[i][1], "... the error names %s (%s)", junk[i][1], err.text);
    }
    const char *g1[] = {"--gpus=a100:2", "--gpus-per-task=1", NULL};
    ok(apply(&d, g1, &err) == 0, "--gpus=TYPE:N and N apply (%s)", err.text);
    is_str(d.tres_per_job, "gres:gpu:a100:2", "... typed GPU count");
    is_str(d.tres_per_task, "gres:gpu:1", "... plain count");
    sl_slurm_desc_free(&d);
    return tap_done();
}
