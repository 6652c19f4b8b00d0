/* podtmp.c — the pod's private /tmp on the node (podtmp.h). */
#include "shim/podtmp.h"

#include "common/log.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"
#include "shim/names.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_base(const char *base)
{
    return open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* name in bfd is a folder of this user's that no live shim holds: removed */
static int sweep_one(int bfd, const char *name)
{
    struct stat st, fst;
    if (fstatat(bfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != getuid())
        return 0;
    int fd = openat(bfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int gone = 0;
    if (fstat(fd, &fst) == 0 && fst.st_dev == st.st_dev && fst.st_ino == st.st_ino &&
        fst.st_uid == getuid() && flock(fd, LOCK_EX | LOCK_NB) == 0) {
        /* held while it goes: a shim making it now sees it unlinked */
        gone = sl_safefs_remove_tree(bfd, name) == 0;
        if (!gone && errno != ENOENT)
            sl_warn("private /tmp of an earlier pod: %s: %s", name, strerror(errno));
    }
    close(fd);
    return gone;
}

int shim_podtmp_sweep(const char *base)
{
    int bfd = open_base(base);
    if (bfd < 0)
        return 0;
    int dfd = dup(bfd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        close(bfd);
        return 0;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, SHIM_PODTMP_PREFIX, strlen(SHIM_PODTMP_PREFIX)))
            n += sweep_one(bfd, e->d_name);
    closedir(d);
    close(bfd);
    return n;
}

/* mkdtemp's folder, opened and locked; -1 when it went (a sweep took it) */
static int make_locked(const char *tmpl, char **dir, sl_error_t *err)
{
    char *p = sl_xstrdup(tmpl);
    if (!mkdtemp(p)) {
        int e = errno;
        sl_errprintf(err, "the pod's private /tmp: mkdtemp %s: %s", tmpl, strerror(e));
        free(p);
        errno = e;
        return -2;
    }
    struct stat st;
    int fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && (flock(fd, LOCK_EX) < 0 || fstat(fd, &st) < 0 || st.st_uid != getuid() ||
                    st.st_nlink == 0)) {
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        free(p);
        return -1;
    }
    *dir = p;
    return fd;
}

int shim_podtmp_make(shim_podtmp_t *t, const char *base, const char *job, sl_error_t *err)
{
    memset(t, 0, sizeof(*t));
    t->fd = -1;
    t->as_root = getuid() == 0;
    snprintf(t->uid_map, sizeof(t->uid_map), "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
    snprintf(t->gid_map, sizeof(t->gid_map), "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
    int swept = shim_podtmp_sweep(base);
    if (swept)
        sl_info("removed %d private /tmp folder(s) of earlier pods", swept);
    if (!job || !*job || strspn(job, "0123456789_") != strlen(job) || strlen(job) > 32)
        job = "0";
    char *tmpl = sl_xasprintf("%s/%s%s.XXXXXX", base, SHIM_PODTMP_PREFIX, job);
    int fd = -1;
    for (int i = 0; i < 3 && fd < 0; i++)
        if ((fd = make_locked(tmpl, &t->dir, err)) == -2)
            break;
    if (fd == -1)
        sl_errprintf(err, "the pod's private /tmp: %s: %s", tmpl, strerror(errno));
    free(tmpl);
    if (fd < 0)
        return -1;
    t->fd = fd;
    return 0;
}

char *shim_podtmp_ctr(const shim_podtmp_t *t, const char *name, sl_error_t *err)
{
    if (sl_safefs_remove_tree(t->fd, name) < 0 && errno != ENOENT) {
        sl_errprintf(err, "the container's private /tmp %s/%s: emptying: %s", t->dir, name,
                     strerror(errno));
        return NULL;
    }
    int fd = sl_safefs_mkdir_excl(t->fd, name, 0700, err);
    if (fd < 0) {
        sl_errprefix(err, "the container's private /tmp: ");
        return NULL;
    }
    int r = fchmod(fd, 01777); /* /tmp's mode, inside the pod's 0700 folder */
    int e = errno;
    close(fd);
    if (r < 0) {
        sl_errprintf(err, "the container's private /tmp %s/%s: chmod: %s", t->dir, name,
                     strerror(e));
        return NULL;
    }
    return sl_xasprintf("%s/%s", t->dir, name);
}

char **shim_podtmp_argv(const char *runtime, char *const *argv, const char *path)
{
    const sl_runtime_ops_t *ops = runtime ? sl_runtime_get(runtime) : NULL;
    if (!ops || !ops->tmp_bind)
        return NULL;
    size_t n = 0;
    while (argv[n])
        n++;
    size_t at = ops->tmp_bind_at < n ? ops->tmp_bind_at : n;
    char **v = sl_xcalloc(n + 2, sizeof(char *));
    for (size_t i = 0, k = 0; i <= n; i++) {
        if (i == at)
            v[k++] = sl_xasprintf(ops->tmp_bind, path);
        if (i < n)
            v[k++] = sl_xstrdup(argv[i]);
    }
    return v;
}

void shim_podtmp_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

int shim_podtmp_enter(const shim_podtmp_t *t, const char *path, int in_ns, const char **what)
{
    if (!in_ns && shim_ns_enter(t->uid_map, t->gid_map, t->as_root, 0, what) < 0)
        return -1;
    *what = "bind over /tmp";
    return mount(path, "/tmp", NULL, MS_BIND, NULL);
}

void shim_podtmp_remove(shim_podtmp_t *t)
{
    if (!t->dir)
        return;
    const char *slash = strrchr(t->dir, '/');
    char *base = sl_xstrndup(t->dir, (size_t)(slash - t->dir));
    int bfd = open_base(*base ? base : "/");
    if (bfd < 0 || (sl_safefs_remove_tree(bfd, slash + 1) < 0 && errno != ENOENT))
        sl_warn("the pod's private /tmp %s: %s", t->dir, strerror(errno));
    if (bfd >= 0)
        close(bfd);
    free(base);
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
    free(t->dir);
    t->dir = NULL;
}
