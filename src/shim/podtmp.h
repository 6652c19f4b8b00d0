/* podtmp.h — the pod's private /tmp on the node (slurmlink-shim).
 *
 * In Kubernetes a container's /tmp is part of its own writable layer:
 * empty when it starts, seen by no other container or pod, gone with the
 * container. slurmlink-shim gives every container run the same: a folder on
 * the node's local /tmp,
 *
 *   /tmp/slurmlink-tmp.<job id>.<random>/          0700, the job user's
 *                                       <container>/  01777, bound at /tmp
 *
 * made by the shim (as the job user, never root) when the pod starts, the
 * container's folder emptied before each run (a restarted container starts
 * with an empty /tmp, as a new container does), and the whole removed when
 * the pod finishes. The outer folder's name is mkdtemp's, made with mkdir
 * (which never follows a link): another tenant cannot plant it; every later
 * access is relative to a descriptor on it. While the shim lives it holds a
 * flock on that descriptor; a shim that starts sweeps the folders of
 * earlier shims of its user on that node whose lock is free (a shim killed
 * before its cleanup), opening each without following a link and removing
 * it with src/common/safefs.
 *
 * How the folder reaches /tmp is the runtime's (runtime.h tmp_bind): a bind
 * option in its argv (apptainer, singularity, charliecloud, podman, enroot),
 * or, for the host runtime, a bind over /tmp in a mount namespace of the
 * run's own (entered by the forked child, like the pod's names: names.h).
 */
#ifndef SL_SHIM_PODTMP_H
#define SL_SHIM_PODTMP_H

#include <stddef.h>

#include "common/err.h"

typedef struct shim_podtmp {
    char *dir; /* the pod's folder (NULL: none made) */
    int fd;    /* a descriptor on it, flocked while the shim lives */
    char uid_map[64], gid_map[64];
    int as_root;
} shim_podtmp_t;

/* The prefix of every pod's folder in the node's /tmp. */
#define SHIM_PODTMP_PREFIX "slurmlink-tmp."

/* Sweep the base folder (the node's /tmp) of dead shims' folders of this
 * user, then make this pod's (job is the Slurm job id, "0" when unknown).
 * 0, or -1 with err. */
int shim_podtmp_make(shim_podtmp_t *t, const char *base, const char *job, sl_error_t *err);
/* Folders of this user's dead shims removed from base: how many. */
int shim_podtmp_sweep(const char *base);
/* The container's folder, made empty for a new run: its path (caller
 * frees), or NULL with err. */
char *shim_podtmp_ctr(const shim_podtmp_t *t, const char *name, sl_error_t *err);
/* argv with the runtime's bind of path at /tmp inserted (caller frees with
 * shim_podtmp_argv_free), or NULL when the runtime binds no folder by argv
 * (host) or is unknown. */
char **shim_podtmp_argv(const char *runtime, char *const *argv, const char *path);
void shim_podtmp_argv_free(char **argv);
/* In the forked child (system calls only): bind path over /tmp. in_ns: the
 * run is in a user and mount namespace of its own already (the pod's names);
 * else one is made. 0, or -1 with errno and the failed step in *what. */
int shim_podtmp_enter(const shim_podtmp_t *t, const char *path, int in_ns, const char **what);
/* Remove the pod's folder (when the pod finishes). */
void shim_podtmp_remove(shim_podtmp_t *t);

#endif
