/* mergekeys.h — internal to src/kube: the patch metadata of the built-in kinds
 * (the patchStrategy / patchMergeKey struct tags of k8s.io/api), shared by
 * strategic merge (patch.c) and server-side apply (apply.c). */
#ifndef SL_KUBE_MERGEKEYS_H
#define SL_KUBE_MERGEKEYS_H

#include <jansson.h>

enum smp_strategy {
    SMP_DEFAULT = 0, /* maps merge, lists are replaced (atomic) */
    SMP_MERGE,       /* lists merge: by merge key (maps) or as a set (scalars) */
    SMP_REPLACE,     /* maps are replaced as a whole */
};

struct smp_type;

struct smp_field {
    const char *name;
    enum smp_strategy strategy;
    const char *merge_key;       /* lists of maps merged by this key */
    const struct smp_type *type; /* of the value, or of each element for lists */
};

struct smp_type {
    const struct smp_field *fields; /* NULL-name terminated */
};

/* Type of a whole object of apiVersion/kind; unknown kinds get one with
 * only the ObjectMeta rules. Never NULL. */
const struct smp_type *sl_kube_mergekeys_for(const char *api_version, const char *kind);
/* Field name in type t (t may be NULL), or NULL when it has no metadata. */
const struct smp_field *sl_kube_mergekeys_field(const struct smp_type *t, const char *name);

#endif
