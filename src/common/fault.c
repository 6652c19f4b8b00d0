/* fault.c — see fault.h; empty unless built with SL_FAULT_INJECTION. */
#include "common/fault.h"

#ifdef SL_FAULT_INJECTION
#include "common/log.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_long passes;

void sl_fault_point(const char *name)
{
    const char *spec = getenv("SLURMLINKD_FAULT");
    size_t len = strlen(name);
    if (!spec || strncmp(spec, name, len) || spec[len] != ':')
        return;
    char *end = NULL;
    long want = strtol(spec + len + 1, &end, 10);
    long n = atomic_fetch_add(&passes, 1) + 1;
    if (n != want)
        return;
    if (end && !strncmp(end, ":hold=", 6) && end[6]) {
        /* held (this thread only) until the file exists */
        sl_warn("fault injection: %s #%ld: held until %s exists", name, n, end + 6);
        while (access(end + 6, F_OK) != 0)
            usleep(20000);
        sl_warn("fault injection: %s #%ld: released", name, n);
        return;
    }
    sl_warn("fault injection: %s #%ld: SIGKILL", name, n);
    raise(SIGKILL);
}

long long sl_fault_clock_offset(void)
{
    const char *path = getenv("SLURMLINKD_FAULT_CLOCK");
    FILE *f = path && *path ? fopen(path, "r") : NULL;
    long long off = 0;
    if (f && fscanf(f, "%lld", &off) != 1)
        off = 0;
    if (f)
        fclose(f);
    return off;
}
#else
typedef int sl_fault_none; /* ISO C wants a declaration in every file */
#endif
