/* fuzz_logs.c — libFuzzer: the CRI log reader of `kubectl logs` (src/api/logs.c)
 * on any file content a tenant can write. Input: one byte of options
 * (bit 0 timestamps, the rest a read size), two bytes of limitBytes (0: no
 * limit), then the file. Oracles (abort on violation): never more than
 * limitBytes of output; the reader never holds back more than a bounded
 * piece of a line, whatever the line length; the output does not depend on
 * how reads split the file. */
#include "api/logs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    bool ts = data[0] & 1;
    size_t chunk = 1 + (data[0] >> 1);
    long long limit = (long long)(data[1] << 8 | data[2]);
    if (!limit)
        limit = -1;
    const char *file = (const char *)data + 3;
    size_t len = size - 3;
    size_t n1 = 0, n2 = 0, pend1 = 0, pend2 = 0;
    char *a = sl_api_log_render(file, len, chunk, ts, limit, &n1, &pend1);
    char *b = sl_api_log_render(file, len, len ? len : 1, ts, limit, &n2, &pend2);
    if (limit >= 0 && (n1 > (size_t)limit || n2 > (size_t)limit))
        abort();
    if (pend1 > sl_api_log_pending_bound(chunk))
        abort();
    if (n1 != n2 || memcmp(a, b, n1))
        abort();
    free(a);
    free(b);
    return 0;
}
