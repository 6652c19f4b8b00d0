/* xalloc.h — allocation that aborts on out-of-memory. */
#ifndef SL_XALLOC_H
#define SL_XALLOC_H

#include <stddef.h>
#include <stdlib.h>

void *sl_xmalloc(size_t n);
void *sl_xcalloc(size_t n, size_t size);
void *sl_xrealloc(void *p, size_t n);
char *sl_xstrdup(const char *s);
char *sl_xstrndup(const char *s, size_t n);
char *sl_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
