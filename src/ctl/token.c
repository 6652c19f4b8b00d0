/* token.c — per-pod shim tokens: HMAC-SHA256(key, pod uid), key in
 * <state-dir>/shim.key (0600). Nothing per pod is stored; a token proves the
 * push comes from that pod's job (its pod folder is readable by its user only). */
#include "ctl/internal.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <string.h>
#include <unistd.h>

int ctl_key_load(sl_ctl_t *c, sl_error_t *err)
{
    char *path = sl_xasprintf("%s/shim.key", c->o.state_dir);
    size_t len = 0;
    char *k = sl_read_file(path, &len, NULL);
    if (k && len == sizeof(c->key)) {
        memcpy(c->key, k, sizeof(c->key));
        free(k);
        free(path);
        return 0;
    }
    free(k);
    if (gnutls_rnd(GNUTLS_RND_KEY, c->key, sizeof(c->key)) < 0) {
        free(path);
        errno = EIO;
        return sl_errprintf(err, "cannot get random bytes for the shim key");
    }
    int r = sl_write_file(path, c->key, sizeof(c->key), 0600, err);
    free(path);
    return r;
}

void ctl_token(const sl_ctl_t *c, const char *uid, char out[65])
{
    unsigned char d[32];
    gnutls_hmac_fast(GNUTLS_MAC_SHA256, c->key, sizeof(c->key), uid, strlen(uid), d);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}
