/* Unit tests: a pulled digest converted for other runtimes (convert.c):
 * the golden argv of both formats, a real squashfs built by mksquashfs and
 * read back with unsquashfs -l, built once (the second call finds it), a
 * SIF whose tool is absent refused clearly, a digest not in the store. */
#include "common/argv.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "image/image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *joined(sl_argv_t *a)
{
    size_t len = 0;
    for (size_t i = 0; i < a->n; i++)
        len += strlen(a->v[i]) + 1;
    char *s = sl_xcalloc(1, len + 1);
    for (size_t i = 0; i < a->n; i++) {
        strcat(s, a->v[i]);
        if (i + 1 < a->n)
            strcat(s, " ");
    }
    return s;
}

static void golden(void)
{
    sl_argv_t a = SL_ARGV_INIT;
    sl_image_convert_argv(SL_IMAGE_SQUASHFS, NULL, "/s/sha256/x/rootfs", "/s/sha256/x/o.sqsh", &a);
    char *s = joined(&a);
    is_str(s,
           "mksquashfs /s/sha256/x/rootfs /s/sha256/x/o.sqsh -all-root -noappend -no-progress "
           "-quiet -comp lzo -noD",
           "squashfs: mksquashfs as enroot import runs it");
    free(s);
    sl_argv_free(&a);
    sl_image_convert_argv(SL_IMAGE_SIF, NULL, "/s/sha256/x/rootfs", "/s/sha256/x/o.sif", &a);
    s = joined(&a);
    is_str(s, "apptainer build --force /s/sha256/x/o.sif /s/sha256/x/rootfs",
           "sif: apptainer build from the unpacked tree");
    free(s);
    sl_argv_free(&a);
    sl_image_convert_argv(SL_IMAGE_SIF, "singularity", "/r", "/o.sif", &a);
    s = joined(&a);
    is_str(s, "singularity build --force /o.sif /r", "sif with singularity");
    free(s);
    sl_argv_free(&a);
}

static char *run_out(const char *const *argv)
{
    char *out = NULL;
    int st = sl_run(argv, NULL, 1, 60000, &out, NULL);
    if (st != 0) {
        free(out);
        return NULL;
    }
    return out;
}

int main(void)
{
    tap_plan(13);
    golden();
    char tmpl[] = "/tmp/imgconv.XXXXXX";
    char *store = mkdtemp(tmpl);
    const char *hex = "abababababababababababababababababababababababababababababababab";
    char *dg = sl_xasprintf("sha256:%s", hex);
    char *dir = sl_xasprintf("%s/sha256/%s", store, hex);
    char *rootfs = sl_xasprintf("%s/rootfs", dir), *bin = sl_xasprintf("%s/bin", rootfs);
    sl_mkdir_p(bin, 0755, NULL);
    char *f = sl_xasprintf("%s/hello", bin), *l = sl_xasprintf("%s/link", bin);
    sl_write_file(f, "hi\n", 3, 0755, NULL);
    symlink("hello", l);
    char *info = sl_xasprintf("%s/image.json", dir);
    sl_write_file(info, "{\"size\": 1}", 11, 0644, NULL);

    sl_error_t err = SL_ERROR_INIT;
    char *path = NULL;
    int cached = -1;
    int r = sl_image_convert(store, dg, SL_IMAGE_SQUASHFS, NULL, 0, &path, &cached, &err);
    ok(r == 0 && path && cached == 0, "squashfs built (%s)", err.text);
    char *want = sl_xasprintf("%s/image.sqsh", dir);
    is_str(path, want, "  beside the tree: image.sqsh");
    const char *ls[] = {"unsquashfs", "-l", path ? path : "/nonexistent", NULL};
    char *list = run_out(ls);
    has_str(list ? list : "", "squashfs-root/bin/hello", "  unsquashfs -l lists the image's file");
    has_str(list ? list : "", "squashfs-root/bin/link", "  and its symbolic link");
    free(list);
    struct stat st1, st2;
    stat(want, &st1);
    free(path);
    r = sl_image_convert(store, dg, SL_IMAGE_SQUASHFS, NULL, 0, &path, &cached, &err);
    stat(want, &st2);
    ok(r == 0 && cached == 1 && st1.st_ino == st2.st_ino,
       "a second conversion finds it (built once)");
    free(path);
    r = sl_image_convert(store, dg, SL_IMAGE_SIF, "apptainer-not-here", 0, &path, &cached, &err);
    ok(r < 0 && errno == ENOENT && !path, "a SIF without apptainer is refused");
    has_str(err.text, "apptainer-not-here is not installed", "  clearly: %s", err.text);
    char *sif = sl_xasprintf("%s/image.sif", dir);
    ok(access(sif, F_OK) < 0, "  and leaves no file");
    r = sl_image_convert(store,
                         "sha256:cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd",
                         SL_IMAGE_SQUASHFS, NULL, 0, &path, NULL, &err);
    ok(r < 0 && errno == ENOENT, "a digest not in the store: ENOENT (%s)", err.text);
    const char *find[] = {"find", dir, "-name", ".convert-*", NULL};
    char *left = run_out(find);
    is_str(left ? left : "?", "", "no work file is left");
    free(left);
    sl_rm_rf(store);
    free(sif);
    free(want);
    free(info);
    free(f);
    free(l);
    free(bin);
    free(rootfs);
    free(dir);
    free(dg);
    return tap_done();
}
