/* pulluser.c — the system user registry pulls run as (images.unpack_user):
 * skopeo and umoci of a pull without credentials never run as root. Made
 * once, as the Debian package's postinst makes it (docs/deploy.md). */
#include "internal.h"

#include "image/image.h"

#include <errno.h>
#include <pwd.h>

int cl_ensure_pull_user(sl_error_t *err)
{
    struct passwd pw, *r = NULL;
    char buf[4096];
    if (cl_ensure_system_user(SL_IMAGE_PULL_USER, "slurmlink registry pulls", err) < 0)
        return -1;
    getpwnam_r(SL_IMAGE_PULL_USER, &pw, buf, sizeof(buf), &r);
    if (!r) {
        errno = ENOENT;
        return sl_errprintf(err, "user %s: made, but not found", SL_IMAGE_PULL_USER);
    }
    return sl_image_as_lookup(SL_IMAGE_PULL_USER, &pw.pw_uid, &pw.pw_gid, err);
}
