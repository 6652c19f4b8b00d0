/* cleanup.h — scope-bound release (from crun's cleanup_* helpers).
 *
 *     cleanup_free char *s = strdup(x);
 *     ...
 *     *out = s; s = NULL;      // ownership leaves explicitly
 */
#ifndef SL_CLEANUP_H
#define SL_CLEANUP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void sl_freep(void *p)
{
    free(*(void **)p);
}
static inline void sl_closep(int *fd)
{
    if (*fd >= 0)
        close(*fd);
}
static inline void sl_fclosep(FILE **f)
{
    if (*f)
        fclose(*f);
}

#define cleanup_free __attribute__((cleanup(sl_freep)))
#define cleanup_close __attribute__((cleanup(sl_closep)))
#define cleanup_fclose __attribute__((cleanup(sl_fclosep)))

#endif
