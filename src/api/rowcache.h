/* rowcache.h — printed Table rows kept for reuse (api_rowcache_).
 *
 * A row is the JSON text one object prints as in a meta.k8s.io Table
 * (table.c). Parsing the stored object costs most of a Table list, so the
 * rows of unfiltered lists are kept, keyed by the version's store revision
 * (one version of one object; versions never change) and the row's form
 * (Table version, includeObject). A row's time-dependent cells (AGE,
 * RESTARTS' "ago", an Event's LAST SEEN) are kept as marks with the
 * durations they printed (sl_kube_durations_begin): each reuse prints them
 * for its own time. Bounded by bytes; the oldest rows go first.
 * Thread-safe. */
#ifndef SL_API_ROWCACHE_H
#define SL_API_ROWCACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct api_rowcache api_rowcache_t;

/* max_bytes: the rows' text and bookkeeping together; 0: keep none. */
api_rowcache_t *api_rowcache_create(size_t max_bytes);
void api_rowcache_destroy(api_rowcache_t *c);

#define API_ROWCACHE_MAX_DURATIONS 4 /* a row with more is not kept */

/* Where the template's marks are (the JSON escape of SL_KUBE_DURATION_MARK),
 * each duration d[i] + shift_ns printed in its place, through put. -1 if the
 * template does not hold exactly n marks (nothing put), else 0. */
typedef void (*api_rowcache_put_fn)(void *out, const char *text, size_t len);
int api_rowcache_render(const char *tpl, size_t len, const int64_t *d, size_t n, int64_t shift_ns,
                        api_rowcache_put_fn put, void *out);
/* The row of (rv, form) printed for now_ns appended through put(out, ...):
 * 1 if one was kept, 0 if not. */
int api_rowcache_get(api_rowcache_t *c, const void *res, int64_t rv, int form, int64_t now_ns,
                     api_rowcache_put_fn put, void *out);
/* Keep tpl (with n marks, for the durations d printed at now_ns) as the
 * row of (rv, form). */
void api_rowcache_add(api_rowcache_t *c, const void *res, int64_t rv, int form, int64_t now_ns,
                      const int64_t *d, size_t n, const char *tpl, size_t len);
/* Rows kept and their bytes (for tests and figures). */
void api_rowcache_stats(api_rowcache_t *c, size_t *rows, size_t *bytes);

#endif
