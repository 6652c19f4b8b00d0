/* join.h — kubectl exec into a running container that has a private root
 * (charliecloud: src/shim/rootfs.c), by joining it rather than starting a
 * second container on the stored image.
 *
 * The shim records each such run's pid and its start time (the kernel's,
 * field 22 of /proc/PID/stat) in <pod folder>/rootfs/<container>.pid while
 * it runs. `slurmlink-shim exec` (the pod's user, on the pod's node, in a
 * step of the pod's job) reads it, checks that the pid still is that run
 * (the start time: a reused pid is never joined), waits until the runtime
 * has handed over to the container's command, and opens the process's
 * user and mount namespaces and its root. In a forked child it enters
 * them: setns(user), setns(mnt), fchdir + chroot(".") to that root, then
 * the working directory. The job user created (owns) those user
 * namespaces, so it holds the capabilities setns needs in them
 * (user_namespaces(7)); it gains nothing it did not have: the same uid,
 * the user's own namespaces, the container's own root and mounts.
 *
 * A run without a private root whose private /tmp the shim's child binds
 * in namespaces of the run's own (the host runtime with "privateTmp",
 * podtmp.h; its /etc/hosts and host name too, names.h) is recorded the
 * same way. Its exec joins its user, mount and UTS namespaces (each that
 * differs from the helper's), once the child has exec'd the container's
 * command, and keeps the node's root: it sees the /tmp the run sees.
 */
#ifndef SL_SHIM_JOIN_H
#define SL_SHIM_JOIN_H

#include <stddef.h>
#include <sys/types.h>

#include "shimlib/spec.h"

typedef struct shim_join shim_join_t;

/* In the shim: record a run that has started (0, or -1 with errno), and
 * forget it when it ends. */
int shim_join_record(const char *pod_dir, const char *name, pid_t pid);
void shim_join_forget(const char *pod_dir, const char *name);

/* In the exec helper: the running container c of the pod in pod_dir, or
 * NULL with msg ("error: TEXT", the text for kubectl's error channel). */
shim_join_t *shim_join_open(const char *pod_dir, const sl_shim_container_t *c, char *msg,
                            size_t len);
/* The same for a run without a private root (the host runtime's, above),
 * once the shim's child has exec'd the container's command. */
shim_join_t *shim_join_open_ns(const char *pod_dir, const sl_shim_container_t *c, char *msg,
                               size_t len);
/* In a forked child: enter that run's namespaces, keeping the working
 * directory. 0, or -1 with errno and *what. */
int shim_join_enter_ns(const shim_join_t *j, const char **what);
/* The container's environment as it was started (its /proc/PID/environ). */
char **shim_join_envp(const shim_join_t *j);
/* In a forked child: enter the container, then chdir to cwd (NULL: "/").
 * 0, or -1 with errno and *what (the step that failed, a static text). */
int shim_join_enter(const shim_join_t *j, const char *cwd, const char **what);
void shim_join_close(shim_join_t *j); /* NULL is a no-op */

/* The start time of pid (clock ticks after boot), 0 when it cannot be read. */
unsigned long long shim_join_start_time(pid_t pid);

#endif
