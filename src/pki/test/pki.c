/* pki unit tests: CA, server and client certificates, PEM round trips,
 * chain verification with gnutls itself, SANs, CN/O, pins, foreign CAs. */
#include "pki/pki.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* verify leaf against ca with gnutls_x509_crt_list_verify (independent of
 * the module's own verification code); returns the status bits, or -1 */
static int list_verify(const sl_pki_cred_t *ca, const sl_pki_cred_t *leaf)
{
    char *ca_pem = sl_pki_cert_pem(ca), *leaf_pem = sl_pki_cert_pem(leaf);
    gnutls_x509_crt_t c[2];
    gnutls_x509_crt_init(&c[0]);
    gnutls_x509_crt_init(&c[1]);
    gnutls_datum_t d0 = {(unsigned char *)leaf_pem, (unsigned)strlen(leaf_pem)};
    gnutls_datum_t d1 = {(unsigned char *)ca_pem, (unsigned)strlen(ca_pem)};
    unsigned status = 0;
    int r = -1;
    if (gnutls_x509_crt_import(c[0], &d0, GNUTLS_X509_FMT_PEM) >= 0 &&
        gnutls_x509_crt_import(c[1], &d1, GNUTLS_X509_FMT_PEM) >= 0 &&
        gnutls_x509_crt_list_verify(c, 1, &c[1], 1, NULL, 0, 0, &status) >= 0)
        r = (int)status;
    gnutls_x509_crt_deinit(c[0]);
    gnutls_x509_crt_deinit(c[1]);
    free(ca_pem);
    free(leaf_pem);
    return r;
}

static int has(char **list, const char *s)
{
    for (size_t i = 0; list && list[i]; i++)
        if (!strcmp(list[i], s))
            return 1;
    return 0;
}

static void free_list(char **list)
{
    for (size_t i = 0; list && list[i]; i++)
        free(list[i]);
    free(list);
}

static int der_of(const sl_pki_cred_t *c, gnutls_datum_t *der)
{
    char *pem = sl_pki_cert_pem(c);
    gnutls_datum_t p = {(unsigned char *)pem, (unsigned)strlen(pem)};
    int r = gnutls_pem_base64_decode2("CERTIFICATE", &p, der);
    free(pem);
    return r;
}

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_pki_cred_t *ca = sl_pki_ca_create("slurmlink-ca", 0, &err);
    ok(ca != NULL, "CA created (%s)", err.text);
    ok(sl_pki_has_key(ca), "CA has its key");
    time_t now = time(NULL);
    long long na = sl_pki_not_after(ca);
    ok(na > now + 3649LL * 86400 && na < now + 3651LL * 86400, "CA valid for 10 years");

    /* server certificate */
    const char *extra[] = {"10.1.2.3", "api.example.org", "::1", NULL};
    sl_pki_cred_t *srv = sl_pki_issue_server(ca, "slurmlinkd", extra, 0, &err);
    ok(srv != NULL, "server certificate issued (%s)", err.text);
    is_int(list_verify(ca, srv), 0, "gnutls_x509_crt_list_verify accepts server cert with the CA");
    char **sans = sl_pki_sans(srv);
    ok(has(sans, "IP:127.0.0.1"), "server SAN IP:127.0.0.1");
    ok(has(sans, "DNS:localhost"), "server SAN DNS:localhost");
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    char *hs = sl_xasprintf("DNS:%s", host);
    ok(!strcmp(host, "localhost") || has(sans, hs), "server SAN carries the host name (%s)", hs);
    free(hs);
    ok(has(sans, "IP:10.1.2.3") && has(sans, "DNS:api.example.org") && has(sans, "IP:::1"),
       "extra SANs present (IP, DNS, IPv6)");
    free_list(sans);
    is_int(sl_pki_verify(ca, srv, SL_PKI_SERVER, &err), 0, "server cert verifies for server use");
    ok(sl_pki_verify(ca, srv, SL_PKI_CLIENT, &err) < 0, "server cert refused for client use");
    has_str(err.text, "not for client use", "purpose mismatch named");

    const char *bad_san[] = {"bad name;rm", NULL};
    ok(sl_pki_issue_server(ca, "x", bad_san, 0, &err) == NULL, "a SAN with spaces is refused");
    has_str(err.text, "neither an IP", "bad SAN explained");

    /* client certificate */
    const char *groups[] = {"devs", "system:masters", "o, with comma", NULL};
    sl_pki_cred_t *cli = sl_pki_issue_client(ca, "alice", groups, 30, &err);
    ok(cli != NULL, "client certificate issued (%s)", err.text);
    is_int(list_verify(ca, cli), 0, "gnutls_x509_crt_list_verify accepts client cert");
    na = sl_pki_not_after(cli);
    ok(na > now + 29LL * 86400 && na < now + 31LL * 86400, "client cert valid for 30 days");
    sl_pki_names_t nm;
    ok(sl_pki_subject(cli, &nm, &err) == 0, "subject read back");
    is_str(nm.cn, "alice", "CN is the user");
    is_int(nm.norgs, 3, "one O per group");
    if (nm.norgs == 3) {
        is_str(nm.orgs[0], "devs", "O[0]");
        is_str(nm.orgs[1], "system:masters", "O[1]");
        is_str(nm.orgs[2], "o, with comma", "O[2] keeps its comma");
    }
    sl_pki_names_free(&nm);
    is_int(sl_pki_verify(ca, cli, SL_PKI_CLIENT, &err), 0, "client cert verifies for client use");
    ok(sl_pki_verify(ca, cli, SL_PKI_SERVER, &err) < 0, "client cert refused for server use");

    /* peer check as the API does it: DER in, names out */
    gnutls_datum_t der = {NULL, 0};
    ok(der_of(cli, &der) >= 0, "client cert as DER");
    sl_pki_names_t peer = {NULL, NULL, 0, 0};
    is_int(sl_pki_verify_peer(ca, der.data, der.size, &peer, &err), 0, "peer verified (%s)",
           err.text);
    is_str(peer.cn, "alice", "peer CN");
    ok(peer.norgs == 3 && !strcmp(peer.orgs[0], "devs"), "peer groups");
    ok(peer.not_after > 0 && peer.not_after == sl_pki_not_after(cli),
       "peer's expiry, for how long the API may remember it");
    sl_pki_names_free(&peer);
    gnutls_free(der.data);

    ok(sl_pki_issue_client(ca, "", NULL, 0, &err) == NULL, "empty user refused");
    ok(sl_pki_issue_client(ca, "bad\nname", NULL, 0, &err) == NULL, "control char refused");
    const char *badg[] = {"ok", "", NULL};
    ok(sl_pki_issue_client(ca, "bob", badg, 0, &err) == NULL, "empty group refused");

    /* another CA's certificates are not ours */
    sl_pki_cred_t *ca2 = sl_pki_ca_create("other-ca", 0, &err);
    sl_pki_cred_t *mallory = sl_pki_issue_client(ca2, "alice", groups, 0, &err);
    ok(mallory != NULL, "a client cert from another CA");
    ok(list_verify(ca, mallory) > 0, "gnutls_x509_crt_list_verify rejects it with our CA");
    ok(sl_pki_verify(ca, mallory, SL_PKI_CLIENT, &err) < 0, "sl_pki_verify rejects it");
    has_str(err.text, "not signed by the cluster CA", "reason names the CA");
    ok(der_of(mallory, &der) >= 0, "foreign cert as DER");
    peer = (sl_pki_names_t){NULL, NULL, 0, 0};
    ok(sl_pki_verify_peer(ca, der.data, der.size, &peer, &err) < 0, "peer check rejects it");
    ok(peer.cn == NULL, "no names returned for a rejected peer");
    gnutls_free(der.data);
    ok(der_of(ca, &der) >= 0, "the CA cert as DER");
    ok(sl_pki_verify_peer(ca, der.data, der.size, &peer, &err) < 0,
       "the CA's own certificate is no client identity");
    gnutls_free(der.data);
    unsigned char junk[] = {0x30, 0x03, 0x02, 0x01, 0x00};
    ok(sl_pki_verify_peer(ca, junk, sizeof(junk), &peer, &err) < 0, "garbage DER rejected");
    ok(sl_pki_verify_peer(ca, NULL, 0, &peer, &err) < 0, "no certificate rejected");

    /* issuing needs a CA with its key */
    ok(sl_pki_issue_client(srv, "x", NULL, 0, &err) == NULL, "a leaf cannot issue");
    has_str(err.text, "not a CA", "leaf issuer explained");

    /* files and PEM round trip */
    char dir[] = "/tmp/pkitest.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp folder");
    char *crt = sl_xasprintf("%s/ca.crt", dir), *key = sl_xasprintf("%s/ca.key", dir);
    is_int(sl_pki_save(ca, crt, key, &err), 0, "CA saved (%s)", err.text);
    struct stat sb;
    ok(stat(key, &sb) == 0 && (sb.st_mode & 0777) == 0600, "key file 0600");
    ok(stat(crt, &sb) == 0 && (sb.st_mode & 0777) == 0644, "cert file 0644");
    char *keytext = sl_read_file(key, NULL, NULL);
    has_str(keytext, "PRIVATE KEY-----", "key is PEM");
    free(keytext);
    sl_pki_cred_t *ca_back = sl_pki_load(crt, key, &err);
    ok(ca_back != NULL, "CA loaded back (%s)", err.text);
    sl_pki_cred_t *cli2 = sl_pki_issue_client(ca_back, "bob", NULL, 0, &err);
    is_int(sl_pki_verify(ca, cli2, SL_PKI_CLIENT, &err), 0, "loaded CA issues trusted certs");
    sl_pki_names_t nb;
    ok(sl_pki_subject(cli2, &nb, &err) == 0 && nb.norgs == 0 && nb.orgs && !nb.orgs[0],
       "no groups: empty O list");
    sl_pki_names_free(&nb);
    sl_pki_cred_t *pub = sl_pki_load(crt, NULL, &err);
    ok(pub && !sl_pki_has_key(pub), "certificate alone loads without key");
    ok(sl_pki_save(pub, crt, key, &err) < 0, "saving a key that is not there fails");

    /* mismatched key and certificate */
    char *k2 = sl_xasprintf("%s/other.key", dir), *c2 = sl_xasprintf("%s/other.crt", dir);
    sl_pki_save(ca2, c2, k2, &err);
    ok(sl_pki_load(crt, k2, &err) == NULL, "a key of another certificate is refused");
    has_str(err.text, "does not belong", "mismatch explained");
    has_str(err.text, crt, "error names the file");
    ok(sl_pki_load("/nonexistent/x.crt", NULL, &err) == NULL, "missing file fails");
    ok(sl_pki_from_pem("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", NULL,
                       &err) == NULL,
       "broken PEM fails");

    /* pins */
    char *pin = sl_pki_pin(srv), *pin2 = sl_pki_pin(srv), *pin3 = sl_pki_pin(cli);
    ok(pin && !strncmp(pin, "sha256//", 8) && strlen(pin) == 8 + 44, "pin is sha256//BASE64");
    is_str(pin, pin2, "pin is stable");
    ok(pin && pin3 && strcmp(pin, pin3) != 0, "different keys, different pins");
    free(pin);
    free(pin2);
    free(pin3);

    char *rm[] = {crt, key, k2, c2};
    for (size_t i = 0; i < 4; i++) {
        unlink(rm[i]);
        free(rm[i]);
    }
    rmdir(dir);
    sl_pki_destroy(pub);
    sl_pki_destroy(cli2);
    sl_pki_destroy(ca_back);
    sl_pki_destroy(mallory);
    sl_pki_destroy(ca2);
    sl_pki_destroy(cli);
    sl_pki_destroy(srv);
    sl_pki_destroy(ca);
    sl_pki_destroy(NULL);
    return tap_done();
}
