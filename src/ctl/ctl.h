/* ctl.h — the controllers that make stored Pods and Nodes the truth about
 * Slurm: submit new pods through libslurm, follow their jobs (incremental
 * polls plus the shims' pushes), delete gracefully, mirror Slurm nodes.
 *
 * One thread does the reconciling; sl_ctl_shim_event() is called from the
 * API's threads and applies a shim push at once. See docs/lifecycle.md.
 */
#ifndef SL_CTL_H
#define SL_CTL_H

#include <jansson.h>

#include "common/err.h"
#include "store/store.h"

typedef struct sl_ctl sl_ctl_t;

typedef struct sl_ctl_opts {
    const char *state_dir;      /* holds shim.key (the per-pod token key) */
    const char *pods_root;      /* pod folders: <root>/<ns>/<name>-<uid>/ */
    const char *shim_path;      /* slurmlink-shim, as the batch script calls it */
    const char *report_url;     /* where shims push: .../internal/v1/shim/events */
    const char *report_ca_file; /* CA the shims trust for an https report_url (NULL: system) */
    const char *run_as;         /* Unix user for pods without a mapped user (default "nobody") */
    /* user → Unix user, namespace → account (NULL: none). Borrowed: the
     * daemon's, the same the API decides by; sl_ctl_set_policy swaps it */
    struct sl_authz_policy *policy;
    const char *image_store;       /* charliecloud images */
    const char *image_credentials; /* server-wide registry auth file (NULL: none) */
    const char *image_ca_dir;      /* CA folder for registries (NULL: system) */
    const char *default_runtime;   /* NULL: translate's default */
    const char *gpu_types;         /* product → GRES type table (NULL: gpu/gpu.h's) */
    const char *gpu_shared;        /* the shared GPU resource (NULL: nvidia.com/gpu.shared) */
    const char *slurm_conf;        /* passed to jobs as SLURM_CONF */
    const char *slurm_bin_dir;     /* Slurm's commands, first in the jobs' PATH
                                    * (NULL: sl_slurm_bin_dir's default) */
    int create_accounts;           /* slurm.create_accounts: a missing namespace account and
                                    * association are made with sacctmgr (src/ctl/account.c) */
    int poll_ms;                   /* Slurm job poll period (default 250) */
    int node_poll_ms;              /* node poll period (default 2000) */
    int submit_workers;            /* submission threads, 1..64 (0: 8) */
    /* bytes the pulled images may take in image_store (0: no limit) */
    unsigned long long image_store_limit;
    /* bytes one pulled image may download and unpack to (0: the image store's default) */
    unsigned long long image_max_size;
    const char *image_unpack_user; /* umoci runs as this user (NULL: root) */
    int image_max_pulls;           /* pulls at once in all (0: 8) */
    int image_max_pulls_per_ns;    /* pulls at once of one namespace (0: 4) */
    int image_manifest_timeout;    /* seconds for a registry's manifest answer (0: 30) */
    /* how the controllers store the pods they make for a workload: the
     * API's admission of a pod create (sl_api_create_pods: identity,
     * quota), pods all or none; 0, or -1 with err. Required: without it
     * the controllers make no pods. */
    int (*create_pods)(void *arg, json_t *pods, sl_error_t *err);
    void *create_pods_arg;
} sl_ctl_opts_t;

/* Start the controller thread. The store must outlive the controller. */
sl_ctl_t *sl_ctl_create(sl_store_t *store, const sl_ctl_opts_t *opts, sl_error_t *err);
/* A reloaded policy (SIGHUP): pods submitted from now on run as its users
 * and are charged to its accounts. The old one stays the caller's and must
 * outlive any submission under way (the daemon keeps replaced policies). */
void sl_ctl_set_policy(sl_ctl_t *c, struct sl_authz_policy *policy);
/* The submission pool resized (SIGHUP: slurm.submit_workers, 1..64): new
 * workers start at once, extra ones end after their current submission
 * (this waits for it). The count now running, or -1 without a pool (the
 * controller thread submits). Call from the thread that destroys c. */
int sl_ctl_set_workers(sl_ctl_t *c, int workers);
/* slurm.create_accounts reloaded (SIGHUP): submissions from now on. */
void sl_ctl_set_create_accounts(sl_ctl_t *c, int on);
/* Stop the thread and free. NULL is a no-op. */
void sl_ctl_destroy(sl_ctl_t *c);

/* The API's hook for POST /internal/v1/shim/events: checks the per-pod
 * bearer token, applies the event to the pod. 0, or -1 with errno EACCES
 * (bad token), ENOENT (unknown pod), EINVAL (malformed). arg is the sl_ctl_t. */
int sl_ctl_shim_event(void *arg, const char *bearer, json_t *event, sl_error_t *err);

#endif
