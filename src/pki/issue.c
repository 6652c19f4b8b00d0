/* issue.c — make keys and certificates: the CA, server and client certificates. */
#include "common/xalloc.h"
#include "pki/internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Certificates start this far in the past (clock skew between machines). */
#define BACKDATE_S 300

int pki_gnutls_err(sl_error_t *err, int rc, const char *what)
{
    errno = (rc == GNUTLS_E_BASE64_DECODING_ERROR || rc == GNUTLS_E_ASN1_DER_ERROR ||
             rc == GNUTLS_E_BASE64_UNEXPECTED_HEADER_ERROR || rc == GNUTLS_E_ASN1_TAG_ERROR ||
             rc == GNUTLS_E_INVALID_REQUEST || rc == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
                ? EINVAL
                : EIO;
    return sl_errprintf(err, "%s: %s", what, gnutls_strerror(rc));
}

int pki_name_ok(const char *s)
{
    if (!s || !*s || strlen(s) > 255)
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

static sl_pki_cred_t *cred_new(void) { return sl_xcalloc(1, sizeof(sl_pki_cred_t)); }

void sl_pki_destroy(sl_pki_cred_t *c)
{
    if (!c)
        return;
    if (c->crt)
        gnutls_x509_crt_deinit(c->crt);
    if (c->key)
        gnutls_x509_privkey_deinit(c->key);
    free(c);
}

/* key + unsigned certificate with the fields every certificate shares */
static sl_pki_cred_t *start_cert(const char *cn, int days, sl_error_t *err)
{
    sl_pki_cred_t *c = cred_new();
    unsigned char serial[16];
    time_t now = time(NULL);
    int rc;

    if ((rc = gnutls_x509_privkey_init(&c->key)) < 0 ||
        (rc = gnutls_x509_privkey_generate(
             c->key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0)) < 0) {
        pki_gnutls_err(err, rc, "generating an ECDSA P-256 key");
        goto fail;
    }
    if ((rc = gnutls_x509_crt_init(&c->crt)) < 0) {
        pki_gnutls_err(err, rc, "gnutls_x509_crt_init");
        goto fail;
    }
    /* RFC 5280: serials are positive and at most 20 octets; random ones
     * keep two certificates of the same CA from ever sharing a serial */
    if ((rc = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0) {
        pki_gnutls_err(err, rc, "random serial number");
        goto fail;
    }
    serial[0] = (serial[0] & 0x7f) | 0x40;
    if ((rc = gnutls_x509_crt_set_version(c->crt, 3)) < 0 ||
        (rc = gnutls_x509_crt_set_serial(c->crt, serial, sizeof(serial))) < 0 ||
        (rc = gnutls_x509_crt_set_activation_time(c->crt, now - BACKDATE_S)) < 0 ||
        (rc = gnutls_x509_crt_set_expiration_time(c->crt, now + (time_t)days * 86400)) < 0 ||
        (rc = gnutls_x509_crt_set_dn_by_oid(c->crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                            strlen(cn))) < 0 ||
        (rc = gnutls_x509_crt_set_key(c->crt, c->key)) < 0) {
        pki_gnutls_err(err, rc, "building the certificate");
        goto fail;
    }
    unsigned char kid[64];
    size_t kidlen = sizeof(kid);
    if ((rc = gnutls_x509_crt_get_key_id(c->crt, GNUTLS_KEYID_USE_SHA1, kid, &kidlen)) < 0 ||
        (rc = gnutls_x509_crt_set_subject_key_id(c->crt, kid, kidlen)) < 0) {
        pki_gnutls_err(err, rc, "subject key identifier");
        goto fail;
    }
    return c;
fail:
    sl_pki_destroy(c);
    return NULL;
}

/* sign c with issuer (self-signed when issuer is NULL) */
static int sign(sl_pki_cred_t *c, const sl_pki_cred_t *issuer, sl_error_t *err)
{
    int rc;
    if (issuer) {
        unsigned char kid[64];
        size_t kidlen = sizeof(kid);
        unsigned crit = 0;
        if (gnutls_x509_crt_get_subject_key_id(issuer->crt, kid, &kidlen, &crit) >= 0 &&
            (rc = gnutls_x509_crt_set_authority_key_id(c->crt, kid, kidlen)) < 0)
            return pki_gnutls_err(err, rc, "authority key identifier");
    }
    const sl_pki_cred_t *s = issuer ? issuer : c;
    if ((rc = gnutls_x509_crt_sign2(c->crt, s->crt, s->key, GNUTLS_DIG_SHA256, 0)) < 0)
        return pki_gnutls_err(err, rc, "signing the certificate");
    /* Re-read the signed certificate from its DER: gnutls fills some cached
     * fields (raw issuer and subject names, used by trust-list lookups and
     * extension getters) only when it parses a certificate. */
    gnutls_datum_t der = {NULL, 0};
    gnutls_x509_crt_t fresh = NULL;
    if ((rc = gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_DER, &der)) < 0 ||
        (rc = gnutls_x509_crt_init(&fresh)) < 0 ||
        (rc = gnutls_x509_crt_import(fresh, &der, GNUTLS_X509_FMT_DER)) < 0) {
        gnutls_free(der.data);
        if (fresh)
            gnutls_x509_crt_deinit(fresh);
        return pki_gnutls_err(err, rc, "re-reading the signed certificate");
    }
    gnutls_free(der.data);
    gnutls_x509_crt_deinit(c->crt);
    c->crt = fresh;
    return 0;
}

static int check_issuer(const sl_pki_cred_t *ca, sl_error_t *err)
{
    if (!ca || !ca->crt || !ca->key) {
        errno = EINVAL;
        return sl_errprintf(err, "the CA's private key is needed to issue certificates");
    }
    unsigned int is_ca = 0;
    if (gnutls_x509_crt_get_basic_constraints(ca->crt, NULL, &is_ca, NULL) < 0 || !is_ca) {
        errno = EINVAL;
        return sl_errprintf(err, "the issuing certificate is not a CA (basicConstraints)");
    }
    return 0;
}

sl_pki_cred_t *sl_pki_ca_create(const char *cn, int days, sl_error_t *err)
{
    if (!pki_name_ok(cn)) {
        errno = EINVAL;
        sl_errprintf(err, "CA name must be 1-255 printable characters");
        return NULL;
    }
    sl_pki_cred_t *c = start_cert(cn, days > 0 ? days : SL_PKI_CA_DAYS, err);
    if (!c)
        return NULL;
    int rc;
    if ((rc = gnutls_x509_crt_set_basic_constraints(c->crt, 1, -1)) < 0 ||
        (rc = gnutls_x509_crt_set_key_usage(c->crt,
                                            GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN)) < 0) {
        pki_gnutls_err(err, rc, "CA extensions");
        sl_pki_destroy(c);
        return NULL;
    }
    if (sign(c, NULL, err) < 0) {
        sl_pki_destroy(c);
        return NULL;
    }
    return c;
}

/* leaf: not a CA, digitalSignature (ECDSA needs no keyEncipherment), purpose */
static int leaf_exts(sl_pki_cred_t *c, const char *purpose, sl_error_t *err)
{
    int rc;
    if ((rc = gnutls_x509_crt_set_basic_constraints(c->crt, 0, -1)) < 0 ||
        (rc = gnutls_x509_crt_set_key_usage(c->crt, GNUTLS_KEY_DIGITAL_SIGNATURE)) < 0 ||
        (rc = gnutls_x509_crt_set_key_purpose_oid(c->crt, purpose, 0)) < 0)
        return pki_gnutls_err(err, rc, "certificate extensions");
    return 0;
}

static int add_san(sl_pki_cred_t *c, const char *name, sl_error_t *err)
{
    unsigned char ip[16];
    int rc;
    if (inet_pton(AF_INET, name, ip) == 1)
        rc = gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_IPADDRESS, ip, 4,
                                                  GNUTLS_FSAN_APPEND);
    else if (inet_pton(AF_INET6, name, ip) == 1)
        rc = gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_IPADDRESS, ip, 16,
                                                  GNUTLS_FSAN_APPEND);
    else {
        /* a DNS name: letters, digits, '-', '.', and a leading "*." wildcard */
        size_t n = strlen(name);
        int good = n > 0 && n <= 253;
        for (size_t i = 0; good && i < n; i++) {
            char ch = name[i];
            good = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                   (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
                   (ch == '*' && i == 0 && name[1] == '.');
        }
        if (!good) {
            errno = EINVAL;
            return sl_errprintf(err,
                                "subject alternative name \"%.80s\" is neither an IP "
                                "address nor a DNS name",
                                name);
        }
        rc = gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_DNSNAME, name, n,
                                                  GNUTLS_FSAN_APPEND);
    }
    if (rc < 0)
        return pki_gnutls_err(err, rc, "subject alternative name");
    return 0;
}

sl_pki_cred_t *sl_pki_issue_server(const sl_pki_cred_t *ca, const char *cn,
                                   const char *const *extra_sans, int days, sl_error_t *err)
{
    if (check_issuer(ca, err) < 0)
        return NULL;
    if (!pki_name_ok(cn)) {
        errno = EINVAL;
        sl_errprintf(err, "server certificate name must be 1-255 printable characters");
        return NULL;
    }
    sl_pki_cred_t *c = start_cert(cn, days > 0 ? days : SL_PKI_SERVER_DAYS, err);
    if (!c)
        return NULL;
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) < 0)
        host[0] = '\0';
    /* kubectl given --certificate-authority checks the IP SAN for 127.0.0.1 */
    if (leaf_exts(c, GNUTLS_KP_TLS_WWW_SERVER, err) < 0 || add_san(c, "127.0.0.1", err) < 0 ||
        add_san(c, "localhost", err) < 0)
        goto fail;
    if (host[0] && strcmp(host, "localhost") != 0 && add_san(c, host, err) < 0)
        goto fail;
    for (size_t i = 0; extra_sans && extra_sans[i]; i++)
        if (add_san(c, extra_sans[i], err) < 0)
            goto fail;
    if (sign(c, ca, err) < 0)
        goto fail;
    return c;
fail:
    sl_pki_destroy(c);
    return NULL;
}

sl_pki_cred_t *sl_pki_issue_client(const sl_pki_cred_t *ca, const char *user,
                                   const char *const *groups, int days, sl_error_t *err)
{
    if (check_issuer(ca, err) < 0)
        return NULL;
    if (!pki_name_ok(user)) {
        errno = EINVAL;
        sl_errprintf(err, "user name must be 1-255 printable characters");
        return NULL;
    }
    for (size_t i = 0; groups && groups[i]; i++)
        if (!pki_name_ok(groups[i])) {
            errno = EINVAL;
            sl_errprintf(err, "group name %zu must be 1-255 printable characters", i + 1);
            return NULL;
        }
    sl_pki_cred_t *c = start_cert(user, days > 0 ? days : SL_PKI_CLIENT_DAYS, err);
    if (!c)
        return NULL;
    int rc;
    for (size_t i = 0; groups && groups[i]; i++)
        if ((rc = gnutls_x509_crt_set_dn_by_oid(c->crt, GNUTLS_OID_X520_ORGANIZATION_NAME, 0,
                                                groups[i], strlen(groups[i]))) < 0) {
            pki_gnutls_err(err, rc, "organization (group) in the subject");
            goto fail;
        }
    if (leaf_exts(c, GNUTLS_KP_TLS_WWW_CLIENT, err) < 0 || sign(c, ca, err) < 0)
        goto fail;
    return c;
fail:
    sl_pki_destroy(c);
    return NULL;
}
