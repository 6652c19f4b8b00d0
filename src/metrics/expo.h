/* expo.h — a small registry of metrics and its Prometheus text exposition
 * (format 0.0.4: https://prometheus.io/docs/instrumenting/exposition_formats/).
 *
 * Debian 12 has no C client library for Prometheus (prometheus-cpp is C++),
 * so this module is the project's own, kept to what slurmlinkd needs:
 * counters, gauges and histograms, each a family with a fixed list of label
 * names whose series are created on first use. Names and label names are
 * checked when a family is made; label values and HELP texts are escaped as
 * the format says (\\, \" and \n).
 *
 *   sl_expo_t *x = sl_expo_create();
 *   sl_expo_family_t *req = sl_expo_counter(x, "http_requests_total", "Requests.",
 *                                           SL_EXPO_LABELS("verb", "code"), &err);
 *   sl_expo_add(req, SL_EXPO_LABELS("get", "200"), 1);
 *   char *text = sl_expo_render(x, &len);
 *
 * Thread-safe: one mutex per registry guards every family and series.
 * Families live as long as the registry. */
#ifndef SL_METRICS_EXPO_H
#define SL_METRICS_EXPO_H

#include <stddef.h>

#include "common/err.h"

typedef struct sl_expo sl_expo_t;
typedef struct sl_expo_family sl_expo_family_t;

/* A NULL-terminated list of label names or values, as a compound literal. */
#define SL_EXPO_LABELS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define SL_EXPO_NO_LABELS ((const char *const *)NULL)

/* Series of one family beyond this are refused (ENOSPC): a label fed from
 * requests must not make the registry grow without bound. */
#define SL_EXPO_MAX_SERIES 4096

sl_expo_t *sl_expo_create(void);
void sl_expo_destroy(sl_expo_t *x); /* NULL is a no-op */

/* New families. name: [a-zA-Z_:][a-zA-Z0-9_:]*; label names:
 * [a-zA-Z_][a-zA-Z0-9_]*, not beginning with "__", distinct, at most 8 (a
 * histogram's may not be "le"). help: any text. NULL with errno EINVAL (bad
 * name) or EEXIST (name taken) and err. A family without labels has its one
 * series from the start, so it shows 0 before anything happened. */
sl_expo_family_t *sl_expo_counter(sl_expo_t *x, const char *name, const char *help,
                                  const char *const *labels, sl_error_t *err);
sl_expo_family_t *sl_expo_gauge(sl_expo_t *x, const char *name, const char *help,
                                const char *const *labels, sl_error_t *err);
/* bounds: nb strictly increasing finite upper bounds; +Inf is implicit. */
sl_expo_family_t *sl_expo_histogram(sl_expo_t *x, const char *name, const char *help,
                                    const char *const *labels, const double *bounds, size_t nb,
                                    sl_error_t *err);

/* values: one per label name (NULL-terminated; NULL for a family without
 * labels; a NULL value counts as ""). 0, or -1 with errno: EINVAL (wrong
 * number of values, a counter decreased, a NaN, the wrong kind of family),
 * ENOSPC (SL_EXPO_MAX_SERIES reached). */
int sl_expo_add(sl_expo_family_t *f, const char *const *values, double v);     /* counter, gauge */
int sl_expo_set(sl_expo_family_t *f, const char *const *values, double v);     /* gauge */
int sl_expo_observe(sl_expo_family_t *f, const char *const *values, double v); /* histogram */
/* Drop every series of a family with labels (a gauge filled anew at each
 * scrape, such as pods by phase); a family without labels goes back to 0. */
void sl_expo_reset(sl_expo_family_t *f);

/* The value of a counter or gauge series, a histogram series' count; 0
 * when the series does not exist. For tests and for callers that read back. */
double sl_expo_value(sl_expo_family_t *f, const char *const *values);

/* The text exposition of every family, in the order they were made (caller
 * frees; *len its length, may be NULL). */
char *sl_expo_render(sl_expo_t *x, size_t *len);

/* The exposition's media type. */
#define SL_EXPO_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
