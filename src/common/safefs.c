/* safefs.c — file access beneath a directory a tenant can write (safefs.h). */
#include "safefs.h"
#include "fault.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SAFE_FLAGS (O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
#define MAX_DEPTH 128

/* set by the unit test to exercise the per-component fallback */
int sl_safefs_no_openat2;

/* A relative path without "..", empty components being allowed ("a//b"). */
static int rel_ok(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/')
        return 0;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += n;
        p += strspn(p, "/");
    }
    return 1;
}

static int name_ok(const char *name)
{
    return name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* openat with O_NOFOLLOW, one component at a time. */
static int open_by_components(int dirfd, const char *rel, int flags, mode_t mode)
{
    char *copy = sl_xstrdup(rel);
    int cur = dirfd;
    char *save = NULL;
    char *comp = strtok_r(copy, "/", &save);
    int fd = -1;
    while (comp) {
        char *next = strtok_r(NULL, "/", &save);
        int f = next ? O_RDONLY | O_DIRECTORY | SAFE_FLAGS : flags | SAFE_FLAGS;
        fd = openat(cur, comp, f, mode);
        int e = errno;
        if (cur != dirfd)
            close(cur);
        if (fd < 0) {
            free(copy);
            errno = e;
            return -1;
        }
        cur = fd;
        comp = next;
    }
    free(copy);
    if (fd < 0) /* only "/" separators: the folder itself */
        fd = openat(dirfd, ".", flags | SAFE_FLAGS, mode);
    return fd;
}

int sl_safefs_openat(int dirfd, const char *rel, int flags, mode_t mode)
{
    if (!rel_ok(rel)) {
        errno = rel && rel[0] == '/' ? EXDEV : EINVAL;
        return -1;
    }
    if (!sl_safefs_no_openat2) {
        struct open_how how = {
            .flags = (unsigned long long)(flags | SAFE_FLAGS),
            .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
            .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return (int)fd; /* EPERM: a seccomp filter that does not know openat2 */
    }
    return open_by_components(dirfd, rel, flags, mode);
}

int sl_safefs_opendir(int dirfd, const char *rel)
{
    return sl_safefs_openat(dirfd, rel, O_RDONLY | O_DIRECTORY, 0);
}

int sl_safefs_open_trusted_dir(const char *path, uid_t owner, sl_error_t *err)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | SAFE_FLAGS);
    if (fd < 0)
        return sl_errprintf(err, "open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return sl_errprintf(err, "stat %s: %s", path, strerror(errno));
    }
    if (st.st_uid != owner || (st.st_mode & 022)) {
        close(fd);
        errno = EPERM;
        return sl_errprintf(err,
                            "%s: owned by uid %u with mode %04o: must be uid %u's and not "
                            "writable by group or others",
                            path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
                            (unsigned)owner);
    }
    return fd;
}

int sl_safefs_open_read(int dirfd, const char *rel, uid_t owner, struct stat *st)
{
    int fd = sl_safefs_openat(dirfd, rel, O_RDONLY, 0);
    if (fd < 0)
        return -1;
    struct stat s;
    int e = 0;
    if (fstat(fd, &s) < 0)
        e = errno;
    else if (!S_ISREG(s.st_mode))
        e = EINVAL;
    else if (owner != (uid_t)-1 && s.st_uid != owner)
        e = EPERM;
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    if (st)
        *st = s;
    return fd;
}

/* The whole file into *buf (sized first from its length, grown if it grew
 * since), at most max bytes: one byte past max is read to see a file that
 * outgrew the bound (EFBIG). */
static int read_all(int fd, char **buf, size_t *cap, size_t max, size_t *got)
{
    *got = 0;
    for (;;) {
        if (*got + 1 >= *cap && *cap < max + 2) {
            *cap = *cap > (max + 2) / 2 ? max + 2 : *cap * 2;
            *buf = sl_xrealloc(*buf, *cap);
        }
        ssize_t n = read(fd, *buf + *got, *cap - 1 - *got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        *got += (size_t)n;
        if (*got > max) {
            errno = EFBIG;
            return -1;
        }
    }
}

char *sl_safefs_read(int dirfd, const char *rel, size_t max, size_t *len, sl_error_t *err)
{
    struct stat st;
    int fd = sl_safefs_open_read(dirfd, rel, (uid_t)-1, &st);
    if (fd < 0) {
        sl_errprintf(err, "open %s: %s", rel,
                     errno == EINVAL ? "not a regular file" : strerror(errno));
        return NULL;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max) {
        close(fd);
        errno = EFBIG;
        sl_errprintf(err, "%s: larger than %zu bytes", rel, max);
        return NULL;
    }
    /* the file's size and a little more (a file being appended to), not the bound */
    size_t cap = (size_t)st.st_size + 4096;
    if (cap > max + 2)
        cap = max + 2;
    char *buf = sl_xmalloc(cap);
    size_t got = 0;
    if (read_all(fd, &buf, &cap, max, &got) < 0) {
        int e = errno;
        close(fd);
        free(buf);
        errno = e;
        sl_errprintf(err, "read %s: %s", rel, strerror(errno));
        return NULL;
    }
    close(fd);
    buf[got] = '\0';
    if (len)
        *len = got;
    return buf;
}

int sl_safefs_mkdir_excl(int dirfd, const char *name, mode_t mode, sl_error_t *err)
{
    if (!name_ok(name)) {
        errno = EINVAL;
        return sl_errprintf(err, "refusing folder name %s", name ? name : "(null)");
    }
    if (mkdirat(dirfd, name, 0700) < 0)
        return sl_errprintf(err, "mkdir %s: %s", name, strerror(errno));
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | SAFE_FLAGS);
    if (fd < 0)
        return sl_errprintf(err, "open %s: %s", name, strerror(errno));
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) < 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
        e = EPERM; /* not the folder just made */
    else if (fchmod(fd, mode) < 0)
        e = errno;
    if (e) {
        close(fd);
        errno = e;
        return sl_errprintf(err, "mkdir %s: %s", name, strerror(errno));
    }
    return fd;
}

static int write_fd(int fd, const char *p, size_t left)
{
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        left -= (size_t)n;
    }
    return 0;
}

int sl_safefs_write_excl(int dirfd, const char *name, const void *data, size_t len, mode_t mode,
                         uid_t uid, gid_t gid, sl_error_t *err)
{
    if (!name_ok(name)) {
        errno = EINVAL;
        return sl_errprintf(err, "refusing file name %s", name ? name : "(null)");
    }
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | SAFE_FLAGS, 0600);
    if (fd < 0)
        return sl_errprintf(err, "create %s: %s", name, strerror(errno));
    if ((uid != (uid_t)-1 && fchown(fd, uid, gid) < 0) || fchmod(fd, mode) < 0 ||
        write_fd(fd, data, len) < 0) {
        int e = errno;
        close(fd);
        unlinkat(dirfd, name, 0);
        errno = e;
        return sl_errprintf(err, "write %s: %s", name, strerror(errno));
    }
    if (close(fd) < 0)
        return sl_errprintf(err, "write %s: %s", name, strerror(errno));
    return 0;
}

static int remove_at(int dirfd, dev_t dev, const char *name, int depth);

/* Empty the folder open on fd (its entries, on fds). */
static int empty_dir(int fd, dev_t dev, int depth)
{
    int dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    /* from its start: the dup shares fd's offset, which an earlier try's
     * listing left at the end (a file made since would not be listed) */
    rewinddir(d);
    int rc = 0, e = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
            continue;
        if (remove_at(fd, dev, ent->d_name, depth + 1) < 0 && errno != ENOENT) {
            rc = -1;
            e = errno;
        }
    }
    closedir(d);
    errno = e;
    return rc;
}

static int remove_at(int dirfd, dev_t dev, const char *name, int depth)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(dirfd, name, 0);
    if (st.st_dev != dev) { /* a mount point: leave it (and what it holds) */
        errno = EXDEV;
        return -1;
    }
    if (depth >= MAX_DEPTH) {
        errno = ELOOP;
        return -1;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | SAFE_FLAGS);
    if (fd < 0) {
        if (errno == ELOOP || errno == ENOTDIR) /* swapped for a link meanwhile */
            return unlinkat(dirfd, name, 0);
        return -1;
    }
    int rc = -1;
    for (int tries = 0; tries < 3 && rc < 0; tries++) {
        struct stat fst;
        if (fstat(fd, &fst) < 0 || fst.st_dev != dev) {
            errno = EXDEV;
            break;
        }
        if (empty_dir(fd, dev, depth) < 0 && errno != ENOENT)
            break;
        SL_FAULT("tree-emptied"); /* the test build: a file made before the rmdir */
        rc = unlinkat(dirfd, name, AT_REMOVEDIR);
        if (rc < 0 && errno != ENOTEMPTY)
            break;
    }
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int sl_safefs_remove_tree(int dirfd, const char *name)
{
    if (!name_ok(name)) {
        errno = EINVAL;
        return -1;
    }
    struct stat st;
    if (fstat(dirfd, &st) < 0)
        return -1;
    return remove_at(dirfd, st.st_dev, name, 0);
}

int sl_safefs_remove_path(const char *path)
{
    char *parent = sl_xstrdup(path);
    char *slash = strrchr(parent, '/');
    if (!slash || !slash[1]) {
        free(parent);
        errno = EINVAL;
        return -1;
    }
    *slash = '\0';
    int pfd = open(slash == parent ? "/" : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = pfd < 0 ? -1 : sl_safefs_remove_tree(pfd, slash + 1);
    int e = errno;
    if (pfd >= 0)
        close(pfd);
    free(parent);
    errno = e;
    return rc;
}
