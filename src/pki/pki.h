/* pki.h — the cluster's own certificate authority (gnutls x509 API).
 *
 * A credential (sl_pki_cred_t) is one X.509 certificate plus, optionally,
 * its private key. It is created by sl_pki_ca_create() / sl_pki_issue_*()
 * (certificate and key) or loaded from PEM (key optional), and freed with
 * sl_pki_destroy(). Credentials are immutable after creation, so one loaded
 * CA may be shared by threads that only verify with it.
 *
 * Conventions (kube-apiserver's, so kubectl and client libraries work):
 *   - CA: basicConstraints CA:TRUE (critical), keyUsage keyCertSign+cRLSign.
 *   - server: extendedKeyUsage serverAuth; subjectAltName IP 127.0.0.1, DNS
 *     localhost, DNS <host name>, plus any extra names given.
 *   - client: extendedKeyUsage clientAuth; subject CN = user name, one O per
 *     group (the API maps CN → user, O → groups).
 * Keys are ECDSA P-256. Certificates start 5 minutes in the past so that a
 * small clock skew between machines does not reject a fresh certificate.
 * Files: keys are written 0600, certificates 0644 (atomically).
 */
#ifndef SL_PKI_H
#define SL_PKI_H

#include <stddef.h>

#include "common/err.h"

typedef struct sl_pki_cred sl_pki_cred_t;

/* Validity defaults, in days. */
#define SL_PKI_CA_DAYS 3650
#define SL_PKI_SERVER_DAYS 3650
#define SL_PKI_CLIENT_DAYS 365

/* A new self-signed CA with subject CN=cn. days <= 0: SL_PKI_CA_DAYS. */
sl_pki_cred_t *sl_pki_ca_create(const char *cn, int days, sl_error_t *err);

/* A server certificate signed by ca (which must hold its key).
 * extra_sans: NULL-terminated list of additional names (an IPv4/IPv6
 * literal becomes an IP SAN, anything else a DNS SAN); may be NULL.
 * days <= 0: SL_PKI_SERVER_DAYS. */
sl_pki_cred_t *sl_pki_issue_server(const sl_pki_cred_t *ca, const char *cn,
                                   const char *const *extra_sans, int days, sl_error_t *err);

/* A client certificate for user (CN) in groups (one O each; NULL-terminated,
 * may be NULL). User and group names: non-empty UTF-8 without control
 * characters, at most 255 bytes. days <= 0: SL_PKI_CLIENT_DAYS. */
sl_pki_cred_t *sl_pki_issue_client(const sl_pki_cred_t *ca, const char *user,
                                   const char *const *groups, int days, sl_error_t *err);

/* Parse PEM text: cert_pem required (the first certificate is used);
 * key_pem may be NULL. A given key must match the certificate. */
sl_pki_cred_t *sl_pki_from_pem(const char *cert_pem, const char *key_pem, sl_error_t *err);

/* Load from files (key_path may be NULL). Errors name the file. */
sl_pki_cred_t *sl_pki_load(const char *cert_path, const char *key_path, sl_error_t *err);

/* Write the certificate (0644) and, when key_path is given, the key (0600).
 * The key is written first so that a certificate file never exists without
 * its key. Fails (EINVAL) if key_path is given but the credential has no key. */
int sl_pki_save(const sl_pki_cred_t *c, const char *cert_path, const char *key_path,
                sl_error_t *err);

void sl_pki_destroy(sl_pki_cred_t *c); /* NULL is a no-op */

/* PEM text; caller frees. sl_pki_key_pem returns NULL if there is no key. */
char *sl_pki_cert_pem(const sl_pki_cred_t *c);
char *sl_pki_key_pem(const sl_pki_cred_t *c);
int sl_pki_has_key(const sl_pki_cred_t *c);

/* "sha256//BASE64" of the certificate's SubjectPublicKeyInfo (DER), the
 * form libcurl's CURLOPT_PINNEDPUBLICKEY takes. Caller frees. */
char *sl_pki_pin(const sl_pki_cred_t *c);

/* Subject CN and every O value, in order (NULL-terminated list; either may be
 * empty). Caller frees with sl_pki_names_free(). */
typedef struct sl_pki_names {
    char *cn;    /* "" when the subject has no CN */
    char **orgs; /* NULL-terminated, never NULL */
    size_t norgs;
    long long not_after; /* sl_pki_verify_peer: when the certificate expires; else 0 */
} sl_pki_names_t;
int sl_pki_subject(const sl_pki_cred_t *c, sl_pki_names_t *out, sl_error_t *err);
void sl_pki_names_free(sl_pki_names_t *n); /* clears *n; NULL is a no-op */

/* Verify cert against ca for purpose: SL_PKI_CLIENT or SL_PKI_SERVER
 * (extended key usage), at the current time. 0 if trusted, -1 with errno
 * EACCES and err naming why (e.g. "not signed by the cluster CA", "expired"). */
enum { SL_PKI_ANY = 0, SL_PKI_SERVER = 1, SL_PKI_CLIENT = 2 };
int sl_pki_verify(const sl_pki_cred_t *ca, const sl_pki_cred_t *cert, int purpose, sl_error_t *err);

/* The API's client-certificate check, from what a TLS session presents:
 * ders[0] is the peer's certificate (DER), ders[1..n-1] any intermediates
 * (ignored: this CA issues client certificates directly). Verifies it as a
 * client certificate of ca and returns its CN and O values in *out.
 * Returns 0 on success, -1 with err (errno EACCES) when untrusted. */
int sl_pki_verify_peer(const sl_pki_cred_t *ca, const unsigned char *der, size_t der_len,
                       sl_pki_names_t *out, sl_error_t *err);

/* Subject alternative names, "IP:127.0.0.1" / "DNS:localhost" in order
 * (NULL-terminated; caller frees each string and the array). */
char **sl_pki_sans(const sl_pki_cred_t *c);

/* Seconds since the epoch when the certificate stops being valid. */
long long sl_pki_not_after(const sl_pki_cred_t *c);

#endif
