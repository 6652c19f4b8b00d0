/* podfs.c — create a pod folder from translate's file list. */
#include "podfs/podfs.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <errno.h>
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

int sl_podfs_write(const sl_translate_result_t *r, int do_chown, uid_t uid, gid_t gid,
                   sl_error_t *err)
{
    char *parent = sl_xstrdup(r->pod_dir);
    char *slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    int rc = sl_mkdir_p(parent, 0711, err);
    free(parent);
    if (rc < 0)
        return -1;
    if (mkdir(r->pod_dir, 0700) < 0 && errno != EEXIST)
        return sl_errprintf(err, "mkdir %s: %s", r->pod_dir, strerror(errno));
    if ((do_chown && chown(r->pod_dir, uid, gid) < 0) || chmod(r->pod_dir, 0700) < 0)
        return sl_errprintf(err, "chown %s: %s", r->pod_dir, strerror(errno));
    for (size_t i = 0; i < r->nfiles; i++) {
        const sl_translate_file_t *f = &r->files[i];
        if (strstr(f->path, "..") || f->path[0] == '/') {
            errno = EINVAL;
            return sl_errprintf(err, "refusing file path %s", f->path);
        }
        char *path = sl_xasprintf("%s/%s", r->pod_dir, f->path);
        /* translate lists folders before their contents */
        rc = f->data ? sl_write_file(path, f->data, f->len, (mode_t)f->mode, err)
                     : sl_mkdir_p(path, (mode_t)f->mode, err);
        if (rc == 0 && do_chown && lchown(path, uid, gid) < 0)
            rc = sl_errprintf(err, "chown %s: %s", path, strerror(errno));
        free(path);
        if (rc < 0)
            return -1;
    }
    return 0;
}
