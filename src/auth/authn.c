/* authn.c — request authentication: client certificate, then bearer token. */
#include "auth/authn.h"
#include "common/xalloc.h"
#include "pki/pki.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <string.h>
#include <strings.h>

struct sl_authn {
    sl_pki_cred_t *ca;
    sl_auth_tokens_t *tokens;
};

sl_authn_t *sl_authn_create(const char *client_ca, const char *token_file, sl_error_t *err)
{
    if (!client_ca && !token_file) {
        errno = EINVAL;
        sl_errprintf(err, "no authentication method (client CA or token file) given");
        return NULL;
    }
    sl_authn_t *a = sl_xcalloc(1, sizeof(*a));
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

static sl_auth_user_t *from_cert(sl_authn_t *a, gnutls_session_t s, int *presented, sl_error_t *why)
{
    unsigned n = 0;
    const gnutls_datum_t *peers = gnutls_certificate_get_peers(s, &n);
    *presented = peers && n > 0;
    if (!*presented)
        return NULL;
    sl_pki_names_t names = {NULL, NULL, 0};
    sl_error_t e = SL_ERROR_INIT;
    if (sl_pki_verify_peer(a->ca, peers[0].data, peers[0].size, &names, &e) < 0) {
        sl_errprintf(why, "client certificate: %s", e.text);
        return NULL;
    }
    sl_auth_user_t *u = sl_auth_user_create(names.cn, "", (const char *const *)names.orgs);
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
