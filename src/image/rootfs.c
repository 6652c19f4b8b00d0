/* rootfs.c — make an unpacked tree runnable by ch-run, and the busybox image.
 *
 * The tree comes from an archive or folder the user supplied, so it may hold
 * symlinks that point anywhere on the host (etc -> /etc). Everything here
 * works relative to directory descriptors opened with O_NOFOLLOW: nothing is
 * ever created or replaced outside the tree.
 */
#include "image/image.h"
#include "image/internal.h"

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static const struct {
    const char *name;
    mode_t mode;
} mount_points[] = {{"proc", 0755}, {"sys", 0755},  {"dev", 0755},
                    {"tmp", 01777}, {"home", 0755}, {"etc", 0755}};

static const struct {
    const char *name;
    const char *content; /* when the image has none; ch-run binds its own over them */
} etc_files[] = {
    {"passwd",
     "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"},
    {"group", "root:x:0:\nnogroup:x:65534:\n"},
    {"hosts", "127.0.0.1 localhost\n::1 localhost\n"},
    {"resolv.conf", ""},
};

static int ensure_dir(int dfd, const char *name, mode_t mode, sl_error_t *err)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        errno = ENOTDIR;
        return sl_errprintf(err, "the image's /%s is %s, but ch-run needs a folder there", name,
                            S_ISLNK(st.st_mode) ? "a symlink" : "not a folder");
    }
    if (errno != ENOENT)
        return sl_errprintf(err, "/%s: %s", name, strerror(errno));
    if (mkdirat(dfd, name, mode) < 0 || fchmodat(dfd, name, mode, 0) < 0)
        return sl_errprintf(err, "mkdir /%s: %s", name, strerror(errno));
    return 0;
}

static int ensure_file(int efd, const char *name, const char *content, sl_error_t *err)
{
    struct stat st;
    if (fstatat(efd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISREG(st.st_mode))
            return 0;
        if (!S_ISLNK(st.st_mode)) {
            errno = EISDIR;
            return sl_errprintf(err, "the image's /etc/%s is not a file", name);
        }
        /* e.g. resolv.conf -> ../run/systemd/resolve/stub-resolv.conf, which
         * ch-run cannot bind over: replace the link by a file */
        if (unlinkat(efd, name, 0) < 0)
            return sl_errprintf(err, "unlink /etc/%s: %s", name, strerror(errno));
    } else if (errno != ENOENT) {
        return sl_errprintf(err, "/etc/%s: %s", name, strerror(errno));
    }
    int fd = openat(efd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return sl_errprintf(err, "create /etc/%s: %s", name, strerror(errno));
    size_t len = strlen(content);
    ssize_t w = len ? write(fd, content, len) : 0;
    int e = errno;
    close(fd);
    if (w != (ssize_t)len) {
        errno = w < 0 ? e : EIO;
        return sl_errprintf(err, "write /etc/%s: %s", name, strerror(errno));
    }
    return 0;
}

/* --- what a tree may hold once it is shared (sl_image_sanitize_tree) --- */

#define SANITIZE_DEPTH 256

/* every extended attribute of fd dropped: file capabilities
 * (security.capability), ACLs (system.posix_acl_*), SELinux labels */
static int drop_xattrs(int fd, const char *name, sl_error_t *err)
{
    ssize_t n = flistxattr(fd, NULL, 0);
    if (n <= 0)
        return n == 0 || errno == ENOTSUP
                   ? 0
                   : sl_errprintf(err, "list the attributes of %s: %s", name, strerror(errno));
    char *list = sl_xmalloc((size_t)n);
    n = flistxattr(fd, list, (size_t)n);
    int rc = n < 0 ? sl_errprintf(err, "list the attributes of %s: %s", name, strerror(errno)) : 0;
    for (ssize_t i = 0; rc == 0 && i < n; i += (ssize_t)strlen(list + i) + 1)
        if (fremovexattr(fd, list + i) < 0 && errno != ENODATA)
            rc =
                sl_errprintf(err, "remove attribute %s of %s: %s", list + i, name, strerror(errno));
    free(list);
    return rc;
}

/* no set-id bit; nothing group or others may write, but sticky folders
 * (/tmp), where each user owns what it makes */
static mode_t safe_mode(const struct stat *st)
{
    mode_t m = st->st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID);
    if (!(S_ISDIR(st->st_mode) && (m & S_ISVTX)))
        m &= ~(mode_t)(S_IWGRP | S_IWOTH);
    return m;
}

static int sanitize_dir(int dfd, const char *name, int depth, sl_error_t *err);

/* run as root, every entry is root's (what umoci wrote as
 * images.unpack_user too); a user's own store stays the user's */
static int rooted(const struct stat *st)
{
    return geteuid() != 0 || (st->st_uid == 0 && st->st_gid == 0);
}

/* one entry of the folder dfd: a special file removed, a file or folder
 * made safe, never through a link */
static int sanitize_entry(int dfd, const char *name, int depth, sl_error_t *err)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return sl_errprintf(err, "%s: %s", name, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return rooted(&st) || fchownat(dfd, name, 0, 0, AT_SYMLINK_NOFOLLOW) == 0
                   ? 0
                   : sl_errprintf(err, "chown %s: %s", name, strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return unlinkat(dfd, name, 0) == 0
                   ? 0
                   : sl_errprintf(err, "remove the special file %s: %s", name, strerror(errno));
    mode_t m = safe_mode(&st);
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == EACCES && S_ISREG(st.st_mode) && geteuid() != 0)
        /* a user's own store: its files carry nothing of root's */
        return fchmodat(dfd, name, m, 0) == 0
                   ? 0
                   : sl_errprintf(err, "chmod %s: %s", name, strerror(errno));
    if (fd < 0)
        return sl_errprintf(err, "open %s: %s", name, strerror(errno));
    /* what was opened is what counts (a tree in use may change meanwhile) */
    if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
        close(fd);
        errno = EAGAIN;
        return sl_errprintf(err, "%s changed while it was made safe", name);
    }
    m = safe_mode(&st);
    /* the owner, then the attributes: an ACL gone, the mode is the whole truth */
    int rc = rooted(&st) || fchown(fd, 0, 0) == 0
                 ? drop_xattrs(fd, name, err)
                 : sl_errprintf(err, "chown %s: %s", name, strerror(errno));
    if (rc == 0 && m != (st.st_mode & 07777) && fchmod(fd, m) < 0)
        rc = sl_errprintf(err, "chmod %s: %s", name, strerror(errno));
    if (rc < 0) {
        close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode))
        return sanitize_dir(fd, name, depth + 1, err); /* takes fd */
    close(fd);
    return 0;
}

/* every entry below the folder fd (closed here) */
static int sanitize_dir(int fd, const char *name, int depth, sl_error_t *err)
{
    if (depth > SANITIZE_DEPTH) {
        close(fd);
        errno = ELOOP;
        return sl_errprintf(err, "%s: folders nested deeper than %d levels", name, SANITIZE_DEPTH);
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return sl_errprintf(err, "open %s: %s", name, strerror(errno));
    }
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            rc = sanitize_entry(dirfd(d), de->d_name, depth, err);
    closedir(d);
    return rc;
}

int sl_image_sanitize_tree(const char *dir, sl_error_t *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return sl_errprintf(err, "open %s: %s", dir, strerror(errno));
    struct stat st;
    int rc = drop_xattrs(fd, dir, err);
    if (rc == 0 && (fstat(fd, &st) < 0 || (!rooted(&st) && fchown(fd, 0, 0) < 0) ||
                    fchmod(fd, safe_mode(&st)) < 0))
        rc = sl_errprintf(err, "chmod %s: %s", dir, strerror(errno));
    if (rc < 0) {
        close(fd);
        return -1;
    }
    return sanitize_dir(fd, dir, 0, err);
}

int sl_image_safe_stamp(const char *dir, sl_error_t *err)
{
    char *p = sl_xasprintf("%s/sanitized", dir);
    int rc = sl_write_file(p, "", 0, 0644, err);
    free(p);
    return rc;
}

int sl_image_digest_safe(const char *dir, sl_error_t *err)
{
    char *stamp = sl_xasprintf("%s/sanitized", dir), *root = sl_xasprintf("%s/rootfs", dir);
    int rc = 0;
    if (access(stamp, F_OK) < 0)
        rc = sl_image_sanitize_tree(root, err) == 0 ? sl_image_safe_stamp(dir, err) : -1;
    free(stamp);
    free(root);
    return rc;
}

int sl_image_prepare_rootfs(const char *dir, sl_error_t *err)
{
    if (sl_image_sanitize_tree(dir, err) < 0)
        return -1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return sl_errprintf(err, "open %s: %s", dir, strerror(errno));
    int rc = -1, efd = -1;
    /* the tree's root itself must be traversable by the users who run it */
    struct stat st;
    if (fstat(dfd, &st) < 0 || fchmod(dfd, (st.st_mode & 07777) | 0755) < 0) {
        sl_errprintf(err, "chmod %s: %s", dir, strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < sizeof(mount_points) / sizeof(mount_points[0]); i++)
        if (ensure_dir(dfd, mount_points[i].name, mount_points[i].mode, err) < 0)
            goto out;
    efd = openat(dfd, "etc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (efd < 0) {
        sl_errprintf(err, "open /etc: %s", strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < sizeof(etc_files) / sizeof(etc_files[0]); i++)
        if (ensure_file(efd, etc_files[i].name, etc_files[i].content, err) < 0)
            goto out;
    rc = 0;
out:
    if (efd >= 0)
        close(efd);
    close(dfd);
    return rc;
}

/* 1 if the ELF image in data needs a program interpreter (dynamic). */
static int elf_dynamic(const char *data, size_t len, int *is_elf)
{
    *is_elf = 0;
    if (len < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) || data[EI_CLASS] != ELFCLASS64)
        return 0;
    *is_elf = 1;
    Elf64_Ehdr eh;
    memcpy(&eh, data, sizeof(eh));
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        size_t off = eh.e_phoff + (size_t)i * eh.e_phentsize;
        if (eh.e_phentsize < sizeof(Elf64_Phdr) || off + sizeof(Elf64_Phdr) > len)
            break;
        Elf64_Phdr ph;
        memcpy(&ph, data + off, sizeof(ph));
        if (ph.p_type == PT_INTERP)
            return 1;
    }
    return 0;
}

/* "usr/bin/env": relative, no "..", no odd characters. */
static int applet_path_ok(const char *p)
{
    if (!*p || *p == '/' || strstr(p, ".."))
        return 0;
    for (; *p; p++)
        if (!(*p == '/' || *p == '.' || *p == '-' || *p == '_' || *p == '[' || *p == ']' ||
              (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

int sl_image_busybox_tree(const char *dir, const char *busybox, sl_error_t *err)
{
    size_t len;
    char *bin = sl_read_file(busybox, &len, err);
    if (!bin)
        return sl_errprefix(err, "busybox (install Debian's busybox-static)");
    int is_elf;
    int dyn = elf_dynamic(bin, len, &is_elf);
    if (!is_elf || dyn) {
        free(bin);
        errno = ENOEXEC;
        return sl_errprintf(err,
                            "%s is %s; the image needs a statically linked busybox "
                            "(Debian package busybox-static)",
                            busybox, is_elf ? "dynamically linked" : "not a 64-bit ELF program");
    }
    char *bindir = sl_xasprintf("%s/bin", dir);
    char *target = sl_xasprintf("%s/bin/busybox", dir);
    int rc = sl_mkdir_p(bindir, 0755, err);
    if (rc == 0)
        rc = sl_write_file(target, bin, len, 0755, err);
    free(bin);
    free(bindir);
    free(target);
    if (rc < 0)
        return -1;

    const char *argv[] = {busybox, "--list-full", NULL};
    char *out = NULL;
    int st = sl_run(argv, NULL, 0, 10000, &out, err);
    if (st != 0) {
        free(out);
        if (st > 0) {
            errno = EIO;
            sl_errprintf(err, "%s --list-full exited with %d", busybox, st);
        }
        return -1;
    }
    int links = 0;
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!applet_path_ok(line) || !strcmp(line, "bin/busybox"))
            continue;
        /* a relative link, so the tree also makes sense seen from the host */
        int depth = 0;
        for (const char *c = line; *c; c++)
            depth += *c == '/';
        sl_buf_t rel = SL_BUF_INIT;
        if (depth == 1 && !strncmp(line, "bin/", 4)) {
            sl_buf_puts(&rel, "busybox");
        } else {
            for (int i = 0; i < depth; i++)
                sl_buf_puts(&rel, "../");
            sl_buf_puts(&rel, "bin/busybox");
        }
        char *path = sl_xasprintf("%s/%s", dir, line);
        char *parent = sl_xstrdup(path);
        *strrchr(parent, '/') = '\0';
        if (sl_mkdir_p(parent, 0755, err) < 0 ||
            (symlink(rel.data, path) < 0 && errno != EEXIST &&
             sl_errprintf(err, "symlink %s: %s", path, strerror(errno)) < 0)) {
            free(parent);
            free(path);
            sl_buf_free(&rel);
            free(out);
            return -1;
        }
        links++;
        free(parent);
        free(path);
        sl_buf_free(&rel);
    }
    free(out);
    if (links < 10) {
        errno = EIO;
        return sl_errprintf(err, "%s --list-full listed only %d applets", busybox, links);
    }
    /* folders a shell user expects; the mount points come from prepare_rootfs */
    const char *extra[] = {"root", "var/tmp", "usr/bin", "usr/sbin", "sbin", NULL};
    for (int i = 0; extra[i]; i++) {
        char *p = sl_xasprintf("%s/%s", dir, extra[i]);
        rc = sl_mkdir_p(p, 0755, err);
        free(p);
        if (rc < 0)
            return -1;
    }
    return 0;
}
