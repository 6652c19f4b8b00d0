/* convert.c — a pulled digest as the file another runtime runs: a squashfs
 * for enroot (mksquashfs, as `enroot import` makes one) or a SIF for
 * apptainer / singularity (`apptainer build OUT ROOTFS`, from the unpacked
 * tree). Built once per digest, under the digest's lock (single-flight, as
 * pulls are), in a work file of the digest folder renamed into place whole:
 *     <store>/sha256/<hex>/image.sqsh, image.sif */
#include "image/image.h"
#include "image/internal.h"

#include "common/argv.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *ext_of(sl_image_format_t f) { return f == SL_IMAGE_SIF ? "sif" : "sqsh"; }

const char *sl_image_format_tool(sl_image_format_t f)
{
    return f == SL_IMAGE_SIF ? "apptainer" : "mksquashfs";
}

void sl_image_convert_argv(sl_image_format_t f, const char *tool, const char *rootfs,
                           const char *out, sl_argv_t *a)
{
    sl_argv_add(a, tool ? tool : sl_image_format_tool(f));
    if (f == SL_IMAGE_SIF) {
        /* a sandbox folder to a SIF; no root needed, nothing fetched */
        sl_argv_addv(a, (const char *const[]){"build", "--force", out, rootfs, NULL});
        return;
    }
    /* enroot import's: every file root's (the container's user owns them
     * through enroot's user namespace), enroot's ENROOT_SQUASH_OPTIONS
     * default "-comp lzo -noD" */
    sl_argv_addv(a, (const char *const[]){rootfs, out, "-all-root", "-noappend", "-no-progress",
                                          "-quiet", "-comp", "lzo", "-noD", NULL});
}

/* the work files of conversions cut short, in dir (the caller holds the lock) */
static void remove_work(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (!strncmp(de->d_name, ".convert-", 9)) {
            char *p = sl_xasprintf("%s/%s", dir, de->d_name);
            unlink(p);
            free(p);
        }
    if (d)
        closedir(d);
}

/* build dir/image.<ext> from dir/rootfs (the caller holds the lock) */
static int build(const char *dir, sl_image_format_t f, const char *tool, int timeout_s,
                 const char *final, sl_error_t *err)
{
    char *prog = sl_runtime_find_program(tool ? tool : sl_image_format_tool(f), getenv("PATH"));
    if (!prog) {
        errno = ENOENT;
        return sl_errprintf(err, "cannot build the %s of %s: %s is not installed", ext_of(f), dir,
                            tool ? tool : sl_image_format_tool(f));
    }
    remove_work(dir);
    char *work = sl_xasprintf("%s/.convert-%d.%s", dir, (int)getpid(), ext_of(f));
    char *rootfs = sl_xasprintf("%s/rootfs", dir);
    sl_argv_t a = SL_ARGV_INIT;
    sl_image_convert_argv(f, prog, rootfs, work, &a);
    int rc = sl_image_tool_run((const char *const *)a.v, dir,
                               (timeout_s > 0 ? timeout_s : 600) * 1000, NULL, NULL, err);
    if (rc == 0 && rename(work, final) < 0)
        rc = sl_errprintf(err, "rename %s: %s", work, strerror(errno));
    if (rc < 0)
        unlink(work);
    sl_argv_free(&a);
    free(rootfs);
    free(work);
    free(prog);
    return rc;
}

int sl_image_convert(const char *store, const char *digest, sl_image_format_t f, const char *tool,
                     int timeout_s, char **path, int *cached, sl_error_t *err)
{
    *path = NULL;
    const char *hex = digest && !strncmp(digest, "sha256:", 7) ? digest + 7 : "";
    if (strlen(hex) != 64 || strspn(hex, "0123456789abcdef") != 64) {
        errno = EINVAL;
        return sl_errprintf(err, "not a digest: %s", digest ? digest : "(none)");
    }
    int fd = sl_image_lock(store, hex, 1, err);
    if (fd < 0)
        return -1;
    char *dir = sl_xasprintf("%s/sha256/%s", store, hex);
    char *info = sl_xasprintf("%s/image.json", dir);
    char *final = sl_xasprintf("%s/image.%s", dir, ext_of(f));
    int rc = 0;
    if (cached)
        *cached = access(final, F_OK) == 0;
    if (access(info, F_OK) < 0) {
        errno = ENOENT;
        rc = sl_errprintf(err, "image %s is not in the store", digest);
    } else if (access(final, F_OK) < 0) {
        rc = build(dir, f, tool, timeout_s, final, err);
    }
    if (rc == 0)
        *path = sl_xstrdup(final);
    close(fd);
    free(final);
    free(info);
    free(dir);
    return rc;
}
