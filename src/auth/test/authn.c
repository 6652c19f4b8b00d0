/* request authentication over real TLS handshakes (gnutls on a socketpair):
 * client certificates of the cluster CA and of another CA, bearer tokens,
 * no credentials, header forms. */
#include "auth/authn.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "pki/pki.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct client {
    int fd;
    const sl_pki_cred_t *cert; /* NULL: present none */
    const sl_pki_cred_t *ca;
    int rc;
} client_t;

static gnutls_certificate_credentials_t creds_of(const sl_pki_cred_t *c)
{
    gnutls_certificate_credentials_t x;
    gnutls_certificate_allocate_credentials(&x);
    if (c) {
        char *cp = sl_pki_cert_pem(c), *kp = sl_pki_key_pem(c);
        gnutls_datum_t cd = {(unsigned char *)cp, (unsigned)strlen(cp)};
        gnutls_datum_t kd = {(unsigned char *)kp, (unsigned)strlen(kp)};
        gnutls_certificate_set_x509_key_mem(x, &cd, &kd, GNUTLS_X509_FMT_PEM);
        free(cp);
        free(kp);
    }
    return x;
}

static void *client_main(void *arg)
{
    client_t *c = arg;
    gnutls_session_t s;
    gnutls_certificate_credentials_t x = creds_of(c->cert);
    gnutls_init(&s, GNUTLS_CLIENT);
    gnutls_set_default_priority(s);
    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, x);
    gnutls_transport_set_int(s, c->fd);
    do
        c->rc = gnutls_handshake(s);
    while (c->rc < 0 && !gnutls_error_is_fatal(c->rc));
    char b;
    if (c->rc >= 0)
        gnutls_record_recv(s, &b, 1); /* wait for the server's close */
    gnutls_deinit(s);
    gnutls_certificate_free_credentials(x);
    close(c->fd);
    return NULL;
}

/* handshake with a client presenting cert (or none); then authenticate */
static sl_auth_user_t *tls_request(sl_authn_t *an, const sl_pki_cred_t *ca,
                                   const sl_pki_cred_t *srv, const sl_pki_cred_t *cert,
                                   const char *header, sl_error_t *why)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    client_t cl = {sv[1], cert, ca, 0};
    pthread_t th;
    pthread_create(&th, NULL, client_main, &cl);

    gnutls_certificate_credentials_t x = creds_of(srv);
    char *ca_pem = sl_pki_cert_pem(ca);
    gnutls_datum_t cad = {(unsigned char *)ca_pem, (unsigned)strlen(ca_pem)};
    /* what MHD_OPTION_HTTPS_MEM_TRUST does */
    gnutls_certificate_set_x509_trust_mem(x, &cad, GNUTLS_X509_FMT_PEM);
    gnutls_session_t s;
    gnutls_init(&s, GNUTLS_SERVER);
    gnutls_set_default_priority(s);
    gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, x);
    gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
    gnutls_transport_set_int(s, sv[0]);
    int rc;
    do
        rc = gnutls_handshake(s);
    while (rc < 0 && !gnutls_error_is_fatal(rc));
    sl_auth_user_t *u = NULL;
    if (rc < 0)
        printf("# server handshake: %s\n", gnutls_strerror(rc));
    else
        u = sl_authn_request(an, s, header, why);
    gnutls_bye(s, GNUTLS_SHUT_WR);
    close(sv[0]);
    pthread_join(th, NULL);
    gnutls_deinit(s);
    gnutls_certificate_free_credentials(x);
    free(ca_pem);
    return u;
}

static int user_is(const sl_auth_user_t *u, const char *name, const char *groups)
{
    if (!u)
        return 0;
    char buf[256] = "";
    for (size_t i = 0; i < u->ngroups; i++) {
        if (i)
            strcat(buf, "|");
        strcat(buf, u->groups[i]);
    }
    int r = !strcmp(u->name, name) && !strcmp(buf, groups);
    if (!r)
        printf("#   got name=%s groups=%s\n", u->name, buf);
    return r;
}

int main(void)
{
    sl_error_t err = SL_ERROR_INIT, why = SL_ERROR_INIT;
    char dir[] = "/tmp/authntest.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp folder");
    char *cap = sl_xasprintf("%s/ca.crt", dir), *tokp = sl_xasprintf("%s/tokens.csv", dir);

    sl_pki_cred_t *ca = sl_pki_ca_create("test-ca", 0, &err);
    sl_pki_cred_t *srv = sl_pki_issue_server(ca, "slurmlinkd", NULL, 0, &err);
    const char *g[] = {"devs", NULL};
    sl_pki_cred_t *alice = sl_pki_issue_client(ca, "alice", g, 0, &err);
    /* same name as the real CA, so that clients send its certificates when
     * the server asks for ones of "test-ca": only the signature tells */
    sl_pki_cred_t *ca2 = sl_pki_ca_create("test-ca", 0, &err);
    const char *adm[] = {"system:masters", NULL};
    sl_pki_cred_t *mallory = sl_pki_issue_client(ca2, "admin", adm, 0, &err);
    ok(ca && srv && alice && ca2 && mallory, "certificates made");
    sl_pki_save(ca, cap, NULL, &err);
    const char *bg[] = {"bobs", NULL};
    sl_auth_tokens_append(tokp, "tok-bob", "bob", "1002", bg, 0, &err);

    ok(sl_authn_create(NULL, NULL, &err) == NULL, "no method: refused");
    sl_authn_t *an = sl_authn_create(cap, tokp, &err);
    ok(an != NULL, "authenticator created (%s)", err.text);

    sl_auth_user_t *u = tls_request(an, ca, srv, alice, NULL, &why);
    ok(user_is(u, "alice", "devs|system:authenticated"), "client certificate: alice (%s)",
       why.text);
    sl_auth_user_destroy(u);

    why.text[0] = '\0';
    u = tls_request(an, ca, srv, mallory, NULL, &why);
    ok(u == NULL && errno == EACCES, "certificate of another CA: refused");
    has_str(why.text, "not signed by the cluster CA", "... saying why");

    u = tls_request(an, ca, srv, NULL, "Bearer tok-bob", &why);
    ok(user_is(u, "bob", "bobs|system:authenticated"), "no certificate, bearer token: bob");
    sl_auth_user_destroy(u);

    u = tls_request(an, ca, srv, alice, "Bearer tok-bob", &why);
    ok(user_is(u, "alice", "devs|system:authenticated"),
       "certificate and token: the certificate wins (kube-apiserver's order)");
    sl_auth_user_destroy(u);

    u = tls_request(an, ca, srv, mallory, "Bearer tok-bob", &why);
    ok(user_is(u, "bob", "bobs|system:authenticated"),
       "untrusted certificate, valid token: the token (kube-apiserver's union)");
    sl_auth_user_destroy(u);

    /* a certificate verified once is not verified again on each request
     * (kube-apiserver caches verified chains too); untrusted ones never are
     * kept, and a look-alike of a kept one (same names, other CA) is no hit */
    unsigned long checks = sl_authn_cert_checks(an);
    for (int i = 0; i < 3; i++) {
        u = tls_request(an, ca, srv, alice, NULL, &why);
        ok(user_is(u, "alice", "devs|system:authenticated"), "alice again (%d)", i);
        sl_auth_user_destroy(u);
    }
    is_int((long)(sl_authn_cert_checks(an) - checks), 0,
           "her certificate, already verified, was not verified again");
    sl_pki_cred_t *admin = sl_pki_issue_client(ca, "admin", adm, 0, &err);
    u = tls_request(an, ca, srv, admin, NULL, &why);
    ok(user_is(u, "admin", "system:masters|system:authenticated"), "the real admin");
    sl_auth_user_destroy(u);
    for (int i = 0; i < 2; i++) {
        u = tls_request(an, ca, srv, mallory, NULL, &why);
        ok(u == NULL && strstr(why.text, "not signed by the cluster CA"),
           "admin's look-alike of another CA, after the real one: refused (%d)", i);
    }
    is_int((long)(sl_authn_cert_checks(an) - checks), 3,
           "admin's and the look-alike's twice: each verified, none of them from the cache");
    sl_pki_destroy(admin);

    u = tls_request(an, ca, srv, NULL, NULL, &why);
    ok(u == NULL, "no credentials: refused");
    has_str(why.text, "no credentials", "... saying so");

    u = tls_request(an, ca, srv, NULL, "Bearer wrong", &why);
    ok(u == NULL, "unknown token: refused");
    has_str(why.text, "invalid bearer token", "... saying so");

    u = tls_request(an, ca, srv, NULL, "Basic YWxpY2U6eA==", &why);
    ok(u == NULL, "basic auth: refused");

    /* without TLS (the session is NULL): tokens only */
    u = sl_authn_request(an, NULL, "bearer tok-bob", &why);
    ok(user_is(u, "bob", "bobs|system:authenticated"), "no session, lower-case bearer");
    sl_auth_user_destroy(u);

    /* header forms, as kube-apiserver splits them */
    char *t = sl_authn_bearer("Bearer abc");
    is_str(t, "abc", "Bearer abc");
    free(t);
    t = sl_authn_bearer("  BEARER abc  ");
    is_str(t, "abc", "spaces trimmed, case ignored");
    free(t);
    t = sl_authn_bearer("Bearer abc def");
    is_str(t, "abc", "third part ignored");
    free(t);
    ok(sl_authn_bearer("Bearer  abc") == NULL, "space before the token: no token");
    ok(sl_authn_bearer("Bearer ") == NULL, "empty token");
    ok(sl_authn_bearer("Bearerabc") == NULL, "no space");
    ok(sl_authn_bearer("Token abc") == NULL, "other scheme");
    ok(sl_authn_bearer(NULL) == NULL, "no header");

    /* token file only */
    sl_authn_t *tonly = sl_authn_create(NULL, tokp, &err);
    u = tls_request(tonly, ca, srv, alice, NULL, &why);
    ok(u == NULL, "without a client CA, certificates authenticate no one");
    sl_authn_destroy(tonly);
    sl_authn_t *conly = sl_authn_create(cap, NULL, &err);
    u = sl_authn_request(conly, NULL, "Bearer tok-bob", &why);
    ok(u == NULL, "without a token file, tokens authenticate no one");
    has_str(why.text, "no token file", "... saying so");
    sl_authn_destroy(conly);

    sl_authn_destroy(an);
    sl_authn_destroy(NULL);
    sl_pki_destroy(ca);
    sl_pki_destroy(srv);
    sl_pki_destroy(alice);
    sl_pki_destroy(ca2);
    sl_pki_destroy(mallory);
    unlink(cap);
    unlink(tokp);
    rmdir(dir);
    free(cap);
    free(tokp);
    return tap_done();
}
