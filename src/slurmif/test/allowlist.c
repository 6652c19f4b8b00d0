/* Every sbatch option the flags annotation may carry (translate's allow-list)
 * is one the in-process submission can express: nothing accepted at
 * admission may fail later at submission for being unknown. */
#include "common/tap.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"
#include "translate/flags.h"

#include <slurm/slurm.h>
#include <stdlib.h>

static const struct {
    const char *name, *value; /* value NULL: a switch */
} samples[] = {
    {"begin", "now+1hour"},       {"deadline", "now+2hours"}, {"mail-type", "END,FAIL"},
    {"signal", "B:USR1@60"},      {"exclusive", NULL},        {"nice", "10"},
    {"no-kill", NULL},            {"gres", "gpu:1"},          {"gpus", "1"},
    {"gpus-per-node", "1"},       {"gpus-per-task", "1"},     {"gpus-per-socket", "1"},
    {"mem", "1G"},                {"mem-per-cpu", "500M"},    {"mem-per-gpu", "2G"},
    {"tmp", "1G"},                {"extra-node-info", "1:2:1"}, {"kill-on-invalid-dep", "yes"},
    {"switches", "1@10"},         {"delay-boot", "5"},        {"nodelist", "node1"},
    {"exclude", "node2"},         {"licenses", "fluent:1"},   {"gpu-bind", "closest"},
    {"gpu-freq", "high"},         {"tres-per-task", "gpu:1"}, {"requeue", NULL},
    {"no-requeue", NULL},         {"contiguous", NULL},       {"use-min-nodes", NULL},
    {"spread-job", NULL},         {"oversubscribe", NULL},    {"time", "1:00:00"},
    {"time-min", "30"},           {"nodes", "1-2"},           {"acctg-freq", "task=30"},
    {"thread-spec", "1"},         {"core-spec", "1"},
};

int main(void)
{
    const char *const *allowed = sl_flags_allowed();
    int n = 0;
    for (const char *const *a = allowed; *a; a++, n++) {
        const char *value = "1";
        for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
            if (!strcmp(samples[i].name, *a))
                value = samples[i].value;
        char *opt = value ? sl_xasprintf("--%s=%s", *a, value) : sl_xasprintf("--%s", *a);
        const char *opts[] = {opt, NULL};
        job_desc_msg_t d;
        slurm_init_job_desc_msg(&d);
        sl_error_t err = {""};
        ok(sl_slurm_apply_options(&d, opts, &err) == 0, "allow-listed %s is expressible (%s)", opt,
           err.text);
        sl_slurm_desc_free(&d);
        free(opt);
    }
    ok(n > 40, "the allow-list is not empty (%d options)", n);
    return tap_done();
}
