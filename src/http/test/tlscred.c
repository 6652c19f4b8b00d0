/* tlscred — the API's reloadable TLS credentials: a pair is checked (PEM
 * chain, PEM key, the key the certificate's) at creation and at each
 * reload; a refused reload keeps the pair in use. (That new connections get
 * the new pair and open ones keep theirs: t/91-tls-reload.t.) */
#include "http/tlscred.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "pki/pki.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[] = "/tmp/sl-tlscred.XXXXXX";

static void bail(const char *what, const char *why)
{
    printf("Bail out! %s: %s\n", what, why);
    exit(1);
}

static char *path(const char *name) { return sl_xasprintf("%s/%s", dir, name); }

/* a server pair from ca saved as NAME.crt, NAME.key */
static void issue(const sl_pki_cred_t *ca, const char *name)
{
    sl_error_t e = SL_ERROR_INIT;
    sl_pki_cred_t *c = sl_pki_issue_server(ca, "slurmlinkd", NULL, 1, &e);
    char *crt = sl_xasprintf("%s/%s.crt", dir, name), *key = sl_xasprintf("%s/%s.key", dir, name);
    if (!c || sl_pki_save(c, crt, key, &e) < 0)
        bail(name, e.text);
    sl_pki_destroy(c);
    free(crt);
    free(key);
}

int main(void)
{
    tap_plan(9);
    sl_error_t e = SL_ERROR_INIT;
    if (!mkdtemp(dir))
        bail("mkdtemp", "failed");
    sl_pki_cred_t *ca = sl_pki_ca_create("test-ca", 1, &e);
    if (!ca)
        bail("ca", e.text);
    issue(ca, "a");
    issue(ca, "b");
    char *acrt = path("a.crt"), *akey = path("a.key"), *bcrt = path("b.crt"), *bkey = path("b.key");
    char *junk = path("junk.pem"), *none = path("none.pem");
    sl_write_file(junk, "not a certificate\n", 18, 0600, NULL);

    http_tls_t *t = http_tls_create(acrt, bkey, &e);
    ok(!t && strstr(e.text, "is not the private key of"),
       "create: a key of another certificate: [%s]", e.text);
    t = http_tls_create(none, akey, &e);
    ok(!t && strstr(e.text, "No such file"), "create: a missing certificate file: [%s]", e.text);
    t = http_tls_create(acrt, akey, &e);
    ok(t != NULL, "create: a good pair");

    char serial[80] = "";
    ok(http_tls_reload(t, bcrt, akey, serial, &e) < 0 && strstr(e.text, "b.crt's certificate"),
       "reload: a key that is not the certificate's is refused: [%s]", e.text);
    ok(http_tls_reload(t, junk, akey, serial, &e) < 0 &&
           strstr(e.text, "junk.pem: not a PEM certificate chain"),
       "reload: a file that is no certificate is refused: [%s]", e.text);
    ok(http_tls_reload(t, acrt, junk, serial, &e) < 0 &&
           strstr(e.text, "junk.pem: not a PEM private key"),
       "reload: a file that is no key is refused: [%s]", e.text);
    ok(http_tls_reload(t, bcrt, none, serial, &e) < 0 && strstr(e.text, "none.pem"),
       "reload: a missing key file is refused: [%s]", e.text);
    ok(http_tls_reload(t, bcrt, bkey, serial, &e) == 0, "reload: a good new pair");
    ok(strlen(serial) >= 2 && strspn(serial, "0123456789ABCDEF") == strlen(serial),
       "and its serial in hex: [%s]", serial);
    http_tls_destroy(t);
    sl_pki_destroy(ca);
    free(acrt), free(akey), free(bcrt), free(bkey), free(junk), free(none);
    sl_rm_rf(dir);
    return tap_done();
}
