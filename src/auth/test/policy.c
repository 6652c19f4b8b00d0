/* policy file parsing (errors with lines and fields) and authorization
 * decisions: grants by user and group, cross-namespace denial, admins,
 * cluster scope, verbs and subresources, 403 texts, accounts, Unix users. */
#include "auth/policy.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *POLICY = "# test policy\n"
                            "apiVersion: slurmlink.io/v1\n"
                            "kind: Policy\n"
                            "adminGroups: [system:masters]\n"
                            "allowRoot: false\n"
                            "anonymous:\n"
                            "  user: dev\n"
                            "  groups: [devs]\n"
                            "cluster:\n"
                            "  read: {groups: [system:authenticated]}\n"
                            "namespaces:\n"
                            "  alice:\n"
                            "    account: proj-a\n"
                            "    write: {users: [alice]}\n"
                            "  bob:\n"
                            "    write:\n"
                            "      users: [bob]\n"
                            "    read:\n"
                            "      groups: [auditors]\n"
                            "  shared:\n"
                            "    read: {groups: [devs]}\n"
                            "    write: {groups: [gpu-team]}\n"
                            "  \"*\":\n"
                            "    account: misc\n"
                            "    read: {users: [carol]}\n"
                            "users:\n"
                            "  alice: nobody\n"
                            "  superuser: root\n"
                            "  ghost: no-such-user-xyz\n";

static int check(const sl_authz_policy_t *p, const char *user, const char *const *groups,
                 const char *verb, const char *res, const char *ns)
{
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_authz_check(p, user, groups, verb, res, ns, &err);
    ok(r == 0 ? *err.text && err.kind == SL_ERR_FORBIDDEN : !*err.text,
       "message only on denial (%s %s %s/%s)", user, verb, ns ? ns : "-", res);
    sl_error_clear(&err);
    return r;
}

/* The short form with its 403 message (NULL when allowed). */
static int check_msg(const sl_authz_policy_t *p, const char *user, const char *const *groups,
                     const char *verb, const char *res, const char *ns, char **msg)
{
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_authz_check(p, user, groups, verb, res, ns, &err);
    *msg = r == 0 ? sl_xstrdup(err.text) : NULL;
    sl_error_clear(&err);
    return r;
}

/* The request form: the reason (why) and the 403 message built from it. */
static int req_msg(const sl_authz_policy_t *p, const sl_authz_req_t *rq, char **why, char **msg)
{
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_authz_check_req(p, rq, &err);
    if (why)
        *why = r == 0 ? sl_xstrdup(err.text) : NULL;
    if (msg)
        *msg = r == 0 ? sl_authz_message(rq, err.text) : NULL;
    sl_error_clear(&err);
    return r;
}

static void policy_fails(const char *text, const char *want, const char *desc)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_authz_policy_t *p = sl_authz_policy_parse(text, "policy.yaml", &err);
    ok(p == NULL, "refused: %s", desc);
    has_str(err.text, want, "  message for %s", desc);
    sl_authz_policy_destroy(p);
}

static int get_path(const sl_authz_policy_t *p, const char *user, const char *const *groups,
                    const char *verb, const char *path, char **msg)
{
    sl_authz_req_t r = {.user = user, .groups = groups, .verb = verb, .path = path};
    return req_msg(p, &r, NULL, msg);
}

/* /metrics: only admins and what nonResourceURLs grants (RBAC's rule) */
/* cluster: write grants cluster-scoped writes, but not those that act on
 * Slurm (nodes) or tell others' rights (subjectaccessreviews) */
static void test_cluster_writer(void)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_authz_policy_t *p = sl_authz_policy_parse(
        "adminGroups: [system:masters]\ncluster:\n  write: {users: [ops]}\n", "cw.yaml", &err);
    ok(p != NULL, "cluster writer policy parses: %s", err.text);
    const char *none[] = {NULL};
    is_int(check(p, "ops", none, "list", "nodes", NULL), 1, "cluster writer reads nodes");
    is_int(check(p, "ops", none, "patch", "nodes", NULL), 0, "but may not cordon them");
    is_int(check(p, "ops", none, "create", "subjectaccessreviews.authorization.k8s.io", NULL), 0,
           "nor ask what others may do");
    sl_authz_policy_destroy(p);
}

static void test_nonresource(void)
{
    const char *text = "adminGroups: [system:masters]\n"
                       "nonResourceURLs:\n"
                       "  /metrics: {users: [prom], groups: [monitoring]}\n"
                       "  /debug/*: {users: [dbg]}\n";
    sl_error_t err = SL_ERROR_INIT;
    sl_authz_policy_t *p = sl_authz_policy_parse(text, "policy.yaml", &err);
    ok(p != NULL, "nonResourceURLs parses (%s)", err.text);
    if (!p)
        return;
    const char *auth[] = {"system:authenticated", NULL};
    const char *mon[] = {"monitoring", "system:authenticated", NULL};
    const char *adm[] = {"system:masters", NULL};
    char *msg = NULL;
    is_int(get_path(p, "prom", auth, "get", "/metrics", NULL), 1, "the granted user gets /metrics");
    is_int(get_path(p, "anyone", mon, "get", "/metrics", NULL), 1, "so does the granted group");
    is_int(get_path(p, "root", adm, "get", "/metrics", NULL), 1, "and an admin");
    is_int(get_path(p, "alice", auth, "get", "/metrics", &msg), 0, "others may not");
    is_str(msg, "forbidden: User \"alice\" cannot get path \"/metrics\"",
           "kube-apiserver's message");
    free(msg);
    is_int(get_path(p, "alice", auth, "get", "/metrics/x", NULL), 0, "nor below /metrics");
    is_int(get_path(p, "prom", auth, "post", "/metrics", NULL), 0, "the grant is get only");
    is_int(get_path(p, "prom", auth, "get", "/version", NULL), 1, "discovery stays open");
    is_int(get_path(p, "dbg", auth, "get", "/debug/pprof", NULL), 1, "a '*' grants a prefix");
    sl_authz_policy_destroy(p);
    p = sl_authz_policy_parse("adminGroups: [system:masters]\n", "policy.yaml", &err);
    is_int(get_path(p, "prom", auth, "get", "/metrics", NULL), 0, "no grant: /metrics is closed");
    sl_authz_policy_destroy(p);
    policy_fails("nonResourceURLs:\n  metrics: {users: [a]}\n", "is not a URL path",
                 "a URL without '/'");
    policy_fails("nonResourceURLs:\n  /a*b: {users: [a]}\n", "a '*' may only end it",
                 "a '*' inside");
    policy_fails("nonResourceURLs:\n  /metrics: {verbs: [get]}\n", "expected users or groups",
                 "an unknown field");
}

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_authz_policy_t *p = sl_authz_policy_parse(POLICY, "policy.yaml", &err);
    ok(p != NULL, "policy parses (%s)", err.text);
    if (!p)
        return tap_done();

    const char *none[] = {"system:authenticated", NULL};
    const char *devs[] = {"devs", "system:authenticated", NULL};
    const char *admins[] = {"system:masters", NULL};
    const char *auditors[] = {"auditors", NULL};
    const char *gpu[] = {"gpu-team", NULL};

    /* own namespace */
    is_int(check(p, "alice", none, "list", "pods", "alice"), 1, "alice lists her pods");
    is_int(check(p, "alice", none, "create", "pods", "alice"), 1, "alice creates pods");
    is_int(check(p, "alice", none, "delete", "pods", "alice"), 1, "alice deletes pods");
    is_int(check(p, "alice", none, "get", "pods/log", "alice"), 1, "alice reads logs");
    is_int(check(p, "alice", none, "get", "secrets", "alice"), 1, "alice reads her secrets");
    is_int(check(p, "alice", none, "create", "pods/exec", "alice"), 1, "alice execs");
    is_int(check(p, "alice", none, "get", "pods/status", "alice"), 1, "alice reads pods/status");
    is_int(check(p, "alice", none, "patch", "pods/status", "alice"), 0,
           "alice cannot patch pods/status, even in her namespace");
    is_int(check(p, "alice", none, "update", "pods/status", "alice"), 0, "... nor update it");
    is_int(check(p, "root-ish", admins, "patch", "pods/status", "alice"), 1,
           "admins write pods/status");

    /* another's namespace */
    is_int(check(p, "alice", none, "list", "pods", "bob"), 0, "alice cannot list bob's pods");
    is_int(check(p, "alice", none, "get", "pods", "bob"), 0, "alice cannot get bob's pod");
    is_int(check(p, "alice", none, "get", "pods/log", "bob"), 0, "alice cannot read bob's logs");
    is_int(check(p, "alice", none, "delete", "pods", "bob"), 0, "alice cannot delete bob's pods");
    is_int(check(p, "alice", none, "get", "secrets", "bob"), 0, "alice cannot read bob's secrets");
    is_int(check(p, "alice", none, "list", "configmaps", "bob"), 0,
           "alice cannot list bob's config maps");
    is_int(check(p, "alice", none, "get", "pods/exec", "bob"), 0,
           "alice cannot exec into bob's pods (GET upgrade)");
    is_int(check(p, "bob", none, "list", "pods", "alice"), 0, "bob cannot list alice's pods");

    /* group grants */
    is_int(check(p, "zed", auditors, "list", "pods", "bob"), 1, "auditors read bob's namespace");
    is_int(check(p, "zed", auditors, "watch", "pods", "bob"), 1, "... watch too");
    is_int(check(p, "zed", auditors, "delete", "pods", "bob"), 0, "... but cannot delete");
    is_int(check(p, "zed", auditors, "create", "pods/exec", "bob"), 0, "... nor exec");
    is_int(check(p, "zed", devs, "get", "pods", "shared"), 1, "devs read shared");
    is_int(check(p, "zed", devs, "patch", "pods", "shared"), 0, "devs cannot patch in shared");
    is_int(check(p, "zed", gpu, "patch", "pods", "shared"), 1, "gpu-team writes shared");
    is_int(check(p, "zed", gpu, "list", "pods", "shared"), 1, "write implies read");
    is_int(check(p, "devs", none, "get", "pods", "shared"), 0,
           "a user named like a group is not the group");
    is_int(check(p, "auditors", none, "get", "pods", "bob"), 0, "... nor elsewhere");

    /* "*" and unlisted namespaces */
    is_int(check(p, "carol", none, "get", "pods", "other"), 1, "\"*\" rule: carol reads any other");
    is_int(check(p, "carol", none, "get", "pods", "bob"), 0, "\"*\" does not add to listed ones");
    is_int(check(p, "carol", none, "create", "pods", "other"), 0, "\"*\" read only");

    /* admins */
    is_int(check(p, "root-ish", admins, "delete", "pods", "bob"), 1,
           "admin group deletes anywhere");
    is_int(check(p, "root-ish", admins, "impersonate", "users", NULL), 1,
           "admin group may use other verbs");
    is_int(check(p, "alice", none, "impersonate", "users", NULL), 0, "others may not");
    is_int(check(p, "alice", none, "escalate", "roles", "alice"), 0,
           "unknown verbs denied even in one's own namespace");

    /* the self reviews (kubectl auth can-i, whoami): every user, create only */
    is_int(check(p, "alice", none, "create", "selfsubjectaccessreviews.authorization.k8s.io", NULL),
           1, "anyone may ask what they may do");
    is_int(check(p, "alice", none, "create", "selfsubjectrulesreviews.authorization.k8s.io", NULL),
           1, "... or list it");
    is_int(check(p, "alice", none, "create", "selfsubjectreviews.authentication.k8s.io", NULL), 1,
           "... or who they are");
    is_int(check(p, "alice", none, "delete", "selfsubjectaccessreviews.authorization.k8s.io", NULL),
           0, "create only");
    is_int(check(p, "alice", none, "create", "selfsubjectaccessreviews", NULL), 0,
           "in their own group only");
    is_int(check(p, "alice", none, "create", "subjectaccessreviews.authorization.k8s.io", NULL), 0,
           "asking about others is not a self review");

    /* cluster scope */
    is_int(check(p, "alice", none, "list", "nodes", NULL), 1, "authenticated users list nodes");
    is_int(check(p, "alice", none, "delete", "nodes", ""), 0, "but cannot delete them");
    is_int(check(p, "alice", none, "patch", "nodes", ""), 0, "nor cordon them");
    is_int(check(p, "root-ish", admins, "patch", "nodes", ""), 1, "admins cordon nodes");
    is_int(check(p, "alice", none, "create", "pods/eviction", "alice"), 1,
           "eviction is a write of the namespace");
    is_int(check(p, "alice", none, "create", "pods/eviction", "bob"), 0, "... of one's own only");
    is_int(check(p, "alice", none, "list", "pods", NULL), 0,
           "cluster read does not cover pods of all namespaces (-A)");
    is_int(check(p, "alice", none, "list", "secrets", ""), 0, "... nor secrets of all");
    is_int(check(p, "alice", none, "list", "widgets.example.com", NULL), 0,
           "unknown resources without a namespace count as all-namespaces");
    is_int(check(p, "root-ish", admins, "list", "pods", NULL), 1, "admins list pods -A");
    is_int(check(p, "alice", none, "list", "namespaces", NULL), 1, "namespaces are cluster-scoped");
    is_int(check(p, "bob", none, "get", "namespaces", "bob"), 1,
           "bob gets his own namespace object");

    /* the 403 messages, byte for byte */
    char *msg = NULL;
    is_int(check_msg(p, "alice", none, "list", "pods", "bob", &msg), 0, "deny");
    is_str(msg,
           "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" "
           "in the namespace \"bob\"",
           "403 message for list");
    free(msg);
    check_msg(p, "alice", none, "get", "pods/log", "bob", &msg);
    is_str(msg,
           "pods is forbidden: User \"alice\" cannot get resource \"pods/log\" in API group \"\" "
           "in the namespace \"bob\"",
           "403 message for logs");
    free(msg);
    check_msg(p, "alice", none, "patch", "pods/status", "alice", &msg);
    is_str(msg,
           "pods is forbidden: User \"alice\" cannot patch resource \"pods/status\" in API group "
           "\"\" in the namespace \"alice\"",
           "403 message for a status write");
    free(msg);
    check_msg(p, "alice", none, "create", "jobs.batch", "bob", &msg);
    is_str(msg,
           "jobs.batch is forbidden: User \"alice\" cannot create resource \"jobs\" in API group "
           "\"batch\" in the namespace \"bob\"",
           "403 message with an API group");
    free(msg);
    check_msg(p, "alice", none, "delete", "nodes", NULL, &msg);
    is_str(msg,
           "nodes is forbidden: User \"alice\" cannot delete resource \"nodes\" in API group \"\" "
           "at the cluster scope",
           "403 message at the cluster scope");
    free(msg);
    char *why = NULL;
    sl_authz_req_t rq = {.user = "eve\"x",
                         .groups = none,
                         .verb = "delete",
                         .resource = "pods",
                         .namespace = "bob",
                         .name = "p1"};
    is_int(req_msg(p, &rq, &why, &msg), 0, "request form denies");
    is_str(msg,
           "pods \"p1\" is forbidden: User \"eve\\\"x\" cannot delete resource \"pods\" in API "
           "group \"\" in the namespace \"bob\"",
           "named object, quoted user (Go %%q)");
    is_str(why,
           "User \"eve\\\"x\" cannot delete resource \"pods\" in API group \"\" in the namespace "
           "\"bob\"",
           "why without the resource prefix");
    free(msg);
    free(why);
    sl_authz_req_t np = {.user = "alice", .groups = none, .verb = "post", .path = "/foo"};
    is_int(req_msg(p, &np, NULL, &msg), 0, "non-resource write denied");
    is_str(msg, "forbidden: User \"alice\" cannot post path \"/foo\"", "non-resource message");
    free(msg);
    np.verb = "get";
    np.path = "/apis";
    is_int(req_msg(p, &np, NULL, NULL), 1, "discovery readable");
    sl_authz_req_t bad = {.user = "", .verb = "get"};
    is_int(req_msg(p, &bad, NULL, NULL), -1, "no user: -1");

    /* accounts */
    char *a = sl_authz_account(p, "alice");
    is_str(a, "proj-a", "namespace alice → account proj-a");
    free(a);
    a = sl_authz_account(p, "bob");
    is_str(a, "bob", "no account given → the namespace name");
    free(a);
    a = sl_authz_account(p, "elsewhere");
    is_str(a, "misc", "unlisted namespace → the \"*\" account");
    free(a);

    /* anonymous */
    const sl_auth_user_t *an = sl_authz_anonymous(p);
    ok(an && !strcmp(an->name, "dev") && an->ngroups == 1 && !strcmp(an->groups[0], "devs"),
       "anonymous identity from the policy");

    /* Unix users */
    uid_t uid = 0;
    gid_t gid = 0;
    char *name = NULL;
    struct passwd *nb = getpwnam("nobody");
    is_int(sl_authz_unix_user(p, "alice", &uid, &gid, &name, &err), 0,
           "alice maps explicitly to nobody (%s)", err.text);
    ok(nb && uid == nb->pw_uid && gid == nb->pw_gid, "uid and gid of nobody");
    is_str(name, "nobody", "Unix name");
    free(name);
    ok(sl_authz_unix_user(p, "superuser", &uid, &gid, NULL, &err) < 0 && errno == EPERM,
       "mapping to root refused without allowRoot");
    has_str(err.text, "allowRoot", "... naming allowRoot");
    ok(sl_authz_unix_user(p, "root", &uid, &gid, NULL, &err) < 0 && errno == EPERM,
       "user root (implicit) refused");
    ok(sl_authz_unix_user(p, "ghost", &uid, &gid, NULL, &err) < 0 && errno == ENOENT,
       "mapping to a missing Unix user refused");
    has_str(err.text, "\"no-such-user-xyz\", which does not exist", "... naming it");
    ok(sl_authz_unix_user(p, "daemon", &uid, &gid, NULL, &err) < 0 && errno == EPERM,
       "implicit mapping onto a system account (daemon) refused");
    has_str(err.text, "minUid", "... naming minUid");
    sl_authz_policy_destroy(p);

    p = sl_authz_policy_parse("allowRoot: true\nusers: {superuser: root}\n", "p2", &err);
    ok(p != NULL, "policy with allowRoot");
    uid = 12345;
    is_int(sl_authz_unix_user(p, "superuser", &uid, NULL, NULL, &err), 0,
           "root allowed when the policy says so");
    is_int(uid, 0, "uid 0");
    ok(sl_authz_anonymous(p) == NULL, "no anonymous section: no plain-HTTP identity");
    is_int(check(p, "x", admins, "get", "pods", "a"), 0, "no adminGroups: no admins");
    sl_authz_policy_destroy(p);

    p = sl_authz_policy_parse("minUid: 1\n", "p3", &err);
    is_int(sl_authz_unix_user(p, "daemon", &uid, NULL, NULL, &err), 0,
           "minUid: 1 lets the same-name mapping reach system accounts");
    sl_authz_policy_destroy(p);

    /* parse errors: file, line, field, reason */
    policy_fails("namespaces:\n  a:\n    read: {users: alice}\n",
                 "policy.yaml:3: namespaces.a.read.users: must be a list of strings",
                 "users not a list");
    policy_fails("adminGroups: [a]\nbogus: 1\n", "policy.yaml:2: bogus: unknown field",
                 "unknown top-level field");
    policy_fails("namespaces:\n  Team_A: {}\n",
                 "policy.yaml:2: namespaces.Team_A: \"Team_A\" is not a namespace name",
                 "bad namespace name");
    policy_fails("namespaces:\n  a: {account: \"Bad Acct\"}\n",
                 "policy.yaml:2: namespaces.a.account: \"Bad Acct\" is not a Slurm account name",
                 "bad account");
    policy_fails("namespaces:\n  a:\n    read: {}\n  a:\n    write: {}\n",
                 "policy.yaml:4: namespaces: duplicate key \"a\"", "duplicate namespace");
    policy_fails("allowRoot: yes\n", "policy.yaml:1: allowRoot: must be true or false",
                 "allowRoot not boolean");
    policy_fails("users:\n  alice: \"rm -rf\"\n",
                 "policy.yaml:2: users.alice: \"rm -rf\" is not a Unix user name", "bad Unix user");
    policy_fails("namespaces:\n  a:\n    read: {users: [ok, [x]]}\n",
                 "policy.yaml:3: namespaces.a.read.users[1]: must be a string",
                 "nested list in users");
    policy_fails("namespaces:\n  a:\n    read: {usres: [x]}\n",
                 "policy.yaml:3: namespaces.a.read.usres: unknown field", "typo in a rule");
    policy_fails("apiVersion: v1\n", "policy.yaml:1: apiVersion: must be \"slurmlink.io/v1\"",
                 "wrong apiVersion");
    policy_fails("a: [1, 2\n", "policy.yaml:2: invalid YAML", "YAML syntax error");
    policy_fails("- a\n- b\n", "policy.yaml:1: (top level): must be a mapping", "a list");
    policy_fails("", "policy.yaml: empty policy", "empty file");
    policy_fails("adminGroups: []\n---\nadminGroups: [x]\n", "only one YAML document is allowed",
                 "two documents");
    policy_fails("anonymous: {groups: [a]}\n", "policy.yaml:1: anonymous: needs a user",
                 "anonymous without user");
    policy_fails("minUid: -3\n", "policy.yaml:1: minUid: must be an integer", "negative minUid");
    policy_fails("adminGroups: [\"\"]\n", "policy.yaml:1: adminGroups[0]: must not be empty",
                 "empty group name");
    policy_fails("adminGroups: [\"a\\tb\"]\n", "adminGroups[0]: holds a control character",
                 "control character");

    /* defaultQuota */
    policy_fails("defaultQuota: {pods: \"-1\"}\n",
                 "policy.yaml:1: defaultQuota.pods: must be greater than or equal to 0",
                 "negative default quota");
    policy_fails("namespaces:\n  a: {defaultQuota: {pods: 1x}}\n",
                 "policy.yaml:2: namespaces.a.defaultQuota.pods: quantities must match",
                 "malformed default quota");
    sl_authz_policy_t *dq = sl_authz_policy_parse(
        "defaultQuota: {pods: 1000}\nnamespaces:\n  a: {defaultQuota: {pods: 2, "
        "requests.nvidia.com/gpu: 4}}\n  b: {}\n",
        "policy.yaml", &err);
    ok(dq != NULL, "defaultQuota parses (%s)", err.text);
    const char *const *qn = NULL, *const *qv = NULL;
    is_int((int)sl_authz_default_quota(dq, "a", &qn, &qv), 2, "namespace a: its own default quota");
    ok(qn && qv && !strcmp(qn[1], "requests.nvidia.com/gpu") && !strcmp(qv[1], "4"),
       "... in file order, as written");
    is_int((int)sl_authz_default_quota(dq, "b", &qn, &qv), 1, "namespace b: the top-level one");
    ok(qv && !strcmp(qv[0], "1000"), "... pods: 1000");
    sl_authz_policy_destroy(dq);

    /* the file: root's (or the daemon's uid's), not writable by group or others */
    char pdir[] = "/tmp/poltest.XXXXXX";
    ok(mkdtemp(pdir) != NULL, "temp folder");
    char *ppath = sl_xasprintf("%s/policy.yaml", pdir);
    const char *ptext = "adminGroups: [system:masters]\n";
    sl_write_file(ppath, ptext, strlen(ptext), 0644, NULL);
    sl_authz_policy_t *pl = sl_authz_policy_load(ppath, &err);
    ok(pl != NULL, "a policy of root, mode 0644, loads (%s)", err.text);
    sl_authz_policy_destroy(pl);
    ok(chown(ppath, 54321, 54321) == 0, "policy given to uid 54321");
    pl = sl_authz_policy_load(ppath, &err);
    ok(pl == NULL, "a policy owned by another uid is refused");
    has_str(err.text, "owned by uid 54321, not by root or slurmlinkd", "... naming its owner");
    sl_authz_policy_destroy(pl);
    ok(chown(ppath, 0, 0) == 0 && chmod(ppath, 0664) == 0, "back to root, mode 0664");
    pl = sl_authz_policy_load(ppath, &err);
    ok(pl == NULL, "a group-writable policy is refused");
    has_str(err.text, "mode 0664 lets group or others change the policy", "... saying why");
    sl_authz_policy_destroy(pl);
    unlink(ppath);
    rmdir(pdir);
    free(ppath);

    ok(sl_authz_policy_load("/nonexistent/policy.yaml", &err) == NULL, "missing file fails");
    has_str(err.text, "/nonexistent/policy.yaml", "... naming the file");
    sl_authz_policy_destroy(NULL);
    test_nonresource();
    test_cluster_writer();
    return tap_done();
}
