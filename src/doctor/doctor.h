/* doctor.h — `slurmlink doctor`: the checks an admin runs on the head node
 * before users arrive, with slurmlinkd's configuration file.
 *
 * Each check is one function in a table (doctor.c) and prints one line:
 * "ok", "warn" or "FAIL", the check's name, what it found and, when it is
 * not ok, how to fix it. The checks of the nodes read the answers of a
 * probe: a tiny srun per node, run as a job user, that writes a nonce file
 * in the pods root, runs the shim's --version, looks for each runtime,
 * reports its clock and connects to the shims' push address (probe.c). */
#ifndef SL_DOCTOR_DOCTOR_H
#define SL_DOCTOR_DOCTOR_H

#include <stdio.h>

#include "config/config.h"

typedef struct sl_doctor_opts {
    const sl_config_t *cfg;      /* slurmlinkd's settings */
    const char *probe_user;      /* the probes' Unix user (NULL: slurm.run_as) */
    const char *const *runtimes; /* runtimes to look for besides the configured ones (NULL-ended) */
    int timeout_s;               /* for each node's probe */
    FILE *out;
} sl_doctor_opts_t;

/* Run every check, one line each on o->out; returns the number that
 * failed (0: everything users need is there; warnings do not count). */
int sl_doctor_run(const sl_doctor_opts_t *o);

#endif
