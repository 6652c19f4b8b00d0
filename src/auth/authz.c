/* authz.c — decisions: may this user do this verb here; which account; which
 * Unix user. Messages are kube-apiserver's (RBAC denial, NewForbidden). */
#include "auth/internal.h"
#include "common/pwcache.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "kube/status.h"

#include <errno.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

enum { V_NONE = 0, V_READ, V_WRITE };

const az_ns_t *az_find_ns(const sl_authz_policy_t *p, const char *name)
{
    const az_ns_t *star = NULL;
    for (size_t i = 0; i < p->nns; i++) {
        if (!strcmp(p->ns[i].name, name))
            return &p->ns[i];
        if (!strcmp(p->ns[i].name, "*"))
            star = &p->ns[i];
    }
    return star;
}

static int in_names(const az_names_t *n, const char *s)
{
    for (size_t i = 0; s && i < n->n; i++)
        if (!strcmp(n->v[i], s))
            return 1;
    return 0;
}

static int any_group(const az_names_t *n, const char *const *groups)
{
    for (size_t i = 0; groups && groups[i]; i++)
        if (in_names(n, groups[i]))
            return 1;
    return 0;
}

static int rule_allows(const az_rule_t *r, const char *user, const char *const *groups)
{
    return in_names(&r->users, user) || any_group(&r->groups, groups);
}

/* read or write class of a request; V_NONE: only admins */
static int verb_class(const char *verb, const char *sub)
{
    if (sub && *sub) {
        if (!strcmp(sub, "log"))
            return V_READ;
        /* running code in a container changes it, whatever the HTTP verb */
        if (!strcmp(sub, "exec") || !strcmp(sub, "attach") || !strcmp(sub, "portforward") ||
            !strcmp(sub, "proxy"))
            return V_WRITE;
    }
    static const char *const rd[] = {"get", "list", "watch", "logs", NULL};
    static const char *const wr[] = {"create",           "update", "patch", "delete",
                                     "deletecollection", "exec",   NULL};
    for (int i = 0; rd[i]; i++)
        if (!strcmp(verb, rd[i]))
            return V_READ;
    for (int i = 0; wr[i]; i++)
        if (!strcmp(verb, wr[i]))
            return V_WRITE;
    return V_NONE;
}

/* Resources that live outside namespaces. Any other resource requested
 * without a namespace is a request across all namespaces (kubectl get pods
 * -A), which the cluster: rule must not grant: it would show every
 * tenant's objects. Unknown resources count as namespaced (fail safe). */
static int cluster_scoped(const char *resource)
{
    static const char *const cs[] = {"nodes",
                                     "namespaces",
                                     "persistentvolumes",
                                     "componentstatuses",
                                     "storageclasses",
                                     "csidrivers",
                                     "csinodes",
                                     "volumeattachments",
                                     "priorityclasses",
                                     "runtimeclasses",
                                     "ingressclasses",
                                     "customresourcedefinitions",
                                     "apiservices",
                                     "clusterroles",
                                     "clusterrolebindings",
                                     "certificatesigningrequests",
                                     "selfsubjectreviews",
                                     "selfsubjectaccessreviews",
                                     "selfsubjectrulesreviews",
                                     "tokenreviews",
                                     "subjectaccessreviews",
                                     "mutatingwebhookconfigurations",
                                     "validatingwebhookconfigurations",
                                     NULL};
    for (int i = 0; cs[i]; i++)
        if (!strcmp(resource, cs[i]))
            return 1;
    return 0;
}

/* Resources that set a namespace's limits: whoever may write the
 * namespace may read them, only admins write them (kube's default admin
 * and edit roles grant resourcequotas and limitranges read-only too). */
static int admin_written(const sl_authz_req_t *r)
{
    return (!r->api_group || !*r->api_group) &&
           (!strcmp(r->resource, "resourcequotas") || !strcmp(r->resource, "limitranges"));
}

/* Nodes are Slurm's: writing one (kubectl cordon, uncordon) drains or
 * resumes a Slurm node for every user of the cluster, as root. Only admins,
 * whatever cluster: write grants. */
static int slurm_written(const sl_authz_req_t *r)
{
    return (!r->api_group || !*r->api_group) && !strcmp(r->resource, "nodes");
}

/* Non-resource URLs that only a grant opens: what they show (every
 * tenant's pod counts, for /metrics) is more than discovery. */
static int nonres_restricted(const char *path)
{
    return path && (!strcmp(path, "/metrics") || !strncmp(path, "/metrics/", 9));
}

/* a nonResourceURLs entry matches path exactly, or as a prefix ending in '*' */
static int nonres_granted(const sl_authz_policy_t *p, const sl_authz_req_t *r)
{
    if (strcmp(r->verb, "get") != 0)
        return 0;
    for (size_t i = 0; i < p->nnonres; i++) {
        const char *u = p->nonres[i].url;
        size_t n = strlen(u);
        int match = n && u[n - 1] == '*' ? !strncmp(r->path, u, n - 1) : !strcmp(r->path, u);
        if (match && rule_allows(&p->nonres[i].get, r->user, r->groups))
            return 1;
    }
    return 0;
}

/* Asking what one may do oneself, or who one is (kubectl auth can-i,
 * auth can-i --list, auth whoami): every authenticated user may, as kube's
 * system:basic-user role grants. The answer is this policy's own. */
static int self_review(const sl_authz_req_t *r)
{
    if (strcmp(r->verb, "create") != 0 || !r->resource || (r->subresource && *r->subresource) ||
        !r->api_group)
        return 0;
    if (!strcmp(r->api_group, "authorization.k8s.io"))
        return !strcmp(r->resource, "selfsubjectaccessreviews") ||
               !strcmp(r->resource, "selfsubjectrulesreviews");
    return !strcmp(r->api_group, "authentication.k8s.io") &&
           !strcmp(r->resource, "selfsubjectreviews");
}

/* What someone else may do (a SubjectAccessReview) is the admins' to ask,
 * as kube's default roles give it to cluster-admin only: cluster: write
 * does not grant it. */
static int about_others(const sl_authz_req_t *r)
{
    return r->api_group && !strcmp(r->api_group, "authorization.k8s.io") && r->resource &&
           (!strcmp(r->resource, "subjectaccessreviews") ||
            !strcmp(r->resource, "localsubjectaccessreviews"));
}

static int decide(const sl_authz_policy_t *p, const sl_authz_req_t *r)
{
    if (any_group(&p->admin_groups, r->groups))
        return 1;
    if (self_review(r))
        return 1;
    if (about_others(r))
        return 0;
    int cls = verb_class(r->verb, r->subresource);
    if (cls == V_NONE)
        return 0;
    /* a status says what slurmlinkd saw of Slurm (a pod's phase, its IPs):
     * only the admins, and the daemon itself, write it */
    if (cls == V_WRITE && r->subresource && !strcmp(r->subresource, "status"))
        return 0;
    if ((!r->resource || !*r->resource) && nonres_restricted(r->path))
        return nonres_granted(p, r);
    if (!r->resource || !*r->resource)
        return cls == V_READ; /* discovery, /version, /openapi: system:discovery */
    if (cls == V_WRITE && (admin_written(r) || slurm_written(r)))
        return 0;
    const az_rule_t *rd, *wr;
    if (!r->namespace || !*r->namespace) {
        if (!cluster_scoped(r->resource))
            return 0; /* across all namespaces: admins only */
        rd = &p->cluster_read;
        wr = &p->cluster_write;
    } else {
        const az_ns_t *ns = az_find_ns(p, r->namespace);
        if (!ns)
            return 0;
        rd = &ns->read;
        wr = &ns->write;
    }
    if (rule_allows(wr, r->user, r->groups))
        return 1; /* write implies read */
    return cls == V_READ && rule_allows(rd, r->user, r->groups);
}

/* forbiddenMessage() of k8s.io/apiserver .../responsewriters/errors.go */
static char *why_text(const sl_authz_req_t *r)
{
    char *user = sl_go_quote(r->user), *out;
    const char *grp = r->api_group ? r->api_group : "";
    if (!r->resource || !*r->resource) {
        char *path = sl_go_quote(r->path ? r->path : "");
        out = sl_xasprintf("User %s cannot %s path %s", user, r->verb, path);
        free(path);
        free(user);
        return out;
    }
    char *res = r->subresource && *r->subresource
                    ? sl_xasprintf("%s/%s", r->resource, r->subresource)
                    : sl_xstrdup(r->resource);
    char *qres = sl_go_quote(res), *qgrp = sl_go_quote(grp);
    if (r->namespace && *r->namespace) {
        char *qns = sl_go_quote(r->namespace);
        out = sl_xasprintf("User %s cannot %s resource %s in API group %s in the namespace %s",
                           user, r->verb, qres, qgrp, qns);
        free(qns);
    } else {
        out = sl_xasprintf("User %s cannot %s resource %s in API group %s at the cluster scope",
                           user, r->verb, qres, qgrp);
    }
    free(qres);
    free(qgrp);
    free(res);
    free(user);
    return out;
}

char *sl_authz_message(const sl_authz_req_t *r, const char *why)
{
    return sl_kube_forbidden_message(r->resource, r->api_group, r->name, why);
}

int sl_authz_check_req(const sl_authz_policy_t *p, const sl_authz_req_t *r, sl_error_t *err)
{
    if (!p || !r || !r->user || !*r->user || !r->verb || !*r->verb) {
        errno = EINVAL;
        return sl_errkindf(err, SL_ERR_BAD_REQUEST, "authorization: no user or verb");
    }
    if (decide(p, r))
        return 1;
    char *w = why_text(r);
    sl_errkindf(err, SL_ERR_FORBIDDEN, "%s", w);
    free(w);
    return 0;
}

int sl_authz_check(const sl_authz_policy_t *p, const char *user, const char *const *groups,
                   const char *verb, const char *resource, const char *namespace, sl_error_t *err)
{
    if (!resource) {
        errno = EINVAL;
        return sl_errkindf(err, SL_ERR_BAD_REQUEST, "authorization: no resource");
    }
    /* RESOURCE[.GROUP][/SUB]: plural resource names hold no '.', groups do */
    char *res = sl_xstrdup(resource);
    char *sub = strchr(res, '/');
    if (sub)
        *sub++ = '\0';
    char *grp = strchr(res, '.');
    if (grp)
        *grp++ = '\0';
    sl_authz_req_t r = {.user = user,
                        .groups = groups,
                        .verb = verb,
                        .api_group = grp ? grp : "",
                        .resource = res,
                        .subresource = sub,
                        .namespace = namespace};
    int rc = sl_authz_check_req(p, &r, err);
    if (rc == 0 && err) {
        char *m = sl_authz_message(&r, err->text);
        sl_errkindf(err, SL_ERR_FORBIDDEN, "%s", m);
        free(m);
    }
    free(res);
    return rc;
}

char *sl_authz_account(const sl_authz_policy_t *p, const char *ns)
{
    const az_ns_t *e = p ? az_find_ns(p, ns) : NULL;
    return sl_xstrdup(e && e->account ? e->account : ns);
}

size_t sl_authz_default_quota(const sl_authz_policy_t *p, const char *ns, const char *const **names,
                              const char *const **values)
{
    const az_ns_t *e = p ? az_find_ns(p, ns) : NULL;
    const az_quota_t *q = e && e->quota.names.n ? &e->quota : p ? &p->quota : NULL;
    if (!q || !q->names.n)
        return 0;
    *names = (const char *const *)q->names.v;
    *values = (const char *const *)q->values.v;
    return q->names.n;
}

const sl_auth_user_t *sl_authz_anonymous(const sl_authz_policy_t *p)
{
    return p ? p->anonymous : NULL;
}

int sl_authz_unix_user(const sl_authz_policy_t *p, const char *user, uid_t *uid, gid_t *gid,
                       char **name, sl_error_t *err)
{
    if (!p || !user || !*user) {
        errno = EINVAL;
        return sl_errprintf(err, "no user");
    }
    const char *target = NULL;
    for (size_t i = 0; i < p->nusers; i++)
        if (!strcmp(p->users[i].kube, user))
            target = p->users[i].unix_name;
    int explicit_map = target != NULL;
    if (!target)
        target = user;
    char *quser = sl_go_quote(user), *qt = sl_go_quote(target);
    sl_pwent_t pw = {0}, *res = &pw; /* kept a few seconds (pwcache.h) */
    int r = -1;
    if (sl_pwcache_name(target, &pw) < 0) {
        errno = ENOENT;
        sl_errprintf(err, "user %s maps to Unix user %s, which does not exist", quser, qt);
    } else if (res->uid == 0 && !p->allow_root) {
        errno = EPERM;
        sl_errprintf(err,
                     "user %s maps to Unix user %s, which is root (uid 0); the policy "
                     "does not allow jobs to run as root (allowRoot: false)",
                     quser, qt);
    } else if (res->uid != 0 && !explicit_map && (long)res->uid < p->min_uid) {
        errno = EPERM;
        sl_errprintf(err,
                     "user %s is also the name of the system account %s (uid %u, below "
                     "minUid %ld); map it explicitly under users: if that is intended",
                     quser, qt, (unsigned)res->uid, p->min_uid);
    } else {
        if (uid)
            *uid = res->uid;
        if (gid)
            *gid = res->gid;
        if (name)
            *name = sl_xstrdup(res->name);
        r = 0;
    }
    sl_pwent_clear(&pw);
    free(quser);
    free(qt);
    return r;
}
