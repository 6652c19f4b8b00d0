/* internal.h — what the doctor's checks share: the run's context, the
 * report of one line per check, and the probe's answers per node. */
#ifndef SL_DOCTOR_INTERNAL_H
#define SL_DOCTOR_INTERNAL_H

#include "doctor/doctor.h"

#include <sys/types.h>

typedef enum dr_level { DR_OK, DR_WARN, DR_FAIL } dr_level_t;

/* one compute node and what its probe answered */
typedef struct dr_node {
    char name[64];
    char partition[64]; /* the first partition it is in ("" none) */
    unsigned gpus;
    int usable;    /* not down, drained or not responding */
    int probed;    /* the probe ran to its end (out holds its lines) */
    char *out;     /* the probe's stdout: key=value lines */
    char why[256]; /* why there is no answer, when !probed */
    double t0, t1; /* the head's clock before and after the probe */
} dr_node_t;

#define DR_MAX_RT 8

typedef struct dr_ctx {
    const sl_doctor_opts_t *o;
    const char *slurm_conf; /* the file libslurm loads */
    char *pods_root, *shim, *push_host;
    int push_port;
    const char *user;   /* the probe user */
    const char *run_as; /* slurmlinkd's job user (slurm.run_as) */
    uid_t uid;
    gid_t gid;
    int user_ok;
    char nonce[33];
    char *probe_dir; /* pods_root/.slurmlink-doctor-NONCE, made by the head; NULL if not */
    int probe_fd;    /* that folder, opened when made (-1: none); the probe user owns it:
                      * what is in it is read beneath this fd, never through a link,
                      * a FIFO or a device (src/common/safefs.h) */
    int slurm_ok;
    char authinfo[256];
    char accounting[64];
    char ctl_version[32]; /* slurmctld's release, "" when it does not answer */
    dr_node_t *nodes;
    size_t nnodes;
    const char *rt[DR_MAX_RT]; /* runtime names */
    const char *rt_bin[DR_MAX_RT];
    size_t nrt;
    int fails;
} dr_ctx_t;

/* one line: level, check name, what was found (printf), and the fix
 * (NULL: none; printed when the level is not ok) */
void dr_report(dr_ctx_t *c, dr_level_t lv, const char *name, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* the head's checks (head.c) */
void dr_check_root(dr_ctx_t *c);
void dr_check_slurm(dr_ctx_t *c);
void dr_check_munge(dr_ctx_t *c);
void dr_check_accounting(dr_ctx_t *c);
void dr_check_nodes(dr_ctx_t *c);
void dr_check_gres(dr_ctx_t *c);
void dr_check_pods_head(dr_ctx_t *c);

/* the probe and the checks of its answers (probe.c, nodes.c) */
void dr_check_probe(dr_ctx_t *c);
void dr_check_pods_shared(dr_ctx_t *c);
void dr_check_shim(dr_ctx_t *c);
void dr_check_runtimes(dr_ctx_t *c);
void dr_check_clock(dr_ctx_t *c);
void dr_check_push(dr_ctx_t *c);

/* the value of key in a probe's answer, copied into buf ("" and 0 when absent) */
int dr_probe_get(const dr_node_t *n, const char *key, char *buf, size_t len);

#endif
