/* internal.h — what slurm.c and options.c share inside slurmif. */
#ifndef SL_SLURMIF_INTERNAL_H
#define SL_SLURMIF_INTERNAL_H

/* Replace a job_desc string field with a copy of v. */
void sl_slurm_set_str(char **field, const char *v);

#endif
