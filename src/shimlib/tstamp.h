/* tstamp.h — the two timestamp formats the shim writes.
 *
 * CRI log lines carry RFC 3339 with nanoseconds, always 9 digits and UTC
 * ("2026-11-30T11:00:00.123456789Z"), so lines sort as text and the kubelet's
 * parser (time.RFC3339Nano) reads them. Container states and events carry
 * RFC 3339 with microseconds ("2026-11-30T11:00:00.123456Z"); Kubernetes
 * metav1.MicroTime uses the same form.
 */
#ifndef SL_SHIMLIB_TSTAMP_H
#define SL_SHIMLIB_TSTAMP_H

#include <time.h>

/* Buffers of this size always suffice. */
#define SL_TSTAMP_MAX 40

/* Format ts (CLOCK_REALTIME) into out; returns the length written. */
int sl_tstamp_nano(const struct timespec *ts, char out[SL_TSTAMP_MAX]);
int sl_tstamp_micro(const struct timespec *ts, char out[SL_TSTAMP_MAX]);

/* The current realtime clock. */
struct timespec sl_tstamp_now(void);

#endif
