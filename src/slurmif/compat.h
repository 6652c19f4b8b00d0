/* compat.h — libslurm 22.05 exports these (strong aliases of its internal
 * helpers) without declaring them in <slurm/slurm.h>. Signatures are those of
 * src/common/slurm_protocol_defs.h and parse_time.h in Slurm 22.05. */
#ifndef SL_SLURMIF_COMPAT_H
#define SL_SLURMIF_COMPAT_H

#include <slurm/slurm.h>
#include <stdint.h>
#include <time.h>

extern char *slurm_job_state_string(uint32_t inx);
extern char *slurm_job_reason_string(int inx); /* enum job_state_reason */
extern char *slurm_node_state_string(uint32_t inx);
extern time_t slurm_parse_time(char *time_str, int past);
/* the configuration slurm_init() loaded (src/common/read_config.h) */
extern slurm_conf_t slurm_conf;

#endif
