#include "buf.h"
#include "xalloc.h"

#include <stdio.h>
#include <string.h>

static void grow(sl_buf_t *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->data = sl_xrealloc(b->data, cap);
    b->cap = cap;
}

void sl_buf_append(sl_buf_t *b, const void *data, size_t len)
{
    grow(b, len);
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void sl_buf_puts(sl_buf_t *b, const char *s)
{
    sl_buf_append(b, s, strlen(s));
}

void sl_buf_putc(sl_buf_t *b, char c)
{
    sl_buf_append(b, &c, 1);
}

void sl_buf_vprintf(sl_buf_t *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return;
    grow(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void sl_buf_printf(sl_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sl_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void sl_buf_reset(sl_buf_t *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

char *sl_buf_steal(sl_buf_t *b)
{
    char *s = b->data ? b->data : sl_xstrdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}

void sl_buf_free(sl_buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
