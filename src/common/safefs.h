/* safefs.h — file access beneath a directory a tenant can write.
 *
 * slurmlinkd runs as root and reads and writes inside pod folders that their
 * job users own. Every such access goes through here: paths are resolved
 * relative to a directory fd with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) (per-component openat with
 * O_NOFOLLOW where the kernel lacks openat2), so neither a symlink, a ".."
 * nor an absolute path leads out; opens add O_NOFOLLOW | O_NONBLOCK |
 * O_CLOEXEC, reads want a regular file and a size bound; creation is
 * exclusive; ownership and mode are set on the fd; removal works on fds and
 * never follows a link or crosses a mount.
 *
 * All return -1 (or NULL) with errno set: ELOOP for a symlink, EXDEV for a
 * path that leaves the directory, EINVAL for an empty or absolute path,
 * EFTYPE-like cases (FIFO, device, socket, folder where a file is wanted) as
 * EINVAL, EFBIG for a file over the bound, EEXIST for exclusive creation. */
#ifndef SL_SAFEFS_H
#define SL_SAFEFS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "err.h"

/* Open rel beneath dirfd (rel is relative, "a/b/c"; "." is dirfd itself)
 * with flags (O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC are added). No symlink in
 * any component, no "..", no absolute path. Returns the fd. */
int sl_safefs_openat(int dirfd, const char *rel, int flags, mode_t mode);

/* Open a folder beneath dirfd (O_DIRECTORY | O_RDONLY). */
int sl_safefs_opendir(int dirfd, const char *rel);

/* Open a folder by absolute path, every component without following a
 * symlink, and check it: a folder, owned by owner, not writable by group or
 * others. For the roots slurmlinkd trusts (the pods root, a namespace folder). */
int sl_safefs_open_trusted_dir(const char *path, uid_t owner, sl_error_t *err);

/* Open a regular file beneath dirfd for reading; fills *st when st is not
 * NULL. A FIFO, device, socket or folder is refused (EINVAL) without
 * blocking. When owner is not (uid_t)-1 the file must belong to it (EPERM). */
int sl_safefs_open_read(int dirfd, const char *rel, uid_t owner, struct stat *st);

/* Read a whole regular file beneath dirfd, at most max bytes (EFBIG when it
 * is larger). NUL-terminated, caller frees; *len may be NULL. */
char *sl_safefs_read(int dirfd, const char *rel, size_t max, size_t *len, sl_error_t *err);

/* Create a folder name (one component) in dirfd, which must not exist, and
 * return an fd on it (checked to be the folder just made: ours, a folder). */
int sl_safefs_mkdir_excl(int dirfd, const char *name, mode_t mode, sl_error_t *err);

/* Create a file name (one component) in dirfd with data, O_EXCL, mode set
 * with fchmod (the umask does not apply) and, when uid is not (uid_t)-1,
 * owner set with fchown. */
int sl_safefs_write_excl(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
                         uid_t uid, gid_t gid, sl_error_t *err);

/* rm -rf of name (one component) in dirfd, on fds: never follows a symlink
 * (a symlink is unlinked, not followed), never leaves dirfd's filesystem,
 * at most 64 levels deep. ENOENT when name does not exist. */
int sl_safefs_remove_tree(int dirfd, const char *name);

/* The same for an absolute path whose parent folder is trusted (root's,
 * not writable by others), as the pods root and its namespace folders. */
int sl_safefs_remove_path(const char *path);

#endif
