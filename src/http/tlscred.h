/* tlscred.h — a server's TLS certificate chain and key, replaceable while
 * it serves (slurmlinkd's SIGHUP: sl_api_reload_tls).
 *
 * libmicrohttpd asks for the credentials at each handshake through GnuTLS's
 * retrieve function (MHD_OPTION_HTTPS_CERT_CALLBACK); it gets the current
 * set, and the connection holds a reference to that set until it closes
 * (http_tls_conn_t), because GnuTLS keeps pointing into it for the session. A swap
 * puts the new set in place under a mutex; the old one is freed when its
 * last connection closes. So new connections get the new certificate and
 * open ones (watches) go on with theirs. */
#ifndef SL_HTTP_TLSCRED_H
#define SL_HTTP_TLSCRED_H

#include <gnutls/abstract.h>

#include "common/err.h"

typedef struct http_tls http_tls_t;           /* the server's current set */
typedef struct http_tls_cred http_tls_cred_t; /* one set: chain and key */

/* Read and check cert (a PEM chain) and key (a PEM private key that is the
 * first certificate's): NULL with err naming the file and the reason. */
http_tls_t *http_tls_create(const char *cert, const char *key, sl_error_t *err);
void http_tls_destroy(http_tls_t *t); /* after the listener has stopped */

/* Replace the set with the files' (checked as above); a bad pair keeps the
 * current one: -1 with err. *serial: the new certificate's serial, hex. */
int http_tls_reload(http_tls_t *t, const char *cert, const char *key, char serial[80],
                    sl_error_t *err);

/* the retrieve function for MHD_OPTION_HTTPS_CERT_CALLBACK */
gnutls_certificate_retrieve_function2 http_tls_retrieve;

/* drop a reference (http_tls_conn_release, when a connection closes) */
void http_tls_cred_put(http_tls_cred_t *c);

/* What the server keeps per connection for http_tls_retrieve: the socket
 * context of each libmicrohttpd connection (MHD_OPTION_NOTIFY_CONNECTION)
 * must begin with this. tls: the server's set (set when the connection
 * starts); held: the set its handshake used, whose reference the server
 * drops with http_tls_conn_release when the connection closes. */
typedef struct http_tls_conn {
    http_tls_t *tls;
    http_tls_cred_t *held;
} http_tls_conn_t;
void http_tls_conn_release(http_tls_conn_t *c);

#endif
