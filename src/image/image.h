/* image.h — the local image store that charliecloud (ch-run) runs from.
 *
 * Layout (shared with src/runtime): <store>/<name>+<tag>/ is an unpacked
 * root filesystem, <name> being the image name with every '/' replaced by
 * '%' and <tag> defaulting to "latest":
 *     busybox               -> <store>/busybox+latest
 *     library/busybox:1.36  -> <store>/library%busybox+1.36
 * Neither '%' nor '+' can occur in a valid name or tag, so the mapping is
 * reversible. Entries whose names start with '.' are work in progress
 * (imports and removals) and are never listed.
 *
 * Every image in the store is ready for ch-run: the mount points /proc /sys
 * /dev /tmp /home /etc are folders and /etc/passwd, /etc/group, /etc/hosts,
 * /etc/resolv.conf are regular files. Imports are atomic: the tree is built
 * in a temporary folder of the store and renamed into place.
 *
 * All functions return 0 / a value, or -1 / NULL with errno and err set.
 */
#ifndef SL_IMAGE_IMAGE_H
#define SL_IMAGE_IMAGE_H

#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

/* Split and validate an image reference by the Docker reference grammar
 * ([domain[:port]/]path-component[/...][:tag]); digests are refused, since
 * the store is keyed by tag. *name and *tag are new strings (caller frees);
 * tag defaults to "latest". */
int sl_image_parse_ref(const char *ref, char **name, char **tag, sl_error_t *err);

/* A registry reference as Kubernetes and Docker read it:
 * [registry[:port]/]repository[:tag][@sha256:digest]. The registry is the
 * first component when it contains '.' or ':' or is "localhost", else
 * docker.io; a one-component repository of docker.io gets "library/"; no tag
 * and no digest means ":latest". */
typedef struct sl_image_ref {
    char *domain;     /* "docker.io", "localhost:5000" */
    char *path;       /* "library/busybox" */
    char *tag;        /* "latest"; NULL when only a digest was given */
    char *digest;     /* "sha256:<64 hex>" or NULL */
    int explicit_tag; /* the reference named a tag */
    char *repo;       /* domain/path: "docker.io/library/busybox" */
    char *full;       /* repo[:tag][@digest], the canonical form */
} sl_image_ref_t;

/* Parse ref into *out (free with sl_image_ref_free): 0, or -1 with errno
 * EINVAL and err saying what is wrong with it. */
int sl_image_ref_parse(const char *ref, sl_image_ref_t *out, sl_error_t *err);
void sl_image_ref_free(sl_image_ref_t *r); /* NULL is a no-op */

/* NULL when ref is a valid registry reference, else why not (static text,
 * without the reference: for a field error naming the image). */
const char *sl_image_ref_reason(const char *ref);

/* The folder of ref in store (need not exist): ref is validated, then mapped
 * by sl_runtime_image_dir() (src/runtime), the rule the runtime backends use
 * to find images. Caller frees. */
char *sl_image_dir(const char *store, const char *ref, sl_error_t *err);

/* Does path (absolute, inside the image) exist in the image folder dir?
 * 1 or 0 (lstat: a symlink counts). The translate config's
 * image_has_path hook; arg is unused. */
int sl_image_has_path(void *arg, const char *dir, const char *path);

/* Import src into the store as ref. src is a folder (copied with cp -a), a
 * tar archive (unpacked with tar; compression is detected by tar), or "-"
 * for a tar on standard input: a root filesystem, or an image archive (an
 * OCI layout, a `docker save` tar) whose image skopeo copies and umoci
 * unpacks, its config (Entrypoint, Cmd, Env, WorkingDir, User) kept beside
 * the tree DIR as DIR.json (sl_image_config_file), image.json's format. An
 * existing image is replaced only with force (its config with it). */
int sl_image_import(const char *store, const char *ref, const char *src, int force,
                    sl_error_t *err);

/* The config file of the imported image folder dir: "DIR.json" (it need
 * not exist: an import of a root filesystem has none). Caller frees. */
char *sl_image_config_file(const char *dir);

/* Build a minimal image from a statically linked busybox (busybox_path:
 * NULL means /bin/busybox from Debian's busybox-static): the binary, a
 * symlink for every applet at the path busybox itself lists, and the files
 * ch-run needs. */
int sl_image_import_busybox(const char *store, const char *ref, const char *busybox_path, int force,
                            sl_error_t *err);

/* Make the folder dir safe to share (sl_image_sanitize_tree) and runnable
 * by ch-run (mount points and /etc files, see above), never following a
 * symlink out of dir. Used by the imports and the pulls, on a tree still in
 * a folder of the store only root may enter. */
int sl_image_prepare_rootfs(const char *dir, sl_error_t *err);

/* What the store holds is every tenant's to run but no tenant's to change,
 * and it may come from any registry: below dir, device nodes, FIFOs and
 * sockets are removed; no file or folder keeps a set-id bit or an extended
 * attribute (file capabilities, ACLs, security labels); nothing is left
 * writable by group or others, but sticky folders (/tmp). Symbolic links
 * are never followed. */
int sl_image_sanitize_tree(const char *dir, sl_error_t *err);

/* ---- images from registries (pull.c; docs/images.md) ----
 *
 * Pulled images are stored once per manifest digest, for the node platform
 * (linux/<arch of this host>; an index is resolved to it):
 *     <store>/sha256/<hex>/rootfs/      the tree ch-run runs (prepared as above)
 *     <store>/sha256/<hex>/image.json   {"digest", "repoDigest", "size",
 *                                        "config": {Entrypoint, Cmd, Env,
 *                                        WorkingDir, User}}
 *     <store>/refs/<name>+<tag>         {"ref", "repoDigest", "digest",
 *                                        "anonymous"}: the last resolution of
 *                                        a tag, and whether it needed no
 *                                        credentials
 *     <store>/.locks/<hex>.lock          flock: one pull per digest at a time
 *                                        (root's: 0600 files in a 0700 folder)
 * A digest folder is built in <store>/.pull-<hex>-XXXXXX and renamed into
 * place whole, so a pull cut short (a crash, a restart) leaves nothing that
 * is ever used; the next pull of that digest removes the leftover.
 *
 * Who may use a stored digest (docs/security.md): <store>/sha256/<hex>/public
 * marks a digest fetched without credentials; only such a digest is used
 * for a pull without credentials, and its folder is 0755. A digest in the
 * store without the mark (pulled with credentials by `slurmlink image pull`,
 * or stored by an older version) is 0750 root's, and a pull without
 * credentials that resolves to it fetches it from its registry once before
 * it is used (proof that the registry gives it away), then marks it.
 * Pulls with a tenant's credentials go to that tenant's part of the store
 * (sl_image_private_store), which no other tenant can read. */
typedef struct sl_image_pull_opts {
    const char *authfile;           /* containers-auth.json for this pull (NULL: no credentials;
                                       the caller's own ~/.docker files are never read) */
    const char *cert_dir;           /* CA certificates for TLS (NULL: the system's) */
    int timeout_s;                  /* each tool run (0: 600) */
    int check_only;                 /* resolve the tag and check access; pull nothing */
    unsigned long long store_limit; /* bytes the pulled images may take (0: no limit): the least
                                       recently used that no live pod uses make room first */
    const char *arch; /* the platform linux/<arch> an index resolves to (NULL: the node's) */
    unsigned long long image_limit; /* bytes one image may download and unpack to (0:
                                       SL_IMAGE_DEFAULT_LIMIT): skopeo and umoci are stopped
                                       when their folder grows past it, the pull fails */
    const char *unpack_user;        /* skopeo and umoci run as this Unix user (not root; NULL:
                                       as root) for pulls without credentials; what they wrote
                                       is made root's when the tree is made safe */
    uid_t cred_uid;        /* a pull with credentials: its tools run as this user and group (the */
    gid_t cred_gid;        /* pod's job user; 0: as root), reading a copy of authfile that is
                              that user's alone */
    int resolve_timeout_s; /* the manifest request (0: 30): a registry that never answers */
    atomic_int *cancel;    /* once set, the pull's tools are killed and it fails (ECANCELED) */
    int tenant_errors;     /* a failed manifest request that is not a registry's answer (a
                              closed, silent or non-registry port) reads "cannot reach registry
                              HOST", its detail in the log: a tenant learns nothing of ports */
} sl_image_pull_opts_t;

/* the user `slurmlink up` and the Debian package make for pulls
 * (images.unpack_user): a system user, no login, no home */
#define SL_IMAGE_PULL_USER "_slurmlink-pull"

/* the ids of the Unix user name for pulls (images.unpack_user): never
 * root, never root's group (as.c) */
int sl_image_as_lookup(const char *name, uid_t *uid, gid_t *gid, sl_error_t *err);

/* images.max_image_size's default: 32 GiB, above the largest CUDA images */
#define SL_IMAGE_DEFAULT_LIMIT (32ULL << 30)

typedef struct sl_image_pulled {
    char *ref;               /* canonical reference (sl_image_ref_t.full) */
    char *repo_digest;       /* what the reference resolves to (an index or a manifest) */
    char *image_id;          /* repo@repo_digest: containerStatuses[].imageID */
    char *digest;            /* the platform manifest: the store key */
    char *dir;               /* <store>/sha256/<hex> */
    char *rootfs;            /* dir/rootfs */
    unsigned long long size; /* bytes of the stored tree */
    int cached;              /* it was in the store already */
    int present;             /* check_only: it is in the store */
    int anonymous;           /* the tag was last resolved without credentials: public */
} sl_image_pulled_t;

/* Resolve ref with the registry and make sure its image is in the store
 * (pulling, unpacking with umoci --rootless and preparing it once per
 * digest; concurrent pulls of one digest wait for one). 0, or -1 with err
 * carrying the registry's answer (errno EINVAL: bad reference, EIO: the
 * registry or a tool refused, ETIMEDOUT). */
int sl_image_pull(const char *store, const char *ref, const sl_image_pull_opts_t *o,
                  sl_image_pulled_t *out, sl_error_t *err);
void sl_image_pulled_free(sl_image_pulled_t *p);

/* <store>/private/<uid>.<gid>, made when missing: the part of the store for
 * the images pulled with the credentials of a pod whose job runs as uid and
 * gid, a store of the same layout. <store>/private is root's 0711 (nothing
 * to list), the part is root's with group gid, 0750: the job reads it, no
 * other tenant can, and no tenant can write to it. Caller frees. */
char *sl_image_private_store(const char *store, uid_t uid, gid_t gid, sl_error_t *err);

/* The last resolution of ref recorded in the store (no registry asked):
 * 0 and *out filled when its digest folder is there, else -1 (ENOENT). */
int sl_image_lookup_pulled(const char *store, const char *ref, sl_image_pulled_t *out,
                           sl_error_t *err);

typedef struct sl_image_info {
    char *ref; /* "name:tag" */
    char *name;
    char *tag;
    char *path;              /* absolute folder */
    unsigned long long size; /* bytes on disk, hard links counted once */
} sl_image_info_t;

/* Every image in store, sorted by name then tag. A store that does not exist
 * yet is empty (0 images, not an error). *n gets the count; free the array
 * with sl_image_list_free(). */
sl_image_info_t *sl_image_list(const char *store, size_t *n, sl_error_t *err);
void sl_image_list_free(sl_image_info_t *v, size_t n); /* NULL is a no-op */

/* Remove ref (atomically gone: renamed aside, then deleted). ENOENT when
 * the store has no such image. */
int sl_image_rm(const char *store, const char *ref, sl_error_t *err);

/* The numeric ids an image's USER ("name", "uid", "name:group", "uid:gid")
 * names, by runc's rules, from the image's own /etc/passwd and /etc/group
 * below rootfs (a uid without a group: its passwd entry's gid, else 0). -1
 * with errno ENOENT and err in runc's words ("unable to find user app: no
 * matching entries in passwd file") when a name is not there (user.c). */
int sl_image_user_ids(const char *rootfs, const char *user, long *uid, long *gid, sl_error_t *err);

/* ---- a pulled digest for other runtimes (convert.c) ----
 * <store>/sha256/<hex>/image.sqsh (enroot) and image.sif (apptainer,
 * singularity), built from the digest's rootfs once, under its lock. */
typedef enum sl_image_format { SL_IMAGE_SQUASHFS, SL_IMAGE_SIF } sl_image_format_t;

/* the program a format is built with: "mksquashfs", "apptainer" */
const char *sl_image_format_tool(sl_image_format_t f);
/* the argv that builds out from rootfs with tool (NULL: the format's) */
struct sl_argv;
void sl_image_convert_argv(sl_image_format_t f, const char *tool, const char *rootfs,
                           const char *out, struct sl_argv *a);
/* The digest's file in format f, built now unless it is there (*cached
 * says which; may be NULL): 0 with *path (caller frees), or -1 with errno
 * ENOENT (the digest is not in the store, or the tool is not installed:
 * err says which), EIO (the tool failed: its message). */
int sl_image_convert(const char *store, const char *digest, sl_image_format_t f, const char *tool,
                     int timeout_s, char **path, int *cached, sl_error_t *err);

/* ---- the pulled images: use records, list, removal (use.c, gc.c) ----
 *
 * <store>/uses/<hex>/<pod uid> (uses is root's 0700: the records name every
 * tenant's namespaces and pods) records that a live pod uses the digest: the
 * controller claims it (under the digest's lock, which pulls and removals
 * take too) before the pod is submitted and sweeps the records of pods that
 * are terminal or gone; <store>/sha256/<hex>/last-used is stamped by every
 * claim (its mtime is the last use). A digest with a record is never
 * removed. */

/* Record that pod uid (ns/name) uses digest, and stamp its last use. -1
 * with errno ENOENT when the digest is not (or no longer) in the store: the
 * caller pulls it again. */
int sl_image_use_claim(const char *store, const char *digest, const char *uid, const char *ns,
                       const char *name, sl_error_t *err);
/* Is the pod of uid live (not terminal, not gone)? */
typedef int (*sl_image_live_fn)(void *arg, const char *uid);
/* Drop the records of pods live() says are not live, in the store and in
 * each of its private parts: how many went. */
size_t sl_image_use_sweep(const char *store, sl_image_live_fn live, void *arg);

typedef struct sl_image_stored {
    char *digest;            /* "sha256:<hex>", the store key */
    char *dir;               /* <store>/sha256/<hex> */
    char **refs;             /* the tags that resolve to it (canonical references) */
    size_t nrefs;            /* 0: dangling */
    unsigned long long size; /* bytes of the tree, as du counts them */
    long long last_used;     /* unix seconds of the last pod's claim (0: none) */
    long long pulled;        /* unix seconds it was pulled */
    char **users;            /* "namespace/name" of the live pods that use it */
    size_t nusers;
} sl_image_stored_t;

/* Every complete pulled image, least recently used first (the last use, or
 * the pull when never used). */
sl_image_stored_t *sl_image_stored_list(const char *store, size_t *n, sl_error_t *err);
void sl_image_stored_free(sl_image_stored_t *v, size_t n);

/* Remove what `what` names (a reference, sha256:<hex>, or a unique prefix of
 * 12 hex digits or more) and every tag that resolves to it: its digest is
 * removed whole. -1 with errno ENOENT (no such image), EBUSY (a live pod
 * uses it; err names one). *digest (may be NULL) gets the digest removed. */
int sl_image_rm_pulled(const char *store, const char *what, char **digest, sl_error_t *err);

/* Remove the images no live pod uses (and no pull holds just now): only the
 * dangling ones (no tag resolves to them) unless all; fn is told of each.
 * Also removes the work folders of pulls cut short. The count, or -1. */
typedef void (*sl_image_removed_fn)(void *arg, const sl_image_stored_t *img);
int sl_image_prune(const char *store, int all, sl_image_removed_fn fn, void *arg, sl_error_t *err);

#endif
