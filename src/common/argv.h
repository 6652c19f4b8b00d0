/* argv.h — argument vectors for spawning children (never shell strings). */
#ifndef SL_ARGV_H
#define SL_ARGV_H

#include <stddef.h>

typedef struct sl_argv {
    char **v; /* NULL-terminated; each string owned by the vector */
    size_t n;
    size_t cap;
} sl_argv_t;

#define SL_ARGV_INIT                                                                               \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void sl_argv_add(sl_argv_t *a, const char *s);
void sl_argv_addf(sl_argv_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sl_argv_addv(sl_argv_t *a, const char *const *v); /* append a NULL-terminated list */
void sl_argv_free(sl_argv_t *a);
/* v[] as one display line, each element shell-quoted (for logs and dry runs). */
char *sl_argv_join(const sl_argv_t *a);

/* Free a NULL-terminated vector of owned strings and the vector (NULL: a no-op). */
void sl_strv_free(char **v);

#endif
