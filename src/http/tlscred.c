/* tlscred.c — the TLS credentials served through GnuTLS's retrieve
 * function, swapped by a reload (tlscred.h says how they live). */
#include "http/tlscred.h"

#include "common/fsutil.h"
#include "common/log.h"
#include "common/xalloc.h"

#include <errno.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAIN 16

struct http_tls_cred {
    atomic_int refs;
    gnutls_pcert_st pcert[MAX_CHAIN];
    unsigned npcert;
    gnutls_privkey_t key;
};

struct http_tls {
    pthread_mutex_t mu;
    http_tls_cred_t *cur; /* mu; holds one reference */
};

static void cred_free(http_tls_cred_t *c)
{
    for (unsigned i = 0; i < c->npcert; i++)
        gnutls_pcert_deinit(&c->pcert[i]);
    if (c->key)
        gnutls_privkey_deinit(c->key);
    free(c);
}

void http_tls_cred_put(http_tls_cred_t *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1)
        cred_free(c);
}

/* whether key is the private key of the certificate's public key */
static int key_matches(const http_tls_cred_t *c)
{
    gnutls_pubkey_t pub = NULL;
    gnutls_datum_t a = {0}, b = {0};
    int same = gnutls_pubkey_init(&pub) == 0 &&
               gnutls_pubkey_import_privkey(pub, c->key, 0, 0) == 0 &&
               gnutls_pubkey_export2(pub, GNUTLS_X509_FMT_DER, &a) == 0 &&
               gnutls_pubkey_export2(c->pcert[0].pubkey, GNUTLS_X509_FMT_DER, &b) == 0 &&
               a.size == b.size && !memcmp(a.data, b.data, a.size);
    gnutls_free(a.data);
    gnutls_free(b.data);
    if (pub)
        gnutls_pubkey_deinit(pub);
    return same;
}

static int import(http_tls_cred_t *c, const char *cert, const gnutls_datum_t *cd, const char *key,
                  const gnutls_datum_t *kd, sl_error_t *err)
{
    c->npcert = MAX_CHAIN;
    int rc = gnutls_pcert_list_import_x509_raw(c->pcert, &c->npcert, cd, GNUTLS_X509_FMT_PEM, 0);
    if (rc < 0 || !c->npcert) {
        c->npcert = 0;
        return sl_errprintf(err, "%s: not a PEM certificate chain: %s", cert,
                            rc < 0 ? gnutls_strerror(rc) : "no certificate");
    }
    if ((rc = gnutls_privkey_init(&c->key)) < 0 ||
        (rc = gnutls_privkey_import_x509_raw(c->key, kd, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0)
        return sl_errprintf(err, "%s: not a PEM private key: %s", key, gnutls_strerror(rc));
    if (!key_matches(c))
        return sl_errprintf(err, "%s is not the private key of %s's certificate", key, cert);
    return 0;
}

static http_tls_cred_t *cred_load(const char *cert, const char *key, sl_error_t *err)
{
    size_t cl = 0, kl = 0;
    char *cp = sl_read_file(cert, &cl, err), *kp = cp ? sl_read_file(key, &kl, err) : NULL;
    http_tls_cred_t *c = NULL;
    if (cp && kp) {
        c = sl_xcalloc(1, sizeof(*c));
        atomic_init(&c->refs, 1);
        gnutls_datum_t cd = {(unsigned char *)cp, (unsigned)cl},
                       kd = {(unsigned char *)kp, (unsigned)kl};
        if (import(c, cert, &cd, key, &kd, err) < 0) {
            cred_free(c);
            c = NULL;
        }
    }
    if (kp)
        memset(kp, 0, kl); /* the key's text goes no further */
    free(cp);
    free(kp);
    return c;
}

http_tls_t *http_tls_create(const char *cert, const char *key, sl_error_t *err)
{
    http_tls_cred_t *c = cred_load(cert, key, err);
    if (!c)
        return NULL;
    http_tls_t *t = sl_xcalloc(1, sizeof(*t));
    pthread_mutex_init(&t->mu, NULL);
    t->cur = c;
    return t;
}

void http_tls_destroy(http_tls_t *t)
{
    if (!t)
        return;
    http_tls_cred_put(t->cur);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static void serial_hex(const http_tls_cred_t *c, char out[80])
{
    gnutls_x509_crt_t crt = NULL;
    unsigned char s[40];
    size_t n = sizeof(s);
    out[0] = '\0';
    if (gnutls_x509_crt_init(&crt) == 0 &&
        gnutls_x509_crt_import(crt, &c->pcert[0].cert, GNUTLS_X509_FMT_DER) == 0 &&
        gnutls_x509_crt_get_serial(crt, s, &n) == 0)
        for (size_t i = 0; i < n && 2 * i + 2 < 80; i++)
            snprintf(out + 2 * i, 3, "%02X", s[i]);
    if (crt)
        gnutls_x509_crt_deinit(crt);
}

int http_tls_reload(http_tls_t *t, const char *cert, const char *key, char serial[80],
                    sl_error_t *err)
{
    http_tls_cred_t *c = cred_load(cert, key, err);
    if (!c)
        return -1;
    serial_hex(c, serial);
    pthread_mutex_lock(&t->mu);
    http_tls_cred_t *old = t->cur;
    t->cur = c;
    pthread_mutex_unlock(&t->mu);
    http_tls_cred_put(old); /* freed now, or when its last connection closes */
    return 0;
}

/* GnuTLS asks during a handshake: the current set, held by the
 * connection (MHD made the session's pointer the connection) */
int http_tls_retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn, int nreqs,
                      const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                      gnutls_pcert_st **pcert, unsigned int *pcert_length, gnutls_privkey_t *key)
{
    struct MHD_Connection *conn = gnutls_session_get_ptr(session);
    const union MHD_ConnectionInfo *ci =
        conn ? MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT) : NULL;
    http_tls_conn_t *hc = ci ? ci->socket_context : NULL;
    http_tls_t *t = hc ? hc->tls : NULL;
    if (!t)
        return -1;
    pthread_mutex_lock(&t->mu);
    http_tls_cred_t *c = t->cur;
    atomic_fetch_add(&c->refs, 1);
    pthread_mutex_unlock(&t->mu);
    http_tls_cred_put(hc->held); /* a second handshake on the connection */
    hc->held = c;
    *pcert = c->pcert;
    *pcert_length = c->npcert;
    *key = c->key;
    return 0;
}

void http_tls_conn_release(http_tls_conn_t *c)
{
    http_tls_cred_put(c->held);
    c->held = NULL;
}
