/* memtrim: when freed heap calls for a trim, and that a trim gives freed
 * pages below a chunk still in use back (what glibc's own trimming, from a
 * heap's top only, leaves resident). */
#include "common/memtrim.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1 /* the sanitizer's allocator, not glibc's, owns the heap */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

#define MIB (1u << 20)

static void decisions(void)
{
    sl_memtrim_t m = {.slack = 8 * MIB};
    ok(!sl_memtrim_due(&m, 40 * MIB), "the first look sets the floor, no trim");
    ok(!sl_memtrim_due(&m, 47 * MIB), "7 MiB more free: under the slack");
    ok(sl_memtrim_due(&m, 48 * MIB), "8 MiB more free than the floor: a trim");
    sl_memtrim_done(&m, 47 * MIB);
    is_int(m.trims, 1, "one trim counted");
    ok(!sl_memtrim_due(&m, 47 * MIB), "nothing freed since the trim: none again");
    ok(!sl_memtrim_due(&m, 10 * MIB), "memory reused: the floor follows it down");
    ok(!sl_memtrim_due(&m, 17 * MIB), "7 MiB freed since");
    ok(sl_memtrim_due(&m, 18 * MIB), "8 MiB freed again after the reuse: a trim");
}

#define BLOCKS 32768
#define BLOCK 1024

/* 32 MiB of 1 KiB blocks, every 16th kept: the heap cannot shrink from its
 * top, and 30 MiB of it is free in runs of 15 blocks */
static void give_back(void)
{
#ifdef SANITIZED
    ok(1, "# SKIP the sanitizer's allocator: malloc_trim does not own its heap");
    ok(1, "# SKIP");
    ok(1, "# SKIP");
    ok(1, "# SKIP");
#else
    static char *blk[BLOCKS];
    sl_memtrim_t m = {.slack = 8 * MIB};
    sl_memtrim_tick(&m); /* the floor */
    for (int i = 0; i < BLOCKS; i++)
        memset(blk[i] = malloc(BLOCK), 1, BLOCK);
    for (int i = 0; i < BLOCKS; i++)
        if (i % 16) {
            free(blk[i]);
            blk[i] = NULL;
        }
    size_t rss = sl_memtrim_rss();
    ok(rss > 32 * MIB, "the freed blocks stay resident (RSS %zu MiB)", rss / MIB);
    size_t back = sl_memtrim_tick(&m);
    ok(back >= 16 * MIB, "a tick trims and gives back %zu MiB of the 30 freed", back / MIB);
    is_int(m.trims, 1, "one trim");
    ok(sl_memtrim_tick(&m) == 0 && m.trims == 1, "the next tick: nothing new freed, no trim");
    for (int i = 0; i < BLOCKS; i++)
        free(blk[i]);
#endif
}

int main(void)
{
    tap_plan(12);
    decisions();
    give_back();
    return tap_done();
}
