/* fuzz_flags.c — libFuzzer: the slurm-job.vk.io/flags parser. Accepted flags
 * must never be refused ones and never carry a newline. */
#include "translate/flags.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    sl_flags_t f = SL_FLAGS_INIT;
    if (sl_flags_parse(s, &f, NULL) == 0) {
        const char *const *allowed = sl_flags_allowed();
        for (size_t i = 0; i < f.n; i++) {
            int ok = 0;
            for (size_t j = 0; allowed[j] && !ok; j++)
                ok = !strcmp(allowed[j], f.v[i].name);
            if (!ok || (f.v[i].value && strpbrk(f.v[i].value, "\n\r")))
                abort();
            free(sl_flag_directive(&f.v[i]));
            free(sl_flag_option(&f.v[i]));
        }
    }
    sl_flags_free(&f);
    free(s);
    return 0;
}
