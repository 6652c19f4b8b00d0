/* internal.h — shared between the pki module's files only. */
#ifndef SL_PKI_INTERNAL_H
#define SL_PKI_INTERNAL_H

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "pki.h"

struct sl_pki_cred {
    gnutls_x509_crt_t crt;
    gnutls_x509_privkey_t key; /* NULL when only the certificate is known */
};

/* Fill err with "what: <gnutls reason>", set errno (EINVAL for bad input,
 * else EIO); returns -1. */
int pki_gnutls_err(sl_error_t *err, int rc, const char *what);

/* A name fit for a CN/O/SAN: non-empty, <= 255 bytes, no control chars. */
int pki_name_ok(const char *s);

#endif
