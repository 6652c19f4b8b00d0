/* internal.h — shared between the cluster module's files only. */
#ifndef SL_CLUSTER_INTERNAL_H
#define SL_CLUSTER_INTERNAL_H

#include <sys/types.h>

#include "cluster.h"

typedef struct cl_state {
    char *dir; /* absolute */
    int gpus, cpus, accounting;
    int port[SL_D_COUNT]; /* 0 where the daemon has no TCP port */
    char *gpu_files;      /* gres File= value, e.g. D/dev/gpu[0-1] */
    char *db_pass;
} cl_state_t;

/* path inside the folder: cl_path(st, "etc/slurm.conf"); caller frees */
char *cl_path(const cl_state_t *st, const char *rel);

int cl_state_load(const char *dir, cl_state_t *st, sl_error_t *err);
int cl_state_save(const cl_state_t *st, sl_error_t *err);
void cl_state_clear(cl_state_t *st);

/* Generated configuration files. */
int cl_write_confs(const cl_state_t *st, sl_error_t *err);
int cl_write_kubeconfig(const cl_state_t *st, sl_error_t *err);
int cl_make_gpus(cl_state_t *st, sl_error_t *err);

/* TLS and credentials (security.c): D/pki, D/etc/tokens.csv, D/etc/policy.yaml
 * made once; D/kubeconfig.https (admin, client certificate) at each up. */
int cl_ensure_security(const cl_state_t *st, sl_error_t *err);
int cl_write_kubeconfig_https(const cl_state_t *st, sl_error_t *err);

/* 1 if the folder runs daemon id (MariaDB and slurmdbd only with accounting) */
int cl_expected(const cl_state_t *st, int id);

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
