/* shimtoken.h — the per-pod tokens of the shim push (POST
 * /internal/v1/shim/events): HMAC-SHA256(key, pod uid) in hex, the key in
 * <state-dir>/shim.key (0600, made on first start). Nothing per pod is
 * stored: a token proves that the push comes from that pod's job, whose
 * pod folder (where slurmlinkd wrote the token) only its user can read. */
#ifndef SL_AUTH_SHIMTOKEN_H
#define SL_AUTH_SHIMTOKEN_H

#include <stdbool.h>

#include "common/err.h"

#define SL_AUTH_SHIM_TOKEN_LEN 64 /* hex characters, without the NUL */

typedef struct sl_auth_shim_key sl_auth_shim_key_t;

/* The key of state_dir/shim.key, made (random, 0600) when the file is
 * missing or not a key; NULL with err. */
sl_auth_shim_key_t *sl_auth_shim_key_load(const char *state_dir, sl_error_t *err);
void sl_auth_shim_key_destroy(sl_auth_shim_key_t *k); /* NULL: a no-op */

/* The token of pod pod_uid into out (SL_AUTH_SHIM_TOKEN_LEN + 1 bytes). */
void sl_auth_shim_token(const sl_auth_shim_key_t *k, const char *pod_uid, char *out);
/* Is bearer pod_uid's token? Compared in time that does not depend on
 * where bearer differs (NULL: no). */
bool sl_auth_shim_token_ok(const sl_auth_shim_key_t *k, const char *pod_uid, const char *bearer);

#endif
