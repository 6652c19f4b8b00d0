/* memtrim.h — giving freed heap memory back to the system.
 *
 * glibc keeps what a program frees in its heaps (one per arena, up to 8 per
 * core, used by the threads in turn) and returns a heap's pages only from
 * its top, by its trim threshold: the free pages below a chunk still in use
 * stay resident. slurmlinkd's connection threads fill their arenas during
 * a burst of pods and watch events; once the pods are gone the heaps are
 * mostly free but resident (docs/benchmarks-history.md, the soak).
 * malloc_trim(0) releases every whole free page of every arena.
 *
 * sl_memtrim_tick, called every few seconds, trims when the heaps' free
 * bytes have grown by at least `slack` over the lowest they have been since
 * the last trim: after a burst of frees, at most once a tick, and not again
 * while nothing more is freed. */
#ifndef SL_MEMTRIM_H
#define SL_MEMTRIM_H

#include <stddef.h>

typedef struct sl_memtrim {
    size_t slack; /* free bytes over the floor that call for a trim */
    size_t floor; /* lowest free bytes seen since the last trim */
    int started;  /* floor is set */
    unsigned long trims;
} sl_memtrim_t;

/* 1 if a heap with `free_bytes` free calls for a trim; keeps the floor
 * (the caller trims, then calls sl_memtrim_done). */
int sl_memtrim_due(sl_memtrim_t *m, size_t free_bytes);

/* After a trim: the floor is the free bytes now. */
void sl_memtrim_done(sl_memtrim_t *m, size_t free_bytes);

/* Free bytes in malloc's heaps (mallinfo2 fordblks) and this process's
 * resident size in bytes (/proc/self/statm; 0 if unreadable). */
size_t sl_memtrim_heap_free(void);
size_t sl_memtrim_rss(void);

/* Trims when due; returns the resident bytes given back (0: no trim or
 * nothing given back) and logs a trim at debug level. */
size_t sl_memtrim_tick(sl_memtrim_t *m);

#endif
