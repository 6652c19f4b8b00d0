/* fuzz_policy.c — libFuzzer: the policy parser (policy.yaml, auth/policy.h)
 * and the decisions of whatever it accepts. A parsed policy must answer
 * every question without crashing; nobody outside adminGroups may list pods
 * across all namespaces; the anonymous identity, when there is one, has a
 * name. */
#include "auth/policy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    sl_authz_policy_t *p = sl_authz_policy_parse(s, "policy.yaml", NULL);
    if (p) {
        static const char *const users[] = {"alice", "admin", "root", "nobody", "x", NULL};
        static const char *const verbs[] = {"get",    "list",        "watch", "create",
                                            "delete", "impersonate", NULL};
        static const char *const res[] = {"pods",       "pods/log",   "secrets", "nodes",
                                          "namespaces", "jobs.batch", NULL};
        const char *none[] = {"system:authenticated", NULL};
        for (int u = 0; users[u]; u++) {
            for (int v = 0; verbs[v]; v++)
                for (int r = 0; res[r]; r++) {
                    sl_error_t why = SL_ERROR_INIT;
                    int rc = sl_authz_check(p, users[u], none, verbs[v], res[r], "default", &why);
                    if (rc < 0 || (rc == 0 && !*why.text))
                        abort();
                }
            /* all namespaces: admins only, and none of these users is one
             * unless system:authenticated was made an admin group */
            int rc = sl_authz_check(p, users[u], none, "list", "pods", NULL, NULL);
            const char *adm[] = {"system:authenticated", NULL};
            int is_admin = sl_authz_check(p, users[u], adm, "impersonate", "users", NULL, NULL);
            if (rc == 1 && is_admin != 1)
                abort();
            uid_t uid;
            char *name = NULL;
            if (sl_authz_unix_user(p, users[u], &uid, NULL, &name, NULL) == 0 && !name)
                abort();
            free(name);
        }
        free(sl_authz_account(p, "default"));
        const sl_auth_user_t *a = sl_authz_anonymous(p);
        if (a && (!a->name || !*a->name))
            abort();
        sl_authz_policy_destroy(p);
    }
    free(s);
    return 0;
}
