/* unpack.c — a pull's layers applied by umoci, as the pull's user (not
 * root) when there is one, so that a flaw of umoci's (a link followed out
 * of the tree) cannot write as root. The user enters the work folder (root's,
 * 0710) and writes only into tmp/bundle, its own; what it wrote is handed
 * back to root before the tree is made safe (sl_image_prepare_rootfs, which
 * makes every file root's, walking beneath folder descriptors). */
#include "image/image.h"
#include "image/internal.h"

#include "common/argv.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* tmp root's alone again; bundle too, its contents root's as they are made safe */
static int take_back(const char *tmp, const char *bundle, sl_error_t *err)
{
    return sl_image_as_close(bundle, err) == 0 ? sl_image_as_close(tmp, err) : -1;
}

int sl_image_unpack(const char *tmp, const sl_image_as_t *as, unsigned long long limit,
                    int timeout_ms, sl_error_t *err)
{
    char *oci = sl_xasprintf("%s/oci", tmp), *bundle = sl_xasprintf("%s/bundle", tmp);
    int rc = sl_image_as_open(tmp, as, err) == 0 ? sl_image_as_mkdir(bundle, as, err) : -1;
    /* raw unpack: the layers only. umoci unpack also writes a runtime
     * config.json, which fails on a USER the image's passwd lacks; the
     * USER is resolved when a pod runs (sl_image_user_ids) */
    sl_argv_t a = SL_ARGV_INIT;
    sl_argv_addv(&a,
                 (const char *const[]){"umoci", "raw", "unpack", "--rootless", "--image", NULL});
    sl_argv_addf(&a, "%s:img", oci);
    sl_argv_addf(&a, "%s/rootfs", bundle);
    if (rc == 0)
        rc = sl_image_tool_run_bounded((const char *const *)a.v, tmp, timeout_ms, bundle, limit, as,
                                       err);
    sl_argv_free(&a);
    if (as && as->uid) {
        int e = errno;
        sl_error_t e2 = SL_ERROR_INIT;
        if (take_back(tmp, bundle, rc < 0 ? &e2 : err) < 0 && rc == 0)
            rc = -1;
        else if (rc < 0)
            errno = e;
        sl_error_clear(&e2);
    }
    free(oci);
    free(bundle);
    return rc;
}
