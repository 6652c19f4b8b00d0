/* Unit test: what a pulled or imported tree may hold once it is in the
 * store (sl_image_sanitize_tree), and the size bound of skopeo's and umoci's
 * runs (sl_image_tool_run_bounded). */
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "image/image.h"
#include "image/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

static char *base, *tree;

static char *at(const char *rel) { return sl_xasprintf("%s/%s", tree, rel); }

static void file(const char *rel, mode_t mode)
{
    char *p = at(rel);
    sl_write_file(p, "x", 1, 0600, NULL);
    chmod(p, mode);
    free(p);
}

static void dir(const char *rel, mode_t mode)
{
    char *p = at(rel);
    mkdir(p, 0700);
    chmod(p, mode);
    free(p);
}

static mode_t mode_of(const char *rel)
{
    char *p = at(rel);
    struct stat st;
    int r = lstat(p, &st);
    free(p);
    return r == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static int gone(const char *rel)
{
    char *p = at(rel);
    struct stat st;
    int r = lstat(p, &st) < 0 && errno == ENOENT;
    free(p);
    return r;
}

static void make_socket(const char *rel)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char *p = at(rel);
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", p);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    bind(fd, (struct sockaddr *)&a, sizeof(a));
    close(fd);
    free(p);
}

/* a tree with everything that must not reach the store, and a set-id file
 * outside it that a link points to */
static void build(void)
{
    dir("", 0777);
    dir("bin", 02775);
    file("bin/suid", 04755);
    file("bin/sgid", 02711);
    file("bin/world", 0666);
    file("bin/plain", 0750);
    dir("ww", 0777);
    dir("tmp", 01777);
    dir("deep", 0755);
    dir("deep/er", 0777);
    file("deep/er/suid", 06777);
    char *p = at("fifo");
    mkfifo(p, 0666);
    free(p);
    make_socket("sock");
    p = at("bin/plain");
    setxattr(p, "user.note", "1", 1, 0);
    free(p);
    char *out = sl_xasprintf("%s/outside", base);
    sl_write_file(out, "x", 1, 04755, NULL);
    chmod(out, 04755);
    p = at("link");
    symlink(out, p);
    free(p);
    free(out);
}

static void sanitize(void)
{
    build();
    int dev = geteuid() == 0;
    if (dev) {
        char *p = at("null");
        mknod(p, S_IFCHR | 0666, makedev(1, 3));
        free(p);
        p = at("bin/capf");
        sl_write_file(p, "x", 1, 0755, NULL);
        /* VFS_CAP_REVISION_2, cap_setuid (bit 7) permitted and effective */
        unsigned char cap[20] = {0, 0, 0, 2, 0x80, 0, 0, 0};
        setxattr(p, "security.capability", cap, sizeof(cap), 0);
        free(p);
        /* what umoci wrote as images.unpack_user */
        p = at("bin/world");
        chown(p, 1234, 1234);
        free(p);
        p = at("link");
        lchown(p, 1234, 1234);
        free(p);
    }
    sl_error_t err = SL_ERROR_INIT;
    is_int(sl_image_sanitize_tree(tree, &err), 0, "sanitize: %s", err.text);
    is_int(mode_of(""), 0755, "the root: no longer world-writable");
    is_int(mode_of("bin"), 0755, "a setgid group-writable folder: 0755");
    is_int(mode_of("bin/suid"), 0755, "setuid dropped");
    is_int(mode_of("bin/sgid"), 0711, "setgid dropped");
    is_int(mode_of("bin/world"), 0644, "a 0666 file: 0644");
    is_int(mode_of("bin/plain"), 0750, "a plain file keeps its mode");
    is_int(mode_of("ww"), 0755, "a 0777 folder: 0755");
    is_int(mode_of("tmp"), 01777, "a sticky folder keeps its mode");
    is_int(mode_of("deep/er/suid"), 0755, "set-id and write bits dropped two folders down");
    ok(gone("fifo"), "the FIFO is removed");
    ok(gone("sock"), "the socket is removed");
    char *p = at("bin/plain");
    ok(getxattr(p, "user.note", NULL, 0) < 0 && errno == ENODATA, "extended attributes dropped");
    free(p);
    char *out = sl_xasprintf("%s/outside", base);
    struct stat st;
    ok(stat(out, &st) == 0 && (st.st_mode & 07777) == 04755,
       "a link to a set-id file outside the tree is not followed");
    free(out);
    if (!dev) {
        ok(1, "# SKIP device nodes need root");
        ok(1, "# SKIP file capabilities need root");
        ok(1, "# SKIP owners need root");
        ok(1, "# SKIP owners need root");
        return;
    }
    ok(gone("null"), "the device node is removed");
    p = at("bin/capf");
    ok(getxattr(p, "security.capability", NULL, 0) < 0, "the file capability is dropped");
    free(p);
    p = at("bin/world");
    ok(stat(p, &st) == 0 && st.st_uid == 0 && st.st_gid == 0, "another user's file is root's");
    free(p);
    p = at("link");
    ok(lstat(p, &st) == 0 && st.st_uid == 0 && st.st_gid == 0, "another user's link is root's");
    free(p);
}

/* argv for sh running script in d */
static int bounded(const char *script, const char *d, unsigned long long limit, int timeout_ms,
                   sl_error_t *err)
{
    const char *argv[] = {"sh", "-c", script, "sh", d, NULL};
    return sl_image_tool_run_bounded(argv, base, timeout_ms, d, limit, NULL, err);
}

static void bound(void)
{
    char *d = sl_xasprintf("%s/grow", base);
    sl_mkdir_p(d, 0700, NULL);
    sl_error_t err = SL_ERROR_INIT;
    int rc = bounded("cd \"$1\" && head -c 1048576 /dev/zero >small", d, 8 << 20, 20000, &err);
    is_int(rc, 0, "under the limit: %s", err.text);
    /* many files, none near the limit: only the watch stops it (else the
     * time limit would) */
    long long t0 = sl_now_ms();
    sl_error_clear(&err);
    rc = bounded("cd \"$1\" && i=0; while :; do head -c 1048576 /dev/zero >f$i; i=$((i+1)); done",
                 d, 8 << 20, 60000, &err);
    int e = errno;
    ok(rc < 0 && e == EFBIG, "many files past the limit: stopped (errno %s)", strerror(e));
    has_str(err.text, "more than the limit of 8388608 bytes", "the error names the limit");
    ok(sl_now_ms() - t0 < 30000, "stopped while it ran (%lld ms)", sl_now_ms() - t0);
    sl_rm_rf(d);
    sl_mkdir_p(d, 0700, NULL);
    /* one file past it: RLIMIT_FSIZE */
    sl_error_clear(&err);
    rc = bounded("cd \"$1\" && head -c 33554432 /dev/zero >big", d, 8 << 20, 60000, &err);
    e = errno;
    ok(rc < 0 && e == EFBIG, "one file past the limit: stopped (errno %s)", strerror(e));
    char *big = sl_xasprintf("%s/big", d);
    struct stat st;
    long long size = stat(big, &st) == 0 ? (long long)st.st_size : -1;
    ok(size >= 0 && size <= (8 << 20), "the file never grew past it (%lld bytes)", size);
    free(big);
    free(d);
}

int main(void)
{
    tap_plan(24);
    char tmpl[] = "/tmp/imgsan.XXXXXX";
    base = mkdtemp(tmpl);
    tree = sl_xasprintf("%s/tree", base);
    sanitize();
    bound();
    sl_rm_rf(base);
    free(tree);
    return tap_done();
}
