/* cred.c — credentials in and out: PEM, files, pins, subject names, SANs. */
#include "common/fsutil.h"
#include "common/b64.h"
#include "common/xalloc.h"
#include "pki/internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <string.h>

static char *datum_str(gnutls_datum_t *d)
{
    char *s = sl_xstrndup((const char *)d->data, d->size);
    gnutls_free(d->data);
    d->data = NULL;
    return s;
}

char *sl_pki_cert_pem(const sl_pki_cred_t *c)
{
    gnutls_datum_t d = {NULL, 0};
    if (!c || gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_PEM, &d) < 0)
        return NULL;
    return datum_str(&d);
}

char *sl_pki_key_pem(const sl_pki_cred_t *c)
{
    gnutls_datum_t d = {NULL, 0};
    if (!c || !c->key || gnutls_x509_privkey_export2(c->key, GNUTLS_X509_FMT_PEM, &d) < 0)
        return NULL;
    return datum_str(&d);
}

int sl_pki_has_key(const sl_pki_cred_t *c) { return c && c->key; }

/* Does the key belong to the certificate? (same public-key identifier) */
static int key_matches(const sl_pki_cred_t *c)
{
    unsigned char a[64], b[64];
    size_t al = sizeof(a), bl = sizeof(b);
    if (gnutls_x509_crt_get_key_id(c->crt, GNUTLS_KEYID_USE_SHA256, a, &al) < 0 ||
        gnutls_x509_privkey_get_key_id(c->key, GNUTLS_KEYID_USE_SHA256, b, &bl) < 0)
        return 0;
    return al == bl && memcmp(a, b, al) == 0;
}

sl_pki_cred_t *sl_pki_from_pem(const char *cert_pem, const char *key_pem, sl_error_t *err)
{
    if (!cert_pem) {
        errno = EINVAL;
        sl_errprintf(err, "no certificate");
        return NULL;
    }
    sl_pki_cred_t *c = sl_xcalloc(1, sizeof(*c));
    gnutls_datum_t d = {(unsigned char *)cert_pem, (unsigned int)strlen(cert_pem)};
    int rc;
    if ((rc = gnutls_x509_crt_init(&c->crt)) < 0 ||
        (rc = gnutls_x509_crt_import(c->crt, &d, GNUTLS_X509_FMT_PEM)) < 0) {
        pki_gnutls_err(err, rc, "certificate");
        goto fail;
    }
    if (key_pem) {
        gnutls_datum_t k = {(unsigned char *)key_pem, (unsigned int)strlen(key_pem)};
        if ((rc = gnutls_x509_privkey_init(&c->key)) < 0 ||
            (rc = gnutls_x509_privkey_import2(c->key, &k, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
            pki_gnutls_err(err, rc, "private key");
            goto fail;
        }
        if (!key_matches(c)) {
            errno = EINVAL;
            sl_errprintf(err, "the private key does not belong to the certificate");
            goto fail;
        }
    }
    return c;
fail:
    sl_pki_destroy(c);
    return NULL;
}

sl_pki_cred_t *sl_pki_load(const char *cert_path, const char *key_path, sl_error_t *err)
{
    char *cert = sl_read_file(cert_path, NULL, err);
    if (!cert)
        return NULL;
    char *key = NULL;
    if (key_path && !(key = sl_read_file(key_path, NULL, err))) {
        free(cert);
        return NULL;
    }
    sl_error_t e = SL_ERROR_INIT;
    sl_pki_cred_t *c = sl_pki_from_pem(cert, key, &e);
    if (key) {
        /* the key text is secret: do not leave it in freed memory */
        explicit_bzero(key, strlen(key));
        free(key);
    }
    free(cert);
    if (!c) {
        int saved = errno;
        if (key_path)
            sl_errprintf(err, "%s / %s: %s", cert_path, key_path, e.text);
        else
            sl_errprintf(err, "%s: %s", cert_path, e.text);
        errno = saved;
    }
    return c;
}

int sl_pki_save(const sl_pki_cred_t *c, const char *cert_path, const char *key_path,
                sl_error_t *err)
{
    if (key_path && !c->key) {
        errno = EINVAL;
        return sl_errprintf(err, "%s: no private key to write", key_path);
    }
    if (key_path) {
        char *k = sl_pki_key_pem(c);
        if (!k) {
            errno = EIO;
            return sl_errprintf(err, "%s: cannot export the private key", key_path);
        }
        int r = sl_write_file(key_path, k, strlen(k), 0600, err);
        explicit_bzero(k, strlen(k));
        free(k);
        if (r < 0)
            return -1;
    }
    char *pem = sl_pki_cert_pem(c);
    if (!pem) {
        errno = EIO;
        return sl_errprintf(err, "%s: cannot export the certificate", cert_path);
    }
    int r = sl_write_file(cert_path, pem, strlen(pem), 0644, err);
    free(pem);
    return r;
}

char *sl_pki_pin(const sl_pki_cred_t *c)
{
    gnutls_pubkey_t pub = NULL;
    gnutls_datum_t spki = {NULL, 0};
    unsigned char dig[32];
    char *out = NULL;
    if (gnutls_pubkey_init(&pub) < 0)
        return NULL;
    if (gnutls_pubkey_import_x509(pub, c->crt, 0) >= 0 &&
        gnutls_pubkey_export2(pub, GNUTLS_X509_FMT_DER, &spki) >= 0 &&
        gnutls_hash_fast(GNUTLS_DIG_SHA256, spki.data, spki.size, dig) >= 0) {
        char *b64 = sl_b64_encode(dig, sizeof(dig));
        out = b64 ? sl_xasprintf("sha256//%s", b64) : NULL;
        free(b64);
    }
    gnutls_free(spki.data);
    gnutls_pubkey_deinit(pub);
    return out;
}

void sl_pki_names_free(sl_pki_names_t *n)
{
    if (!n)
        return;
    free(n->cn);
    for (size_t i = 0; n->orgs && n->orgs[i]; i++)
        free(n->orgs[i]);
    free(n->orgs);
    memset(n, 0, sizeof(*n));
}

/* One attribute value as a C string. The value is taken from the DER string
 * itself, not from gnutls's RFC 4514 rendering (which escapes "," as "\,"). */
static int ava_string(const gnutls_x509_ava_st *ava, char **out, sl_error_t *err)
{
    /* UTF8String, PrintableString, IA5String: bytes are the text */
    if (ava->value_tag != 12 && ava->value_tag != 19 && ava->value_tag != 22) {
        errno = EINVAL;
        return sl_errprintf(err, "certificate subject holds a string of ASN.1 type %lu",
                            ava->value_tag);
    }
    /* a NUL inside a name would let "alice\0x" pass as "alice" */
    if (memchr(ava->value.data, '\0', ava->value.size)) {
        errno = EINVAL;
        return sl_errprintf(err, "certificate subject holds a NUL byte");
    }
    *out = sl_xstrndup((const char *)ava->value.data, ava->value.size);
    return 0;
}

static int oid_is(const gnutls_x509_ava_st *ava, const char *oid)
{
    size_t n = strlen(oid);
    return ava->oid.size >= n && !memcmp(ava->oid.data, oid, n) &&
           (ava->oid.size == n || ava->oid.data[n] == '\0');
}

int sl_pki_subject(const sl_pki_cred_t *c, sl_pki_names_t *out, sl_error_t *err)
{
    sl_pki_names_t n = {NULL, NULL, 0, 0};
    gnutls_x509_dn_t dn;
    int rc = gnutls_x509_crt_get_subject(c->crt, &dn);
    if (rc < 0)
        return pki_gnutls_err(err, rc, "certificate subject");
    n.orgs = sl_xcalloc(1, sizeof(char *));
    for (int i = 0;; i++) {
        gnutls_x509_ava_st ava;
        int j = 0;
        for (; (rc = gnutls_x509_dn_get_rdn_ava(dn, i, j, &ava)) == 0; j++) {
            char *v = NULL;
            if (oid_is(&ava, GNUTLS_OID_X520_COMMON_NAME)) {
                if (n.cn) {
                    /* clients disagree on which CN counts: refuse the doubt */
                    errno = EINVAL;
                    sl_errprintf(err, "certificate subject has more than one common name");
                    goto fail;
                }
                if (ava_string(&ava, &v, err) < 0)
                    goto fail;
                n.cn = v;
            } else if (oid_is(&ava, GNUTLS_OID_X520_ORGANIZATION_NAME)) {
                if (ava_string(&ava, &v, err) < 0)
                    goto fail;
                n.orgs = sl_xrealloc(n.orgs, (n.norgs + 2) * sizeof(char *));
                n.orgs[n.norgs++] = v;
                n.orgs[n.norgs] = NULL;
            }
        }
        if (j == 0)
            break; /* no RDN number i: the end */
    }
    if (!n.cn)
        n.cn = sl_xstrdup("");
    *out = n;
    return 0;
fail:
    sl_pki_names_free(&n);
    return -1;
}

char **sl_pki_sans(const sl_pki_cred_t *c)
{
    char **list = sl_xcalloc(1, sizeof(char *));
    size_t n = 0;
    for (unsigned i = 0;; i++) {
        unsigned char buf[512];
        size_t size = sizeof(buf) - 1;
        unsigned crit = 0;
        int type = gnutls_x509_crt_get_subject_alt_name(c->crt, i, buf, &size, &crit);
        if (type < 0)
            break;
        char *s = NULL;
        if (type == GNUTLS_SAN_IPADDRESS && (size == 4 || size == 16)) {
            char ip[INET6_ADDRSTRLEN];
            inet_ntop(size == 4 ? AF_INET : AF_INET6, buf, ip, sizeof(ip));
            s = sl_xasprintf("IP:%s", ip);
        } else if (type == GNUTLS_SAN_DNSNAME) {
            s = sl_xasprintf("DNS:%.*s", (int)size, (const char *)buf);
        } else {
            s = sl_xasprintf("OTHER:%d", type);
        }
        list = sl_xrealloc(list, (n + 2) * sizeof(char *));
        list[n++] = s;
        list[n] = NULL;
    }
    return list;
}

long long sl_pki_not_after(const sl_pki_cred_t *c)
{
    return (long long)gnutls_x509_crt_get_expiration_time(c->crt);
}

static int verify_crt(const sl_pki_cred_t *ca, gnutls_x509_crt_t crt, int purpose, sl_error_t *err)
{
    gnutls_x509_trust_list_t tl = NULL;
    char *ca_pem = sl_pki_cert_pem(ca);
    int rc, r = -1;
    if (!ca_pem) {
        errno = EIO;
        return sl_errprintf(err, "cannot export the CA certificate");
    }
    gnutls_datum_t d = {(unsigned char *)ca_pem, (unsigned int)strlen(ca_pem)};
    if ((rc = gnutls_x509_trust_list_init(&tl, 0)) < 0 ||
        (rc = gnutls_x509_trust_list_add_trust_mem(tl, &d, NULL, GNUTLS_X509_FMT_PEM, 0, 0)) < 1) {
        pki_gnutls_err(err, rc < 0 ? rc : GNUTLS_E_INVALID_REQUEST, "CA trust list");
        goto out;
    }
    gnutls_typed_vdata_st vd = {GNUTLS_DT_KEY_PURPOSE_OID, NULL, 0};
    unsigned nvd = 0;
    if (purpose == SL_PKI_SERVER)
        vd.data = (unsigned char *)GNUTLS_KP_TLS_WWW_SERVER, nvd = 1;
    else if (purpose == SL_PKI_CLIENT)
        vd.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, nvd = 1;
    unsigned status = 0;
    if ((rc = gnutls_x509_trust_list_verify_crt2(tl, &crt, 1, nvd ? &vd : NULL, nvd, 0, &status,
                                                 NULL)) < 0) {
        pki_gnutls_err(err, rc, "certificate verification");
        goto out;
    }
    if (status) {
        gnutls_datum_t why = {NULL, 0};
        errno = EACCES;
        if (status & GNUTLS_CERT_SIGNER_NOT_FOUND)
            sl_errprintf(err, "certificate is not signed by the cluster CA");
        else if (status & GNUTLS_CERT_EXPIRED)
            sl_errprintf(err, "certificate has expired");
        else if (status & GNUTLS_CERT_NOT_ACTIVATED)
            sl_errprintf(err, "certificate is not yet valid");
        else if (status & GNUTLS_CERT_PURPOSE_MISMATCH)
            sl_errprintf(err, "certificate is not for %s use",
                         purpose == SL_PKI_CLIENT ? "client" : "server");
        else if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &why, 0) >=
                 0) {
            sl_errprintf(err, "certificate rejected: %.*s", (int)why.size, (const char *)why.data);
            gnutls_free(why.data);
        } else
            sl_errprintf(err, "certificate rejected (status 0x%x)", status);
        errno = EACCES;
        goto out;
    }
    r = 0;
out:
    if (tl)
        gnutls_x509_trust_list_deinit(tl, 1);
    free(ca_pem);
    return r;
}

int sl_pki_verify(const sl_pki_cred_t *ca, const sl_pki_cred_t *cert, int purpose, sl_error_t *err)
{
    return verify_crt(ca, cert->crt, purpose, err);
}

int sl_pki_verify_peer(const sl_pki_cred_t *ca, const unsigned char *der, size_t der_len,
                       sl_pki_names_t *out, sl_error_t *err)
{
    sl_pki_cred_t peer = {NULL, NULL};
    gnutls_datum_t d = {(unsigned char *)der, (unsigned int)der_len};
    int rc, r = -1;
    if (!der || der_len == 0 || der_len > 64 * 1024) {
        errno = EACCES;
        return sl_errprintf(err, "no client certificate");
    }
    if ((rc = gnutls_x509_crt_init(&peer.crt)) < 0 ||
        (rc = gnutls_x509_crt_import(peer.crt, &d, GNUTLS_X509_FMT_DER)) < 0) {
        pki_gnutls_err(err, rc, "client certificate");
        errno = EACCES;
        goto out;
    }
    /* a CA certificate is no user's identity, even the cluster's own */
    unsigned int is_ca = 0;
    if (gnutls_x509_crt_get_basic_constraints(peer.crt, NULL, &is_ca, NULL) >= 0 && is_ca) {
        errno = EACCES;
        sl_errprintf(err, "a CA certificate is not a client certificate");
        goto out;
    }
    if (verify_crt(ca, peer.crt, SL_PKI_CLIENT, err) < 0 || sl_pki_subject(&peer, out, err) < 0)
        goto out;
    if (!out->cn[0]) {
        sl_pki_names_free(out);
        errno = EACCES;
        sl_errprintf(err, "client certificate has no common name (user)");
        goto out;
    }
    out->not_after = (long long)gnutls_x509_crt_get_expiration_time(peer.crt);
    r = 0;
out:
    if (peer.crt)
        gnutls_x509_crt_deinit(peer.crt);
    if (r < 0)
        errno = EACCES;
    return r;
}
