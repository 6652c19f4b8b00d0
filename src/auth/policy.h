/* policy.h — who may do what, and who the jobs run as (docs/security.md).
 *
 * One YAML file (libyaml), loaded once and immutable afterwards (share it
 * between threads; to reload, load a new one and swap the pointer):
 *
 *   apiVersion: slurmlink.io/v1           # optional; must be this when given
 *   kind: Policy                          # optional; must be this when given
 *   adminGroups: [system:masters]         # may do everything, everywhere
 *   allowRoot: false                      # may a user be mapped to uid 0?
 *   minUid: 1000                          # floor for the implicit user → user mapping
 *   anonymous: {user: dev, groups: [devs]}  # identity of the loopback plain-HTTP
 *                                         # listener; absent: that listener refuses
 *   cluster:                              # cluster-scoped requests (nodes, namespaces,
 *     read:  {groups: [system:authenticated]}  #  lists across all namespaces)
 *     write: {users: [], groups: []}
 *   namespaces:
 *     team-a:
 *       account: proj-a                   # Slurm account (default: the namespace name)
 *       read:  {users: [carol], groups: [auditors]}
 *       write: {users: [alice], groups: [team-a]}
 *     "*":                                # any namespace not listed by name
 *       read: {groups: [system:authenticated]}
 *       defaultQuota: {pods: 100, requests.nvidia.com/gpu: 4}  # see below
 *   defaultQuota: {pods: 1000}            # for namespaces whose entry has none
 *   users:                                # Kubernetes user → Unix user (default: same name)
 *     alice: alice
 *     ci-bot: svc_ci
 *   nonResourceURLs:                      # who may GET a non-resource URL that is
 *     /metrics: {users: [prometheus]}     #  not open to all (a trailing '*': a prefix)
 *
 * Requests without a namespace: for cluster-scoped resources (nodes,
 * namespaces, persistentvolumes, CRDs, ...) the cluster: rules apply; for
 * namespaced ones (pods -A) they mean "every namespace", which only
 * adminGroups may do. A namespace object itself (GET /api/v1/namespaces/bob)
 * is authorized with namespace "bob", as kube-apiserver does.
 *
 * Verbs: read = get, list, watch (and the pods/log subresource); write =
 * create, update, patch, delete, deletecollection (and pods/exec, attach,
 * portforward, proxy). Write implies read. Anything else (impersonate,
 * escalate, bind, ...) only adminGroups may do, and so are writes of a
 * status subresource (pods/status: what slurmlinkd saw of Slurm).
 * Every user may create the self reviews (selfsubjectaccessreviews,
 * selfsubjectrulesreviews, selfsubjectreviews): kube's system:basic-user.
 * SubjectAccessReviews (what another user may do): adminGroups only.
 * Impersonation (kubectl --as) is the verb impersonate on users, groups
 * and uids: adminGroups only.
 *
 * Errors name the file, the line and the field:
 *   policy.yaml:12: namespaces.team-a.read.users[1]: must be a string
 */
#ifndef SL_AUTH_POLICY_H
#define SL_AUTH_POLICY_H

#include <stddef.h>
#include <sys/types.h>

#include "auth/user.h"
#include "common/err.h"

typedef struct sl_authz_policy sl_authz_policy_t;

/* name labels messages (the path, or e.g. "policy.yaml"). */
sl_authz_policy_t *sl_authz_policy_parse(const char *text, const char *name, sl_error_t *err);
sl_authz_policy_t *sl_authz_policy_load(const char *path, sl_error_t *err);
void sl_authz_policy_destroy(sl_authz_policy_t *p); /* NULL is a no-op */

/* The request being authorized (kube-apiserver's authorizer.Attributes). */
typedef struct sl_authz_req {
    const char *user;          /* authenticated user name */
    const char *const *groups; /* NULL-terminated; may be NULL */
    const char *verb;          /* get list watch create update patch delete deletecollection */
    const char *api_group;     /* "" or NULL: core; "batch"; "kubeflow.org" */
    const char *resource;      /* plural: "pods"; NULL for a non-resource URL */
    const char *subresource;   /* "log", "exec", "status"; NULL or "" for none */
    const char *namespace;     /* NULL or "": cluster scope */
    const char *name;          /* object name, NULL or "" for collections */
    const char *path;          /* URL path, for non-resource requests */
} sl_authz_req_t;

/* 1 allowed; 0 denied, err (may be NULL) of kind SL_ERR_FORBIDDEN with the
 * authorizer's reason as its text:
 *   User "alice" cannot list resource "pods" in API group "" in the namespace "bob"
 * -1 a request it cannot judge (EINVAL: no user or verb; SL_ERR_BAD_REQUEST).
 * The API's 403 wraps the reason (sl_kube_status_forbidden(resource, group,
 * name, err->text): "pods is forbidden: User ..."), with the same writer as
 * sl_authz_message().
 * Non-resource URLs (discovery, /version, /healthz, /openapi) are readable
 * by every authenticated user, as kube-apiserver's system:discovery role;
 * /metrics (and below) only by adminGroups and the users and groups that a
 * nonResourceURLs entry names, with verb get (RBAC's nonResourceURLs rule). */
int sl_authz_check_req(const sl_authz_policy_t *p, const sl_authz_req_t *r, sl_error_t *err);

/* kube-apiserver's 403 message for a denial of r with reason why
 * (NewForbidden(): `pods "p1" is forbidden: why`, `forbidden: why` for a
 * non-resource URL), written by sl_kube_forbidden_message() (src/kube), as
 * the API's 403 is. Caller frees. */
char *sl_authz_message(const sl_authz_req_t *r, const char *why);

/* Short form: resource is "pods", "pods/log" or "jobs.batch" (RESOURCE[.GROUP][/SUB]).
 * namespace NULL or "": cluster scope. Same returns as sl_authz_check_req;
 * on denial err's text is the whole 403 message (sl_authz_message()). */
int sl_authz_check(const sl_authz_policy_t *p, const char *user, const char *const *groups,
                   const char *verb, const char *resource, const char *namespace, sl_error_t *err);

/* The Slurm account for jobs of namespace ns (caller frees). */
char *sl_authz_account(const sl_authz_policy_t *p, const char *ns);

/* The Unix user jobs of Kubernetes user `user` run as: the users: entry, else
 * the same name. Fails (-1, err) when that Unix user does not exist (ENOENT),
 * is root without allowRoot: true (EPERM), or — for the implicit same-name
 * mapping only — has a uid below minUid (EPERM: system accounts are reached
 * only by an explicit entry). *name: caller frees; any out pointer may be NULL. */
int sl_authz_unix_user(const sl_authz_policy_t *p, const char *user, uid_t *uid, gid_t *gid,
                       char **name, sl_error_t *err);

/* Whether Unix user `name`, whose primary group is `primary`, may run a job
 * as group gid (securityContext.runAsGroup): its primary group or a group it
 * is a member of (getgrouplist), as `sg` would let it. 1 or 0. */
int sl_authz_unix_group_ok(const char *name, gid_t primary, gid_t gid);

/* The default quota of namespace ns: its entry's defaultQuota (by name,
 * else "*"), else the top-level one. Returns the number of resources (0:
 * none); *names and *values (quantities as written) are borrowed from the
 * policy. slurmlinkd makes it a ResourceQuota named "default" in every
 * namespace that has no quota (src/api/quota.c). */
size_t sl_authz_default_quota(const sl_authz_policy_t *p, const char *ns, const char *const **names,
                              const char *const **values);

/* The identity of the loopback plain-HTTP listener, or NULL when the policy
 * has no anonymous: section (the listener must then refuse requests).
 * Borrowed: lives as long as the policy. */
const sl_auth_user_t *sl_authz_anonymous(const sl_authz_policy_t *p);

#endif
