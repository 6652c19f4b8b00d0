/* podfs.h — the pod folder on disk: the I/O half of translation.
 *
 * sl_translate() is pure and lists what the pod folder holds; this module
 * creates it, for slurmlinkd, `slurmlink render --write` and the bench's
 * direct paths alike: <pods-root>/<ns>/ (0711, so job users reach their own
 * folder), the pod folder (0700), then every file and folder translate
 * listed, with its mode, owned by the job's user when chown is asked for. */
#ifndef SL_PODFS_H
#define SL_PODFS_H

#include <sys/types.h>

#include "common/err.h"
#include "translate/translate.h"

/* 0, or -1 with errno and err naming the path. Paths with ".." are refused.
 * The folder is created fresh: an existing one (an earlier attempt for the
 * same pod uid) is removed first, without following any link in it; its
 * parent must be ours and not writable by others. Entries are created
 * exclusively beneath dir fds (never through a symlink) and chowned on
 * their fds; the folder is handed to uid last. On failure nothing of it
 * is left. */
int sl_podfs_write(const sl_translate_result_t *r, int do_chown, uid_t uid, gid_t gid,
                   sl_error_t *err);

/* Put a small file name (one component) with data into an existing pod
 * folder, replacing what is there: written to a new file beside it (root's,
 * mode 0644: the job's user reads it, cannot change it) and renamed over
 * name, on fds, never through a link; the pod folder's parent must be
 * ours. What the job's user may do to it (remove or replace it: the folder
 * is hers) only touches her own pod: readers must trust it no further. */
int sl_podfs_put(const char *pod_dir, const char *name, const void *data, size_t len,
                 sl_error_t *err);

/* Remove a pod folder (rm -rf on fds, never following a link); a missing
 * folder is not an error. */
int sl_podfs_remove(const char *pod_dir);

/* An sl_image_lookup_fn for a local store: the image folder exists. No
 * entrypoint metadata is recorded by the store, so meta stays empty. */
int sl_podfs_image_exists(void *arg, const char *image_dir, sl_image_meta_t *meta);

#endif
