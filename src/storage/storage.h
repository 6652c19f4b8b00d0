/* storage.h — the site's StorageClasses and the folders of their volumes.
 *
 * An admin names each class in one YAML file (storage.classes):
 *
 *   classes:
 *   - name: scratch                # the StorageClass's name
 *     root: /scratch/k8s           # a folder every node mounts at this path:
 *                                  #  root's, not writable by group or others
 *     default: true                # claims without storageClassName get it
 *     accessModes: [ReadWriteMany, ReadWriteOnce, ReadWriteOncePod, ReadOnlyMany]
 *     reclaimPolicy: Delete        # or Retain
 *     volumeBindingMode: Immediate # or WaitForFirstConsumer
 *     maxClaimSize: 100Gi          # optional: the largest request of one claim
 *     maxNamespaceSize: 1Ti        # optional: the sum of a namespace's claims
 *
 * A claim's folder is made beneath the class root by root on a descriptor of
 * the root (which no tenant can write), then given to the claim's Unix user
 * with fchown on its own descriptor: nothing a tenant can change is followed.
 * Removal runs as that user (find -delete in a child that dropped to its
 * uid), then root removes the folder itself only when it is empty
 * (unlinkat AT_REMOVEDIR, which never follows a symlink). */
#ifndef SL_STORAGE_STORAGE_H
#define SL_STORAGE_STORAGE_H

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

typedef struct sl_storage sl_storage_t;
typedef struct sl_storage_class sl_storage_class_t;

/* The classes of file (NULL: an empty set). NULL with err naming the key. */
sl_storage_t *sl_storage_load(const char *file, sl_error_t *err);
void sl_storage_destroy(sl_storage_t *s); /* NULL is a no-op */

/* The set the daemon serves (set once at start; NULL: none). */
void sl_storage_set_current(sl_storage_t *s);
const sl_storage_t *sl_storage_current(void);

size_t sl_storage_count(const sl_storage_t *s);
const sl_storage_class_t *sl_storage_at(const sl_storage_t *s, size_t i);
/* by name; NULL when none (name NULL or "": the default class, if any) */
const sl_storage_class_t *sl_storage_find(const sl_storage_t *s, const char *name);

const char *sl_storage_class_name(const sl_storage_class_t *k);
const char *sl_storage_class_root(const sl_storage_class_t *k);
const char *sl_storage_class_reclaim(const sl_storage_class_t *k); /* "Delete"/"Retain" */
const char *
sl_storage_class_binding(const sl_storage_class_t *k); /* "Immediate"/"WaitForFirstConsumer" */
int sl_storage_class_allows(const sl_storage_class_t *k, const char *access_mode);
/* bytes; -1 when unlimited */
int64_t sl_storage_class_max_claim(const sl_storage_class_t *k);
int64_t sl_storage_class_max_namespace(const sl_storage_class_t *k);
/* the storage.k8s.io/v1 StorageClass object of k (new reference) */
json_t *sl_storage_class_object(const sl_storage_class_t *k);

/* Make folder name (one component) beneath root, owned by uid:gid, mode
 * 0700 (an existing folder of uid will do: one made before a crash; a link
 * or anything else is refused). 0, or -1 with err. */
int sl_storage_make_dir(const char *root, const char *name, uid_t uid, gid_t gid, sl_error_t *err);
/* Empty folder name beneath root as uid:gid, then remove it: 0 (also when
 * it is gone already), or -1 with err (what is left stays). */
int sl_storage_remove_dir(const char *root, const char *name, uid_t uid, gid_t gid,
                          sl_error_t *err);
/* Used and total bytes of the filesystem holding root/name (root itself when
 * name is NULL) (statfs): 0 or -1. */
int sl_storage_fs_usage(const char *root, const char *name, int64_t *used, int64_t *total);

#endif
