/* store.c — import, list and remove images in the store (layout: image.h). */
#include "image/image.h"
#include "image/internal.h"

#include "common/argv.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define IMPORT_TIMEOUT_MS (3600 * 1000) /* an archive's copy, its unpack */

/* A fresh work folder inside the store (same filesystem: rename works). */
static char *make_tmp(const char *store, sl_error_t *err)
{
    if (sl_mkdir_p(store, 0755, err) < 0)
        return NULL;
    char *t = sl_xasprintf("%s/.import-XXXXXX", store);
    if (!mkdtemp(t)) {
        sl_errprintf(err, "mkdtemp in %s: %s", store, strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

static int is_dir_empty_or_missing(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return 1;
    struct dirent *de;
    int n = 0;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            n++;
    closedir(d);
    return n == 0;
}

/* Move a prepared tmp tree to dest; replace an existing image only with force. */
static int install(const char *tmp, const char *dest, const char *ref, const char *store, int force,
                   sl_error_t *err)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EEXIST)
        return sl_errprintf(err, "rename %s to %s: %s", tmp, dest, strerror(errno));
    if (!force) {
        errno = EEXIST;
        return sl_errprintf(err, "image %s already exists in %s (--force replaces it)", ref, store);
    }
    /* swap in one step, so a job starting now sees the old or the new tree */
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RENAME_EXCHANGE) < 0)
        return sl_errprintf(err, "replace %s: %s", dest, strerror(errno));
    sl_rm_rf(tmp); /* now the old tree */
    return 0;
}

char *sl_image_config_file(const char *dir) { return sl_xasprintf("%s.json", dir); }

/* dest's config file: cfg's (an image archive's) written, or none (a root filesystem's) */
static int put_config(const char *dest, const char *ref, json_t *cfg, sl_error_t *err)
{
    char *path = sl_image_config_file(dest);
    int rc = 0;
    if (cfg) {
        json_t *doc = json_pack("{s:s, s:O}", "ref", ref, "config", cfg);
        char *text = json_dumps(doc, JSON_INDENT(2));
        rc = sl_write_file(path, text, strlen(text), 0644, err);
        free(text);
        json_decref(doc);
    } else if (unlink(path) < 0 && errno != ENOENT) {
        rc = sl_errprintf(err, "remove %s: %s", path, strerror(errno));
    }
    free(path);
    return rc;
}

/* The tree is in tmp: check it, make it ch-run ready, install it with its
 * config (NULL: none). */
static int finish(const char *store, const char *ref, char *tmp, int force, json_t *cfg,
                  sl_error_t *err)
{
    char *dest = sl_image_dir(store, ref, err);
    int rc = -1;
    if (!dest)
        goto out;
    if (is_dir_empty_or_missing(tmp)) {
        errno = EINVAL;
        sl_errprintf(err, "the source is empty");
        goto out;
    }
    if (sl_image_prepare_rootfs(tmp, err) < 0 || install(tmp, dest, ref, store, force, err) < 0)
        goto out;
    rc = put_config(dest, ref, cfg, err);
out:
    if (rc < 0)
        sl_rm_rf(tmp);
    free(dest);
    return rc;
}

/* what tmp holds: 0 a root filesystem, 1 an OCI layout (also what `docker
 * save` writes since Docker 25), 2 an older `docker save` archive */
static int archive_kind(const char *tmp)
{
    const char *names[] = {"oci-layout", "manifest.json", "etc", "usr", "bin"};
    int has[5];
    for (int i = 0; i < 5; i++) {
        char *p = sl_xasprintf("%s/%s", tmp, names[i]);
        has[i] = access(p, F_OK) == 0;
        free(p);
    }
    if (has[2] || has[3] || has[4])
        return 0;
    return has[0] ? 1 : has[1] ? 2 : 0;
}

/* An image archive extracted in tmp (kind: archive_kind; file: the tar it
 * came from, NULL for a folder or standard input): its image copied by
 * skopeo into an OCI layout, its layers applied by umoci (sl_image_unpack),
 * the tree installed with the image's config. tmp is removed. */
static int import_archive(const char *store, const char *ref, const char *file, char *tmp, int kind,
                          int force, sl_error_t *err)
{
    char *work = NULL;
    int rc = -1;
    if (kind == 2 && !file) {
        errno = EINVAL;
        sl_errprintf(err, "a docker save archive without an OCI layout: give its tar file, not "
                          "standard input or a folder (or import a container's filesystem: "
                          "docker export, podman export)");
    } else if ((work = make_tmp(store, err))) {
        sl_argv_t a = SL_ARGV_INIT;
        sl_argv_addv(&a, (const char *const[]){"skopeo", "copy", "--quiet", NULL});
        sl_argv_addf(&a, kind == 1 ? "oci:%s" : "docker-archive:%s", kind == 1 ? tmp : file);
        sl_argv_addf(&a, "oci:%s/oci:img", work);
        rc = sl_image_tool_run((const char *const *)a.v, work, IMPORT_TIMEOUT_MS, NULL, NULL, err);
        sl_argv_free(&a);
        if (rc < 0 && err) {
            char *why = sl_xstrdup(err->text);
            sl_errprintf(err,
                         "cannot read this image archive (docker save / OCI layout): %s; "
                         "or import a container's filesystem (docker export, podman export)",
                         why);
            free(why);
        }
        if (rc == 0)
            rc = sl_image_unpack(work, NULL, RLIM_INFINITY, IMPORT_TIMEOUT_MS, err);
        if (rc == 0) {
            char *oci = sl_xasprintf("%s/oci", work),
                 *tree = sl_xasprintf("%s/bundle/rootfs", work);
            json_t *cfg = sl_image_oci_config(oci);
            rc = finish(store, ref, tree, force, cfg, err);
            json_decref(cfg);
            free(oci);
            free(tree);
        }
        sl_rm_rf(work);
        free(work);
    }
    sl_rm_rf(tmp);
    return rc;
}

/* Run argv, keeping standard input (a tar on "-"); its stderr is captured
 * unless stdin is used, then it goes straight to the user. */
static int run_tool(const char *const *argv, int use_stdin, sl_error_t *err)
{
    if (!use_stdin) {
        char *out = NULL;
        int st = sl_run(argv, NULL, 1, -1, &out, err);
        if (st > 0) {
            char *tail = sl_run_tail(out, 600);
            errno = EIO;
            sl_errprintf(err, "%s failed (exit %d): %s", argv[0], st, tail);
            free(tail);
        }
        free(out);
        return st == 0 ? 0 : -1;
    }
    pid_t pid = sl_spawn(argv, NULL, err);
    if (pid < 0)
        return -1;
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return sl_errprintf(err, "waitpid: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    errno = EIO;
    return sl_errprintf(err, "%s failed (exit status %d)", argv[0],
                        WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

int sl_image_import(const char *store, const char *ref, const char *src, int force, sl_error_t *err)
{
    char *name, *tag;
    if (sl_image_parse_ref(ref, &name, &tag, err) < 0)
        return -1;
    free(name);
    free(tag);
    int use_stdin = !strcmp(src, "-");
    struct stat st;
    if (!use_stdin && stat(src, &st) < 0)
        return sl_errprintf(err, "%s: %s", src, strerror(errno));
    if (!use_stdin && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
        errno = EINVAL;
        return sl_errprintf(err, "%s is neither a folder nor a tar archive", src);
    }
    char *tmp = make_tmp(store, err);
    if (!tmp)
        return -1;
    int rc;
    if (!use_stdin && S_ISDIR(st.st_mode)) {
        char *from = sl_xasprintf("%s/.", src);
        const char *argv[] = {"cp", "-a", "--", from, tmp, NULL};
        rc = run_tool(argv, 0, err);
        free(from);
    } else {
        /* GNU tar strips leading '/' and refuses members with "..";
         * ownership and set-id bits from the archive are not kept */
        const char *argv[] = {"tar",
                              "-x",
                              "-f",
                              use_stdin ? "-" : src,
                              "-C",
                              tmp,
                              "--no-same-owner",
                              "--no-same-permissions",
                              NULL};
        rc = run_tool(argv, use_stdin, err);
    }
    int kind = rc == 0 ? archive_kind(tmp) : 0;
    if (rc < 0)
        sl_rm_rf(tmp);
    else if (kind)
        rc = import_archive(store, ref, !use_stdin && S_ISREG(st.st_mode) ? src : NULL, tmp, kind,
                            force, err);
    else
        rc = finish(store, ref, tmp, force, NULL, err);
    free(tmp);
    return rc;
}

int sl_image_import_busybox(const char *store, const char *ref, const char *busybox_path, int force,
                            sl_error_t *err)
{
    char *name, *tag;
    if (sl_image_parse_ref(ref, &name, &tag, err) < 0)
        return -1;
    free(name);
    free(tag);
    char *tmp = make_tmp(store, err);
    if (!tmp)
        return -1;
    int rc = sl_image_busybox_tree(tmp, busybox_path ? busybox_path : "/bin/busybox", err);
    if (rc == 0)
        rc = finish(store, ref, tmp, force, NULL, err);
    else
        sl_rm_rf(tmp);
    free(tmp);
    return rc;
}

/* --- sizes (du -s with hard links counted once) --- */

/* nftw's callback takes no argument: the walk's state is the thread's own
 * (pull workers count their trees at once) */
static _Thread_local struct {
    dev_t *dev;
    ino_t *ino;
    size_t n, cap;
    unsigned long long total;
} du;

static int du_cb(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    if (st->st_nlink > 1 && !S_ISDIR(st->st_mode)) {
        for (size_t i = 0; i < du.n; i++)
            if (du.dev[i] == st->st_dev && du.ino[i] == st->st_ino)
                return 0;
        if (du.n == du.cap) {
            du.cap = du.cap ? du.cap * 2 : 64;
            du.dev = sl_xrealloc(du.dev, du.cap * sizeof(dev_t));
            du.ino = sl_xrealloc(du.ino, du.cap * sizeof(ino_t));
        }
        du.dev[du.n] = st->st_dev;
        du.ino[du.n++] = st->st_ino;
    }
    du.total += (unsigned long long)st->st_blocks * 512ULL;
    return 0;
}

unsigned long long sl_image_disk_usage(const char *path)
{
    du.n = 0;
    du.total = 0;
    nftw(path, du_cb, 32, FTW_PHYS | FTW_MOUNT);
    free(du.dev);
    free(du.ino);
    du.dev = NULL;
    du.ino = NULL;
    du.cap = 0;
    return du.total;
}

static int info_cmp(const void *a, const void *b)
{
    const sl_image_info_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->tag, y->tag);
}

sl_image_info_t *sl_image_list(const char *store, size_t *n, sl_error_t *err)
{
    *n = 0;
    sl_image_info_t *v = sl_xcalloc(1, sizeof(*v));
    DIR *d = opendir(store);
    if (!d) {
        if (errno == ENOENT)
            return v;
        sl_errprintf(err, "open %s: %s", store, strerror(errno));
        free(v);
        return NULL;
    }
    char *abs = sl_abspath(store);
    size_t cap = 1;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *plus = strrchr(de->d_name, '+');
        if (!plus)
            continue;
        char *name = sl_xstrndup(de->d_name, (size_t)(plus - de->d_name));
        for (char *c = name; *c; c++)
            if (*c == '%')
                *c = '/';
        char *ref = sl_xasprintf("%s:%s", name, plus + 1);
        char *pn, *pt;
        char *path = sl_xasprintf("%s/%s", abs, de->d_name);
        struct stat st;
        /* only what this store could have written: a folder with a valid name */
        if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
            sl_image_parse_ref(ref, &pn, &pt, NULL) < 0) {
            free(name);
            free(ref);
            free(path);
            continue;
        }
        free(pn);
        free(pt);
        if (*n == cap) {
            cap *= 2;
            v = sl_xrealloc(v, cap * sizeof(*v));
        }
        v[*n] = (sl_image_info_t){ref, name, sl_xstrdup(plus + 1), path, sl_image_disk_usage(path)};
        (*n)++;
    }
    closedir(d);
    free(abs);
    qsort(v, *n, sizeof(*v), info_cmp);
    return v;
}

void sl_image_list_free(sl_image_info_t *v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++) {
        free(v[i].ref);
        free(v[i].name);
        free(v[i].tag);
        free(v[i].path);
    }
    free(v);
}

int sl_image_rm(const char *store, const char *ref, sl_error_t *err)
{
    char *dir = sl_image_dir(store, ref, err);
    if (!dir)
        return -1;
    struct stat st;
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        free(dir);
        errno = ENOENT;
        return sl_errprintf(err, "no image %s in %s", ref, store);
    }
    /* renamed aside first: the image disappears at once, whatever rm -rf takes */
    char *aside = sl_xasprintf("%s/.rm-%d-%lld", store, (int)getpid(), sl_now_ms());
    if (rename(dir, aside) < 0) {
        sl_errprintf(err, "remove %s: %s", dir, strerror(errno));
        free(aside);
        free(dir);
        return -1;
    }
    char *cfg = sl_image_config_file(dir);
    unlink(cfg); /* its config (an image archive's import), if any */
    free(cfg);
    int rc = sl_rm_rf(aside);
    if (rc < 0)
        sl_errprintf(err, "%s was removed from the store but %s could not be deleted: %s", ref,
                     aside, strerror(errno));
    free(aside);
    free(dir);
    return rc == 0 ? 0 : -1;
}

int sl_image_has_path(void *arg, const char *dir, const char *path)
{
    (void)arg;
    struct stat st;
    /* a pulled image's SIF or squashfs: its tree beside it */
    const char *cut = sl_runtime_image_is_file(dir) ? strrchr(dir, '/') : NULL;
    char *p = cut ? sl_xasprintf("%.*s/rootfs/%s", (int)(cut - dir), dir, path)
                  : sl_xasprintf("%s/%s", dir, path);
    int r = lstat(p, &st) == 0;
    free(p);
    return r;
}
