/* memtrim.c — malloc_trim when the heaps have freed enough (memtrim.h). */
#include "memtrim.h"
#include "log.h"
#include "proc.h"

#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

int sl_memtrim_due(sl_memtrim_t *m, size_t free_bytes)
{
    if (!m->started || free_bytes < m->floor) {
        m->floor = free_bytes; /* reused: what is freed later counts anew */
        m->started = 1;
        return 0;
    }
    return free_bytes - m->floor >= m->slack;
}

void sl_memtrim_done(sl_memtrim_t *m, size_t free_bytes)
{
    m->floor = free_bytes;
    m->started = 1;
    m->trims++;
}

size_t sl_memtrim_heap_free(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.fordblks;
}

size_t sl_memtrim_rss(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (!f)
        return 0;
    int n = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    return n == 2 ? resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

size_t sl_memtrim_tick(sl_memtrim_t *m)
{
    size_t free_bytes = sl_memtrim_heap_free();
    if (!sl_memtrim_due(m, free_bytes))
        return 0;
    size_t before = sl_memtrim_rss();
    long long t0 = sl_now_ms();
    malloc_trim(0);
    long long ms = sl_now_ms() - t0;
    size_t after = sl_memtrim_rss();
    sl_memtrim_done(m, sl_memtrim_heap_free());
    sl_debug("malloc_trim: %.1f MiB free in the heaps, RSS %.1f -> %.1f MiB in %lld ms",
             free_bytes / 1048576.0, before / 1048576.0, after / 1048576.0, ms);
    return before > after ? before - after : 0;
}
