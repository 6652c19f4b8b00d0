/* exec.c — `slurmlink-shim exec`: kubectl exec's helper on the pod's node.
 *
 *     slurmlink-shim exec --pod-dir DIR --container C --status exec-HEX.status -- CMD...
 *
 * slurmlinkd starts it through `srun --overlap --jobid J` as the pod's user,
 * inside the job's allocation. It reads DIR/shim.json. A container with a
 * private root (charliecloud, rootfs.h) is joined: its user and mount
 * namespaces, its root, its environment (join.h), so CMD sees the running
 * container's own files and mounts and the stored image is never written.
 * Otherwise it takes the container's argv up to where its command starts
 * (the runtime's exec_prefix: the host's env --chdir), gives it the
 * container's environment and execs it with CMD in place of the
 * container's command; a run that binds a private /tmp of its own (the
 * host runtime with "privateTmp") is joined first, its namespaces only
 * (shim_join_open_ns), so CMD sees the /tmp the container sees. A command
 * that is not in
 * the container (looked up in its root and PATH) is not run. DIR/<status>
 * tells slurmlinkd how it ended: "exit N" (the command's code, 128+signal),
 * or "error: TEXT" (the kubelet's text for the error channel); the helper
 * itself exits 0 when the command ran, so srun adds no line to stderr.
 */
#include "shim.h"

#include "common/argv.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"
#include "shim/join.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/openat2.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXEC_NOT_FOUND 127
#define EXEC_CANNOT 126

static int status_name_ok(const char *name)
{
    return name && !strncmp(name, "exec-", 5) && strspn(name + 5, "0123456789abcdef") >= 8 &&
           !strcmp(name + 5 + strspn(name + 5, "0123456789abcdef"), ".status");
}

/* NAME in the folder dfd gets msg; NAME must be exec-<hex>.status (nothing
 * else is written). 0 when written (the helper then exits 0: srun stays
 * silent), else EXEC_CANNOT. */
static int status_at(int dfd, const char *name, const char *msg)
{
    if (!status_name_ok(name) || dfd < 0)
        return EXEC_CANNOT;
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno == EEXIST ? 0 : EXEC_CANNOT; /* the first report stands */
    ssize_t w = write(fd, msg, strlen(msg));
    close(fd);
    return w == (ssize_t)strlen(msg) ? 0 : EXEC_CANNOT;
}

int shim_exec_status(const char *dir, const char *name, const char *msg)
{
    if (!status_name_ok(name))
        return EXEC_CANNOT;
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int r = status_at(dfd, name, msg);
    if (dfd >= 0)
        close(dfd);
    return r;
}

/* Is path an executable regular file under root (root's symlinks resolved
 * inside it)? 1 yes, 0 no, -1 when it cannot be told (no openat2). */
static int executable_in(int rootfd, const char *path)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT};
    int fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
    if (fd < 0)
        return errno == ENOSYS ? -1 : 0;
    struct stat st;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
    close(fd);
    return ok;
}

static const char *env_get(char **envp, const char *key)
{
    size_t kl = strlen(key);
    for (size_t i = 0; envp[i]; i++)
        if (!strncmp(envp[i], key, kl) && envp[i][kl] == '=')
            return envp[i] + kl + 1;
    return NULL;
}

/* NULL when cmd is in the container (*found, when not NULL, gets its path
 * there), else the kubelet's (runc's) text. */
static char *missing_command(const char *root, const char *cmd, char **envp, char **found_path)
{
    int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return NULL; /* the runtime will say */
    char *why = NULL;
    if (strchr(cmd, '/')) {
        if (executable_in(rootfd, cmd) == 0)
            why = sl_xasprintf("exec: \"%s\": stat %s: no such file or directory", cmd, cmd);
        else if (found_path)
            *found_path = sl_xstrdup(cmd);
    } else {
        const char *path = env_get(envp, "PATH");
        char *dirs = sl_xstrdup(path ? path
                                     : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
                                       "/sbin:/bin");
        int found = 0;
        for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d && !found;
             d = strtok_r(NULL, ":", &save)) {
            char *p = sl_xasprintf("%s/%s", d, cmd);
            found = executable_in(rootfd, p) != 0;
            if (found && found_path)
                *found_path = p;
            else
                free(p);
        }
        free(dirs);
        if (!found)
            why = sl_xasprintf("exec: \"%s\": executable file not found in $PATH", cmd);
    }
    close(rootfd);
    if (!why)
        return NULL;
    char *m = sl_xasprintf("error: OCI runtime exec failed: exec failed: unable to start container "
                           "process: %s: unknown",
                           why);
    free(why);
    return m;
}

static const sl_shim_container_t *find_container(const sl_shim_spec_t *spec, const char *name)
{
    for (size_t i = 0; i < spec->ncontainers; i++)
        if (!strcmp(spec->containers[i].name, name))
            return &spec->containers[i];
    return NULL;
}

/* the container's argv up to its command, then cmd; NULL with *why */
static char **exec_argv(const sl_shim_container_t *c, char **cmd, int ncmd, int *root, char **why)
{
    const sl_runtime_ops_t *ops = sl_runtime_get(c->runtime ? c->runtime : "host");
    int np = ops && ops->exec_prefix ? ops->exec_prefix(c->argv, c->argc, root) : -1;
    if (np < 0) {
        *why = sl_xasprintf("error: exec is not served for the %s runtime",
                            c->runtime ? c->runtime : "host");
        return NULL;
    }
    char **v = sl_xcalloc((size_t)np + (size_t)ncmd + 1, sizeof(char *));
    int k = 0;
    for (int i = 0; i < np; i++) {
        /* an exec never writes the root it is given: with a private root
         * (shim_root) that would be the stored image */
        if (!ops->shim_root || strcmp(c->argv[i], "--write"))
            v[k++] = c->argv[i];
    }
    for (int i = 0; i < ncmd; i++)
        v[k++] = cmd[i];
    return v;
}

/* Wait for the command's process and report how it ended in the status
 * file ("exit N"), exiting 0: srun then adds no line of its own to the
 * session's stderr. */
static int wait_report(const char *dir, const char *status, pid_t pid)
{
    if (pid < 0)
        return shim_exec_status(dir, status, "error: fork failed");
    signal(SIGINT, SIG_IGN); /* the command's to handle; SIGTERM ends us both */
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    char line[32];
    snprintf(line, sizeof(line), "exit %d", code);
    return shim_exec_status(dir, status, line);
}

static char *exec_failed(const char *cmd, int err)
{
    return sl_xasprintf("error: OCI runtime exec failed: exec failed: unable to start "
                        "container process: exec: \"%s\": %s: unknown",
                        cmd, strerror(err));
}

/* Run the runtime's prefix + the command (the host runtime, runtimes
 * without a private root); j: the run's namespaces to join (its private
 * /tmp, and its names with it), else nm: the pod's hosts file and host
 * name, in namespaces of the command's own, as its runs have them
 * (names.h) */
static int run_child(const char *dir, const char *status, char **argv, char **envp,
                     const shim_names_t *nm, const shim_join_t *j)
{
    int dfd = j ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    pid_t pid = fork();
    if (pid == 0) {
        const char *what = NULL;
        if (j && shim_join_enter_ns(j, &what) < 0) {
            char *m = sl_xasprintf("error: OCI runtime exec failed: %s: %s: unknown", what,
                                   strerror(errno));
            status_at(dfd, status, m);
            _exit(EXEC_CANNOT);
        }
        if (!j && nm && shim_names_enter(nm, &what) < 0)
            fprintf(stderr, "slurmlink-shim: the pod's /etc/hosts and host name: %s: %s\n", what,
                    strerror(errno));
        execvpe(argv[0], argv, envp);
        shim_exec_status(dir, status, exec_failed(argv[0], errno));
        _exit(EXEC_NOT_FOUND);
    }
    if (dfd >= 0)
        close(dfd);
    return wait_report(dir, status, pid);
}

/* In the child: enter the running container, find the command in its root
 * and PATH, exec it with the container's environment. */
static void joined_child(const shim_join_t *j, const sl_shim_container_t *c, int dfd,
                         const char *status, char **cmd)
{
    const char *what = NULL;
    if (shim_join_enter(j, c->working_dir, &what) < 0) {
        int e = errno;
        char *m =
            sl_xasprintf("error: OCI runtime exec failed: %s: %s: unknown", what, strerror(e));
        status_at(dfd, status, m);
        _exit(EXEC_CANNOT);
    }
    char **envp = shim_join_envp(j), *path = NULL;
    char *missing = missing_command("/", cmd[0], envp, &path);
    if (missing) {
        status_at(dfd, status, missing);
        _exit(EXEC_NOT_FOUND);
    }
    execve(path, cmd, envp);
    status_at(dfd, status, exec_failed(cmd[0], errno));
    _exit(EXEC_NOT_FOUND);
}

/* The container has a private root (shim_root): join the running one. */
static int run_joined(const char *dir, const char *status, const sl_shim_container_t *c, char **cmd)
{
    char msg[512];
    shim_join_t *j = shim_join_open(dir, c, msg, sizeof(msg));
    if (!j)
        return shim_exec_status(dir, status, msg);
    int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0)
        joined_child(j, c, dfd, status, cmd);
    if (dfd >= 0)
        close(dfd);
    shim_join_close(j);
    return wait_report(dir, status, pid);
}

/* A probe's failure before its command ran: the text on stderr (the
 * probe's output), then the exit status. */
static void probe_die(const char *msg, int code) __attribute__((noreturn));
static void probe_die(const char *msg, int code)
{
    const char *m = strncmp(msg, "error: ", 7) ? msg : msg + 7;
    ssize_t w = write(2, m, strlen(m));
    (void)w;
    _exit(code);
}

void shim_exec_probe(const char *dir, const sl_shim_container_t *c, char **cmd)
{
    int ncmd = 0;
    while (cmd[ncmd])
        ncmd++;
    char msg[512], *missing = NULL;
    if (c->rootfs) {
        shim_join_t *j = shim_join_open(dir, c, msg, sizeof(msg));
        const char *what = NULL;
        if (!j)
            probe_die(msg, EXEC_CANNOT);
        if (shim_join_enter(j, c->working_dir, &what) < 0) {
            snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));
            probe_die(msg, EXEC_CANNOT);
        }
        char **envp = shim_join_envp(j), *path = NULL;
        if ((missing = missing_command("/", cmd[0], envp, &path)))
            probe_die(missing, EXEC_NOT_FOUND);
        execve(path, cmd, envp);
        probe_die(exec_failed(cmd[0], errno), EXEC_NOT_FOUND);
    }
    char *why = NULL;
    int root = -1;
    char **argv = exec_argv(c, cmd, ncmd, &root, &why);
    if (!argv)
        probe_die(why, EXEC_CANNOT);
    char **envp = shim_build_envp(c);
    if ((missing = missing_command(root >= 0 ? c->argv[root] : "/", cmd[0], envp, NULL)))
        probe_die(missing, EXEC_NOT_FOUND);
    if (c->private_tmp) { /* the run's own /tmp, as kubectl exec has it */
        shim_join_t *j = shim_join_open_ns(dir, c, msg, sizeof(msg));
        const char *what = NULL;
        if (!j)
            probe_die(msg, EXEC_CANNOT);
        if (shim_join_enter_ns(j, &what) < 0) {
            snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));
            probe_die(msg, EXEC_CANNOT);
        }
    }
    execvpe(argv[0], argv, envp);
    probe_die(exec_failed(argv[0], errno), EXEC_NOT_FOUND);
}

static void identity_env(void)
{
    struct passwd *pw = getpwuid(getuid());
    if (pw) {
        setenv("USER", pw->pw_name, 0);
        setenv("LOGNAME", pw->pw_name, 0);
        if (pw->pw_dir)
            setenv("HOME", pw->pw_dir, 0);
    }
}

/* exec the command in the container; returns only on failure */
static int run_in(const char *dir, const char *name, const char *status, char **cmd, int ncmd)
{
    char *spec_path = sl_xasprintf("%s/shim.json", dir);
    sl_error_t err = SL_ERROR_INIT;
    sl_shim_spec_t *spec = sl_shim_spec_load(spec_path, &err);
    free(spec_path);
    if (!spec) {
        char *m = sl_xasprintf("error: %s", err.text);
        int r = shim_exec_status(dir, status, m);
        free(m);
        return r;
    }
    const sl_shim_container_t *c = find_container(spec, name);
    if (c && c->rootfs) {
        int rj = run_joined(dir, status, c, cmd);
        sl_shim_spec_destroy(spec);
        return rj;
    }
    char *why = NULL;
    int root = -1;
    char **argv = c ? exec_argv(c, cmd, ncmd, &root, &why) : NULL;
    if (!c)
        why = sl_xasprintf("error: container not found (\"%s\")", name);
    int r;
    if (!argv) {
        r = shim_exec_status(dir, status, why);
        free(why);
        sl_shim_spec_destroy(spec);
        return r;
    }
    identity_env();
    char **envp = shim_build_envp(c);
    char *missing = missing_command(root >= 0 ? c->argv[root] : "/", cmd[0], envp, NULL);
    shim_names_t nm;
    if (c->bind_hosts && spec->hosts)
        shim_names_init(&nm, spec->hosts);
    char msg[512];
    shim_join_t *j =
        missing || !c->private_tmp ? NULL : shim_join_open_ns(dir, c, msg, sizeof(msg));
    if (missing)
        r = shim_exec_status(dir, status, missing);
    else if (c->private_tmp && !j)
        r = shim_exec_status(dir, status, msg);
    else
        r = run_child(dir, status, argv, envp, c->bind_hosts && spec->hosts ? &nm : NULL, j);
    shim_join_close(j);
    free(missing);
    sl_strv_free(envp);
    free(argv); /* its strings are the spec's and the caller's */
    sl_shim_spec_destroy(spec);
    return r;
}

int shim_exec_main(int argc, char **argv)
{
    static const struct option lo[] = {{"pod-dir", required_argument, 0, 'd'},
                                       {"container", required_argument, 0, 'c'},
                                       {"status", required_argument, 0, 's'},
                                       {0, 0, 0, 0}};
    const char *dir = NULL, *name = NULL, *status = NULL;
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "+d:c:s:", lo, NULL)) != -1) {
        switch (o) {
        case 'd': dir = optarg; break;
        case 'c': name = optarg; break;
        case 's': status = optarg; break;
        default: return 2;
        }
    }
    if (!dir || !name || optind >= argc) {
        fprintf(stderr, "usage: slurmlink-shim exec --pod-dir DIR --container NAME "
                        "[--status exec-HEX.status] -- CMD...\n");
        return 2;
    }
    return run_in(dir, name, status, argv + optind, argc - optind);
}
