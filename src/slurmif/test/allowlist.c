/* Every sbatch option the flags annotation may carry (translate's allow-list)
 * is one the in-process submission can express, with the table's sample
 * value: nothing accepted at admission may fail later at submission for
 * being unknown; and the allow-list is exactly the table's SL_OPT_POD. */
#include "common/tap.h"
#include "common/xalloc.h"
#include "slurmif/options.h"
#include "slurmif/slurmif.h"
#include "translate/flags.h"

#include <stdlib.h>
#include <string.h>

#define NALLOWED 61 /* the allow-list's size: a shrunk list fails the plan */

int main(void)
{
    tap_plan(2 * NALLOWED + 2);
    const char *const *allowed = sl_flags_allowed();
    int n = 0, pods = 0;
    for (const char *const *a = allowed; *a; a++, n++) {
        const sl_slurm_opt_t *o = sl_slurm_opt_find(*a, strlen(*a));
        const char *value = o ? sl_slurm_opt_sample(o) : "1";
        char *opt = value ? sl_xasprintf("--%s=%s", *a, value) : sl_xasprintf("--%s", *a);
        sl_flags_t f = SL_FLAGS_INIT;
        sl_error_t err = SL_ERROR_INIT;
        ok(o && sl_flags_parse(opt, &f, &err) == 0 && f.n == 1, "the flags take %s (%s)", opt,
           err.text);
        const char *opts[] = {opt, NULL};
        ok(sl_slurm_check_options(opts, &err) == 0, "allow-listed %s is expressible (%s)", opt,
           err.text);
        sl_flags_free(&f);
        free(opt);
    }
    for (size_t i = 0; sl_slurm_opt_at(i); i++)
        pods += sl_slurm_opt_who(sl_slurm_opt_at(i)) == SL_OPT_POD;
    is_int(n, NALLOWED, "the allow-list holds %d options", NALLOWED);
    is_int(pods, n, "... the table's options a pod may use, all of them");
    return tap_done();
}
