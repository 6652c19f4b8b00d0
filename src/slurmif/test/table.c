/* The options table (slurmif/options.h) walked: every option a pod or
 * slurmlinkd may use applies its sample value and refuses its bad one with
 * an error naming it; every other one is refused by submission; names and
 * short forms are unique. */
#include "common/tap.h"
#include "common/xalloc.h"
#include "slurmif/options.h"
#include "slurmif/slurmif.h"

#include <slurm/slurm.h>
#include <stdlib.h>
#include <string.h>

#define NOPTIONS 103 /* the table's size: a shrunk table fails the plan */

static char *spell(const sl_slurm_opt_t *o, const char *value)
{
    return value ? sl_xasprintf("--%s=%s", sl_slurm_opt_name(o), value)
                 : sl_xasprintf("--%s", sl_slurm_opt_name(o));
}

/* 0 or -1 as sl_slurm_apply_options says, err filled */
static int apply1(const char *opt, sl_error_t *err)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    const char *opts[] = {opt, NULL};
    err->text[0] = '\0';
    int rc = sl_slurm_apply_options(&d, opts, err);
    sl_slurm_desc_free(&d);
    return rc;
}

/* two tests per option */
static void walk(const sl_slurm_opt_t *o)
{
    const char *name = sl_slurm_opt_name(o);
    sl_error_t err;
    char *dashed = sl_xasprintf("--%s", name);
    if (sl_slurm_opt_who(o) == SL_OPT_NONE) {
        char *s = spell(o, sl_slurm_opt_arg(o) == SL_OPTARG_NONE ? NULL : "1");
        ok(apply1(s, &err) < 0 && strstr(err.text, "not supported"),
           "%s: submission refuses it (%s)", name, err.text);
        ok(sl_slurm_opt_refusal(o) && !sl_slurm_opt_sample(o), "%s: the flags refuse it: %s", name,
           sl_slurm_opt_refusal(o) ? sl_slurm_opt_refusal(o) : "(no reason)");
        free(s);
        free(dashed);
        return;
    }
    char *good = spell(o, sl_slurm_opt_sample(o));
    ok(apply1(good, &err) == 0, "%s applies (%s)", good, err.text);
    const char *badv = sl_slurm_opt_bad(o);
    char *bad = badv ? spell(o, badv) : NULL;
    ok(bad && apply1(bad, &err) < 0 && strstr(err.text, dashed), "%s is refused: %s",
       bad ? bad : "(no bad value)", err.text);
    free(good);
    free(bad);
    free(dashed);
}

int main(void)
{
    tap_plan(2 * NOPTIONS + 4);
    size_t n = 0, dup_names = 0, dup_short = 0, reasons = 1;
    const sl_slurm_opt_t *o;
    for (; (o = sl_slurm_opt_at(n)); n++) {
        walk(o);
        for (size_t j = 0; j < n; j++) {
            const sl_slurm_opt_t *p = sl_slurm_opt_at(j);
            dup_names += !strcmp(sl_slurm_opt_name(p), sl_slurm_opt_name(o));
            dup_short += sl_slurm_opt_short(o) && sl_slurm_opt_short(p) == sl_slurm_opt_short(o);
        }
        reasons &= (sl_slurm_opt_who(o) == SL_OPT_POD) == !sl_slurm_opt_refusal(o);
    }
    is_int((int)n, NOPTIONS, "the table holds %d options", NOPTIONS);
    is_int((int)dup_names, 0, "long names are unique");
    is_int((int)dup_short, 0, "short forms are unique");
    ok(reasons, "an option a pod may not use says why, and only those");
    return tap_done();
}
