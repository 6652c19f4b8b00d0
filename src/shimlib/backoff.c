#include "shimlib/backoff.h"

#include <stdlib.h>

void sl_backoff_init_with(sl_backoff_t *b, long long base_ms, long long max_ms,
                          long long reset_after_ms)
{
    b->base_ms = base_ms;
    b->max_ms = max_ms < base_ms ? base_ms : max_ms;
    b->reset_after_ms = reset_after_ms;
    b->next_ms = base_ms;
}

void sl_backoff_init(sl_backoff_t *b)
{
    const char *e = getenv("SLURMLINK_SHIM_BACKOFF_MS");
    if (e && *e) {
        char *end;
        long long v = strtoll(e, &end, 10);
        if (*end == '\0' && v >= 0 && v <= SL_BACKOFF_MAX_MS) {
            sl_backoff_init_with(b, v, v * 30, SL_BACKOFF_RESET_MS);
            return;
        }
    }
    sl_backoff_init_with(b, SL_BACKOFF_BASE_MS, SL_BACKOFF_MAX_MS, SL_BACKOFF_RESET_MS);
}

long long sl_backoff_next(sl_backoff_t *b, long long ran_ms)
{
    if (ran_ms >= b->reset_after_ms)
        b->next_ms = b->base_ms;
    long long d = b->next_ms;
    b->next_ms = d * 2 > b->max_ms ? b->max_ms : d * 2;
    return d;
}
