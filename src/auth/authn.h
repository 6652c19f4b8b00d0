/* authn.h — who is asking: one call per request for the API.
 *
 * Methods, tried in kube-apiserver's order: a client certificate presented
 * in the TLS handshake and signed by the cluster CA (CN = user, O = groups),
 * then an "Authorization: Bearer TOKEN" header found in the token file.
 * Every authenticated user also gets the group "system:authenticated".
 * Anything else is the caller's 401. The plain-HTTP listener has no
 * credentials at all: it uses sl_authz_anonymous() of the policy instead.
 *
 * The API's part, with libmicrohttpd (trust the CA in MHD_OPTION_HTTPS_MEM_TRUST
 * so that clients are asked for a certificate):
 *
 *     sl_authn_t *an = sl_authn_create(ca_path, token_path, &err);     // start
 *     ...
 *     const union MHD_ConnectionInfo *ci =
 *         MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
 *     const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
 *     sl_auth_user_t *u = sl_authn_request(an, ci ? ci->tls_session : NULL, h, &why);
 *     if (!u) → 401 sl_kube_status_unauthorized(NULL); log why.text
 *     ... sl_auth_user_destroy(u);
 *
 * Thread-safe after creation; sl_authn_destroy() when no request runs.
 */
#ifndef SL_AUTH_AUTHN_H
#define SL_AUTH_AUTHN_H

#include "auth/tokens.h"
#include "auth/user.h"
#include "common/err.h"

typedef struct sl_authn sl_authn_t;

/* client_ca: PEM file of the CA whose client certificates are accepted
 * (NULL: no certificate authentication). token_file: token file (NULL: no
 * tokens). Either may be absent, not both. */
sl_authn_t *sl_authn_create(const char *client_ca, const char *token_file, sl_error_t *err);
void sl_authn_destroy(sl_authn_t *a); /* NULL is a no-op */

/* The user behind a request, or NULL with why (errno EACCES) for a 401:
 * "no credentials", "invalid bearer token", "token expired", "client
 * certificate: not signed by the cluster CA", ...
 * tls_session: the request's gnutls_session_t (NULL over plain HTTP).
 * authorization: the Authorization header value (NULL if absent).
 * The caller destroys the user. */
sl_auth_user_t *sl_authn_request(sl_authn_t *a, void *tls_session, const char *authorization,
                                 sl_error_t *why);

/* How many client certificates were verified against the CA so far. A
 * certificate verified once is remembered by its SHA-256 (its user, until it
 * expires, at most SL_AUTHN_CERT_TTL seconds) and not verified again: the
 * signature check was most of a request's CPU. Untrusted ones are never
 * remembered. */
#define SL_AUTHN_CERT_TTL 60
unsigned long sl_authn_cert_checks(const sl_authn_t *a);

/* The bearer token of an Authorization header value ("Bearer abc" → "abc"),
 * as kube-apiserver reads it; NULL if it is not a bearer header. Borrowed
 * into a caller-freed copy. */
char *sl_authn_bearer(const char *authorization);

#endif
