/* safefs: every call refuses symlinks, FIFOs, folders and escapes, with
 * openat2 and with the per-component fallback. */
#include "common/safefs.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern int sl_safefs_no_openat2;

static char base[64];

static void put(const char *rel, const char *data)
{
    char *p = sl_xasprintf("%s/%s", base, rel);
    FILE *f = fopen(p, "w");
    fputs(data, f);
    fclose(f);
    free(p);
}

static void plant(void)
{
    char *p;
    p = sl_xasprintf("%s/pod", base), mkdir(p, 0700), free(p);
    p = sl_xasprintf("%s/pod/logs", base), mkdir(p, 0700), free(p);
    p = sl_xasprintf("%s/outside", base), mkdir(p, 0700), free(p);
    put("outside/secret", "SECRET\n");
    put("pod/logs/0.log", "line\n");
    p = sl_xasprintf("%s/outside/secret", base);
    char *l = sl_xasprintf("%s/pod/logs/9.log", base);
    symlink(p, l); /* absolute link to a file outside */
    free(l);
    l = sl_xasprintf("%s/pod/out", base);
    symlink("../outside", l); /* relative link to a folder outside */
    free(l);
    free(p);
    p = sl_xasprintf("%s/pod/fifo", base), mkfifo(p, 0600), free(p);
    p = sl_xasprintf("%s/pod/sub", base), mkdir(p, 0700), free(p);
    put("pod/big", "0123456789");
}

static void refusals(const char *how)
{
    char *p = sl_xasprintf("%s/pod", base);
    int d = open(p, O_RDONLY | O_DIRECTORY);
    free(p);
    errno = 0;
    int fd = sl_safefs_open_read(d, "logs/0.log", (uid_t)-1, NULL);
    ok(fd >= 0, "%s: a regular file beneath opens", how);
    if (fd >= 0)
        close(fd);
    errno = 0;
    ok(sl_safefs_open_read(d, "logs/9.log", (uid_t)-1, NULL) < 0 && errno == ELOOP,
       "%s: a symlink as the last component is refused (ELOOP)", how);
    errno = 0;
    ok(sl_safefs_open_read(d, "out/secret", (uid_t)-1, NULL) < 0 &&
           (errno == ELOOP || errno == ENOTDIR),
       "%s: a symlink in a middle component is refused (ELOOP/ENOTDIR)", how);
    errno = 0;
    ok(sl_safefs_open_read(d, "../outside/secret", (uid_t)-1, NULL) < 0, "%s: '..' is refused",
       how);
    p = sl_xasprintf("%s/outside/secret", base);
    errno = 0;
    ok(sl_safefs_open_read(d, p, (uid_t)-1, NULL) < 0 && errno == EXDEV,
       "%s: an absolute path is refused (EXDEV)", how);
    free(p);
    errno = 0;
    ok(sl_safefs_open_read(d, "fifo", (uid_t)-1, NULL) < 0 && errno == EINVAL,
       "%s: a FIFO is refused at once (no reader blocks)", how);
    errno = 0;
    ok(sl_safefs_open_read(d, "sub", (uid_t)-1, NULL) < 0 && errno == EINVAL,
       "%s: a folder is refused where a file is wanted", how);
    errno = 0;
    ok(sl_safefs_open_read(d, "big", getuid() + 1, NULL) < 0 && errno == EPERM,
       "%s: a file of another owner is refused when an owner is asked for", how);
    errno = 0;
    ok(sl_safefs_opendir(d, "out") < 0 && (errno == ELOOP || errno == ENOTDIR),
       "%s: a symlinked folder is refused", how);
    size_t len = 0;
    char *s = sl_safefs_read(d, "big", 10, &len, NULL);
    ok(s && len == 10 && !strcmp(s, "0123456789"), "%s: a file of exactly the bound is read", how);
    free(s);
    s = sl_safefs_read(d, "big", 16u << 20, &len, NULL);
    ok(s && len == 10 && !strcmp(s, "0123456789") && malloc_usable_size(s) < 65536,
       "%s: a small file under a large bound takes a buffer of its size, not the bound's (%zu)",
       how, s ? malloc_usable_size(s) : 0);
    free(s);
    errno = 0;
    sl_error_t err = SL_ERROR_INIT;
    ok(sl_safefs_read(d, "big", 9, NULL, &err) == NULL && errno == EFBIG,
       "%s: a file over the bound is refused (EFBIG)", how);
    has_str(err.text, "larger than 9 bytes", "%s: ... and the error says so", how);
    close(d);
}

#ifdef SL_FAULT_INJECTION
struct removal {
    int dirfd, rc, err;
};

static void *remove_it(void *arg)
{
    struct removal *r = arg;
    r->rc = sl_safefs_remove_tree(r->dirfd, "written");
    r->err = errno;
    return NULL;
}
#endif

/* a file made in a folder after it was emptied and before its rmdir (a
 * dying job's last status): the removal lists the folder again and goes
 * on (the test build holds it at the fault point tree-emptied) */
static void test_written_meanwhile(int b)
{
#ifdef SL_FAULT_INJECTION
    char *go = sl_xasprintf("%s/go", base), *spec = sl_xasprintf("tree-emptied:1:hold=%s", go);
    mkdirat(b, "written", 0700);
    close(openat(b, "written/before", O_CREAT | O_WRONLY, 0600));
    setenv("SLURMLINKD_FAULT", spec, 1);
    struct removal r = {b, 0, 0};
    pthread_t th;
    pthread_create(&th, NULL, remove_it, &r);
    usleep(300000); /* held after emptying it */
    close(openat(b, "written/status.json", O_CREAT | O_WRONLY, 0600));
    close(open(go, O_CREAT | O_WRONLY, 0600));
    pthread_join(th, NULL);
    unsetenv("SLURMLINKD_FAULT");
    struct stat st;
    ok(r.rc == 0 && fstatat(b, "written", &st, AT_SYMLINK_NOFOLLOW) < 0,
       "remove_tree: a file made after the folder was emptied is found on the next try, and the "
       "folder goes (rc %d: %s)",
       r.rc, r.rc ? strerror(r.err) : "ok");
    unlink(go);
    free(go);
    free(spec);
#else
    (void)b;
    ok(1, "# SKIP the fault point tree-emptied is in the test build only (make asan)");
#endif
}

int main(void)
{
    tap_plan(46);
    snprintf(base, sizeof(base), "/tmp/sl-safefs-XXXXXX");
    ok(mkdtemp(base) != NULL, "mkdtemp");
    plant();
    refusals("openat2");
    sl_safefs_no_openat2 = 1;
    refusals("fallback");
    sl_safefs_no_openat2 = 0;

    /* a file longer than its size said at the open (a /proc file says 0):
     * the buffer grows, the file is read whole, and the bound still holds */
    int proc = open("/proc/self", O_RDONLY | O_DIRECTORY);
    size_t plen = 0;
    char *ps = sl_safefs_read(proc, "smaps", 16u << 20, &plen, NULL);
    ok(ps && plen > 8192 && strlen(ps) == plen && ps[plen - 1] == '\n',
       "a file grown past its stat size (/proc/self/smaps, %zu bytes) is read whole", plen);
    free(ps);
    errno = 0;
    ok(sl_safefs_read(proc, "smaps", 5000, NULL, NULL) == NULL && errno == EFBIG,
       "and one past the bound while growing is refused (EFBIG)");
    close(proc);

    char *p = sl_xasprintf("%s/pod", base);
    int d = open(p, O_RDONLY | O_DIRECTORY);
    free(p);
    sl_error_t err = SL_ERROR_INIT;
    errno = 0;
    ok(sl_safefs_mkdir_excl(d, "sub", 0700, &err) < 0 && errno == EEXIST,
       "mkdir_excl: an existing folder is an error");
    errno = 0;
    ok(sl_safefs_mkdir_excl(d, "out", 0700, &err) < 0 && errno == EEXIST,
       "mkdir_excl: a symlink in its place is an error");
    int n = sl_safefs_mkdir_excl(d, "new", 0750, &err);
    struct stat st;
    ok(n >= 0 && fstat(n, &st) == 0 && (st.st_mode & 07777) == 0750,
       "mkdir_excl: a new folder, with its mode whatever the umask");
    errno = 0;
    ok(sl_safefs_write_excl(d, "logs/x", "x", 1, 0600, (uid_t)-1, 0, &err) < 0 && errno == EINVAL,
       "write_excl: a name that is not one component is refused");
    errno = 0;
    ok(sl_safefs_write_excl(d, "out", "x", 1, 0600, (uid_t)-1, 0, &err) < 0 && errno == EEXIST,
       "write_excl: a symlink in its place is not followed (EEXIST)");
    errno = 0;
    ok(sl_safefs_write_excl(d, "fifo", "x", 1, 0600, (uid_t)-1, 0, &err) < 0 && errno == EEXIST,
       "write_excl: a FIFO in its place is not opened (EEXIST)");
    ok(sl_safefs_write_excl(n, "f", "data", 4, 0640, 65534, 65534, &err) == 0,
       "write_excl: a new file in the new folder");
    ok(fstatat(n, "f", &st, 0) == 0 && (st.st_mode & 07777) == 0640 && st.st_uid == 65534 &&
           st.st_size == 4,
       "write_excl: mode 0640, owner 65534 (fchown), 4 bytes");
    close(n);
    ok(sl_safefs_open_trusted_dir(base, getuid(), &err) >= 0, "a trusted folder: ours, 0700");
    p = sl_xasprintf("%s/pod/sub", base);
    chmod(p, 0777);
    errno = 0;
    ok(sl_safefs_open_trusted_dir(p, getuid(), &err) < 0 && errno == EPERM,
       "a folder writable by others is not trusted");
    has_str(err.text, "not writable by group or others", "... and the error says why");
    free(p);

    /* remove the pod folder: links are unlinked, never followed */
    p = sl_xasprintf("%s/pod/sub/deep/er", base);
    sl_mkdir_p(p, 0700, NULL);
    free(p);
    p = sl_xasprintf("%s/outside", base);
    char *l = sl_xasprintf("%s/pod/sub/deep/to-outside", base);
    symlink(p, l);
    free(l);
    free(p);
    p = sl_xasprintf("%s/outside/secret", base);
    l = sl_xasprintf("%s/pod/sub/deep/er/file-link", base);
    symlink(p, l);
    free(l);
    free(p);
    int b = open(base, O_RDONLY | O_DIRECTORY);
    ok(sl_safefs_remove_tree(b, "pod") == 0, "remove_tree: the pod folder goes");
    ok(fstatat(b, "pod", &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT,
       "remove_tree: nothing of it is left");
    ok(fstatat(b, "outside/secret", &st, 0) == 0,
       "remove_tree: what its symlinks pointed to is untouched");
    errno = 0;
    ok(sl_safefs_remove_tree(b, "../x") < 0 && errno == EINVAL,
       "remove_tree: a name with '..' is refused");
    test_written_meanwhile(b);
    close(b);
    close(d);
    ok(sl_rm_rf(base) == 0, "cleanup");
    return tap_done();
}
