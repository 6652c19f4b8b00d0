/* runtime.h — container runtime backends: one ops table, six entries.
 *
 * A backend turns one container (image, Kubernetes command/args, env names,
 * mounts, workingDir, GPUs) into the complete argv slurmlink-shim execs
 * (execvp, no shell). Values of environment variables never appear on the
 * command line: the shim puts them in the process environment under the key
 * env_key() returns, and each backend carries them into the container its
 * own way (host, charliecloud: inherited; apptainer/singularity:
 * APPTAINERENV_/SINGULARITYENV_ prefix, which survives --containall and is
 * not shell-evaluated with --no-eval; podman/enroot: `-e NAME` / `--env NAME`
 * without a value, which copies it from the caller's environment).
 *
 * Kubernetes semantics: command replaces the image entrypoint, args the
 * image cmd. Backends that run the image's own entrypoint themselves
 * (apptainer `run`, podman, enroot) get it from the runtime; charliecloud
 * does not, so it needs the entrypoint/cmd from image metadata (the caller
 * passes them) or an explicit command.
 *
 * Image store layout (shared with src/image): <store>/<name>+<tag>/ is an
 * unpacked root filesystem; <name> has every '/' replaced by '%', <tag>
 * defaults to "latest"; see sl_runtime_image_dir().
 */
#ifndef SL_RUNTIME_RUNTIME_H
#define SL_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "common/argv.h"
#include "common/err.h"

typedef struct sl_rt_mount {
    const char *src; /* host path */
    const char *dst; /* path in the container */
    int read_only;
} sl_rt_mount_t;

/* Everything a backend needs; nothing here is owned by the backend. */
typedef struct sl_rt_container {
    const char *name;
    const char *image; /* reference for this runtime: store folder, .sif path, docker://...;
                          NULL for host */
    const char *const *command;
    size_t ncommand; /* Kubernetes command (may be empty) */
    const char *const *args;
    size_t nargs; /* Kubernetes args (may be empty) */
    const char *const *entrypoint;
    size_t nentrypoint; /* image metadata (may be empty) */
    const char *const *cmd;
    size_t ncmd;             /* image metadata (may be empty) */
    const char *working_dir; /* NULL: the image's default */
    const sl_rt_mount_t *mounts;
    size_t nmounts;
    const char *const *env_names;
    size_t nenv;  /* variables the process must see */
    int64_t gpus; /* GPUs requested by the pod (Slurm binds them through GRES) */
    int amd_gpus; /* the GPUs are amd.com/gpu */
    const char *const *extra;
    size_t nextra;      /* validated runtime options from annotations,
                           inserted before the image */
    const char *binary; /* program path override (NULL: the backend's default name) */
    int read_only_root; /* securityContext.readOnlyRootFilesystem */
    const char *user;   /* "UID:GID" the process is inside the container (the image's USER;
                           NULL: the job user's own ids); charliecloud and podman map it to
                           the job user, the others ignore it (docs/pods.md) */
} sl_rt_container_t;

/* What a backend's image hook starts from. */
typedef struct sl_rt_image_in {
    const char *image;     /* the pod's image reference (NULL: none) */
    const char *store_dir; /* its folder in the local image store, NULL when not there */
    const char *root;      /* prefix for a reference without a scheme ("docker://") */
} sl_rt_image_in_t;

/* Does the stored image hold path (a mount hook asks; 1 / 0)? */
typedef int (*sl_rt_in_image_fn)(void *arg, const char *path);

/* What slurmlinkd's puller (src/ctl/pull.c) makes of a registry image for
 * a runtime, in the local image store. */
typedef enum sl_rt_pull {
    SL_RT_PULL_NONE = 0, /* nothing: the runtime fetches images itself */
    SL_RT_PULL_TREE,     /* an unpacked root filesystem (the store's folder) */
    SL_RT_PULL_SIF,      /* a SIF file beside it */
    SL_RT_PULL_SQUASHFS, /* a squashfs file beside it */
} sl_rt_pull_t;

typedef struct sl_runtime_ops {
    const char *name;           /* "apptainer" ... */
    const char *default_binary; /* "apptainer", "ch-run", ... ; NULL for host */
    int needs_image;            /* 0 only for host */
    int can_mount;              /* 0 only for host (no mount namespace) */
    /* The key under which the shim must put variable `name` (caller frees). */
    char *(*env_key)(const char *name);
    /* Append the complete argv to out. -1 with err when the container cannot be
     * expressed (e.g. no command and no known entrypoint). GPUs are bound
     * here, from c->gpus and c->amd_gpus (--nv/--rocm, CDI devices, ...). */
    int (*argv)(const sl_rt_container_t *c, sl_argv_t *out, sl_error_t *err);
    /* The image reference this backend runs (*out, caller frees; NULL when it
     * runs none): 0, or -1 with err saying why it cannot run this image. */
    int (*image_ref)(const sl_rt_image_in_t *in, char **out, sl_error_t *err);
    /* NULL when a volume can be mounted at mount_path, else why not (static
     * text). in_image (NULL: not known) says whether the stored image holds
     * a path. NULL hook: any path. */
    const char *(*mount_refusal)(const char *mount_path, sl_rt_in_image_fn in_image, void *arg);
    /* 1: with no command, the runtime runs the image's own entrypoint; 0: the
     * pod (or recorded image metadata) must say what to run. */
    int runs_entrypoint;
    /* 1: takes interLink's apptainer/singularity options and mounts
     * annotations (slurm-job.vk.io/singularity-options, -mounts). */
    int sif_annotations;
    /* 1: the runtime cannot give a container a writable root of its own, so
     * slurmlink-shim makes one (an overlay over the image, private to each
     * run: src/shim/rootfs.c); the argv word that is the image is replaced
     * by that root, and mount points the image lacks are created there */
    int shim_root;
    /* kubectl exec: how many leading words of an argv this backend built
     * start another process in the same container (image, mounts, env,
     * working directory, GPUs) when a command follows them; *root gets the
     * index of the word naming the container's root folder on the node, -1
     * for the node's own /. -1 when argv is not one it built. NULL: exec
     * is not served for this runtime. A container with the shim's private
     * root (shim_root) is joined instead (src/shim/join.h); the exec helper
     * drops --write from any prefix: it would write the stored image. */
    int (*exec_prefix)(char *const *argv, size_t n, int *root);
    /* what the puller makes of a registry image for this runtime */
    sl_rt_pull_t pull;
    /* 1: argv binds a pod's GPUs as the CDI device nvidia.com/gpu=all,
     * which slurmlink-shim narrows to the GPUs Slurm bound to the job
     * (src/shim/gpu.c) */
    int cdi_gpus;
    /* The pod's private /tmp (src/shim/podtmp.h): the one argv word that
     * binds a node folder at /tmp, a printf format with one %s (the folder),
     * which slurmlink-shim inserts as argv word tmp_bind_at (before every
     * option the backend wrote, so a volume mounted below /tmp lands on
     * it). NULL: the runtime has no mount namespace (host), the shim binds
     * the folder over /tmp in a namespace of the run's own. */
    const char *tmp_bind;
    size_t tmp_bind_at;
    /* 1: the container runs in a user namespace of the runtime's in which
     * securityContext.runAsUser (runAsGroup) and the image's USER name the
     * ids inside, mapped by a one-entry map to the job user (and group)
     * outside: c->user. 0: the process is the job user itself, so
     * runAsUser may only name that user's uid (src/api/admission.c,
     * src/ctl/submit.c). */
    int maps_user;
} sl_runtime_ops_t;

/* Backend by name, or NULL (errno ENOENT). */
const sl_runtime_ops_t *sl_runtime_get(const char *name);
/* NULL-terminated list of backend names. */
const char *const *sl_runtime_names(void);

/* <store>/<name>+<tag> for an image reference ("docker://" stripped, digest
 * "@sha256:..." used as the tag). Caller frees. NULL if image is empty. */
char *sl_runtime_image_dir(const char *store, const char *image);

/* Is the store entry dir a converted image file (a pulled image's SIF or
 * squashfs: ".../image.sif", ".../image.sqsh") rather than a tree? */
int sl_runtime_image_is_file(const char *dir);

/* Which backend runs a pod's container:
 *   the slurmlink.io/runtime annotation when given (ann, may be NULL), else
 *   host when there is no image, apptainer for an absolute *.sif path,
 *   charliecloud when the image is in the local store (in_store), else def. */
const char *sl_runtime_choose(const char *ann, const char *image, int in_store, const char *def);

/* Whether runAsUser may name any uid inside the container (the runtime
 * sl_runtime_choose picks, with the image not known to be in the store, as
 * admission and the controller's check both see it, maps users); 0 for the
 * host runtime and the runtimes that run the job user's own ids. */
int sl_runtime_maps_user(const char *ann, const char *image, const char *def);
/* "charliecloud": the runtimes that map runAsUser (caller frees) */
char *sl_runtime_mapping_list(void);

/* 1 if image is an absolute path, or has a transport scheme (docker://, oras://, ...). */
int sl_runtime_image_has_scheme(const char *image);

/* ---- installed runtimes (installed.c) ----
 * slurmlinkd probes once at start-up, before its threads, and only reads
 * afterwards; a process that never probes (render, tests) treats every
 * runtime as installed. */

/* The executable file prog is (it holds a '/') or the first found in the
 * ':'-separated path (NULL: /usr/local/bin:/usr/bin:/bin). Caller frees;
 * NULL when there is none. */
char *sl_runtime_find_program(const char *prog, const char *path);
/* Look every backend's program up in $PATH and settle the default: the one
 * configured (NULL/"": none), which must be installed (-1 with err naming
 * runtimes.default otherwise), else the first installed container runtime
 * in the table's order (apptainer when none is). */
int sl_runtime_probe(const char *configured_default, sl_error_t *err);
int sl_runtime_probed(void);
/* The program's path ("" for host, or before any probe), NULL when the
 * runtime is unknown or not installed. */
const char *sl_runtime_installed(const char *name);
/* The default after the probe (NULL before). */
const char *sl_runtime_default(void);
/* "charliecloud, host": the installed runtimes (caller frees). */
char *sl_runtime_installed_list(void);
/* NULL when name is installed (or unknown: the caller refuses that), else
 * why not: "podman is not installed (podman not found in PATH); installed:
 * charliecloud, host" (caller frees). */
char *sl_runtime_unavailable(const char *name);

#endif
