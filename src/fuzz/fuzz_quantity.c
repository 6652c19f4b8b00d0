/* fuzz_quantity.c — libFuzzer: the Quantity parser and its conversions; a
 * canonical string must parse back to the same value. */
#include "kube/quantity.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    sl_quantity_t q, back;
    if (sl_quantity_parse(s, &q, NULL) == 0) {
        int64_t v;
        sl_quantity_milli(&q, &v);
        sl_quantity_ceil_div(&q, 1, &v);
        sl_quantity_ceil_div(&q, 1 << 20, &v);
        if (!q.huge) {
            char *c = sl_quantity_string(&q);
            if (sl_quantity_parse(c, &back, NULL) != 0 || back.nanos != q.nanos)
                abort(); /* canonical text must round-trip */
            free(c);
        }
    }
    free(s);
    return 0;
}
