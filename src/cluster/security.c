/* security.c — a folder's TLS and credential material, made once by `up`:
 *
 *   D/pki/ca.crt, ca.key          the cluster CA (10 years)
 *   D/pki/server.crt, server.key  slurmlinkd's certificate (IP 127.0.0.1, localhost, host name)
 *   D/pki/admin.crt, admin.key    user "admin" in group "system:masters"
 *   D/etc/tokens.csv              bearer tokens (0600; `slurmlink kubeconfig --token` appends)
 *   D/etc/policy.yaml             authorization and identity policy (default below)
 *   D/kubeconfig                  the admin's HTTPS kubeconfig (rewritten at each up: the port)
 *
 * Keys are 0600, certificates 0644 (jobs read ca.crt to trust slurmlinkd).
 * An existing CA is kept: replacing it would invalidate every kubeconfig
 * issued from it. Server and admin certificates are re-issued when they are
 * missing, not from this CA, or within 30 days of expiry.
 */
#include "auth/kubeconfig.h"
#include "auth/policy.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "internal.h"
#include "pki/pki.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RENEW_BEFORE_S (30LL * 86400)

static const char DEFAULT_POLICY[] =
    "# slurmlink authorization and identity policy (see docs/security.md).\n"
    "# slurmlinkd refuses to start with a policy that has any error in it.\n"
    "apiVersion: slurmlink.io/v1\n"
    "kind: Policy\n"
    "\n"
    "# Members of these groups may do everything in every namespace. The admin\n"
    "# credential made by `slurmlink up` (D/kubeconfig) is in system:masters.\n"
    "adminGroups: [system:masters]\n"
    "\n"
    "# Jobs never run as root (uid 0) unless this is true.\n"
    "allowRoot: false\n"
    "\n"
    "# A Kubernetes user with no entry under users: runs jobs as the Unix user\n"
    "# of the same name, which must exist and have a uid of at least minUid.\n"
    "minUid: 1000\n"
    "\n"
    "# Cluster-scoped objects (nodes, namespaces): every authenticated user reads them.\n"
    "cluster:\n"
    "  read: {groups: [system:authenticated]}\n"
    "\n"
    "# Per namespace: who may read (get, list, watch, logs) and write (create,\n"
    "# update, patch, delete, exec), and the Slurm account of its jobs (default:\n"
    "# the namespace name). \"*\" stands for every namespace not listed.\n"
    "namespaces:\n"
    "  default:\n"
    "    account: default\n"
    "  # team-a:\n"
    "  #   account: team-a\n"
    "  #   read:  {groups: [auditors]}\n"
    "  #   write: {users: [alice], groups: [team-a]}\n"
    "\n"
    "# Kubernetes user -> Unix user its jobs run as.\n"
    "users:\n";
/* then "  admin: USER\n" (the cluster's run-as user), then this */
static const char DEFAULT_POLICY_TAIL[] =
    "  # alice: alice\n"
    "\n"
    "# The identity of the loopback plain-HTTP listener, when it is enabled;\n"
    "# without this section that listener refuses every request.\n"
    "# anonymous: {user: admin, groups: [system:masters]}\n";

static const char TOKENS_HEADER[] =
    "# slurmlink bearer tokens, kube-apiserver's --token-auth-file format:\n"
    "# token,user,uid,\"group1,group2\"[,expires RFC 3339 UTC]\n"
    "# `slurmlink kubeconfig --user NAME --token` appends lines here.\n";

static int exists(const char *p) { return access(p, F_OK) == 0; }

/* the default policy, its admin's jobs running as user */
static int write_policy(const char *path, const char *user, sl_error_t *err)
{
    char *text = sl_xasprintf("%s  admin: %s\n%s", DEFAULT_POLICY, user, DEFAULT_POLICY_TAIL);
    int r = sl_write_file(path, text, strlen(text), 0644, err);
    free(text);
    return r;
}

/* Load name.crt/.key and keep them if trusted by ca for purpose and not near
 * expiry; else issue new ones with make(). */
typedef sl_pki_cred_t *(*make_fn)(const sl_pki_cred_t *ca, const char *const *sans,
                                  sl_error_t *err);

static sl_pki_cred_t *make_server(const sl_pki_cred_t *ca, const char *const *sans, sl_error_t *err)
{
    return sl_pki_issue_server(ca, "slurmlinkd", sans, 0, err);
}

static sl_pki_cred_t *make_admin(const sl_pki_cred_t *ca, const char *const *sans, sl_error_t *err)
{
    (void)sans;
    const char *groups[] = {"system:masters", NULL};
    return sl_pki_issue_client(ca, "admin", groups, SL_PKI_CA_DAYS, err);
}

/* 1 if the certificate names every one of sans */
static int has_sans(const sl_pki_cred_t *c, const char *const *sans)
{
    char **have = sl_pki_sans(c);
    int all = 1;
    for (; sans && *sans && all; sans++) {
        int found = 0;
        for (char **h = have; h && *h && !found; h++) /* "IP:a.b.c.d", "DNS:name" */
            found = strchr(*h, ':') && !strcmp(strchr(*h, ':') + 1, *sans);
        all = found;
    }
    for (char **h = have; h && *h; h++)
        free(*h);
    free(have);
    return all;
}

static int ensure_leaf(const cl_state_t *st, const sl_pki_cred_t *ca, const char *name, int purpose,
                       make_fn make, const char *const *sans, sl_error_t *err)
{
    char *crt = sl_xasprintf("%s/pki/%s.crt", st->dir, name);
    char *key = sl_xasprintf("%s/pki/%s.key", st->dir, name);
    sl_pki_cred_t *c = exists(crt) && exists(key) ? sl_pki_load(crt, key, NULL) : NULL;
    int r = 0;
    if (!c || sl_pki_verify(ca, c, purpose, NULL) < 0 || !has_sans(c, sans) ||
        sl_pki_not_after(c) < (long long)time(NULL) + RENEW_BEFORE_S) {
        sl_pki_destroy(c);
        c = make(ca, sans, err);
        r = c ? sl_pki_save(c, crt, key, err) : -1;
    }
    sl_pki_destroy(c);
    free(crt);
    free(key);
    return r;
}

int cl_ensure_security(const cl_state_t *st, sl_error_t *err)
{
    char *pki = cl_path(st, "pki");
    char *cac = cl_path(st, "pki/ca.crt"), *cak = cl_path(st, "pki/ca.key");
    char *tok = cl_path(st, "etc/tokens.csv"), *pol = cl_path(st, "etc/policy.yaml");
    sl_pki_cred_t *ca = NULL;
    sl_authz_policy_t *policy = NULL;
    int r = -1;

    if (sl_mkdir_p(pki, 0755, err) < 0)
        goto out;
    if (exists(cac) != exists(cak)) {
        errno = ENOENT;
        sl_errprintf(err,
                     "%s without %s: restore it, or remove %s to make a new CA (every "
                     "kubeconfig issued so far stops working)",
                     exists(cac) ? cac : cak, exists(cac) ? cak : cac, pki);
        goto out;
    }
    if (exists(cac)) {
        if (!(ca = sl_pki_load(cac, cak, err)))
            goto out;
    } else {
        char host[64] = "";
        gethostname(host, sizeof(host) - 1);
        char *cn = sl_xasprintf("slurmlink-ca@%s", host[0] ? host : "localhost");
        ca = sl_pki_ca_create(cn, 0, err);
        free(cn);
        if (!ca || sl_pki_save(ca, cac, cak, err) < 0)
            goto out;
    }
    /* with several nodes slurmlinkd listens on the bridge: the shims of
     * every node verify that address */
    char br[16];
    cl_net_addr(st, 0, br);
    const char *sans[] = {cl_multi(st) ? br : NULL, NULL};
    if (ensure_leaf(st, ca, "server", SL_PKI_SERVER, make_server, sans, err) < 0 ||
        ensure_leaf(st, ca, "admin", SL_PKI_CLIENT, make_admin, NULL, err) < 0)
        goto out;

    /* existing material (CA key, tokens, policy) was checked by
     * cl_trust_folder: root's, not writable (keys, tokens: not readable) by others */
    if (!exists(tok) && sl_write_file(tok, TOKENS_HEADER, strlen(TOKENS_HEADER), 0600, err) < 0)
        goto out;
    if (!exists(pol) && write_policy(pol, st->run_as ? st->run_as : "nobody", err) < 0)
        goto out;
    /* an edited policy with a mistake stops `up` here, with file:line */
    if (!(policy = sl_authz_policy_load(pol, err)))
        goto out;
    r = 0;
out:
    sl_authz_policy_destroy(policy);
    sl_pki_destroy(ca);
    free(pki);
    free(cac);
    free(cak);
    free(tok);
    free(pol);
    return r;
}

int cl_write_kubeconfig_https(const cl_state_t *st, sl_error_t *err)
{
    char *cac = cl_path(st, "pki/ca.crt"), *crt = cl_path(st, "pki/admin.crt");
    char *key = cl_path(st, "pki/admin.key");
    char *ca_pem = sl_read_file(cac, NULL, err);
    char *c_pem = ca_pem ? sl_read_file(crt, NULL, err) : NULL;
    char *k_pem = c_pem ? sl_read_file(key, NULL, err) : NULL;
    char *server = cl_api_url(st);
    int r = -1;
    if (k_pem) {
        sl_auth_kubeconfig_t k = {.server = server,
                                  .ca_pem = ca_pem,
                                  .user = "admin",
                                  .cert_pem = c_pem,
                                  .key_pem = k_pem};
        char *y = sl_auth_kubeconfig_render(&k, err);
        if (y) {
            char *path = cl_path(st, "kubeconfig");
            r = sl_write_file(path, y, strlen(y), 0600, err);
            free(path);
            path = cl_path(st, "kubeconfig.https"); /* the name of earlier versions */
            unlink(path);
            free(path);
            explicit_bzero(y, strlen(y));
            free(y);
        }
        explicit_bzero(k_pem, strlen(k_pem));
    }
    free(k_pem);
    free(c_pem);
    free(ca_pem);
    free(server);
    free(cac);
    free(crt);
    free(key);
    return r;
}

char *cl_api_url(const cl_state_t *st)
{
    char a[16] = "127.0.0.1";
    if (cl_multi(st))
        cl_net_addr(st, 0, a);
    return sl_xasprintf("https://%s:%d", a, st->port[SL_D_SLURMLINKD]);
}

char *sl_cluster_api_url(const char *dir, sl_error_t *err)
{
    cl_state_t st;
    if (cl_state_load(dir, &st, err) < 0)
        return NULL;
    char *url = st.port[SL_D_SLURMLINKD] > 0 ? cl_api_url(&st) : NULL;
    if (!url) {
        errno = ENOENT;
        sl_errprintf(err, "%s/cluster.json names no API port", dir);
    }
    cl_state_clear(&st);
    return url;
}

int sl_cluster_api_port(const char *dir, sl_error_t *err)
{
    cl_state_t st;
    if (cl_state_load(dir, &st, err) < 0)
        return -1;
    int port = st.port[SL_D_SLURMLINKD];
    cl_state_clear(&st);
    if (port <= 0) {
        errno = ENOENT;
        return sl_errprintf(err, "%s/cluster.json names no API port", dir);
    }
    return port;
}
