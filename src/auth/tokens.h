/* tokens.h — bearer tokens from a file in kube-apiserver's --token-auth-file
 * format, one credential per line:
 *
 *     # comment
 *     token,user,uid                          (no groups)
 *     token,user,uid,"group1,group2"          (groups: quoted, comma-separated)
 *     token,user,uid,"devs",2027-01-01T00:00:00Z
 *
 * CSV as Go's encoding/csv reads it (kube-apiserver's parser): fields may be
 * "quoted" with "" for a literal quote, leading spaces are dropped. Lines that
 * are blank or start with '#' are skipped. Columns 1-3 are required; the 4th
 * (groups) is optional; a 5th column, when present and not empty, is an
 * expiry time in RFC 3339 UTC ("2027-01-01T00:00:00Z") — a slurmlink
 * extension that kube-apiserver ignores. Unlike kube-apiserver, which warns
 * and goes on, a duplicate token, an empty token or user, a token with
 * spaces or control characters, or a sixth column are errors naming the line.
 *
 * Lookups compare SHA-256 digests of the tokens in time that does not depend
 * on the token presented. A table loaded from a file re-reads it when it
 * changes (checked on each lookup), so tokens added by `slurmlink kubeconfig
 * --token` work at once and removed ones stop working at once; if the file
 * becomes invalid, every token is refused (fail closed) until it is fixed.
 * Lookups are thread-safe.
 */
#ifndef SL_AUTH_TOKENS_H
#define SL_AUTH_TOKENS_H

#include <stddef.h>

#include "auth/user.h"
#include "common/err.h"

typedef struct sl_auth_tokens sl_auth_tokens_t;

/* Parse text; name labels error messages ("tokens.csv:3: ..."). The result
 * never reloads. NULL with err on the first invalid line. */
sl_auth_tokens_t *sl_auth_tokens_parse(const char *text, const char *name, sl_error_t *err);

/* Load a file (must not be readable or writable by others: mode & 0026 == 0,
 * since anyone who can read it can be anyone in it). */
sl_auth_tokens_t *sl_auth_tokens_load(const char *path, sl_error_t *err);

void sl_auth_tokens_destroy(sl_auth_tokens_t *t); /* NULL is a no-op */

size_t sl_auth_tokens_count(sl_auth_tokens_t *t);

/* The user a token belongs to (a copy the caller destroys), or NULL with
 * errno ENOENT (unknown), EKEYEXPIRED (past its expiry) or EACCES (the file
 * became invalid). A file-backed table re-reads its file first if changed.
 * now: seconds since the epoch (0: the current time). */
sl_auth_user_t *sl_auth_tokens_lookup(sl_auth_tokens_t *t, const char *token, long long now);

/* Re-read a file-backed table if the file changed. 0 when the table is
 * current, -1 with err when the file is unreadable or invalid (the table
 * then refuses every token). */
int sl_auth_tokens_refresh(sl_auth_tokens_t *t, sl_error_t *err);

/* A new random token: 64 hex digits (256 bits). Caller frees. NULL if the
 * system has no randomness to give. */
char *sl_auth_token_generate(void);

/* Append one line for token → (user, uid, groups, expires) to the file at
 * path, created 0600 if missing, under an exclusive flock (lookups take a
 * shared one), after checking that the existing file is valid and does not
 * hold the token already. expires: seconds since the epoch, 0 for never.
 * Names must be non-empty without control characters; group names must not
 * contain ','. */
int sl_auth_tokens_append(const char *path, const char *token, const char *user, const char *uid,
                          const char *const *groups, long long expires, sl_error_t *err);

#endif
