/* names.c — the pod's hosts file and host name for the host runtime (names.h). */
#include "shim/names.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

void shim_names_init(shim_names_t *n, const sl_hosts_t *h)
{
    memset(n, 0, sizeof(*n));
    n->path = h->path;
    n->hostname = h->hostname;
    n->as_root = getuid() == 0;
    snprintf(n->uid_map, sizeof(n->uid_map), "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
    snprintf(n->gid_map, sizeof(n->gid_map), "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
}

static int put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t len = (ssize_t)strlen(text), w = write(fd, text, (size_t)len);
    int e = errno;
    close(fd);
    errno = e;
    return w == len ? 0 : -1;
}

int shim_ns_enter(const char *uid_map, const char *gid_map, int as_root, int extra,
                  const char **what)
{
    int flags = CLONE_NEWNS | extra | (as_root ? 0 : CLONE_NEWUSER);
    if ((*what = "unshare(user, mount)", unshare(flags)) < 0)
        return -1;
    if (!as_root && ((*what = "/proc/self/setgroups", put("/proc/self/setgroups", "deny")) < 0 ||
                     (*what = "/proc/self/uid_map", put("/proc/self/uid_map", uid_map)) < 0 ||
                     (*what = "/proc/self/gid_map", put("/proc/self/gid_map", gid_map)) < 0))
        return -1;
    *what = "private mounts";
    return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

int shim_names_enter(const shim_names_t *n, const char **what)
{
    if (shim_ns_enter(n->uid_map, n->gid_map, n->as_root, CLONE_NEWUTS, what) < 0)
        return -1;
    if ((*what = "bind over /etc/hosts", mount(n->path, "/etc/hosts", NULL, MS_BIND, NULL)) < 0 ||
        (*what = "sethostname", sethostname(n->hostname, strlen(n->hostname))) < 0)
        return -1;
    return 0;
}
