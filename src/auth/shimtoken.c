/* shimtoken.c — per-pod shim tokens over GnuTLS's HMAC and its
 * constant-time compare. */
#include "auth/shimtoken.h"

#include "common/fsutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sl_auth_shim_key {
    unsigned char key[32];
};

sl_auth_shim_key_t *sl_auth_shim_key_load(const char *state_dir, sl_error_t *err)
{
    sl_auth_shim_key_t *k = sl_xcalloc(1, sizeof(*k));
    char *path = sl_xasprintf("%s/shim.key", state_dir);
    size_t len = 0;
    char *data = sl_read_file(path, &len, NULL);
    if (data && len == sizeof(k->key)) {
        memcpy(k->key, data, sizeof(k->key));
        free(data);
        free(path);
        return k;
    }
    free(data);
    int r = -1;
    if (gnutls_rnd(GNUTLS_RND_KEY, k->key, sizeof(k->key)) < 0) {
        errno = EIO;
        sl_errprintf(err, "cannot get random bytes for the shim key");
    } else {
        r = sl_write_file(path, k->key, sizeof(k->key), 0600, err);
    }
    free(path);
    if (r < 0) {
        sl_auth_shim_key_destroy(k);
        return NULL;
    }
    return k;
}

void sl_auth_shim_key_destroy(sl_auth_shim_key_t *k)
{
    if (!k)
        return;
    gnutls_memset(k->key, 0, sizeof(k->key));
    free(k);
}

void sl_auth_shim_token(const sl_auth_shim_key_t *k, const char *pod_uid, char *out)
{
    unsigned char d[32];
    gnutls_hmac_fast(GNUTLS_MAC_SHA256, k->key, sizeof(k->key), pod_uid, strlen(pod_uid), d);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

bool sl_auth_shim_token_ok(const sl_auth_shim_key_t *k, const char *pod_uid, const char *bearer)
{
    if (!bearer || !pod_uid || strlen(bearer) != SL_AUTH_SHIM_TOKEN_LEN)
        return false;
    char want[SL_AUTH_SHIM_TOKEN_LEN + 1];
    sl_auth_shim_token(k, pod_uid, want);
    return gnutls_memcmp(bearer, want, SL_AUTH_SHIM_TOKEN_LEN) == 0;
}
