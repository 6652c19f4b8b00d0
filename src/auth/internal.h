/* internal.h — shared between the auth module's files only. */
#ifndef SL_AUTH_INTERNAL_H
#define SL_AUTH_INTERNAL_H

#include <stddef.h>
#include <sys/stat.h>

#include "auth/policy.h"

typedef struct az_names {
    char **v;
    size_t n;
} az_names_t;

typedef struct az_rule {
    az_names_t users, groups;
} az_rule_t;

/* defaultQuota: resource names and quantities (as written), in file order */
typedef struct az_quota {
    az_names_t names, values;
} az_quota_t;

typedef struct az_ns {
    char *name;    /* namespace, or "*" */
    char *account; /* NULL: the namespace name */
    az_rule_t read, write;
    az_quota_t quota;
} az_ns_t;

typedef struct az_umap {
    char *kube, *unix_name;
} az_umap_t;

/* nonResourceURLs: a URL ("/metrics", or a prefix ending in "*") and who may get it */
typedef struct az_nonres {
    char *url;
    az_rule_t get;
} az_nonres_t;

struct sl_authz_policy {
    az_names_t admin_groups;
    int allow_root;
    long min_uid;
    sl_auth_user_t *anonymous; /* NULL: no plain-HTTP identity */
    az_rule_t cluster_read, cluster_write;
    az_quota_t quota; /* top-level defaultQuota */
    az_ns_t *ns;
    size_t nns;
    az_umap_t *users;
    size_t nusers;
    az_nonres_t *nonres;
    size_t nnonres;
};

#define AZ_DEFAULT_MIN_UID 1000

/* A file whose content grants access (tokens, policy) must be root's or
 * the daemon's uid's and writable by neither group nor others: anyone else
 * who can write it can grant themselves anything. 1 (errno EPERM, err
 * saying why and how to fix it) when it is not, else 0. what: "tokens". */
int az_file_untrusted(const char *path, const struct stat *sb, const char *what, sl_error_t *err);

/* the ns entry for name, else the "*" entry, else NULL */
const az_ns_t *az_find_ns(const sl_authz_policy_t *p, const char *name);

#endif
