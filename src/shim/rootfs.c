/* rootfs.c — a container's private root (see rootfs.h) and the runtime check. */
#include "shim/rootfs.h"

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"
#include "shim/gpu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SKEL_DEPTH 64

struct shim_rootfs {
    const sl_shim_rootfs_t *spec;
    char *base, *upper, *work, *merged, *opts;
    char uid_map[64], gid_map[64];
    int as_root; /* a job of root's (a policy may allow it): a mount namespace is enough */
    char **argv;
    int *is_dir;     /* per mount point: a folder (1) or a file (0) */
    shim_gpu_t *gpu; /* the GPUs' view (NULL: nothing to do) */
};

enum {
    ST_USERNS,
    ST_SETGROUPS,
    ST_UIDMAP,
    ST_GIDMAP,
    ST_PRIVATE,
    ST_TMPFS,
    ST_LAYERS,
    ST_SKELETON,
    ST_OVERLAY,
    ST_MOUNTPOINT,
    ST_GPU_DEV,
    ST_GPU_DRIVER,
};

static const char *const step_text[] = {
    "unshare(CLONE_NEWUSER|CLONE_NEWNS)",
    "/proc/self/setgroups",
    "/proc/self/uid_map",
    "/proc/self/gid_map",
    "making the mounts private",
    "mounting a tmpfs for the writable layer",
    "creating the overlay folders",
    "mirroring the image's folders into the writable layer",
    "mounting overlayfs",
    "creating a mount point",
    "giving the container its GPUs' device files",
    "binding the GPU driver's files",
};

/* a path in overlayfs' options: ',' ':' and '\\' escaped with '\\' */
static char *opt_escape(const char *s)
{
    char *o = sl_xmalloc(2 * strlen(s) + 1), *p = o;
    for (; *s; s++) {
        if (*s == ',' || *s == ':' || *s == '\\')
            *p++ = '\\';
        *p++ = *s;
    }
    *p = '\0';
    return o;
}

shim_rootfs_t *shim_rootfs_prepare(const char *pod_dir, const sl_shim_container_t *c,
                                   char *const *envp, char *msg, size_t msglen)
{
    const sl_shim_rootfs_t *s = c->rootfs;
    shim_rootfs_t *r = sl_xcalloc(1, sizeof(*r));
    r->spec = s;
    r->as_root = geteuid() == 0;
    sl_error_t err = SL_ERROR_INIT;
    if (r->as_root) {
        /* ch-run's own user namespace could not reach a folder of another
         * user's (a root job in a user's pod folder): a folder of root's */
        r->base = sl_xstrdup("/tmp/slurmlink-root.XXXXXX");
        if (!mkdtemp(r->base)) {
            snprintf(msg, msglen, "private root: mkdtemp %s: %s", r->base, strerror(errno));
            shim_rootfs_free(r);
            return NULL;
        }
    } else if (r->base = sl_xasprintf("%s/rootfs/%s", pod_dir, c->name),
               sl_mkdir_p(r->base, 0700, &err) < 0) {
        snprintf(msg, msglen, "private root: %s", err.text);
        shim_rootfs_free(r);
        return NULL;
    }
    r->upper = sl_xasprintf("%s/upper", r->base);
    r->work = sl_xasprintf("%s/work", r->base);
    r->merged = sl_xasprintf("%s/root", r->base);
    char *l = opt_escape(s->lower), *u = opt_escape(r->upper), *w = opt_escape(r->work);
    r->opts = sl_xasprintf("lowerdir=%s,upperdir=%s,workdir=%s,userxattr", l, u, w);
    free(l);
    free(u);
    free(w);
    snprintf(r->uid_map, sizeof(r->uid_map), "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
    snprintf(r->gid_map, sizeof(r->gid_map), "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
    r->argv = sl_xcalloc(c->argc + 1, sizeof(char *));
    for (size_t i = 0; i < c->argc; i++)
        r->argv[i] = i == s->argv_index ? r->merged : c->argv[i];
    r->is_dir = sl_xcalloc(s->nmounts + 1, sizeof(int));
    for (size_t i = 0; i < s->nmounts; i++) {
        struct stat st;
        r->is_dir[i] = stat(s->mounts[i].source, &st) != 0 || S_ISDIR(st.st_mode);
    }
    int failed = 0;
    r->gpu = shim_gpu_prepare(c->gpus, envp, r->base, r->merged, msg, msglen, &failed);
    if (failed) {
        shim_rootfs_free(r);
        return NULL;
    }
    return r;
}

char *const *shim_rootfs_argv(const shim_rootfs_t *r) { return r->argv; }

char *const *shim_rootfs_envp(const shim_rootfs_t *r) { return r ? shim_gpu_envp(r->gpu) : NULL; }

void shim_rootfs_free(shim_rootfs_t *r)
{
    if (!r)
        return;
    if (r->as_root && r->base)
        rmdir(r->base); /* empty out here: the run's mounts were its namespace's */
    free(r->base);
    free(r->upper);
    free(r->work);
    free(r->merged);
    free(r->opts);
    free(r->argv); /* its words are the spec's and r->merged */
    free(r->is_dir);
    shim_gpu_free(r->gpu);
    free(r);
}

/* ---- in the child: system calls only ---- */

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static int is_dot(const char *n) { return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])); }

/* every folder below lower (an open folder) made in upper, owned by the job
 * user with the image's mode plus rwx for it; symbolic links are not
 * followed (a link to a folder stays the image's link) */
static int skeleton(int lower, int upper, int depth)
{
    char buf[4096];
    long n;
    if (depth > SKEL_DEPTH)
        return 0; /* deeper folders keep the image's owner */
    while ((n = syscall(SYS_getdents64, lower, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < n;) {
            struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
            off += d->d_reclen;
            struct stat st;
            if (is_dot(d->d_name) || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN) ||
                fstatat(lower, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
                continue;
            if (mkdirat(upper, d->d_name, (st.st_mode & 07777) | S_IRWXU) < 0 && errno != EEXIST)
                return -1;
            int l = openat(lower, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int u = openat(upper, d->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int rc = l >= 0 && u >= 0 ? skeleton(l, u, depth + 1) : 0;
            if (l >= 0)
                close(l);
            if (u >= 0)
                close(u);
            if (rc < 0)
                return -1;
        }
    }
    return n < 0 ? -1 : 0;
}

static int make_skeleton(const shim_rootfs_t *r)
{
    struct stat st;
    int l = open(r->spec->lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (l < 0 || fstat(l, &st) < 0 || mkdir(r->upper, (st.st_mode & 07777) | S_IRWXU) < 0 ||
        chmod(r->upper, (st.st_mode & 07777) | S_IRWXU) < 0) {
        if (l >= 0)
            close(l);
        return -1;
    }
    int u = open(r->upper, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = u >= 0 ? skeleton(l, u, 0) : -1;
    close(l);
    if (u >= 0)
        close(u);
    return rc;
}

/* target made in the merged root, one component at a time, never through a
 * symbolic link (it would point outside the root) */
static int mount_point(const char *root, const char *target, int is_dir)
{
    char comp[256];
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (const char *p = target + 1; fd >= 0;) {
        size_t n = strcspn(p, "/");
        if (n >= sizeof(comp)) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        int last = p[n] == '\0';
        if (last && !is_dir) {
            int f = openat(fd, comp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            int e = f < 0 && errno != EEXIST ? errno : 0;
            if (f >= 0)
                close(f);
            close(fd);
            errno = e;
            return e ? -1 : 0;
        }
        if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST)
            break;
        int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
        if (last)
            break;
        p += n + 1;
    }
    int e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return fd >= 0 ? 0 : -1;
}

static int mkfolder(const char *root, const char *target) { return mount_point(root, target, 1); }

/* the user and mount namespace of this run: the job user stays itself
 * (root needs no user namespace, and in one it would lose its rights over
 * the other users' files, its pod folder among them) */
static int enter_namespaces(const shim_rootfs_t *r, int *step)
{
    if (r->as_root)
        return (*step = ST_USERNS, unshare(CLONE_NEWNS)) < 0 ||
                       (*step = ST_PRIVATE, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0
                   ? -1
                   : 0;
    if ((*step = ST_USERNS, unshare(CLONE_NEWUSER | CLONE_NEWNS)) < 0 ||
        (*step = ST_SETGROUPS, write_file("/proc/self/setgroups", "deny")) < 0 ||
        (*step = ST_UIDMAP, write_file("/proc/self/uid_map", r->uid_map)) < 0 ||
        (*step = ST_GIDMAP, write_file("/proc/self/gid_map", r->gid_map)) < 0 ||
        (*step = ST_PRIVATE, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0)
        return -1;
    return 0;
}

int shim_rootfs_enter(const shim_rootfs_t *r, int *step, int *mnt)
{
    *mnt = -1;
    if (enter_namespaces(r, step) < 0 ||
        (*step = ST_TMPFS, mount("tmpfs", r->base, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700")) <
            0 ||
        (*step = ST_LAYERS, mkdir(r->work, 0700)) < 0 || mkdir(r->merged, 0700) < 0 ||
        (*step = ST_SKELETON, make_skeleton(r)) < 0 ||
        (*step = ST_OVERLAY, mount("overlay", r->merged, "overlay", MS_NOSUID, r->opts)) < 0)
        return -1;
    *step = ST_MOUNTPOINT;
    for (size_t i = 0; i < r->spec->nmounts; i++) {
        *mnt = (int)i;
        if (mount_point(r->merged, r->spec->mounts[i].target, r->is_dir[i]) < 0)
            return -1;
    }
    int what = 0;
    const char *path = NULL;
    if (r->gpu && shim_gpu_enter(r->gpu, mkfolder, &what, &path) < 0) {
        *step = what ? ST_GPU_DRIVER : ST_GPU_DEV;
        *mnt = -1;
        return -1;
    }
    return 0;
}

void shim_rootfs_error(const shim_rootfs_t *r, int step, int mnt, int err, char *buf, size_t len)
{
    const char *what = step >= 0 && step <= ST_GPU_DRIVER ? step_text[step] : "?";
    if (step == ST_MOUNTPOINT && mnt >= 0 && (size_t)mnt < r->spec->nmounts)
        snprintf(buf, len, "private root: mount point %s: %s", r->spec->mounts[mnt].target,
                 err == ELOOP || err == ENOTDIR
                     ? "a component is a symbolic link or a file in the image"
                     : strerror(err));
    else
        snprintf(buf, len, "private root of %s: %s: %s", r->spec->lower, what, strerror(err));
}

/* ---- the runtime on this node ---- */

int shim_runtime_check(const sl_shim_container_t *c, char *const *envp, const char *node, char *msg,
                       size_t msglen)
{
    const sl_runtime_ops_t *ops = c->runtime ? sl_runtime_get(c->runtime) : NULL;
    if (!c->runtime || (ops && !ops->default_binary)) /* host: no program of its own */
        return 0;
    const char *path = NULL;
    for (size_t i = 0; envp && envp[i] && !path; i++)
        if (!strncmp(envp[i], "PATH=", 5))
            path = envp[i] + 5;
    char *found = sl_runtime_find_program(c->argv[0], path ? path : "/usr/bin:/bin");
    if (found) {
        free(found);
        return 0;
    }
    if (strchr(c->argv[0], '/'))
        snprintf(msg, msglen, "runtime %s: %s is not installed on node %s (no executable file)",
                 c->runtime, c->argv[0], node);
    else
        snprintf(msg, msglen, "runtime %s: %s is not installed on node %s (not found in PATH=%s)",
                 c->runtime, c->argv[0], node, path ? path : "/usr/bin:/bin");
    return -1;
}
