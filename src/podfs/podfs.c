/* podfs.c — create a pod folder from translate's file list.
 *
 * The folder is made fresh: when its name is taken, what is there (a
 * leftover of an earlier attempt for the same pod uid, which its user could
 * have changed) is removed on fds first. Then, while it is still ours and 0700, every
 * folder and file is created beneath dir fds, exclusively, never through a
 * link (src/common/safefs.h), owned by the job's user through fchown; the
 * folder itself is handed to the user last. */
#include "podfs/podfs.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sl_podfs_image_exists(void *arg, const char *dir, sl_image_meta_t *meta)
{
    (void)arg;
    struct stat st;
    memset(meta, 0, sizeof(*meta));
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* One entry of the list, beneath the pod folder's fd. */
static int put_entry(int dfd, const sl_translate_file_t *f, uid_t uid, gid_t gid, sl_error_t *err)
{
    if (strstr(f->path, "..") || f->path[0] == '/') {
        errno = EINVAL;
        return sl_errprintf(err, "refusing file path %s", f->path);
    }
    char *dir = sl_xstrdup(f->path);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : f->path;
    int pfd = dfd;
    if (slash) {
        *slash = '\0';
        pfd = sl_safefs_opendir(dfd, dir); /* translate lists folders before their contents */
        if (pfd < 0) {
            sl_errprintf(err, "open %s: %s", dir, strerror(errno));
            free(dir);
            return -1;
        }
    }
    int rc = 0;
    if (f->data) {
        rc = sl_safefs_write_excl(pfd, name, f->data, f->len, (mode_t)f->mode, uid, gid, err);
    } else {
        int fd = sl_safefs_mkdir_excl(pfd, name, (mode_t)f->mode, err);
        if (fd >= 0 && uid != (uid_t)-1 && fchown(fd, uid, gid) < 0)
            rc = sl_errprintf(err, "chown %s: %s", f->path, strerror(errno));
        if (fd < 0)
            rc = -1;
        else
            close(fd);
    }
    if (rc < 0)
        sl_errprefix(err, "%s", f->path);
    if (pfd != dfd)
        close(pfd);
    free(dir);
    return rc;
}

/* Create the folder name in pfd and fill it; the fd on it, or -1. A
 * leftover is looked for only when the name is taken. */
static int fill(int pfd, const char *name, const sl_translate_result_t *r, uid_t uid, gid_t gid,
                sl_error_t *err)
{
    int dfd = sl_safefs_mkdir_excl(pfd, name, 0700, err);
    if (dfd < 0 && errno == EEXIST) {
        if (sl_safefs_remove_tree(pfd, name) < 0 && errno != ENOENT)
            return sl_errprintf(err, "cannot remove the leftover %s: %s", r->pod_dir,
                                strerror(errno));
        dfd = sl_safefs_mkdir_excl(pfd, name, 0700, err);
    }
    if (dfd < 0)
        return sl_errprefix(err, "%s", r->pod_dir);
    for (size_t i = 0; i < r->nfiles; i++) {
        if (put_entry(dfd, &r->files[i], uid, gid, err) < 0) {
            close(dfd);
            return -1;
        }
    }
    if ((uid != (uid_t)-1 && fchown(dfd, uid, gid) < 0) || fchmod(dfd, 0700) < 0) {
        sl_errprintf(err, "chown %s: %s", r->pod_dir, strerror(errno));
        close(dfd);
        return -1;
    }
    return dfd;
}

int sl_podfs_write(const sl_translate_result_t *r, int do_chown, uid_t uid, gid_t gid,
                   sl_error_t *err)
{
    char *parent = sl_xstrdup(r->pod_dir);
    char *slash = strrchr(parent, '/');
    if (!slash || !slash[1] || slash == parent) {
        free(parent);
        errno = EINVAL;
        return sl_errprintf(err, "refusing pod folder %s", r->pod_dir);
    }
    *slash = '\0';
    const char *name = slash + 1;
    /* the namespace's folder made when the first of its pods needs it */
    int pfd = sl_safefs_open_trusted_dir(parent, geteuid(), NULL);
    if (pfd < 0)
        pfd = sl_mkdir_p(parent, 0711, err) < 0
                  ? -1
                  : sl_safefs_open_trusted_dir(parent, geteuid(), err);
    if (pfd < 0) {
        free(parent);
        return -1;
    }
    if (!do_chown)
        uid = (uid_t)-1;
    int dfd = fill(pfd, name, r, uid, gid, err);
    if (dfd < 0) { /* no half-written folder stays behind */
        int e = errno;
        sl_safefs_remove_tree(pfd, name);
        errno = e;
    } else {
        close(dfd);
    }
    close(pfd);
    free(parent);
    return dfd < 0 ? -1 : 0;
}

int sl_podfs_remove(const char *pod_dir)
{
    if (sl_safefs_remove_path(pod_dir) < 0 && errno != ENOENT)
        return -1;
    return 0;
}

/* beneath pfd (the trusted parent): the new file tmp, renamed over name */
static int put_beneath(int pfd, const char *folder, const char *name, const void *data, size_t len,
                       sl_error_t *err)
{
    int dfd = sl_safefs_opendir(pfd, folder);
    if (dfd < 0)
        return sl_errprintf(err, "pod folder %s: %s", folder, strerror(errno));
    char tmp[300];
    snprintf(tmp, sizeof(tmp), ".%.255s.new", name);
    unlinkat(dfd, tmp, 0); /* a leftover, or its user's: never followed */
    int rc = sl_safefs_write_excl(dfd, tmp, data, len, 0644, (uid_t)-1, (gid_t)-1, err);
    if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0) {
        rc = sl_errprintf(err, "%s/%s: %s", folder, name, strerror(errno));
        unlinkat(dfd, tmp, 0);
    }
    close(dfd);
    return rc < 0 ? -1 : 0;
}

int sl_podfs_put(const char *pod_dir, const char *name, const void *data, size_t len,
                 sl_error_t *err)
{
    const char *slash = strrchr(pod_dir, '/');
    if (!slash || !slash[1] || slash == pod_dir || strchr(name, '/') || !*name) {
        errno = EINVAL;
        return sl_errprintf(err, "refusing %s in pod folder %s", name, pod_dir);
    }
    char *parent = sl_xstrndup(pod_dir, (size_t)(slash - pod_dir));
    int pfd = sl_safefs_open_trusted_dir(parent, geteuid(), err);
    free(parent);
    if (pfd < 0)
        return -1;
    int rc = put_beneath(pfd, slash + 1, name, data, len, err);
    close(pfd);
    return rc;
}
