/* as.c — the unprivileged user a pull's tools run as: images.unpack_user
 * for public images, the pod's own Unix user for pulls with its
 * credentials. The user writes only into folders of its own whose parent
 * is root's and closed to it for writing, so root never follows a link the
 * user made; the credentials are a copy of its own, never root's file. */
#include "image/image.h"
#include "image/internal.h"

#include "common/fsutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sl_image_as_lookup(const char *name, uid_t *uid, gid_t *gid, sl_error_t *err)
{
    struct passwd pw, *r = NULL;
    char buf[4096];
    int e = getpwnam_r(name, &pw, buf, sizeof(buf), &r);
    if (!r) {
        errno = e ? e : ENOENT;
        return sl_errprintf(err, "images.unpack_user %s: no such user", name);
    }
    if (pw.pw_uid == 0 || pw.pw_gid == 0) {
        errno = EINVAL;
        return sl_errprintf(err, "images.unpack_user %s is root or in root's group", name);
    }
    *uid = pw.pw_uid;
    *gid = pw.pw_gid;
    return 0;
}

int sl_image_as_open(const char *dir, const sl_image_as_t *as, sl_error_t *err)
{
    if (!as || !as->uid)
        return 0;
    if (chown(dir, 0, as->gid) < 0 || chmod(dir, 0710) < 0)
        return sl_errprintf(err, "chown %s: %s", dir, strerror(errno));
    return 0;
}

int sl_image_as_close(const char *dir, sl_error_t *err)
{
    if (chown(dir, 0, 0) < 0 || chmod(dir, 0700) < 0)
        return sl_errprintf(err, "chown %s: %s", dir, strerror(errno));
    return 0;
}

int sl_image_as_mkdir(const char *path, const sl_image_as_t *as, sl_error_t *err)
{
    if (mkdir(path, 0700) < 0)
        return sl_errprintf(err, "mkdir %s: %s", path, strerror(errno));
    if (as && as->uid && chown(path, as->uid, as->gid) < 0)
        return sl_errprintf(err, "chown %s: %s", path, strerror(errno));
    return 0;
}

/* home/auth.json: authfile's text (or {}), written while home is still
 * root's, then given to the user with its folder */
static int write_auth(const sl_image_as_t *as, const char *authfile, sl_error_t *err)
{
    size_t len = 3;
    char *text = authfile ? sl_read_file(authfile, &len, err) : sl_xstrdup("{}\n");
    if (!text)
        return -1;
    int fd = open(as->auth, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = fd >= 0 && write(fd, text, len) == (ssize_t)len &&
                     (!as->uid || fchown(fd, as->uid, as->gid) == 0)
                 ? 0
                 : sl_errprintf(err, "write %s: %s", as->auth, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(text);
    return rc;
}

int sl_image_as_prepare(sl_image_as_t *as, const char *work, const char *authfile, sl_error_t *err)
{
    as->home = sl_xasprintf("%s/home", work);
    as->auth = sl_xasprintf("%s/auth.json", as->home);
    if (sl_image_as_open(work, as, err) < 0)
        return -1;
    if (mkdir(as->home, 0700) < 0)
        return sl_errprintf(err, "mkdir %s: %s", as->home, strerror(errno));
    if (write_auth(as, authfile, err) < 0)
        return -1;
    if (as->uid && chown(as->home, as->uid, as->gid) < 0)
        return sl_errprintf(err, "chown %s: %s", as->home, strerror(errno));
    return 0;
}

void sl_image_as_free(sl_image_as_t *as)
{
    free(as->home);
    free(as->auth);
    as->home = as->auth = NULL;
}
