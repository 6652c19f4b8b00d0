/* fsutil.h — small filesystem helpers. */
#ifndef SL_FSUTIL_H
#define SL_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "err.h"

/* mkdir -p with mode for each created component. */
int sl_mkdir_p(const char *path, mode_t mode, sl_error_t *err);
/* Write data to path atomically (tmp file + rename) with mode. */
int sl_write_file(const char *path, const void *data, size_t len, mode_t mode, sl_error_t *err);
/* Read a whole file (NUL-terminated, caller frees). *len may be NULL. */
char *sl_read_file(const char *path, size_t *len, sl_error_t *err);
/* rm -rf (does not cross into other filesystems' mount points it cannot unlink). */
int sl_rm_rf(const char *path);
/* Last n lines of a file, for error messages (caller frees; "" if unreadable). */
char *sl_tail_file(const char *path, int n);
/* Absolute, normalised form of path (need not exist). Caller frees. */
char *sl_abspath(const char *path);
/* Folder that holds the running executable (from /proc/self/exe). Caller frees. */
char *sl_self_dir(void);
/* An exclusive lock on path (created 0600 when missing, never through a
 * link), held while the returned fd stays open: closed on exec, and the
 * kernel drops it when the process ends, however it ends. The file then
 * holds this process's pid. -1 with errno on failure: EWOULDBLOCK when
 * another process holds it (*holder: the pid its file names, 0 if none). */
int sl_lock_pidfile(const char *path, pid_t *holder, sl_error_t *err);

#endif
