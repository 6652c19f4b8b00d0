/* b64.h — base64 (RFC 4648) over GnuTLS: the one codec of the tree.
 * The standard alphabet with padding (Kubernetes' []byte fields, Secret
 * data, kubeconfig *-data, Sec-WebSocket-Accept, pin hashes) and the
 * URL-safe alphabet without padding (list continue tokens). */
#ifndef SL_B64_H
#define SL_B64_H

#include <stddef.h>

/* data[0:len] as padded standard base64 ("" for len 0). Caller frees;
 * NULL only when GnuTLS cannot allocate. */
char *sl_b64_encode(const void *data, size_t len);
/* Decodes s[0:n] (padded standard base64; line breaks are skipped) into a
 * NUL-terminated buffer of *len bytes (len may be NULL). Caller frees;
 * NULL with errno EINVAL when s is not base64. */
char *sl_b64_decode(const char *s, size_t n, size_t *len);
/* data[0:len] in the URL-safe alphabet ('-', '_') without padding. */
char *sl_b64url_encode(const void *data, size_t len);
/* Decodes s in either alphabet, padding optional; as sl_b64_decode. */
char *sl_b64url_decode(const char *s, size_t *len);

#endif
