/* user.h — an authenticated Kubernetes identity (user.Info of kube-apiserver).
 *
 * Produced by the token file (tokens.h), a verified client certificate or the
 * policy's anonymous identity (authn.h); consumed by authorization (policy.h).
 * A user owns copies of all its strings; sl_auth_user_destroy frees them.
 */
#ifndef SL_AUTH_USER_H
#define SL_AUTH_USER_H

#include <stddef.h>

typedef struct sl_auth_user {
    char *name;    /* "alice" */
    char *uid;     /* "" when the credential carries none (certificates) */
    char **groups; /* NULL-terminated, never NULL */
    size_t ngroups;
} sl_auth_user_t;

/* groups: NULL-terminated, may be NULL; empty names are dropped and
 * duplicates kept once. uid may be NULL (""). */
sl_auth_user_t *sl_auth_user_create(const char *name, const char *uid, const char *const *groups);
sl_auth_user_t *sl_auth_user_copy(const sl_auth_user_t *u);
void sl_auth_user_destroy(sl_auth_user_t *u); /* NULL is a no-op */

/* Add group unless already present (e.g. "system:authenticated"). */
void sl_auth_user_add_group(sl_auth_user_t *u, const char *group);
int sl_auth_user_in_group(const sl_auth_user_t *u, const char *group);

#endif
