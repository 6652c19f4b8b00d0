/* backoff.h — the kubelet's crash-loop back-off for one container.
 *
 * Before restart n (n = 1, 2, ...) the container waits base * 2^(n-1),
 * capped at max: 10 s, 20 s, 40 s, 80 s, 160 s, 300 s, 300 s, ... with the
 * kubelet's values. A run that lasted at least reset_after (10 min) proves
 * the container healthy again: the sequence starts over at base.
 *
 * SLURMLINK_SHIM_BACKOFF_MS (tests only) replaces base; max becomes 30 x base
 * so the curve keeps its shape, reset_after is unchanged.
 */
#ifndef SL_SHIMLIB_BACKOFF_H
#define SL_SHIMLIB_BACKOFF_H

#define SL_BACKOFF_BASE_MS 10000LL
#define SL_BACKOFF_MAX_MS 300000LL
#define SL_BACKOFF_RESET_MS 600000LL

typedef struct sl_backoff {
    long long base_ms, max_ms, reset_after_ms;
    long long next_ms; /* delay before the next restart */
} sl_backoff_t;

/* The kubelet's values, or the SLURMLINK_SHIM_BACKOFF_MS override. */
void sl_backoff_init(sl_backoff_t *b);
void sl_backoff_init_with(sl_backoff_t *b, long long base_ms, long long max_ms,
                          long long reset_after_ms);

/* The container exited after running ran_ms: how long to wait before
 * restarting it. Advances the sequence. */
long long sl_backoff_next(sl_backoff_t *b, long long ran_ms);

#endif
