/* internal.h — shared between the image store's files; not part of its interface. */
#ifndef SL_IMAGE_INTERNAL_H
#define SL_IMAGE_INTERNAL_H

#include "common/err.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/types.h>

/* Fill the empty folder dir with busybox (static) and its applet links. */
int sl_image_busybox_tree(const char *dir, const char *busybox, sl_error_t *err);

/* bytes on disk below path, hard links counted once (store.c) */
unsigned long long sl_image_disk_usage(const char *path);

/* rootfs.c: <dir>/sanitized says that <dir>/rootfs was made safe to share
 * (sl_image_sanitize_tree). _stamp writes it; _safe makes the tree of a
 * digest folder safe unless it says so (a digest pulled before the store
 * did this), under the digest's lock */
int sl_image_safe_stamp(const char *dir, sl_error_t *err);
int sl_image_digest_safe(const char *dir, sl_error_t *err);

/* tool.c: who runs a pull's tools. uid 0: root (the daemon's own
 * environment); else that user and group, without supplementary groups,
 * with HOME and TMPDIR its own folder home (0700) and the pull's
 * credentials (or none: {}) in home/auth.json (0600), both the user's */
typedef struct sl_image_as {
    uid_t uid;
    gid_t gid;
    char *home;
    char *auth;
} sl_image_as_t;

/* as->home and as->auth made in work (a 0700 folder of root's, opened to
 * the user's group: 0710), as->auth a copy of authfile (NULL: {}) */
int sl_image_as_prepare(sl_image_as_t *as, const char *work, const char *authfile, sl_error_t *err);
void sl_image_as_free(sl_image_as_t *as);
/* dir, a 0700 folder of root's that only root may write to, entered by the
 * user's group (0710); _close: root's alone again (nothing when as is root) */
int sl_image_as_open(const char *dir, const sl_image_as_t *as, sl_error_t *err);
int sl_image_as_close(const char *dir, sl_error_t *err);
/* a new folder path (0700) of the user's, for a tool to write into: its
 * parent is root's, so root never follows a link the user made there */
int sl_image_as_mkdir(const char *path, const sl_image_as_t *as, sl_error_t *err);

/* skopeo and umoci, argv vectors with a time limit, run as as (NULL: root) */
char *sl_image_tool_message(const char *stderr_text);
int sl_image_tool_run(const char *const *argv, const char *work, int timeout_ms, char **out,
                      const sl_image_as_t *as, sl_error_t *err);
/* the same, bounded: no file the tool writes may pass limit bytes
 * (RLIMIT_FSIZE), and the tool is killed as soon as the folder dir holds
 * more than limit (watched while it runs, checked again when it is done):
 * -1 with errno EFBIG and err "... is larger than the limit of N bytes" */
int sl_image_tool_run_bounded(const char *const *argv, const char *work, int timeout_ms,
                              const char *dir, unsigned long long limit, const sl_image_as_t *as,
                              sl_error_t *err);

/* pull.c: the image config (Entrypoint, Cmd, Env, WorkingDir, User) of
 * the one image of the OCI layout oci, as image.json's "config" */
json_t *sl_image_oci_config(const char *oci);

/* unpack.c: tmp/oci's image applied to tmp/bundle/rootfs by umoci as as
 * (tmp opened to its group meanwhile, tmp/bundle its own, then both root's
 * alone again), within limit bytes (sl_image_tool_run_bounded) */
int sl_image_unpack(const char *tmp, const sl_image_as_t *as, unsigned long long limit,
                    int timeout_ms, sl_error_t *err);
/* the calling thread's tools from now on are killed once *cancel is set
 * (NULL: never); sl_image_pull sets it for its own duration */
void sl_image_tool_cancel_on(atomic_int *cancel);
/* is text (a tool's message about the manifest request) an answer of a
 * registry (refused, unknown name or tag) rather than a connection's or
 * protocol's failure? */
int sl_image_registry_answer(const char *text);

/* use.c: flock of <store>/.locks/<name>.lock (a digest's hex, or "store"),
 * waiting or not (-1 with errno EWOULDBLOCK when held); close the fd to
 * let go */
int sl_image_lock(const char *store, const char *name, int wait, sl_error_t *err);
/* "namespace/name" of the pods recorded as using hex */
char **sl_image_users(const char *store, const char *hex, size_t *n);
void sl_image_users_free(char **v, size_t n);

/* gc.c */
char *sl_image_ref_record(const char *store, const char *full); /* refs/<name>+<tag> */
/* remove digest hex (its lock taken waiting or not) unless a pod uses it */
int sl_image_remove_digest(const char *store, const char *hex, int wait, sl_error_t *err);
/* room for need bytes under limit (store lock and hex's lock held) */
int sl_image_make_room(const char *store, const char *hex, unsigned long long need,
                       unsigned long long limit, sl_error_t *err);

#endif
