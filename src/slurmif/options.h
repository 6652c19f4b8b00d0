/* options.h — sbatch's long options, one table: for each, its short form,
 * its argument, who may use it, the job_desc field it sets and the parser
 * that checks its value (the range, the format).
 *
 * The same table is the flags annotation's allow-list (translate/flags.c
 * reads it), the in-process submission's option parser
 * (sl_slurm_apply_options) and what the unit tests walk; an option is
 * described once. Names are sbatch's long names without "--". */
#ifndef SL_SLURMIF_OPTIONS_H
#define SL_SLURMIF_OPTIONS_H

#include <stddef.h>

typedef enum {
    SL_OPTARG_NONE,     /* a switch: --requeue */
    SL_OPTARG_REQUIRED, /* --partition=gpu */
    SL_OPTARG_OPTIONAL, /* --exclusive, --exclusive=user */
} sl_optarg_t;

typedef enum {
    SL_OPT_POD,    /* a pod's slurm-job.vk.io/flags may carry it */
    SL_OPT_DAEMON, /* slurmlinkd sets it itself; the flags may not */
    SL_OPT_NONE,   /* nobody: in-process submission does not express it */
} sl_optwho_t;

typedef struct sl_slurm_opt sl_slurm_opt_t;

/* The i-th option of the table, NULL past its end. */
const sl_slurm_opt_t *sl_slurm_opt_at(size_t i);
/* The option with this exact long name (n bytes of name), or NULL. */
const sl_slurm_opt_t *sl_slurm_opt_find(const char *name, size_t n);

const char *sl_slurm_opt_name(const sl_slurm_opt_t *o);
char sl_slurm_opt_short(const sl_slurm_opt_t *o); /* 0: none */
sl_optarg_t sl_slurm_opt_arg(const sl_slurm_opt_t *o);
sl_optwho_t sl_slurm_opt_who(const sl_slurm_opt_t *o);
/* Why a pod's flags may not carry it; NULL for SL_OPT_POD. */
const char *sl_slurm_opt_refusal(const sl_slurm_opt_t *o);
/* A value its parser takes and one it refuses (NULL for a switch's
 * value: the option alone); for the unit tests and the docs. Options of
 * SL_OPT_NONE have neither. */
const char *sl_slurm_opt_sample(const sl_slurm_opt_t *o);
const char *sl_slurm_opt_bad(const sl_slurm_opt_t *o);

#endif
