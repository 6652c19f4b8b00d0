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

#define FAULT_SPECS 4
static atomic_long passes[FAULT_SPECS]; /* each spec of the list its own count */

/* the pass through point name of spec k, whose text after "name:" is arg
 * (N[:hold=PATH], up to the next comma) */
static void fault_spec(const char *name, const char *arg, int k)
{
    char *end = NULL;
    long want = strtol(arg, &end, 10);
    long n = atomic_fetch_add(&passes[k], 1) + 1;
    if (n != want)
        return;
    if (end && !strncmp(end, ":hold=", 6) && end[6] && end[6] != ',') {
        /* held (this thread only) until the file exists */
        char path[4096];
        snprintf(path, sizeof(path), "%.*s", (int)strcspn(end + 6, ","), end + 6);
        sl_warn("fault injection: %s #%ld: held until %s exists", name, n, path);
        while (access(path, F_OK) != 0)
            usleep(20000);
        sl_warn("fault injection: %s #%ld: released", name, n);
        return;
    }
    sl_warn("fault injection: %s #%ld: SIGKILL", name, n);
    raise(SIGKILL);
}

void sl_fault_point(const char *name)
{
    const char *spec = getenv("SLURMLINKD_FAULT");
    size_t len = strlen(name);
    for (int k = 0; spec && *spec && k < FAULT_SPECS; k++) {
        size_t sl = strcspn(spec, ",");
        if (!strncmp(spec, name, len) && spec[len] == ':')
            fault_spec(name, spec + len + 1, k);
        spec += sl + (spec[sl] == ',');
    }
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
