/* fault.c — see fault.h; empty unless built with SL_FAULT_INJECTION. */
#include "common/fault.h"

#ifdef SL_FAULT_INJECTION
#include "common/log.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long passes;

void sl_fault_point(const char *name)
{
    const char *spec = getenv("SLURMLINKD_FAULT");
    size_t len = strlen(name);
    if (!spec || strncmp(spec, name, len) || spec[len] != ':')
        return;
    long want = strtol(spec + len + 1, NULL, 10);
    long n = atomic_fetch_add(&passes, 1) + 1;
    if (n != want)
        return;
    sl_warn("fault injection: %s #%ld: SIGKILL", name, n);
    raise(SIGKILL);
}
#else
typedef int sl_fault_none; /* ISO C wants a declaration in every file */
#endif
