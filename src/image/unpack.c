/* unpack.c — a pull's layers applied by umoci, as images.unpack_user when
 * there is one, so that a flaw of umoci's (a link followed out of the tree)
 * cannot write as root. Only that user and root may enter the work folder;
 * what umoci wrote is handed back to root before the tree is made safe
 * (sl_image_prepare_rootfs, which makes every file root's). */
#include "image/image.h"
#include "image/internal.h"

#include "common/argv.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* nftw's callback takes no argument: the owner to give, the thread's own */
static _Thread_local struct {
    uid_t uid;
    gid_t gid;
    int err;
} give;

static int give_cb(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st, (void)flag, (void)f;
    if (lchown(path, give.uid, give.gid) < 0 && !give.err)
        give.err = errno;
    return 0;
}

/* dir and all below it to uid:gid; the children before their folder, so
 * the user never owns a folder of a path still to be changed */
static int give_tree(const char *dir, uid_t uid, gid_t gid, sl_error_t *err)
{
    give.uid = uid;
    give.gid = gid;
    give.err = 0;
    if (nftw(dir, give_cb, 32, FTW_PHYS | FTW_DEPTH | FTW_MOUNT) < 0 && !give.err)
        give.err = errno;
    if (!give.err)
        return 0;
    errno = give.err;
    return sl_errprintf(err, "chown %s: %s", dir, strerror(errno));
}

/* the ids of images.unpack_user, never root's */
static int unpack_ids(const char *user, uid_t *uid, gid_t *gid, sl_error_t *err)
{
    struct passwd pw, *r = NULL;
    char buf[4096];
    int e = getpwnam_r(user, &pw, buf, sizeof(buf), &r);
    if (!r) {
        errno = e ? e : ENOENT;
        return sl_errprintf(err, "images.unpack_user %s: no such user", user);
    }
    if (pw.pw_uid == 0 || pw.pw_gid == 0) {
        errno = EINVAL;
        return sl_errprintf(err, "images.unpack_user %s is root or in root's group", user);
    }
    *uid = pw.pw_uid;
    *gid = pw.pw_gid;
    return 0;
}

/* tmp (0700, root's) opened to the user's group, tmp/oci and tmp/bundle its own */
static int open_to(const char *tmp, const char *oci, const char *bundle, uid_t uid, gid_t gid,
                   sl_error_t *err)
{
    if (chown(tmp, 0, gid) < 0 || chmod(tmp, 0710) < 0)
        return sl_errprintf(err, "chown %s: %s", tmp, strerror(errno));
    if (give_tree(oci, uid, gid, err) < 0)
        return -1;
    if (chown(bundle, uid, gid) < 0)
        return sl_errprintf(err, "chown %s: %s", bundle, strerror(errno));
    return 0;
}

/* tmp root's alone again; bundle too, its contents root's as they are made safe */
static int take_back(const char *tmp, const char *bundle, sl_error_t *err)
{
    if (chown(bundle, 0, 0) < 0 || chmod(bundle, 0700) < 0 || chown(tmp, 0, 0) < 0 ||
        chmod(tmp, 0700) < 0)
        return sl_errprintf(err, "chown %s: %s", bundle, strerror(errno));
    return 0;
}

int sl_image_unpack(const char *tmp, const char *user, unsigned long long limit, int timeout_ms,
                    sl_error_t *err)
{
    char *oci = sl_xasprintf("%s/oci", tmp), *bundle = sl_xasprintf("%s/bundle", tmp);
    uid_t uid = 0;
    gid_t gid = 0;
    int rc =
        mkdir(bundle, 0700) == 0 ? 0 : sl_errprintf(err, "mkdir %s: %s", bundle, strerror(errno));
    if (rc == 0 && user)
        rc = unpack_ids(user, &uid, &gid, err) == 0 ? open_to(tmp, oci, bundle, uid, gid, err) : -1;
    /* raw unpack: the layers only. umoci unpack also writes a runtime
     * config.json, which fails on a USER the image's passwd lacks; the
     * USER is resolved when a pod runs (sl_image_user_ids) */
    sl_argv_t a = SL_ARGV_INIT;
    sl_argv_addv(&a,
                 (const char *const[]){"umoci", "raw", "unpack", "--rootless", "--image", NULL});
    sl_argv_addf(&a, "%s:img", oci);
    sl_argv_addf(&a, "%s/rootfs", bundle);
    if (rc == 0)
        rc = sl_image_tool_run_bounded((const char *const *)a.v, tmp, timeout_ms, bundle, limit,
                                       uid, gid, err);
    sl_argv_free(&a);
    if (user && uid) {
        int e = errno;
        sl_error_t e2 = SL_ERROR_INIT;
        if (take_back(tmp, bundle, rc < 0 ? &e2 : err) < 0 && rc == 0)
            rc = -1;
        else if (rc < 0)
            errno = e;
    }
    free(oci);
    free(bundle);
    return rc;
}
