/* shimtoken: the key is made once and kept, a token is the pod uid's
 * HMAC-SHA256 in hex, and only the exact token of that pod passes. */
#include "auth/shimtoken.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(void)
{
    char dir[] = "/tmp/sl-shimtoken.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    sl_error_t err = SL_ERROR_INIT;
    sl_auth_shim_key_t *k = sl_auth_shim_key_load(dir, &err);
    ok(k != NULL, "a key is made in an empty state folder (%s)", err.text);
    char *path = sl_xasprintf("%s/shim.key", dir);
    struct stat st;
    ok(stat(path, &st) == 0 && st.st_size == 32 && (st.st_mode & 0777) == 0600,
       "shim.key: 32 bytes, 0600");
    char t1[SL_AUTH_SHIM_TOKEN_LEN + 1], t2[SL_AUTH_SHIM_TOKEN_LEN + 1];
    sl_auth_shim_token(k, "uid-1", t1);
    ok(strlen(t1) == 64 && strspn(t1, "0123456789abcdef") == 64, "a token: 64 hex digits");
    sl_auth_shim_key_t *again = sl_auth_shim_key_load(dir, &err);
    sl_auth_shim_token(again, "uid-1", t2);
    is_str(t2, t1, "the key is kept: the same token after a restart");
    sl_auth_shim_token(again, "uid-2", t2);
    ok(strcmp(t1, t2) != 0, "another pod, another token");
    ok(sl_auth_shim_token_ok(k, "uid-1", t1), "the pod's own token passes");
    ok(!sl_auth_shim_token_ok(k, "uid-2", t1), "another pod's token does not");
    char bad[SL_AUTH_SHIM_TOKEN_LEN + 2];
    memcpy(bad, t1, sizeof(t1));
    bad[63] = bad[63] == '0' ? '1' : '0';
    ok(!sl_auth_shim_token_ok(k, "uid-1", bad), "its last digit changed");
    memcpy(bad, t1, 63);
    bad[63] = '\0';
    ok(!sl_auth_shim_token_ok(k, "uid-1", bad), "a prefix of it");
    memcpy(bad, t1, 64);
    bad[64] = 'a', bad[65] = '\0';
    ok(!sl_auth_shim_token_ok(k, "uid-1", bad), "it with one more character");
    ok(!sl_auth_shim_token_ok(k, "uid-1", NULL) && !sl_auth_shim_token_ok(k, "uid-1", ""),
       "no token, an empty one");
    sl_auth_shim_key_destroy(again);
    sl_auth_shim_key_destroy(k);
    sl_auth_shim_key_destroy(NULL);
    ok(sl_auth_shim_key_load("/nonexistent/state", &err) == NULL && err.text[0],
       "a state folder that cannot be written: an error (%s)", err.text);
    free(path);
    sl_rm_rf(dir);
    return tap_done();
}
