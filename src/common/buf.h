/* buf.h — a growable, always NUL-terminated byte buffer.
 * Allocation failure aborts (there is no sane recovery in this program). */
#ifndef SL_BUF_H
#define SL_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sl_buf {
    char *data; /* NUL-terminated; owned by the buffer */
    size_t len;
    size_t cap;
} sl_buf_t;

#define SL_BUF_INIT {NULL, 0, 0}

void sl_buf_append(sl_buf_t *b, const void *data, size_t len);
void sl_buf_puts(sl_buf_t *b, const char *s);
void sl_buf_putc(sl_buf_t *b, char c);
void sl_buf_printf(sl_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sl_buf_vprintf(sl_buf_t *b, const char *fmt, va_list ap);
void sl_buf_reset(sl_buf_t *b);
/* Hand the string to the caller (never NULL) and reset the buffer. */
char *sl_buf_steal(sl_buf_t *b);
void sl_buf_free(sl_buf_t *b);

#endif
