/* authn.c — request authentication: client certificate, then bearer token. */
#include "auth/authn.h"
#include "common/xalloc.h"
#include "pki/pki.h"

#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Verified client certificates, by the SHA-256 of their DER: a request on
 * a kept-alive connection (or a new connection of the same client) presents
 * the same certificate each time. */
enum { CERT_SLOTS = 64 };
typedef struct cert_slot {
    unsigned char sha[32];
    long long until;     /* 0: free */
    sl_auth_user_t *user; /* without "system:authenticated" */
} cert_slot_t;

struct sl_authn {
    sl_pki_cred_t *ca;
    sl_auth_tokens_t *tokens;
    _Atomic unsigned long checks;
    pthread_mutex_t mu;
    cert_slot_t slot[CERT_SLOTS];
    unsigned next; /* the slot to take when none is free */
};

sl_authn_t *sl_authn_create(const char *client_ca, const char *token_file, sl_error_t *err)
{
    if (!client_ca && !token_file) {
        errno = EINVAL;
        sl_errprintf(err, "no authentication method (client CA or token file) given");
        return NULL;
    }
    sl_authn_t *a = sl_xcalloc(1, sizeof(*a));
    pthread_mutex_init(&a->mu, NULL);
    if (client_ca && !(a->ca = sl_pki_load(client_ca, NULL, err)))
        goto fail;
    if (token_file && !(a->tokens = sl_auth_tokens_load(token_file, err)))
        goto fail;
    return a;
fail:
    sl_authn_destroy(a);
    return NULL;
}

void sl_authn_destroy(sl_authn_t *a)
{
    if (!a)
        return;
    sl_pki_destroy(a->ca);
    sl_auth_tokens_destroy(a->tokens);
    for (int i = 0; i < CERT_SLOTS; i++)
        sl_auth_user_destroy(a->slot[i].user);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

char *sl_authn_bearer(const char *h)
{
    if (!h)
        return NULL;
    /* kube-apiserver: TrimSpace, SplitN(" ", 3), parts[0] "bearer" in any
     * case, the token is parts[1] and must not be empty (a third part is
     * ignored) */
    while (*h == ' ' || *h == '\t' || *h == '\r' || *h == '\n')
        h++;
    if (strncasecmp(h, "bearer ", 7) != 0)
        return NULL;
    const char *t = h + 7;
    size_t n = strcspn(t, " ");
    while (n && (t[n - 1] == '\t' || t[n - 1] == '\r' || t[n - 1] == '\n'))
        n--;
    return n ? sl_xstrndup(t, n) : NULL;
}

/* A copy of the user of a certificate verified before and not expired. */
static sl_auth_user_t *cert_cached(sl_authn_t *a, const unsigned char sha[32])
{
    long long now = (long long)time(NULL);
    sl_auth_user_t *u = NULL;
    pthread_mutex_lock(&a->mu);
    for (int i = 0; i < CERT_SLOTS && !u; i++) {
        cert_slot_t *c = &a->slot[i];
        if (c->until && now < c->until && !memcmp(c->sha, sha, 32))
            u = sl_auth_user_copy(c->user);
    }
    pthread_mutex_unlock(&a->mu);
    return u;
}

static void cert_keep(sl_authn_t *a, const unsigned char sha[32], const sl_auth_user_t *u,
                      long long not_after)
{
    long long now = (long long)time(NULL), until = now + SL_AUTHN_CERT_TTL;
    if (not_after < until)
        until = not_after;
    if (until <= now)
        return;
    pthread_mutex_lock(&a->mu);
    cert_slot_t *c = NULL;
    for (int i = 0; i < CERT_SLOTS && !c; i++)
        if (a->slot[i].until <= now)
            c = &a->slot[i]; /* free or expired */
    if (!c)
        c = &a->slot[a->next++ % CERT_SLOTS];
    sl_auth_user_destroy(c->user);
    memcpy(c->sha, sha, 32);
    c->user = sl_auth_user_copy(u);
    c->until = until;
    pthread_mutex_unlock(&a->mu);
}

static sl_auth_user_t *from_cert(sl_authn_t *a, gnutls_session_t s, int *presented, sl_error_t *why)
{
    unsigned n = 0;
    const gnutls_datum_t *peers = gnutls_certificate_get_peers(s, &n);
    *presented = peers && n > 0;
    if (!*presented)
        return NULL;
    unsigned char sha[32];
    int hashed = gnutls_hash_fast(GNUTLS_DIG_SHA256, peers[0].data, peers[0].size, sha) == 0;
    sl_auth_user_t *u = hashed ? cert_cached(a, sha) : NULL;
    if (u)
        return u;
    sl_pki_names_t names = {NULL, NULL, 0, 0};
    sl_error_t e = SL_ERROR_INIT;
    atomic_fetch_add(&a->checks, 1);
    if (sl_pki_verify_peer(a->ca, peers[0].data, peers[0].size, &names, &e) < 0) {
        sl_errprintf(why, "client certificate: %s", e.text);
        return NULL;
    }
    u = sl_auth_user_create(names.cn, "", (const char *const *)names.orgs);
    if (hashed)
        cert_keep(a, sha, u, names.not_after);
    sl_pki_names_free(&names);
    return u;
}

sl_auth_user_t *sl_authn_request(sl_authn_t *a, void *tls_session, const char *authorization,
                                 sl_error_t *why)
{
    sl_auth_user_t *u = NULL;
    int presented = 0;
    sl_error_t certwhy = SL_ERROR_INIT;
    if (a->ca && tls_session)
        u = from_cert(a, (gnutls_session_t)tls_session, &presented, &certwhy);
    if (!u && authorization) {
        char *tok = sl_authn_bearer(authorization);
        if (!tok)
            sl_errprintf(why, "Authorization header is not \"Bearer TOKEN\"");
        else if (!a->tokens)
            sl_errprintf(why, "bearer tokens are not accepted (no token file)");
        else {
            u = sl_auth_tokens_lookup(a->tokens, tok, 0);
            if (!u)
                sl_errprintf(why, "%s",
                             errno == EKEYEXPIRED ? "token expired"
                             : errno == EACCES    ? "token file is invalid"
                                                  : "invalid bearer token");
            explicit_bzero(tok, strlen(tok));
        }
        free(tok);
    } else if (!u)
        sl_errprintf(why, "%s", presented ? certwhy.text : "no credentials");
    if (!u) {
        errno = EACCES;
        return NULL;
    }
    sl_auth_user_add_group(u, "system:authenticated");
    return u;
}

unsigned long sl_authn_cert_checks(const sl_authn_t *a)
{
    return atomic_load(&((sl_authn_t *)a)->checks);
}
