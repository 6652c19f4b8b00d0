/* spec.h — shim.json, the contract between slurmlinkd and slurmlink-shim.
 *
 * The format is documented in docs/shim-spec.md. The parser is strict about
 * types and values and every error names the field path
 * ("containers[1].argv[2]: must be a string or {\"base64\": ...}"); fields
 * it does not know are ignored so a newer daemon can add optional ones.
 *
 * The parsed spec is plain data: the caller reads the fields directly and
 * releases everything with sl_shim_spec_destroy().
 */
#ifndef SL_SHIMLIB_SPEC_H
#define SL_SHIMLIB_SPEC_H

#include <stddef.h>

#include "common/err.h"
#include "shimlib/hosts.h"
#include "shimlib/probespec.h"

typedef enum {
    SL_RESTART_ALWAYS = 0, /* Kubernetes' default */
    SL_RESTART_ONFAILURE,
    SL_RESTART_NEVER,
} sl_restart_policy_t;

/* Values only the node knows (Kubernetes fieldRefs), filled in by the shim. */
typedef enum {
    SL_FIELD_NODE_NAME = 0, /* spec.nodeName */
    SL_FIELD_HOST_IP,       /* status.hostIP */
    SL_FIELD_HOST_IPS,      /* status.hostIPs */
    SL_FIELD_POD_IP,        /* status.podIP: the job shares the node's network */
    SL_FIELD_POD_IPS,       /* status.podIPs */
} sl_shim_field_t;

/* A volume's mount point in a private root: created there when the image
 * lacks it (a folder, or an empty file when source is not a folder). */
/* The pod folder's file that carries the grace period of a delete shorter
 * than the pod's (decimal seconds and a newline): slurmlinkd writes it
 * before it cancels the job; the shim reads it when it is signalled. */
#define SL_SHIM_DELETE_GRACE "delete-grace"

typedef struct sl_shim_mount {
    char *source; /* the volume's path on the node */
    char *target; /* absolute, normalised path in the container */
} sl_shim_mount_t;

/* The container's root is the stored image under a writable layer private to
 * each run (src/shim/rootfs.c); the image itself is never written. */
typedef struct sl_shim_rootfs {
    char *lower;       /* the stored image folder */
    size_t argv_index; /* argv[argv_index] is lower: replaced by the private root */
    int read_only;     /* readOnlyRootFilesystem: the runtime mounts it read-only */
    sl_shim_mount_t *mounts;
    size_t nmounts;
} sl_shim_rootfs_t;

/* A run before the shim's first (Kubernetes lastState.terminated), as the
 * spec gives it: timestamps RFC 3339 as Kubernetes writes them. */
typedef struct sl_shim_last {
    int exit_code;
    int signal;
    char reason[16];
    char started_at[40], finished_at[40]; /* "" when absent */
} sl_shim_last_t;

typedef struct sl_shim_container {
    char *name;  /* DNS-1123 label, unique in the pod: also a folder name under logs/ */
    char **argv; /* NULL-terminated, argc >= 1; exact bytes for execvp */
    size_t argc;
    char **env; /* NULL-terminated "KEY=VALUE" strings in spec order */
    size_t nenv;
    char *working_dir;         /* NULL when absent (informational: argv already applies it) */
    char *runtime;             /* NULL when absent (informational) */
    char *image;               /* NULL when absent (informational) */
    char **rt_env;             /* envRuntime names, NULL-terminated, spec order */
    sl_shim_field_t *rt_field; /* rt_field[i] is what rt_env[i] gets */
    size_t nrt_env;
    int init;       /* 1 for initContainers[] */
    int sidecar;    /* a Kubernetes sidecar (restartable init container), listed in containers[] */
    int stdin_open; /* "stdin": the shim holds its stdin (a fifo) for kubectl attach -i */
    int stdin_once; /* "stdinOnce": closed when the first attach's stdin ends */
    int tty;        /* "tty": its stdin, stdout and stderr are a pty the shim holds */
    sl_shim_rootfs_t *rootfs; /* NULL: the runtime's own root */
    long long gpus;           /* nvidia.com/gpu of the container: the shim gives it the job's GPUs
                                 (src/shim/gpu.h); 0: none, and a private root hides the node's */
    int bind_hosts; /* "bindHosts": a runtime without a mount namespace (host): the shim binds
                       the pod's hosts file at /etc/hosts itself (src/shim/names.c) */
    sl_shim_probe_t *probes[SL_PROBE_NTYPES]; /* "probes": NULL when the type has none */
    int private_tmp;      /* "privateTmp": each run gets an empty /tmp of its own on the node
                             (src/shim/podtmp.h); absent when a volume is mounted at /tmp */
    int restart_count;    /* "restartCount": the first run's count (a gang's replica that replaces
                             a failed one: the runs before it), also its log file's number */
    sl_shim_last_t *last; /* "lastTerminated": the run before the first, or NULL */
} sl_shim_container_t;

typedef struct sl_shim_spec {
    char *pod_namespace, *pod_name, *pod_uid;
    sl_restart_policy_t restart_policy;
    int grace_seconds;       /* terminationGracePeriodSeconds, default 30 */
    char *report_url;        /* NULL: no pushes, files only */
    char *report_token;      /* NULL: no Authorization header */
    char *report_ca_file;    /* NULL: system CAs (https only) */
    char *report_pinned_key; /* NULL or curl's "sha256//BASE64" public key pin */
    sl_shim_container_t *init_containers;
    size_t ninit;
    sl_shim_container_t *containers; /* at least one */
    size_t ncontainers;
    char **cleanup; /* folders to remove when the pod finishes, NULL-terminated */
    size_t ncleanup;
    char **secret_volumes; /* volumes/<name> holding secrets, removed when the pod finishes */
    size_t nsecret_volumes;
    sl_hosts_t *hosts; /* "hosts": the pod's hosts file (NULL: none) */
} sl_shim_spec_t;

/* Parse len bytes of JSON. Returns a new spec (caller destroys) or NULL with
 * errno=EINVAL and err naming the field. */
sl_shim_spec_t *sl_shim_spec_parse(const char *json, size_t len, sl_error_t *err);

/* Read and parse a file; errors are prefixed with the path. */
sl_shim_spec_t *sl_shim_spec_load(const char *path, sl_error_t *err);

void sl_shim_spec_destroy(sl_shim_spec_t *spec); /* NULL is a no-op */

/* "Always", "OnFailure", "Never". */
const char *sl_restart_policy_name(sl_restart_policy_t p);

#endif
