/* tlscred.h — the API's TLS certificate chain and key, replaceable while it
 * serves (SIGHUP: sl_api_reload_tls).
 *
 * libmicrohttpd asks for the credentials at each handshake through GnuTLS's
 * retrieve function (MHD_OPTION_HTTPS_CERT_CALLBACK); it gets the current
 * set, and the connection holds a reference to that set until it closes
 * (conns.c), because GnuTLS keeps pointing into it for the session. A swap
 * puts the new set in place under a mutex; the old one is freed when its
 * last connection closes. So new connections get the new certificate and
 * open ones (watches) go on with theirs. */
#ifndef SL_API_TLSCRED_H
#define SL_API_TLSCRED_H

#include <gnutls/abstract.h>

#include "common/err.h"

typedef struct api_tls api_tls_t;           /* the server's current set */
typedef struct api_tls_cred api_tls_cred_t; /* one set: chain and key */

/* Read and check cert (a PEM chain) and key (a PEM private key that is the
 * first certificate's): NULL with err naming the file and the reason. */
api_tls_t *api_tls_create(const char *cert, const char *key, sl_error_t *err);
void api_tls_destroy(api_tls_t *t); /* after the listener has stopped */

/* Replace the set with the files' (checked as above); a bad pair keeps the
 * current one: -1 with err. *serial: the new certificate's serial, hex. */
int api_tls_reload(api_tls_t *t, const char *cert, const char *key, char serial[80],
                   sl_error_t *err);

/* the retrieve function for MHD_OPTION_HTTPS_CERT_CALLBACK */
gnutls_certificate_retrieve_function2 api_tls_retrieve;

/* drop a connection's reference (conns.c, when it closes) */
void api_tls_cred_put(api_tls_cred_t *c);

/* conns.c: the server's set for a connection, and the connection holding
 * cred (its reference, dropped when it closes) */
struct MHD_Connection;
api_tls_t *api_conn_tls(struct MHD_Connection *conn);
int api_conn_hold_tls(struct MHD_Connection *conn, api_tls_cred_t *cred);

#endif
