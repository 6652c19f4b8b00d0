/* rootfs.h — a container's private root and the check that its runtime is on
 * this node (slurmlink-shim, before each run).
 *
 * A container whose spec has `rootfs` (charliecloud) runs on an overlay:
 * the stored image as the read-only lower layer, and an upper layer in a
 * tmpfs that exists only in the run's own user and mount namespace. Writes
 * land in that tmpfs and vanish with the run; the image folder is never
 * written, so runs of one image (in one pod or several, at once or later)
 * never see each other's files. Every folder of the image is mirrored into
 * the upper layer, owned by the job user, so the job user can create files
 * anywhere (files the image's owner owns stay read-only to it, as they are
 * to a non-root user in a Kubernetes container); mount points the image
 * lacks are created there. Nothing here runs as root: an unprivileged user
 * namespace may mount tmpfs and overlayfs (Linux >= 5.11).
 *
 * shim_rootfs_prepare() runs in the shim (it allocates); shim_rootfs_enter()
 * in the forked child before exec (system calls only). The mount point is
 * <pod folder>/rootfs/<container>; for a job of root's a new folder in /tmp
 * (removed when the run ends), since ch-run's own user namespace could not
 * reach into another user's pod folder.
 */
#ifndef SL_SHIM_ROOTFS_H
#define SL_SHIM_ROOTFS_H

#include <stddef.h>

#include "shimlib/spec.h"

typedef struct shim_rootfs shim_rootfs_t;

/* The plan of one run's root under DIR/rootfs/NAME, and the argv with the
 * private root in place of the image; NULL with msg when it cannot be made. */
shim_rootfs_t *shim_rootfs_prepare(const char *pod_dir, const sl_shim_container_t *c,
                                   char *const *envp, char *msg, size_t msglen);
char *const *shim_rootfs_argv(const shim_rootfs_t *r);
/* The environment the run gets when it differs from the container's (its
 * GPUs: src/shim/gpu.h), else NULL. */
char *const *shim_rootfs_envp(const shim_rootfs_t *r);
/* After the run (a root job's folder in /tmp is removed). NULL is a no-op. */
void shim_rootfs_free(shim_rootfs_t *r);

/* In the child: the namespaces, the layers, the mount points. 0, or -1 with
 * errno and *step (for shim_rootfs_step_text) and *mount (the mount point
 * concerned, or -1). */
int shim_rootfs_enter(const shim_rootfs_t *r, int *step, int *mount);
/* The message for a failed step (into buf). */
void shim_rootfs_error(const shim_rootfs_t *r, int step, int mount, int err, char *buf, size_t len);

/* 0 when the runtime's program (argv0) is found in the PATH of envp, else
 * -1 with msg: "runtime apptainer: apptainer is not installed on node N
 * (not found in PATH=...)". The host runtime is not checked (its argv0 is
 * the container's own command). */
int shim_runtime_check(const sl_shim_container_t *c, char *const *envp, const char *node, char *msg,
                       size_t msglen);

#endif
