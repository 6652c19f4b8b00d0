/* kubeconfig rendering (read back with the Kubernetes-style YAML loader) and
 * issuance: client certificates that verify against the CA, tokens that land
 * in the token file and authenticate. */
#include "auth/kubeconfig.h"
#include "auth/tokens.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "pki/pki.h"
#include "pod/yamljson.h"

#include <gnutls/gnutls.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static json_t *load(const char *yaml)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *docs = yaml ? sl_yaml_to_json(yaml, strlen(yaml), &err) : NULL;
    json_t *d = docs && json_array_size(docs) == 1 ? json_incref(json_array_get(docs, 0)) : NULL;
    json_decref(docs);
    if (!d)
        printf("# not one YAML document: %s\n", err.text);
    return d;
}

static const char *path_str(json_t *d, const char *fmt)
{
    /* fmt like "users/0/user/token" */
    json_t *v = d;
    char *p = sl_xstrdup(fmt), *save = NULL;
    for (char *t = strtok_r(p, "/", &save); t && v; t = strtok_r(NULL, "/", &save))
        v = json_is_array(v) ? json_array_get(v, (size_t)atoi(t)) : json_object_get(v, t);
    free(p);
    return json_string_value(v);
}

static char *unb64(const char *s)
{
    gnutls_datum_t in = {(unsigned char *)s, (unsigned)strlen(s)}, out = {NULL, 0};
    if (!s || gnutls_base64_decode2(&in, &out) < 0)
        return NULL;
    char *r = sl_xstrndup((const char *)out.data, out.size);
    gnutls_free(out.data);
    return r;
}

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;

    /* rendering: values YAML would misread stay strings */
    sl_auth_kubeconfig_t k = {
        .server = "https://127.0.0.1:6443", .user = "true", .ns = "0123", .token = "yes"};
    char *y = sl_auth_kubeconfig_render(&k, &err);
    ok(y != NULL, "render with a token (%s)", err.text);
    json_t *d = load(y);
    is_str(path_str(d, "kind"), "Config", "kind Config");
    is_str(path_str(d, "users/0/name"), "true", "user \"true\" stays a string");
    is_str(path_str(d, "users/0/user/token"), "yes", "token \"yes\" stays a string");
    is_str(path_str(d, "contexts/0/context/namespace"), "0123", "namespace \"0123\" stays");
    is_str(path_str(d, "current-context"), "true@slurmlink", "current context");
    is_str(path_str(d, "clusters/0/cluster/server"), "https://127.0.0.1:6443", "server");
    json_decref(d);
    free(y);

    k.user = "a: b\n- c #d";
    k.token = "t";
    y = sl_auth_kubeconfig_render(&k, &err);
    d = load(y);
    is_str(path_str(d, "users/0/name"), "a: b\n- c #d", "YAML syntax inside a name is escaped");
    json_decref(d);
    free(y);
    k.user = NULL;
    ok(sl_auth_kubeconfig_render(&k, &err) == NULL, "no user: refused");
    k.user = "x";
    k.token = NULL;
    ok(sl_auth_kubeconfig_render(&k, &err) == NULL, "no credential: refused");

    /* issuance in a folder */
    char dir[] = "/tmp/kcfgtest.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp folder");
    char *cac = sl_xasprintf("%s/ca.crt", dir), *cak = sl_xasprintf("%s/ca.key", dir);
    char *tok = sl_xasprintf("%s/tokens.csv", dir);
    sl_pki_cred_t *ca = sl_pki_ca_create("kc-ca", 0, &err);
    sl_pki_save(ca, cac, cak, &err);
    const char *groups[] = {"devs", "gpu", NULL};
    sl_auth_issue_t o = {.ca_cert = cac,
                         .ca_key = cak,
                         .token_file = tok,
                         .server = "https://127.0.0.1:7000",
                         .user = "alice",
                         .groups = groups,
                         .ns = "alice",
                         .days = 7};
    y = sl_auth_kubeconfig_issue(&o, &err);
    ok(y != NULL, "certificate kubeconfig issued (%s)", err.text);
    d = load(y);
    char *ca_back = unb64(path_str(d, "clusters/0/cluster/certificate-authority-data"));
    char *ca_pem = sl_pki_cert_pem(ca);
    is_str(ca_back, ca_pem, "certificate-authority-data is the CA");
    char *cp = unb64(path_str(d, "users/0/user/client-certificate-data"));
    char *kp = unb64(path_str(d, "users/0/user/client-key-data"));
    sl_pki_cred_t *cli = cp && kp ? sl_pki_from_pem(cp, kp, &err) : NULL;
    ok(cli != NULL, "embedded certificate and key match (%s)", err.text);
    is_int(cli ? sl_pki_verify(ca, cli, SL_PKI_CLIENT, &err) : -1, 0,
           "embedded certificate verifies for client use");
    sl_pki_names_t nm = {NULL, NULL, 0, 0};
    ok(cli && sl_pki_subject(cli, &nm, &err) == 0 && !strcmp(nm.cn, "alice") && nm.norgs == 2 &&
           !strcmp(nm.orgs[1], "gpu"),
       "CN alice, O devs and gpu");
    sl_pki_names_free(&nm);
    long long na = cli ? sl_pki_not_after(cli) : 0;
    ok(na > time(NULL) + 6 * 86400 && na < time(NULL) + 8 * 86400, "valid for --days 7");
    is_str(path_str(d, "contexts/0/context/namespace"), "alice", "context namespace");
    ok(access(tok, F_OK) != 0, "no token file touched for a certificate");
    sl_pki_destroy(cli);
    free(cp);
    free(kp);
    free(ca_back);
    json_decref(d);
    free(y);

    o.token = 1;
    o.days = 0;
    y = sl_auth_kubeconfig_issue(&o, &err);
    ok(y != NULL, "token kubeconfig issued (%s)", err.text);
    d = load(y);
    const char *t = path_str(d, "users/0/user/token");
    ok(t && strlen(t) == 64, "token in the kubeconfig");
    ok(path_str(d, "users/0/user/client-key-data") == NULL, "no key in a token kubeconfig");
    struct stat sb;
    ok(stat(tok, &sb) == 0 && (sb.st_mode & 0777) == 0600, "token file created 0600");
    sl_auth_tokens_t *tt = sl_auth_tokens_load(tok, &err);
    sl_auth_user_t *u = tt && t ? sl_auth_tokens_lookup(tt, t, 0) : NULL;
    ok(u && !strcmp(u->name, "alice") && u->ngroups == 2, "the token authenticates alice");
    sl_auth_user_destroy(u);
    sl_auth_tokens_destroy(tt);
    json_decref(d);
    free(y);

    o.ca_key = "/nonexistent/ca.key";
    o.token = 0;
    ok(sl_auth_kubeconfig_issue(&o, &err) == NULL, "certificate without the CA key fails");
    has_str(err.text, "/nonexistent/ca.key", "... naming the key file");
    o.user = "bad\nuser";
    o.token = 1;
    ok(sl_auth_kubeconfig_issue(&o, &err) == NULL, "control characters in a user refused");
    tt = sl_auth_tokens_load(tok, &err);
    is_int(tt ? sl_auth_tokens_count(tt) : 99, 1, "nothing appended on failure");
    sl_auth_tokens_destroy(tt);

    unlink(cac);
    unlink(cak);
    unlink(tok);
    rmdir(dir);
    free(cac);
    free(cak);
    free(tok);
    free(ca_pem);
    sl_pki_destroy(ca);
    return tap_done();
}
