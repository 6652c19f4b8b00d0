/* cluster.h — a private, real Slurm cluster in one folder (`slurmlink up`).
 *
 * A cluster folder D holds everything one local cluster needs:
 *   D/cluster.json   ports and options chosen at `up` (the folder's identity)
 *   D/etc/           slurm.conf, gres.conf, slurmdbd.conf, munge.key, slurmlinkd.conf
 *   D/run/           pidfiles and sockets;  D/log/  one log per daemon
 *   D/state D/spool  slurmctld / slurmd state;  D/db  MariaDB datadir
 *   D/dev/gpuN       fake GPU device nodes when the machine has none
 *   D/nodes/         with several nodes: nodeK/{spool,dev/gpuN} and hosts
 *   D/slurmlinkd/    the daemon's own state;  D/kubeconfig
 *   D/pki/           cluster CA, slurmlinkd's server certificate, admin client
 *                    certificate;  D/etc/tokens.csv, D/etc/policy.yaml;
 *                    D/kubeconfig.https  (see docs/security.md)
 * Every daemon the folder starts is recorded in D/run/NAME.pid and carries
 * SLURMLINK_DIR=D in its environment (inherited by slurmstepd); job
 * processes carry the folder's SLURM_CONF and a SLURM_JOB_ID. `down` stops
 * exactly those and nothing else.
 */
#ifndef SL_CLUSTER_H
#define SL_CLUSTER_H

#include <stdio.h>

#include "common/err.h"

typedef struct sl_cluster_opts {
    const char *dir;       /* cluster folder (created if missing) */
    int gpus;              /* GRES gpu count on the node (0: none; -1: as before, else 2) */
    const char *gpu_types; /* "h100,a100": GRES type of node 1, 2, ... (the list repeated;
                            * MIG profiles such as 1g.10gb too); NULL: as before, "": untyped */
    int shards;            /* shard GRES per GPU (-1: as before, else 0: none) */
    int cpus;              /* CPUs the node advertises (0: as before, else this machine's) */
    int accounting;        /* start MariaDB + slurmdbd (-1: as before, else no) */
    int nodes;             /* Slurm nodes (0: as before, else 1; 2..64: one network
                            * namespace each, see docs/cluster.md) */
    int api_port;          /* slurmlinkd port (0: pick a free one) */
    int ctld_port;         /* slurmctld port (0: pick a free one) */
    const char *daemon;    /* slurmlinkd binary (NULL: beside this program) */
    int no_slurmlinkd;     /* everything but slurmlinkd: D/etc/slurmlinkd.conf is written for
                            * one the admin starts (an installed one: docs/deploy.md) */
    int quiet;
} sl_cluster_opts_t;

/* Daemons in start order. */
enum sl_daemon_id {
    SL_D_MUNGED = 0,
    SL_D_MYSQLD,
    SL_D_SLURMDBD,
    SL_D_SLURMCTLD,
    SL_D_SLURMD,
    SL_D_SLURMLINKD,
    SL_D_COUNT
};

const char *sl_daemon_name(int id);

/* Start the cluster in opts->dir. Returns 0 when every daemon answers and the
 * node is idle (prints what it started and the exports to out); 1 when the
 * folder was already running (nothing changed); -1 with err on failure, after
 * stopping whatever this call started. */
int sl_cluster_up(const sl_cluster_opts_t *opts, FILE *out, sl_error_t *err);

/* Stop every process the folder started (SIGTERM, then SIGKILL after a grace
 * period) and sweep any left-over process that belongs to it. Returns the
 * number of processes stopped, or -1 with err (e.g. not a cluster folder). */
int sl_cluster_down(const char *dir, FILE *out, sl_error_t *err);

/* Report each daemon: name, pid, port, running|stopped. json selects output.
 * Returns 0 if all expected daemons run, 1 if some are stopped, -1 on error. */
int sl_cluster_status(const char *dir, int json, FILE *out, sl_error_t *err);

/* The slurmlinkd port recorded in dir/cluster.json, or -1 with err. */
int sl_cluster_api_port(const char *dir, sl_error_t *err);

/* https://ADDR:PORT of the folder's slurmlinkd (caller frees), or NULL with err */
char *sl_cluster_api_url(const char *dir, sl_error_t *err);

#endif
