/* cron: CronJob schedules as robfig/cron v3's ParseStandard reads them
 * (the texts kube's 422 carries) and Schedule.Next, in UTC and in zones. */
#include "kube/cron.h"
#include "common/tap.h"

#include <stdlib.h>
#include <time.h>

static int64_t at(int y, int mo, int d, int h, int mi)
{
    struct tm tm = {
        .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi};
    return (int64_t)timegm(&tm);
}

static void next(const char *spec, int64_t from, int64_t want, const char *what)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_cron_t *c = sl_cron_parse(spec, &err);
    ok(c != NULL, "%s parses", spec);
    if (!c) {
        printf("#   %s\n", err.text);
        return;
    }
    int64_t got = sl_cron_next(c, from);
    is_int(got, want, "%s: %s", spec, what);
    sl_cron_free(c);
}

static void bad(const char *spec, const char *text)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_cron_t *c = sl_cron_parse(spec, &err);
    ok(c == NULL, "%s refused", spec);
    is_str(err.text, text, "%s: the parser's text", spec);
    sl_cron_free(c);
}

static void stamp(const char *spec, int64_t t, const char *want)
{
    sl_cron_t *c = sl_cron_parse(spec, NULL);
    char *s = c ? sl_cron_rfc3339(c, t) : NULL;
    is_str(s, want, "%s: RFC 3339 in its zone", spec);
    free(s);
    sl_cron_free(c);
}

int main(void)
{
    tap_plan(66);
    setenv("TZ", "UTC", 1);
    next("*/15 * * * *", at(2026, 1, 1, 0, 7), at(2026, 1, 1, 0, 15), "the next quarter hour");
    next("*/1 * * * *", at(2026, 1, 1, 0, 7), at(2026, 1, 1, 0, 8), "strictly after");
    next("* * * * *", at(2026, 1, 1, 0, 7) + 30, at(2026, 1, 1, 0, 8), "from mid-minute");
    next("@hourly", at(2026, 1, 1, 10, 30), at(2026, 1, 1, 11, 0), "@hourly");
    next("@daily", at(2026, 1, 1, 10, 30), at(2026, 1, 2, 0, 0), "@daily");
    next("@weekly", at(2026, 1, 1, 10, 30), at(2026, 1, 4, 0, 0), "@weekly: Sunday");
    next("@yearly", at(2026, 1, 1, 10, 30), at(2027, 1, 1, 0, 0), "@yearly");
    next("0 9 * * 1-5", at(2026, 1, 3, 10, 0), at(2026, 1, 5, 9, 0),
         "weekdays: Saturday to Monday");
    next("0 0 13 * 5", at(2026, 1, 1, 0, 0), at(2026, 1, 2, 0, 0), "day of month OR day of week");
    next("0 0 13 * *", at(2026, 1, 1, 0, 0), at(2026, 1, 13, 0, 0), "day of month alone");
    next("30 6 * JAN-MAR sun", at(2026, 3, 29, 7, 0), at(2027, 1, 3, 6, 30), "names, next year");
    next("0 0 29 2 *", at(2026, 1, 1, 0, 0), at(2028, 2, 29, 0, 0), "a leap day");
    next("0 0 30 2 *", at(2026, 1, 1, 0, 0), -1, "never: none in five years");
    next("@every 90s", at(2026, 1, 1, 0, 0), at(2026, 1, 1, 0, 1) + 30, "@every");
    next("TZ=America/New_York 0 9 * * *", at(2026, 1, 1, 0, 0), at(2026, 1, 1, 14, 0),
         "09:00 in New York in winter (EST)");
    next("CRON_TZ=America/New_York 0 9 * * *", at(2026, 7, 1, 0, 0), at(2026, 7, 1, 13, 0),
         "09:00 in New York in summer (EDT)");
    next("TZ=Asia/Kolkata */30 * * * *", at(2026, 1, 1, 0, 10), at(2026, 1, 1, 0, 30),
         "a half-hour zone");
    stamp("TZ=America/New_York 0 9 * * *", at(2026, 1, 1, 14, 0), "2026-01-01T09:00:00-05:00");
    stamp("0 9 * * *", at(2026, 1, 1, 9, 0), "2026-01-01T09:00:00Z");
    bad("", "empty spec string");
    bad("* * * *", "expected exactly 5 fields, found 4: [* * * *]");
    bad("* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]");
    bad("60 * * * *", "end of range (60) above maximum (59): 60");
    bad("* * 0 * *", "beginning of range (0) below minimum (1): 0");
    bad("x * * * *", "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax");
    bad("-1 * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax");
    bad("1-2-3 * * * *", "too many hyphens: 1-2-3");
    bad("*/0 * * * *", "step of range should be a positive number: */0");
    bad("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1");
    bad("* * * * 7", "end of range (7) above maximum (6): 7");
    bad("@foo", "unrecognized descriptor: @foo");
    bad("TZ=Nowhere/City * * * * *", "provided bad location Nowhere/City: unknown time zone "
                                     "Nowhere/City");
    char why[128];
    is_int(sl_cron_zone_check("Europe/Berlin", why, sizeof(why)), 0, "a zone of the system's");
    is_int(sl_cron_zone_check("Mars/Olympus", why, sizeof(why)), -1, "an unknown zone");
    is_str(why, "unknown time zone Mars/Olympus", "Go's text");
    is_int(sl_cron_zone_check("../etc/passwd", why, sizeof(why)), -1, "a path");
    return tap_done();
}
