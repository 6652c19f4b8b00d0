/* pulluser.c — the system user registry pulls run as (images.unpack_user):
 * skopeo and umoci of a pull without credentials never run as root. Made
 * once, as the Debian package's postinst makes it (docs/deploy.md). */
#include "internal.h"

#include "common/proc.h"
#include "image/image.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

int cl_ensure_pull_user(sl_error_t *err)
{
    struct passwd pw, *r = NULL;
    char buf[4096];
    getpwnam_r(SL_IMAGE_PULL_USER, &pw, buf, sizeof(buf), &r);
    if (r)
        return sl_image_as_lookup(SL_IMAGE_PULL_USER, &pw.pw_uid, &pw.pw_gid, err);
    /* Debian's naming of system users (_apt): a leading underscore */
    const char *argv[] = {"useradd",           "--system",
                          "--no-create-home",  "--home-dir",
                          "/nonexistent",      "--shell",
                          "/usr/sbin/nologin", "--user-group",
                          "--comment",         "slurmlink registry pulls",
                          SL_IMAGE_PULL_USER,  NULL};
    char *out = NULL;
    int rc = sl_run(argv, NULL, 1, 30000, &out, err);
    if (rc > 0) {
        errno = EIO;
        sl_errprintf(err, "useradd %s failed (status %d): %s", SL_IMAGE_PULL_USER, rc,
                     out ? out : "");
    }
    free(out);
    return rc == 0 ? 0 : -1;
}
