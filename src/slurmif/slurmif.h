/* slurmif.h — every call slurmlink makes into Slurm, in one module
 * (libslurm 22.05 to 26.05; compat.h holds what differs between them).
 *
 * Another Slurm version should be this folder's work only. libslurm keeps
 * process-global state: call sl_slurm_init() once per process before the
 * rest. All functions are safe to call from several threads (libslurm RPCs
 * are; the module adds no shared state beyond init).
 */
#ifndef SL_SLURMIF_H
#define SL_SLURMIF_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/err.h"

/* Load slurm.conf (NULL: $SLURM_CONF, else /etc/slurm/slurm.conf) once for
 * the process, after checking that libslurm can: 0, or -1 with err naming
 * the file and the reason ("slurm.conf F: No such file or directory",
 * "slurm.conf F: Parse error in file F line 3: ..."); libslurm's fatal()
 * never ends the caller for a bad file. Call it before any thread starts
 * (it forks). */
int sl_slurm_init(const char *conf, sl_error_t *err);

/* A batch job to submit in-process (no sbatch exec). Options use sbatch's
 * long forms, one per element, already validated by translate:
 * "--partition=gpu", "--gres=gpu:1", "--exclusive". An option this module
 * cannot express is an error naming it, never silently dropped. */
typedef struct sl_slurm_submit {
    const char *script;         /* the whole batch script text */
    const char *const *env;     /* NULL-terminated "K=V" list; must not be empty */
    const char *const *options; /* NULL-terminated */
    uid_t uid;                  /* job owner (the daemon runs as root) */
    gid_t gid;
    const char *work_dir; /* --chdir */
    const char *std_out;  /* --output */
    const char *std_err;  /* --error (NULL: with stdout) */
    const char *array;    /* --array ("0-5%2"; NULL: not an array): a Kubernetes Job
                           * only (the option table refuses --array from pods) */
} sl_slurm_submit_t;

/* Submit as the job's user: the submitting thread takes uid/gid as its
 * effective ids for the one RPC (slurm.c says how), so slurmctld judges the
 * job exactly as that user's own sbatch, and a refusal is Slurm's reason.
 * Returns 0 and sets *job_id, or -1 with errno and err; *retryable
 * (may be NULL) says whether trying again later can help (slurmctld
 * unreachable or busy) as opposed to a request Slurm refuses (bad partition,
 * QOS, association limits). */
int sl_slurm_submit(const sl_slurm_submit_t *req, uint32_t *job_id, int *retryable,
                    sl_error_t *err);

/* Whether an RPC that failed with errno e can succeed later: slurmctld
 * unreachable, not answering in time, or busy (sl_slurm_submit's
 * *retryable; the cancellations of removed pods' jobs try again on it). */
int sl_slurm_retryable(int e);

/* The calling thread's effective uid/gid and groups, while it acts as a
 * job's user (sl_slurm_submit uses these; exposed for the unit test). */
typedef struct sl_slurm_cred {
    int switched;
    uid_t euid;
    gid_t egid;
    int ngroups;
    gid_t groups[256];
} sl_slurm_cred_t;
/* Take uid/gid as this thread's effective ids (when it is root; a non-root
 * caller stays itself) until sl_slurm_cred_end. Between the two: no file
 * access, no other work on this thread; one RPC. -1 with err if refused. */
int sl_slurm_cred_begin(uid_t uid, gid_t gid, sl_slurm_cred_t *saved, sl_error_t *err);
/* Back to the saved ids; aborts if the kernel refuses (never goes on as the user). */
void sl_slurm_cred_end(const sl_slurm_cred_t *saved);

/* Check options as sl_slurm_submit would apply them, without submitting:
 * 0, or -1 with err naming the option and why (the admission check). */
int sl_slurm_check_options(const char *const *options, sl_error_t *err);

/* Fill a job_desc from options only (unit-testable, no RPC): see slurm.c.
 * Returns 0 or -1 with err naming the option. desc is a job_desc_msg_t*. */
int sl_slurm_apply_options(void *desc, const char *const *options, sl_error_t *err);
/* Free the strings sl_slurm_apply_options put in desc (not desc itself). */
void sl_slurm_desc_free(void *desc);

/* Parse Slurm's time formats (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM,
 * D-HH:MM:SS, UNLIMITED/INFINITE) into minutes (rounded up); -1 if invalid,
 * -2 for unlimited. */
long sl_slurm_time_minutes(const char *s);

/* Signal a job. batch_only: only the batch step (the shim), which forwards it
 * with the grace period; else every step. */
int sl_slurm_signal(uint32_t job_id, int sig, int batch_only, sl_error_t *err);
/* scancel: pending jobs leave the queue, running ones are killed now. */
int sl_slurm_cancel(uint32_t job_id, sl_error_t *err);
/* scancel ARRAY_TASK: one task of an array, pending or not. */
int sl_slurm_cancel_task(uint32_t array_job_id, uint32_t task, sl_error_t *err);
/* scancel ARRAY_[TASKS]: the tasks of an array ("3-4,7") in one RPC. */
int sl_slurm_cancel_tasks(uint32_t array_job_id, const char *tasks, sl_error_t *err);
/* scontrol update JobId=ARRAY ArrayTaskThrottle=N: at most n tasks of the
 * array run at once (0: no limit). */
int sl_slurm_array_throttle(uint32_t array_job_id, unsigned n, sl_error_t *err);
/* slurm.conf MaxArraySize (the highest task index is one less); 0 if unknown. */
unsigned sl_slurm_max_array_size(void);

/* A job as the controllers need it. Strings are owned by the snapshot. */
typedef struct sl_slurm_job {
    uint32_t job_id;
    uint32_t user_id;
    const char *name;
    const char *comment;
    const char *state; /* base state: PENDING RUNNING COMPLETED FAILED CANCELLED TIMEOUT
                          OUT_OF_MEMORY NODE_FAIL PREEMPTED BOOT_FAIL DEADLINE SUSPENDED */
    int completing;    /* CG flag */
    int requeued;      /* REQUEUED flag or restart count > 0 */
    unsigned restart_cnt;
    const char *reason;      /* pending reason ("Resources", "Priority", ...), "None" */
    const char *reason_text; /* free-form reason (submission errors), may be "" */
    const char *nodes;       /* node list ("" while pending) */
    const char *batch_host;
    time_t submit_time, start_time, end_time;
    int exit_code; /* WEXITSTATUS part of the batch script */
    int exit_signal;
    uint32_t array_job_id;  /* 0: not an array task */
    uint32_t array_task_id; /* SL_SLURM_NO_TASK: not one task (the record of pending tasks) */
} sl_slurm_job_t;
#define SL_SLURM_NO_TASK 0xfffffffeu

typedef struct sl_slurm_jobs sl_slurm_jobs_t;
/* Load every job known to slurmctld, only if something changed since
 * *since (0: always). Returns 1 with *out (free with sl_slurm_jobs_free)
 * and *since advanced, 0 when nothing changed, -1 with err. One RPC. */
int sl_slurm_jobs_load(time_t *since, sl_slurm_jobs_t **out, sl_error_t *err);
size_t sl_slurm_jobs_count(const sl_slurm_jobs_t *j);
const sl_slurm_job_t *sl_slurm_jobs_at(const sl_slurm_jobs_t *j, size_t i);
void sl_slurm_jobs_free(sl_slurm_jobs_t *j);
/* The tasks of record i still pending in its array (the record of pending
 * tasks, array_task_id SL_SLURM_NO_TASK): set[t] = 1 for each such task
 * t < n (set zeroed first). Returns how many, 0 for any other record
 * and for a record no longer pending (a cancelled array's). */
size_t sl_slurm_jobs_pending_tasks(const sl_slurm_jobs_t *j, size_t i, unsigned char *set,
                                   size_t n);
/* One job by id (NULL and errno ENOENT when Slurm no longer knows it). */
int sl_slurm_job_load(uint32_t job_id, sl_slurm_jobs_t **out, sl_error_t *err);

/* What accounting (slurmdbd) recorded of a job slurmctld no longer knows
 * (purged MinJobAge after it ended). Returns 1 and fills *out (strings point
 * to static text or into out), 0 when the cluster keeps no job accounting
 * (AccountingStorageType is not accounting_storage/slurmdbd) or accounting
 * holds no finished record of the job, -1 with err when slurmdbd does not
 * answer. Fields set: job_id, user_id, state (a finished state),
 * exit_code, exit_signal, start_time, end_time, nodes. */
typedef struct sl_slurm_acct_job {
    sl_slurm_job_t job;
    char nodes[256];
} sl_slurm_acct_job_t;
int sl_slurm_job_accounting(uint32_t job_id, sl_slurm_acct_job_t *out, sl_error_t *err);

typedef struct sl_slurm_node {
    const char *name, *addr, *hostname;
    const char *state; /* "IDLE", "MIXED", "ALLOCATED", "DOWN", "IDLE+DRAIN", ... */
    int down, drain, not_responding;
    const char *reason; /* drain/down reason, "" */
    unsigned cpus, alloc_cpus;
    uint64_t real_memory_mb, alloc_memory_mb;
    unsigned gpus, alloc_gpus;    /* from gres / gres_used "gpu:N" */
    const char *gres, *gres_used; /* Slurm's own text: "gpu:h100:2(S:0),shard:4", "" */
    unsigned cpu_load;            /* slurmd's load average x 100 (0: unknown) */
    const char *features;         /* comma list, "" */
    const char *partitions;       /* comma list, "" */
    const char *version;
    time_t boot_time, slurmd_start_time;
} sl_slurm_node_t;

typedef struct sl_slurm_nodes sl_slurm_nodes_t;
int sl_slurm_nodes_load(time_t *since, sl_slurm_nodes_t **out, sl_error_t *err);
size_t sl_slurm_nodes_count(const sl_slurm_nodes_t *n);
const sl_slurm_node_t *sl_slurm_nodes_at(const sl_slurm_nodes_t *n, size_t i);
void sl_slurm_nodes_free(sl_slurm_nodes_t *n);
/* Has this process drained or resumed a node (sl_slurm_node_set_drain)
 * since n was read? Then n may show a node as it was before that change:
 * whoever writes n out keeps what the change wrote, and reads again. */
bool sl_slurm_nodes_outdated(const sl_slurm_nodes_t *n);

/* Drain the node with reason (drain 1: scontrol update nodename=NAME
 * state=drain reason=REASON; running jobs go on, no new ones start) or
 * resume it (drain 0: state=resume; reason unused). Needs SlurmUser or
 * root. 0, or -1 with err naming the node and Slurm's error. */
int sl_slurm_node_set_drain(const char *name, int drain, const char *reason, sl_error_t *err);

/* What slurmctld says of its configuration (one RPC: it answers or not). */
typedef struct sl_slurm_ctl_info {
    char version[32];
    char cluster[64];
    char accounting[64]; /* AccountingStorageType: accounting_storage/slurmdbd, .../none */
    char authinfo[256];  /* AuthInfo ("socket=PATH" names munged's socket), "" */
    char gres_types[128];
} sl_slurm_ctl_info_t;
int sl_slurm_ctl_info(sl_slurm_ctl_info_t *out, sl_error_t *err);

/* The Slurm release slurmlink was built against (its headers'
 * SLURM_VERSION_NUMBER): "25.11.7". */
const char *sl_slurm_built_version(void);
/* Whether the release built against and slurmctld's (ctl: "25.11.7", as
 * sl_slurm_ctl_info reports it) differ in major release (the YY.MM part):
 * 1 with line (n bytes) naming both, 0 when they agree, -1 when ctl is not
 * a release number. */
int sl_slurm_release_differs(const char *ctl, char *line, size_t n);
/* The two compared by asking slurmctld (one RPC): 1 with line (also when
 * sl_slurm_release_refusal explains its refusal), 0, or -1 with err when
 * slurmctld does not answer. */
int sl_slurm_release_check(const char *bin_dir, char *line, size_t n, sl_error_t *err);
/* An RPC failed with errno e: 1 with line when the releases explain it
 * (slurmctld refuses libslurm's protocol or its messages, which a libslurm
 * newer or much older than slurmctld meets): the line names the release
 * of bin_dir's scontrol (--version) when it differs from libslurm's; 0
 * when they do not explain it. */
int sl_slurm_release_refusal(int e, const char *bin_dir, char *line, size_t n);

/* Whether slurmctld of release ctl ("25.11.7", as sl_slurm_ctl_info
 * reports it) with accounting (AccountingStorageType) refuses the jobs of
 * slurmlinkd's job user (slurm.run_as; uid, or -1 when unknown): from
 * Slurm 25.11, with accounting_storage/slurmdbd, the user nobody (by name
 * or uid 65534) has no association a job can match (sacctmgr maps the name
 * to SLURM_AUTH_NOBODY), so every job of it is refused as "Invalid account
 * or account/partition combination". 1 with line (n bytes) naming the
 * option, the release and what to set; 0 otherwise (also when ctl is not
 * a release number). */
int sl_slurm_job_user_refused(const char *ctl, const char *accounting, const char *user, long uid,
                              char *line, size_t n);

/* 1 if the Slurm host list ("node[1-4],gpu7") names the host name */
int sl_slurm_hostlist_has(const char *hostlist, const char *name);

/* ---- accounting queries (acct.c): what `sacct -X` lists ---- */
/* Which jobs: any of these may be 0/NULL. jobs: a comma list of ids (all
 * times unless since is set); since: jobs eligible or running at or after
 * it (0 with no jobs: since 00:00 today, sacct's default); user: a login
 * name; account: an account name. */
typedef struct sl_slurm_acct_query {
    const char *jobs;
    time_t since;
    const char *user;
    const char *account;
} sl_slurm_acct_query_t;
/* One job's allocation as accounting recorded it (strings owned by the list). */
typedef struct sl_slurm_acct_rec {
    uint32_t job_id;
    const char *name, *user, *account, *comment, *state;
    const char *nodes;         /* "node[1-2]", "" when none was assigned */
    const char *alloc_tres;    /* sacct's AllocTRES: "billing=1,cpu=1,gres/gpu=1,mem=256M,node=1" */
    char exit_code[24];        /* sacct's ExitCode: "3:0" (status:signal) */
    time_t submit, start, end; /* 0: not (yet) */
} sl_slurm_acct_rec_t;
typedef struct sl_slurm_acct_list sl_slurm_acct_list_t;
/* Query slurmdbd (through slurm.conf's AccountingStorage); the jobs in id
 * order, the last run of a requeued one. 0 with *out, or -1 with err when
 * the cluster keeps no accounting, a name is unknown, or slurmdbd does not
 * answer. */
int sl_slurm_acct_jobs(const sl_slurm_acct_query_t *q, sl_slurm_acct_list_t **out, sl_error_t *err);
size_t sl_slurm_acct_count(const sl_slurm_acct_list_t *l);
const sl_slurm_acct_rec_t *sl_slurm_acct_at(const sl_slurm_acct_list_t *l, size_t i);
void sl_slurm_acct_free(sl_slurm_acct_list_t *l);

/* Slurm's host list form expanded: "node[1-2],gpu3" -> node1 node2 gpu3, a
 * NULL-terminated vector (free with sl_strv_free); NULL when it is not one. */
char **sl_slurm_hostlist_expand(const char *list);

/* ---- a namespace's account (sacctmgr.c) ---- */

/* e (a submission's errno) is Slurm's "Invalid account or account/partition
 * combination specified": the account does not exist, or the job's user has
 * no association with it. */
int sl_slurm_invalid_account(int e);

/* sacctmgr's output OUT of a failed `sacctmgr -i add ...` says that what it
 * was to add exists already: 22.05's "Nothing new added", 25.11's and
 * 26.05's "Already existing account A on cluster C" (an account) and
 * "Request didn't affect anything" (slurmdbd's no-change answer: a user's
 * association that exists), and the like. 1 / 0. */
int sl_slurm_sacctmgr_unchanged(const char *out);

typedef struct sl_slurm_account {
    const char *account;     /* the Slurm account to make */
    const char *user;        /* the Unix user to associate with it (NULL: none) */
    const char *description; /* "namespace team-a" */
    const char *bin_dir;     /* Slurm's commands (NULL: sacctmgr in PATH) */
    const char *slurm_conf;  /* SLURM_CONF of sacctmgr (NULL: its default) */
} sl_slurm_account_t;

/* The account (in the cluster of slurm.conf, under root) and the user's
 * association with it, through `sacctmgr -i add account|user` as argv
 * vectors; what exists already is left as it is. 0, or -1 with err
 * (sacctmgr's own words). Blocks up to 30 s per command. */
int sl_slurm_account_add(const sl_slurm_account_t *a, sl_error_t *err);
/* Does accounting hold a's user's association with a's account (account
 * NULL: any of the user's)? 1 / 0, or -1 with err when sacctmgr cannot
 * tell. Tells a missing account from a partition closed to it, which
 * Slurm refuses with the same error. */
int sl_slurm_assoc_exists(const sl_slurm_account_t *a, sl_error_t *err);

/* ---- Slurm's commands (bindir.c) ---- */
/* The build's Slurm commands folder (make SLURM=PREFIX: PREFIX/bin). */
#ifndef SL_SLURM_BIN_DIR
#define SL_SLURM_BIN_DIR "/usr/bin"
#endif
/* slurm.bin_dir into *out (a copy to free; NULL: none): dir when set,
 * else the folder of the first executable srun in $PATH, else
 * SL_SLURM_BIN_DIR. Every job's PATH starts with it, so it must be root's
 * and written by root only, as must every folder above it (a sticky one
 * such as /tmp may be writable by all): a dir set that is not is -1 with
 * err naming the folder and why; a folder of $PATH that is not is passed
 * over. */
int sl_slurm_bin_dir(const char *dir, char **out, sl_error_t *err);
/* The "PATH=..." of a job's environment: bin_dir first (unless NULL or one
 * of the system folders that follow), then /usr/local/bin:/usr/bin:/bin:
 * /usr/local/sbin:/usr/sbin:/sbin. Returns a copy to free. */
char *sl_slurm_job_path(const char *bin_dir);

/* Count of RPCs this process sent to slurmctld (for benchmarks). */
unsigned long sl_slurm_rpc_count(void);

#endif
