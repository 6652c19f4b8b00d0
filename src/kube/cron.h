/* cron.h — CronJob schedules as kube-controller-manager reads them: the
 * standard parser of github.com/robfig/cron/v3 (cron.ParseStandard, which
 * kube 1.32 uses for validation and scheduling): five fields (minute hour
 * day-of-month month day-of-week; `*`, `?`, lists, ranges, steps, month and
 * weekday names), the descriptors @yearly @annually @monthly @weekly
 * @daily @midnight @hourly and `@every DURATION`, and a `TZ=zone` or
 * `CRON_TZ=zone` prefix. Errors carry the library's texts (kube puts them
 * in its 422 as they are).
 *
 * Times are seconds since the epoch; wall clock fields are computed in the
 * schedule's zone with ICU's calendar (thread-safe, no TZ environment
 * switching). No Debian package ships a C cron-expression library. */
#ifndef SL_KUBE_CRON_H
#define SL_KUBE_CRON_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct sl_cron sl_cron_t;

/* Parse spec (the zone: its TZ=/CRON_TZ= prefix, else the process's local
 * zone). NULL with the parser's text in err. */
sl_cron_t *sl_cron_parse(const char *spec, sl_error_t *err);
/* The first matching time strictly after t (seconds), as Schedule.Next;
 * -1 when none in the next five years (e.g. "0 0 30 2 *"). */
int64_t sl_cron_next(const sl_cron_t *c, int64_t t);
/* The zone's offset from UTC at t, in seconds (for RFC 3339 texts). */
int sl_cron_utc_offset(const sl_cron_t *c, int64_t t);
void sl_cron_free(sl_cron_t *c);

/* Go's time.LoadLocation on a zone name: 0 when it loads ("", "UTC",
 * "Local" and the system zoneinfo's TZif files), else -1 with Go's text
 * ("unknown time zone X", "time: invalid location name") in why. */
int sl_cron_zone_check(const char *zone, char *why, size_t len);

/* RFC 3339 of t with the zone's offset (time.RFC3339: "Z" for UTC),
 * caller frees. */
char *sl_cron_rfc3339(const sl_cron_t *c, int64_t t);

#endif
