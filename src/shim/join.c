/* join.c — kubectl exec joins the running container (see join.h). */
#include "shim/join.h"

#include "common/argv.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* how long an exec waits for the runtime (ch-run) to hand over to the
 * container's command, in 20 ms steps */
#define JOIN_SETUP_STEPS 1500

struct shim_join {
    pid_t pid;
    int userns, mntns, utsns, root; /* a namespace is -1 when it is the helper's own */
    char **envp;
};

static char *pid_path(const char *pod_dir, const char *name)
{
    return sl_xasprintf("%s/rootfs/%s.pid", pod_dir, name);
}

unsigned long long shim_join_start_time(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    char *s = sl_read_file(path, NULL, NULL);
    const char *p = s ? strrchr(s, ')') : NULL; /* the name may hold anything */
    unsigned long long t = 0;
    /* after ") ": state is field 3, starttime field 22 */
    for (int field = 2; p && *p && field < 22; p++)
        if (*p == ' ')
            field++;
    if (p && *p)
        t = strtoull(p, NULL, 10);
    free(s);
    return t;
}

int shim_join_record(const char *pod_dir, const char *name, pid_t pid)
{
    sl_error_t err = SL_ERROR_INIT;
    char *dir = sl_xasprintf("%s/rootfs", pod_dir), *path = pid_path(pod_dir, name);
    char *line = sl_xasprintf("%d %llu\n", (int)pid, shim_join_start_time(pid));
    int rc =
        sl_mkdir_p(dir, 0700, &err) < 0 ? -1 : sl_write_file(path, line, strlen(line), 0600, &err);
    free(dir);
    free(path);
    free(line);
    return rc;
}

void shim_join_forget(const char *pod_dir, const char *name)
{
    char *path = pid_path(pod_dir, name);
    unlink(path);
    free(path);
}

void shim_join_close(shim_join_t *j)
{
    if (!j)
        return;
    if (j->userns >= 0)
        close(j->userns);
    if (j->mntns >= 0)
        close(j->mntns);
    if (j->utsns >= 0)
        close(j->utsns);
    if (j->root >= 0)
        close(j->root);
    sl_strv_free(j->envp);
    free(j);
}

char **shim_join_envp(const shim_join_t *j) { return j->envp; }

/* the recorded pid while it is still that run, else 0 */
static pid_t recorded_pid(const char *pod_dir, const char *name, unsigned long long *start)
{
    char *path = pid_path(pod_dir, name);
    char *s = sl_read_file(path, NULL, NULL);
    free(path);
    int pid = 0;
    if (!s || sscanf(s, "%d %llu", &pid, start) != 2 || pid <= 0 || *start == 0 ||
        shim_join_start_time(pid) != *start)
        pid = 0;
    free(s);
    return pid;
}

/* Does pid still run the runtime's program? Its /proc/PID/exe is that file
 * (when the helper's PATH finds it), or its name (/proc/PID/comm, the
 * kernel's first 15 bytes of the file name) is the program's. -1: pid is
 * gone. */
static int runs_runtime(pid_t pid, const struct stat *rt, const char *base)
{
    char path[64];
    struct stat ex;
    snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
    if (stat(path, &ex) < 0)
        return -1;
    if (rt && ex.st_dev == rt->st_dev && ex.st_ino == rt->st_ino)
        return 1;
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    char *comm = sl_read_file(path, NULL, NULL);
    if (!comm)
        return -1;
    comm[strcspn(comm, "\n")] = '\0';
    int same = !strncmp(comm, base, 15) && strlen(comm) == (strlen(base) < 15 ? strlen(base) : 15);
    free(comm);
    return same;
}

/* 0 once pid no longer runs the runtime's program (ch-run has exec'd the
 * container's command in the container's namespaces), -1 when pid is gone
 * or that takes too long */
static int wait_handover(pid_t pid, const sl_shim_container_t *c)
{
    const char *path = getenv("PATH");
    char *prog = sl_runtime_find_program(c->argv[0], path ? path : "/usr/bin:/bin");
    struct stat rt;
    int have_rt = prog && stat(prog, &rt) == 0;
    free(prog);
    const char *base = strrchr(c->argv[0], '/') ? strrchr(c->argv[0], '/') + 1 : c->argv[0];
    for (int i = 0; i < JOIN_SETUP_STEPS; i++) {
        int r = runs_runtime(pid, have_rt ? &rt : NULL, base);
        if (r <= 0)
            return r;
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    errno = ETIMEDOUT;
    return -1;
}

/* 0 once pid no longer runs this program (the shim's child has bound the
 * run's /tmp and exec'd the container's command), -1 when pid is gone or
 * that takes too long */
static int wait_exec(pid_t pid)
{
    struct stat self;
    int have_self = stat("/proc/self/exe", &self) == 0;
    for (int i = 0; i < JOIN_SETUP_STEPS; i++) {
        int r = runs_runtime(pid, have_self ? &self : NULL, "slurmlink-shim");
        if (r <= 0)
            return r;
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    errno = ETIMEDOUT;
    return -1;
}

/* "KEY=VALUE\0..." as a NULL-terminated vector, with TERM=term (the
 * session's terminal, with kubectl exec -t) when it has none */
static char **split_environ(const char *s, size_t len, const char *term)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '\0';
    char **v = sl_xcalloc(n + 2, sizeof(char *));
    size_t k = 0;
    int has_term = 0;
    for (size_t i = 0; i < len; i += strlen(s + i) + 1)
        if (s[i]) {
            has_term |= !strncmp(s + i, "TERM=", 5);
            v[k++] = sl_xstrdup(s + i);
        }
    if (term && !has_term)
        v[k++] = sl_xasprintf("TERM=%s", term);
    return v;
}

static int open_proc(pid_t pid, const char *what, int flags)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
    return open(path, flags | O_CLOEXEC);
}

/* pid's namespace ns (ns/NAME), or -1 when it is the helper's own too
 * (setns(2) refuses to re-enter one's own user namespace, and needs a
 * capability of the node's for its own mount namespace); -2 on failure */
static int open_ns(pid_t pid, const char *name)
{
    char rel[16], own[32];
    snprintf(rel, sizeof(rel), "ns/%.8s", name);
    int fd = open_proc(pid, rel, O_RDONLY);
    if (fd < 0)
        return -2;
    struct stat mine, theirs;
    snprintf(own, sizeof(own), "/proc/self/ns/%.8s", name);
    if (stat(own, &mine) == 0 && fstat(fd, &theirs) == 0 && mine.st_ino == theirs.st_ino &&
        mine.st_dev == theirs.st_dev) {
        close(fd);
        return -1;
    }
    return fd;
}

/* the namespaces, root and environment of pid; 0 or -1 */
static int open_parts(shim_join_t *j)
{
    j->userns = open_ns(j->pid, "user");
    j->mntns = open_ns(j->pid, "mnt");
    j->utsns = open_ns(j->pid, "uts");
    j->root = open_proc(j->pid, "root", O_PATH | O_DIRECTORY);
    if (j->userns == -2 || j->mntns == -2 || j->utsns == -2 || j->root < 0)
        return -1;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)j->pid);
    size_t len = 0;
    char *env = sl_read_file(path, &len, NULL);
    if (!env)
        return -1;
    j->envp = split_environ(env, len, getenv("TERM"));
    free(env);
    return 0;
}

/* the recorded run of c, once handed over to the container's command
 * (private: by the runtime; else by the shim's child) */
static shim_join_t *join_open(const char *pod_dir, const sl_shim_container_t *c, int private,
                              char *msg, size_t len)
{
    unsigned long long start = 0;
    shim_join_t *j = sl_xcalloc(1, sizeof(*j));
    j->userns = j->mntns = j->utsns = j->root = -1;
    j->pid = recorded_pid(pod_dir, c->name, &start);
    if (!j->pid || (private ? wait_handover(j->pid, c) : wait_exec(j->pid)) < 0) {
        /* the kubelet's text for a container that is not running */
        snprintf(msg, len, "error: container not found (\"%s\")", c->name);
        shim_join_close(j);
        return NULL;
    }
    int e = open_parts(j) < 0 ? errno : 0;
    /* checked after opening: what was opened belongs to the recorded run */
    if (shim_join_start_time(j->pid) != start) {
        snprintf(msg, len, "error: container not found (\"%s\")", c->name);
        shim_join_close(j);
        return NULL;
    }
    if (e) {
        snprintf(msg, len, "error: joining container %s (pid %d): %s", c->name, (int)j->pid,
                 strerror(e));
        shim_join_close(j);
        return NULL;
    }
    return j;
}

shim_join_t *shim_join_open(const char *pod_dir, const sl_shim_container_t *c, char *msg,
                            size_t len)
{
    return join_open(pod_dir, c, 1, msg, len);
}

shim_join_t *shim_join_open_ns(const char *pod_dir, const sl_shim_container_t *c, char *msg,
                               size_t len)
{
    return join_open(pod_dir, c, 0, msg, len);
}

/* setns into each of j's namespaces that is not the caller's own */
static int enter_ns(const shim_join_t *j, const char **what)
{
    return (*what = "setns(user namespace)",
            j->userns >= 0 && setns(j->userns, CLONE_NEWUSER) < 0) ||
                   (*what = "setns(mount namespace)",
                    j->mntns >= 0 && setns(j->mntns, CLONE_NEWNS) < 0) ||
                   (*what = "setns(UTS namespace)",
                    j->utsns >= 0 && setns(j->utsns, CLONE_NEWUTS) < 0)
               ? -1
               : 0;
}

int shim_join_enter_ns(const shim_join_t *j, const char **what)
{
    char cwd[4096];
    int have_cwd = getcwd(cwd, sizeof(cwd)) != NULL;
    if (enter_ns(j, what) < 0)
        return -1;
    /* setns(mnt) moved it to the root; a folder of the node's /tmp is not
     * in the run's (the runtime's prefix goes to the container's own) */
    *what = "chdir to /";
    return have_cwd && chdir(cwd) == 0 ? 0 : chdir("/");
}

int shim_join_enter(const shim_join_t *j, const char *cwd, const char **what)
{
    if (enter_ns(j, what) < 0 ||
        (*what = "entering the container's root", fchdir(j->root) < 0 || chroot(".") < 0))
        return -1;
    *what = "chdir to the container's working directory";
    return chdir(cwd ? cwd : "/");
}
