/* user.c — authenticated identities. */
#include "auth/user.h"
#include "common/xalloc.h"

#include <string.h>

sl_auth_user_t *sl_auth_user_create(const char *name, const char *uid, const char *const *groups)
{
    sl_auth_user_t *u = sl_xcalloc(1, sizeof(*u));
    u->name = sl_xstrdup(name ? name : "");
    u->uid = sl_xstrdup(uid ? uid : "");
    u->groups = sl_xcalloc(1, sizeof(char *));
    for (size_t i = 0; groups && groups[i]; i++)
        sl_auth_user_add_group(u, groups[i]);
    return u;
}

sl_auth_user_t *sl_auth_user_copy(const sl_auth_user_t *u)
{
    return u ? sl_auth_user_create(u->name, u->uid, (const char *const *)u->groups) : NULL;
}

void sl_auth_user_destroy(sl_auth_user_t *u)
{
    if (!u)
        return;
    free(u->name);
    free(u->uid);
    for (size_t i = 0; i < u->ngroups; i++)
        free(u->groups[i]);
    free(u->groups);
    free(u);
}

int sl_auth_user_in_group(const sl_auth_user_t *u, const char *group)
{
    for (size_t i = 0; u && i < u->ngroups; i++)
        if (!strcmp(u->groups[i], group))
            return 1;
    return 0;
}

void sl_auth_user_add_group(sl_auth_user_t *u, const char *group)
{
    if (!group || !*group || sl_auth_user_in_group(u, group))
        return;
    u->groups = sl_xrealloc(u->groups, (u->ngroups + 2) * sizeof(char *));
    u->groups[u->ngroups++] = sl_xstrdup(group);
    u->groups[u->ngroups] = NULL;
}
