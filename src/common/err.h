/* err.h — readable error text that travels up with errno.
 *
 * Convention (from flux-core): functions return -1 (or NULL) with errno set,
 * and fill an optional sl_error_t with text a user can act on.
 * sl_errprintf() always returns -1 and preserves errno, so callers can write
 *     return sl_errprintf(err, "open %s: %s", path, strerror(errno));
 */
#ifndef SL_ERR_H
#define SL_ERR_H

#include <stdarg.h>

typedef struct sl_error {
    char text[512];
} sl_error_t;

/* Fill err (may be NULL) with a formatted message; returns -1, errno kept. */
int sl_errprintf(sl_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prepend "prefix: " to the existing text (context added on the way up). */
int sl_errprefix(sl_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
