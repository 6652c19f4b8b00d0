#include "argv.h"
#include "buf.h"
#include "quote.h"
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void sl_argv_add(sl_argv_t *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 8;
        a->v = sl_xrealloc(a->v, a->cap * sizeof(char *));
    }
    a->v[a->n++] = sl_xstrdup(s);
    a->v[a->n] = NULL;
}

void sl_argv_addf(sl_argv_t *a, const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    sl_argv_add(a, s ? s : "");
    free(s);
}

void sl_argv_addv(sl_argv_t *a, const char *const *v)
{
    for (; v && *v; v++)
        sl_argv_add(a, *v);
}

void sl_argv_free(sl_argv_t *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

char *sl_argv_join(const sl_argv_t *a)
{
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < a->n; i++) {
        char *q = sl_shell_quote(a->v[i]);
        if (i)
            sl_buf_putc(&b, ' ');
        sl_buf_puts(&b, q);
        free(q);
    }
    return sl_buf_steal(&b);
}

void sl_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}
