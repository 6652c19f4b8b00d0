#include "err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int sl_errprintf(sl_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof(err->text), fmt, ap);
        va_end(ap);
    }
    errno = saved;
    return -1;
}

int sl_errprefix(sl_error_t *err, const char *fmt, ...)
{
    int saved = errno;
    if (err) {
        char prefix[256];
        char old[sizeof(err->text)];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);
        memcpy(old, err->text, sizeof(old));
        size_t pl = strlen(prefix);
        if (pl > sizeof(err->text) - 3)
            pl = sizeof(err->text) - 3;
        memcpy(err->text, prefix, pl);
        memcpy(err->text + pl, ": ", 2);
        size_t room = sizeof(err->text) - pl - 3;
        size_t ol = strnlen(old, room);
        memcpy(err->text + pl + 2, old, ol);
        err->text[pl + 2 + ol] = '\0';
    }
    errno = saved;
    return -1;
}
