/* logs.h — the CRI log reader of GET .../pods/NAME/log, for the fuzzer.
 *
 * sl_api_log_render() feeds data through the same line reader as a log
 * request, chunk bytes at a time (as reads return them), with the
 * timestamps and limitBytes options; it returns the output (caller frees)
 * and, in *max_pending, the most bytes the reader held back waiting for a
 * newline (bounded: LINE_PIECE plus one chunk). */
#ifndef SL_API_LOGS_H
#define SL_API_LOGS_H

#include <stdbool.h>
#include <stddef.h>

char *sl_api_log_render(const char *data, size_t len, size_t chunk, bool timestamps,
                        long long limit, size_t *out_len, size_t *max_pending);

/* The bound on max_pending for a chunk size. */
size_t sl_api_log_pending_bound(size_t chunk);

#endif
