/* internal.h — shared between the cluster module's files only. */
#ifndef SL_CLUSTER_INTERNAL_H
#define SL_CLUSTER_INTERNAL_H

#include <sys/types.h>

#include "cluster.h"

/* Several nodes: one slurmd per node, each in its own network namespace
 * (netns.c). Daemon instances are the daemons of enum sl_daemon_id, then
 * nodes 2..N's slurmd at SL_D_COUNT + (K - 2); node1's is SL_D_SLURMD. */
#define CL_MAX_NODES 64
#define CL_MAX_INST (SL_D_COUNT + CL_MAX_NODES - 1)

typedef struct cl_state {
    char *dir; /* absolute */
    int gpus, cpus, accounting;
    int nodes;            /* 0 or 1: one node on the host's network (no namespaces) */
    char *net_tag;        /* short hash of dir naming the bridge, links, namespaces */
    int subnet;           /* the folder's /24 in 198.18.0.0/15 (0..511), nodes > 1 */
    int port[SL_D_COUNT]; /* 0 where the daemon has no TCP port */
    char *gpu_files;      /* gres File= value, e.g. D/dev/gpu[0-1] */
    char *gpu_types;      /* "h100,a100": node K's GRES type, the list repeated (NULL: untyped) */
    int shards;           /* shard GRES per GPU (0: none) */
    char *db_pass;
    int no_slurmlinkd;  /* up --no-slurmlinkd: D/etc/slurmlinkd.conf only, the admin starts it */
    const char *run_as; /* pods' default Unix user (cl_run_as_user), not saved; NULL: nobody */
} cl_state_t;

/* path inside the folder: cl_path(st, "etc/slurm.conf"); caller frees */
char *cl_path(const cl_state_t *st, const char *rel);

/* dir/rel, a regular file of at most max bytes, read beneath dir's fd: no
 * link, no "..", never blocking on a FIFO or device (safefs); NULL with
 * errno otherwise. For what `down` and `status` read in any folder. */
char *cl_read_small(const char *dir, const char *rel, size_t max);

int cl_state_load(const char *dir, cl_state_t *st, sl_error_t *err);
int cl_state_save(const cl_state_t *st, sl_error_t *err);
void cl_state_clear(cl_state_t *st);

/* Generated configuration files. */
int cl_write_confs(const cl_state_t *st, sl_error_t *err);
int cl_write_kubeconfig(const cl_state_t *st, sl_error_t *err);
int cl_make_gpus(cl_state_t *st, sl_error_t *err);
/* node k's GPU type from --gpu-types, "" when untyped (caller frees) */
char *cl_gpu_type(const cl_state_t *st, int k);

/* TLS and credentials (security.c): D/pki, D/etc/tokens.csv, D/etc/policy.yaml
 * made once; D/kubeconfig.https (admin, client certificate) at each up. */
int cl_ensure_security(const cl_state_t *st, sl_error_t *err);
/* The Unix user the cluster's pods run as by default (runuser.c): "nobody",
 * or, where the cluster's Slurm refuses nobody's jobs (from 25.11 with
 * accounting), CL_RUN_USER, made when missing; NULL with err. */
#define CL_RUN_USER "_slurmlink-jobs"
const char *cl_run_as_user(int accounting, sl_error_t *err);
/* the system user of registry pulls (SL_IMAGE_PULL_USER), made when missing (pulluser.c) */
int cl_ensure_pull_user(sl_error_t *err);
/* The system user name (no home, nologin, a group of its own; Debian's
 * useradd --system), made when missing (sysuser.c): 0, or -1 with err. A
 * useradd that fails because another `slurmlink up` made the user
 * meanwhile (useradd's status 9) counts as made. */
int cl_ensure_system_user(const char *name, const char *comment, sl_error_t *err);
int cl_write_kubeconfig_https(const cl_state_t *st, sl_error_t *err);
/* https://ADDR:PORT of slurmlinkd: 127.0.0.1, or the bridge with several nodes */
char *cl_api_url(const cl_state_t *st);

/* 1 if the folder runs daemon instance id (MariaDB and slurmdbd only with
 * accounting; nodes 2..N's slurmd only with several nodes) */
int cl_expected(const cl_state_t *st, int id);

/* Daemon instances. */
int cl_multi(const cl_state_t *st); /* 1 with several nodes (namespaces) */
int cl_inst_count(const cl_state_t *st);
int cl_inst_daemon(int inst);                     /* its enum sl_daemon_id */
int cl_inst_node(const cl_state_t *st, int inst); /* node number K of a slurmd, else 0 */
const char *cl_inst_name(const cl_state_t *st, int inst, char *buf, size_t len);
/* instances the folder runs, in start order; returns how many */
int cl_inst_order(const cl_state_t *st, int order[CL_MAX_INST]);

/* Network of several nodes (netns.c). Node K (1..N) has the address
 * 198.18.0.0/15 + subnet*256 + 10 + K on link eth0 of namespace sl<tag>-nodeK,
 * whose peer sl<tag>hK is a port of bridge sl<tag>br (address .1). */
void cl_net_addr(const cl_state_t *st, int node, char buf[16]); /* node 0: the bridge */
void cl_net_ns(const cl_state_t *st, int node, char *buf, size_t len);
int cl_net_plan(cl_state_t *st, const cl_state_t *old, sl_error_t *err);
/* make the bridge (moving to another free /24 when a concurrent `up` took
 * this one: st->subnet is updated), then each node's namespace and link */
int cl_net_up(cl_state_t *st, sl_error_t *err);
/* remove every namespace and link of the folder's tag; returns how many */
int cl_net_down(const cl_state_t *st);
/* D/nodes/nodeK/{spool,pmix,dev} and D/nodes/hosts */
int cl_node_files(const cl_state_t *st, sl_error_t *err);
/* prepared before fork, run in the child: enter node's network namespace,
 * a UTS namespace named after it, a mount namespace with D/nodes/hosts on
 * /etc/hosts, D/nodes/nodeK/pmix on D/pmix and node K's munged's socket
 * D/nodes/nodeK/munge.sock on D/run/munge.sock */
typedef struct cl_node_enter {
    int netns_fd;
    char hostname[32];
    char hosts[256];
    char pmix[256], node_pmix[256];   /* D/nodes/nodeK/pmix is bound on D/pmix */
    char munge[256], node_munge[256]; /* D/nodes/nodeK/munge.sock on D/run/munge.sock */
} cl_node_enter_t;
int cl_node_enter_prepare(const cl_state_t *st, int node, cl_node_enter_t *ne, sl_error_t *err);
int cl_node_enter(void *arg); /* sl_spawn_opts_t.child_setup */

/* Trust (trust.c): refuse, with err naming the path, its owner and mode, a
 * folder path whose existing parents are not root's or that others may write
 * without the sticky bit (they could swap the folder) ... */
int cl_trust_parents(const char *dir, sl_error_t *err);
/* ... and the folder, or what `up` relies on in it (etc/, pki/, the munge
 * key, the CA, tokens, policy, state and log folders...), when not root's,
 * writable by group or others, a link, or a secret readable by others */
int cl_trust_folder(const char *dir, sl_error_t *err);

/* Processes. */
pid_t cl_pidfile_read(const cl_state_t *st, int id);
int cl_pidfile_write(const cl_state_t *st, int id, pid_t pid, sl_error_t *err);
/* 1 if pid is alive and belongs to this folder (its path in cmdline/environ) */
int cl_pid_belongs(pid_t pid, const char *dir);
/* SIGTERM, wait up to grace_ms, SIGKILL. Returns 1 if it was running. */
int cl_stop_pid(pid_t pid, int grace_ms);
/* Kill every remaining process that belongs to the folder; returns count. */
int cl_sweep(const char *dir);
/* environment for Slurm clients and daemons of this folder (NULL-terminated,
 * free with cl_env_free) */
char **cl_env(const cl_state_t *st);
void cl_env_free(char **env);

#endif
