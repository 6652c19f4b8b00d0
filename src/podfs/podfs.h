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

/* Remove a pod folder (rm -rf on fds, never following a link); a missing
 * folder is not an error. */
int sl_podfs_remove(const char *pod_dir);

/* An sl_image_lookup_fn for a local store: the image folder exists. No
 * entrypoint metadata is recorded by the store, so meta stays empty. */
int sl_podfs_image_exists(void *arg, const char *image_dir, sl_image_meta_t *meta);

#endif
