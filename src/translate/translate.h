/* translate.h — a validated Pod → batch script, shim.json and pod-folder files.
 *
 * Pure: no I/O, no clock, no environment. Everything the translation needs
 * comes in through the pod, the ConfigMaps/Secrets it references and the
 * config; the caller writes the files (sl_translate_result_t lists them)
 * and submits the job with the options list (the same options appear as
 * #SBATCH lines in the script, for admins and for `sbatch job.sh`).
 *
 * Mapping (see docs and architecture.md):
 *   --job-name=NAMESPACE/NAME, --comment=slurmlink:uid=<UID>
 *   --cpus-per-task / --mem: the Kubernetes effective request, max(sum over
 *     app containers (and sidecars), max over init containers), requests
 *     falling back to limits, config defaults when nothing is requested
 *   --gres=gpu:N from nvidia.com/gpu or amd.com/gpu (same rule), gpu:TYPE:N
 *     when the pod selects nvidia.com/gpu.product (nodeSelector or one required
 *     nodeAffinity In term; TYPE from the gpus.types table), gpu:PROFILE:N from
 *     nvidia.com/mig-PROFILE, shard:N from the shared resource (gres.c)
 *   --time from activeDeadlineSeconds (minutes, rounded up) and/or the
 *     slurmlink.io/time annotation (the shorter wins)
 *   --constraint from nodeSelector values ANDed with slurmlink.io/constraint;
 *     kubernetes.io/hostname → --nodelist; kubernetes.io/os|arch ignored
 *   annotations slurmlink.io/{partition,account,qos,time,nodes,ntasks,
 *     exclusive,constraint,runtime} and slurm-job.vk.io/{flags,pre-exec,
 *     singularity-options,singularity-mounts,image-root}; options given in
 *     the flags annotation replace the ones slurmlink would derive
 *   --output/--error <pod>/job.out (--open-mode=append), --chdir <pod>
 *   The job's environment is not set here (no --export): slurmlinkd passes
 *   an explicit environment when it submits.
 *
 * pre-exec policy: the annotation is shell by definition. It is refused
 * (Forbidden, naming the annotation) unless the site sets allow_pre_exec;
 * then it is placed verbatim between marker comments before the shim runs,
 * as the pod's own user, inside its own job.
 */
#ifndef SL_TRANSLATE_TRANSLATE_H
#define SL_TRANSLATE_TRANSLATE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "pod/pod.h"

/* Annotation names. */
#define SL_ANN_PARTITION "slurmlink.io/partition"
#define SL_ANN_ACCOUNT "slurmlink.io/account"
#define SL_ANN_QOS "slurmlink.io/qos"
#define SL_ANN_TIME "slurmlink.io/time"
#define SL_ANN_NODES "slurmlink.io/nodes"
#define SL_ANN_NTASKS "slurmlink.io/ntasks"
#define SL_ANN_EXCLUSIVE "slurmlink.io/exclusive"
#define SL_ANN_CONSTRAINT "slurmlink.io/constraint"
/* "private" (the default): each container run an empty /tmp of its own on
 * the node (src/shim/podtmp.h); "node": the node's /tmp, as before */
#define SL_ANN_TMP "slurmlink.io/tmp"
#define SL_ANN_IL_FLAGS "slurm-job.vk.io/flags"
#define SL_ANN_IL_PRE_EXEC "slurm-job.vk.io/pre-exec"
#define SL_ANN_IL_SING_OPTS "slurm-job.vk.io/singularity-options"
#define SL_ANN_IL_SING_MOUNTS "slurm-job.vk.io/singularity-mounts"
#define SL_ANN_IL_IMAGE_ROOT "slurm-job.vk.io/image-root"

/* What the caller knows about a local image (charliecloud store). */
typedef struct sl_image_meta {
    const char *const *entrypoint;
    size_t nentrypoint; /* may be empty */
    const char *const *cmd;
    size_t ncmd;             /* may be empty */
    const char *working_dir; /* may be NULL */
    const char *const *env;  /* the image's ENV, "NAME=value" (may be empty) */
    size_t nenv;             /* the container's env overrides these */
    const char *user;        /* the image's USER as ids, "UID:GID" (NULL: none) */
    const char *user_error;  /* why the image's USER names no ids (NULL: it does) */
} sl_image_meta_t;

/* Does the store hold this image folder? Fills *meta when it does (strings
 * must stay valid until sl_translate() returns). Returns 1 / 0. */
typedef int (*sl_image_lookup_fn)(void *arg, const char *image_dir, sl_image_meta_t *meta);

/* What a pod that requests no CPU or memory gets: slurmlinkd, render and
 * bench all submit with these, so a rendered script is what the daemon runs. */
#define SL_TRANSLATE_DEFAULT_CPU_MILLI 1000        /* 1 CPU */
#define SL_TRANSLATE_DEFAULT_MEM_BYTES (1LL << 30) /* 1 GiB */

typedef struct sl_translate_config {
    const char *pods_root;             /* pod folder: <pods_root>/<namespace>/<name>-<uid> */
    const char *shim_path;             /* slurmlink-shim on the compute nodes */
    const char *report_url;            /* shim pushes (NULL: files only) */
    const char *report_token;          /* per-pod token (NULL: none) */
    const char *report_ca_file;        /* CA file the shim trusts for https (NULL: system) */
    const char *report_pinned_key;     /* "sha256//BASE64" pin of the server key (NULL: none) */
    int64_t default_cpu_milli;         /* when the pod requests no CPU (SL_TRANSLATE_DEFAULT_*) */
    int64_t default_mem_bytes;         /* when the pod requests no memory */
    const char *default_partition;     /* NULL: Slurm's default */
    const char *default_account;       /* NULL: the user's default */
    const char *default_runtime;       /* for registry images (NULL: "apptainer") */
    const char *image_store;           /* local image store (NULL: none) */
    const char *image_root;            /* prefix for scheme-less images under apptainer/
                                          singularity (NULL: "docker://") */
    const char *memory_root;           /* emptyDir medium Memory (NULL: "/dev/shm") */
    const char *service_account_token; /* for serviceAccountToken projections (NULL: empty) */
    int allow_pre_exec;                /* accept slurm-job.vk.io/pre-exec */
    const char *gpu_types;             /* product → GRES type table (NULL: gpu/gpu.h's) */
    const char *gpu_shared;            /* the shared GPU resource (NULL: nvidia.com/gpu.shared) */
    const char *claims_gres;           /* the pod's DRA claims as GRES (NULL: none) */
    uid_t uid;                         /* who the job runs as (shown in the script) */
    gid_t gid;
    sl_image_lookup_fn image_lookup; /* NULL: no local store lookups */
    void *image_lookup_arg;
    /* Does path exist as a folder or file inside the stored image? (NULL: not
     * checked). charliecloud mounts the image read-only and cannot create
     * mount points, so a mountPath missing from the image is an error. */
    int (*image_has_path)(void *arg, const char *image_dir, const char *path);
    /* The store folder of a container's image when the caller resolved it
     * (a registry image pulled per digest), else NULL: the folder is then
     * sl_runtime_image_dir(image_store, image). NULL hook: never. */
    const char *(*image_dir)(void *arg, const char *image);
    const char *const *runtime_binaries; /* NULL or {"apptainer", "/opt/bin/apptainer", ...,
                                            NULL}: program paths per runtime */
    /* The pod's persistentVolumeClaims, resolved by the caller: an object
     * claim name -> {"path": the bound volume's folder, "readOnly": bool}.
     * A claim missing from it is missing (ENOENT, the pod waits); NULL: not
     * resolved here (slurmlink render: a placeholder path and a warning). */
    const json_t *claims;
    /* A gang member's gang (src/ctl/gang.h), the pod among them:
     * [{"rank": R, "name": POD, "hostname": H, "subdomain": S}]; each
     * member with a subdomain gets its names in the pod's hosts file, at
     * the address of node R mod N of the job. NULL: not a gang member. */
    const json_t *gang_members;
    /* the pod's namespace's Service names file (src/kinds/service/names.c),
     * which the shim reads into the pod's hosts file; NULL: none */
    const char *service_names;
} sl_translate_config_t;

typedef struct sl_translate_file {
    char *path; /* relative to the pod folder ("volumes/cfg/app.conf") */
    char *data; /* NULL for a folder */
    size_t len;
    int mode; /* permission bits */
} sl_translate_file_t;

typedef struct sl_translate_result {
    char *pod_dir;   /* absolute pod folder (create it 0700, owned by the job's user) */
    char *script;    /* job.sh */
    char *shim_json; /* shim.json (docs/shim-spec.md) */
    char **options;  /* NULL-terminated sbatch long options ("--cpus-per-task=2"), raw values */
    size_t noptions;
    sl_translate_file_t *files; /* folders before their contents; includes job.sh
                                   (0700) and shim.json (0600) */
    size_t nfiles;
    char **warnings; /* NULL-terminated: what is ignored or approximated */
    size_t nwarnings;
} sl_translate_result_t;

/* Check the annotations slurmlink reads (and, with cfg, the pre-exec
 * policy). Errors name the annotation: metadata.annotations[slurm-job.vk.io/flags].
 * Returns the number of errors appended. The API layer calls this at create. */
int sl_translate_validate(const sl_pod_t *pod, const sl_translate_config_t *cfg, sl_error_t *errs);

/* Translate. configmaps and secrets are JSON arrays of the objects the pod
 * references (NULL: none). Returns 0 and *out (destroy it), or -1 with errno:
 * EINVAL with field errors in errs (annotations, runtime rules), ENOENT with
 * err when a referenced ConfigMap/Secret or key is missing and not optional. */
int sl_translate(const sl_pod_t *pod, const json_t *configmaps, const json_t *secrets,
                 const sl_translate_config_t *cfg, sl_translate_result_t **out, sl_error_t *errs,
                 sl_error_t *err);
void sl_translate_result_destroy(sl_translate_result_t *r); /* NULL is a no-op */

/* Kubernetes $(VAR) expansion (third_party/forked/golang/expansion):
 * $(NAME) → value when defined, else left as is; $$ → $; anything else kept.
 * lookup returns NULL for undefined names. Caller frees. */
char *sl_k8s_expand(const char *in, const char *(*lookup)(void *arg, const char *name), void *arg);

#endif
