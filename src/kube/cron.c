/* cron.c — see cron.h. The parser follows robfig/cron v3's parser.go
 * (getField, getRange, parseDescriptor, normalizeFields) and its texts;
 * sl_cron_next follows spec.go's SpecSchedule.Next (month, day, hour,
 * minute in turn, the day of month and of week ORed unless one is `*`). */
#include "kube/cron.h"

#include "common/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unicode/ucal.h>
#include <unicode/ustring.h>

#define STAR (1ULL << 63) /* starBit: the field was `*` or `?` */

struct sl_cron {
    uint64_t minute, hour, dom, month, dow;
    int64_t every;  /* @every: the delay in seconds, else 0 */
    char zone[128]; /* "" for the local zone */
};

typedef struct bounds {
    int min, max;
    const char *const *names; /* lower case, index = value - names_base */
    int names_base;
} bounds_t;

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul",
                                          "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const dow_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};
static const bounds_t b_minute = {0, 59, NULL, 0}, b_hour = {0, 23, NULL, 0},
                      b_dom = {1, 31, NULL, 0}, b_month = {1, 12, month_names, 1},
                      b_dow = {0, 6, dow_names, 0};

static uint64_t bits(int min, int max, int step)
{
    uint64_t b = 0;
    for (int i = min; i <= max; i += step)
        b |= 1ULL << i;
    return b;
}

static uint64_t all(const bounds_t *r) { return bits(r->min, r->max, 1) | STAR; }

/* mustParseInt: strconv.Atoi, then no negatives */
static int must_int(const char *s, int *out, sl_error_t *err)
{
    const char *p = s + (*s == '+' || *s == '-');
    bool digits = *p != '\0';
    for (const char *q = p; *q; q++)
        digits &= *q >= '0' && *q <= '9';
    if (!digits)
        return sl_errprintf(err,
                            "failed to parse int from %s: strconv.Atoi: parsing \"%s\": "
                            "invalid syntax",
                            s, s);
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return sl_errprintf(err,
                            "failed to parse int from %s: strconv.Atoi: parsing \"%s\": "
                            "value out of range",
                            s, s);
    if (v < 0)
        return sl_errprintf(err, "negative number (%lld) not allowed: %s", v, s);
    *out = v > INT_MAX ? INT_MAX : (int)v;
    return 0;
}

static int int_or_name(const char *s, const bounds_t *r, int *out, sl_error_t *err)
{
    for (int i = 0; r->names && r->names[i]; i++)
        if (!strcasecmp(s, r->names[i])) {
            *out = i + r->names_base;
            return 0;
        }
    return must_int(s, out, err);
}

/* "a-b", "a", "*" or "?" (range), optional "/step" */
static int get_range(const char *expr, const bounds_t *r, uint64_t *out, sl_error_t *err)
{
    char *dup = sl_xstrdup(expr), *slash = strchr(dup, '/'), *step_s = NULL;
    int rc = -1, start, end, step = 1;
    uint64_t extra = 0;
    if (slash) {
        *slash = '\0';
        step_s = slash + 1;
        if (strchr(step_s, '/')) {
            sl_errprintf(err, "too many slashes: %s", expr);
            goto out;
        }
    }
    char *hy = strchr(dup, '-');
    bool single = !hy;
    if (!strcmp(dup, "*") || !strcmp(dup, "?") ||
        (hy && (!strncmp(dup, "*-", 2) || !strncmp(dup, "?-", 2)))) {
        start = r->min, end = r->max, extra = STAR;
    } else {
        if (hy)
            *hy = '\0';
        if (hy && strchr(hy + 1, '-')) {
            sl_errprintf(err, "too many hyphens: %s", expr);
            goto out;
        }
        if (int_or_name(dup, r, &start, err) < 0 || (hy && int_or_name(hy + 1, r, &end, err) < 0))
            goto out;
        if (!hy)
            end = start;
    }
    if (step_s) {
        if (must_int(step_s, &step, err) < 0)
            goto out;
        if (single)
            end = r->max;
        if (step > 1)
            extra = 0;
    }
    if (start < r->min)
        sl_errprintf(err, "beginning of range (%d) below minimum (%d): %s", start, r->min, expr);
    else if (end > r->max)
        sl_errprintf(err, "end of range (%d) above maximum (%d): %s", end, r->max, expr);
    else if (start > end)
        sl_errprintf(err, "beginning of range (%d) beyond end of range (%d): %s", start, end, expr);
    else if (step == 0)
        sl_errprintf(err, "step of range should be a positive number: %s", expr);
    else {
        *out |= bits(start, end, step) | extra;
        rc = 0;
    }
out:
    free(dup);
    return rc;
}

/* getField: comma-separated ranges (empty pieces dropped, as FieldsFunc) */
static int get_field(const char *field, const bounds_t *r, uint64_t *out, sl_error_t *err)
{
    char *dup = sl_xstrdup(field), *save = NULL;
    *out = 0;
    int rc = 0;
    for (char *t = strtok_r(dup, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save))
        rc = get_range(t, r, out, err);
    free(dup);
    return rc;
}

/* time.ParseDuration, whole seconds kept (Every truncates to seconds) */
static int go_duration(const char *s, double *secs)
{
    static const struct {
        const char *u;
        double f;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"\xc2\xb5s", 1e-6}, {"ms", 1e-3},
                 {"s", 1},     {"m", 60},    {"h", 3600}};
    const char *p = s + (*s == '+' || *s == '-');
    bool neg = *s == '-';
    if (!strcmp(p, "0")) {
        *secs = 0;
        return 0;
    }
    if (!*p)
        return -1;
    double total = 0;
    while (*p) {
        char *end;
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return -1;
        double v = strtod(p, &end);
        if (end == p)
            return -1;
        p = end;
        size_t k, best = 0, bi = 0;
        for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
            size_t n = strlen(units[k].u);
            if (!strncmp(p, units[k].u, n) && n > best)
                best = n, bi = k;
        }
        if (!best)
            return -2;
        total += v * units[bi].f;
        p += best;
    }
    *secs = neg ? -total : total;
    return 0;
}

static int descriptor(sl_cron_t *c, const char *d, sl_error_t *err)
{
    c->minute = 1, c->hour = 1, c->dom = all(&b_dom), c->month = all(&b_month);
    c->dow = all(&b_dow);
    if (!strcmp(d, "@yearly") || !strcmp(d, "@annually"))
        c->dom = 1ULL << 1, c->month = 1ULL << 1;
    else if (!strcmp(d, "@monthly"))
        c->dom = 1ULL << 1;
    else if (!strcmp(d, "@weekly"))
        c->dow = 1ULL << 0;
    else if (!strcmp(d, "@hourly"))
        c->hour = all(&b_hour);
    else if (strcmp(d, "@daily") && strcmp(d, "@midnight")) {
        if (strncmp(d, "@every ", 7))
            return sl_errprintf(err, "unrecognized descriptor: %s", d);
        double s = 0;
        int r = go_duration(d + 7, &s);
        if (r == -2)
            return sl_errprintf(err,
                                "failed to parse duration %s: time: unknown unit in "
                                "duration \"%s\"",
                                d, d + 7);
        if (r < 0)
            return sl_errprintf(err, "failed to parse duration %s: time: invalid duration \"%s\"",
                                d, d + 7);
        c->every = s < 1 ? 1 : (int64_t)s;
    }
    return 0;
}

/* "[a b c]": Go's %s of a []string */
static void go_fields(char *out, size_t len, char **f, size_t n)
{
    size_t o = (size_t)snprintf(out, len, "[");
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(out + o, len - o, "%s%s", i ? " " : "", f[i]);
    if (o < len)
        snprintf(out + o, len - o, "]");
}

static int five_fields(sl_cron_t *c, const char *spec, sl_error_t *err)
{
    char *dup = sl_xstrdup(spec), *save = NULL, *f[64];
    size_t n = 0;
    for (char *t = strtok_r(dup, " \t\n\r\v\f", &save); t; t = strtok_r(NULL, " \t\n\r\v\f", &save))
        if (n < 64)
            f[n++] = t;
    int rc = -1;
    if (n != 5) {
        char list[1024];
        go_fields(list, sizeof(list), f, n);
        sl_errprintf(err, "expected exactly 5 fields, found %zu: %s", n, list);
    } else if (get_field(f[0], &b_minute, &c->minute, err) == 0 &&
               get_field(f[1], &b_hour, &c->hour, err) == 0 &&
               get_field(f[2], &b_dom, &c->dom, err) == 0 &&
               get_field(f[3], &b_month, &c->month, err) == 0 &&
               get_field(f[4], &b_dow, &c->dow, err) == 0) {
        rc = 0;
    }
    free(dup);
    return rc;
}

sl_cron_t *sl_cron_parse(const char *spec, sl_error_t *err)
{
    if (!spec || !*spec) {
        sl_errprintf(err, "empty spec string");
        return NULL;
    }
    sl_cron_t *c = sl_xcalloc(1, sizeof(*c));
    if (!strncmp(spec, "TZ=", 3) || !strncmp(spec, "CRON_TZ=", 8)) {
        const char *sp = strchr(spec, ' '), *eq = strchr(spec, '=');
        size_t zl = sp ? (size_t)(sp - eq - 1) : strlen(eq + 1);
        char why[256];
        snprintf(c->zone, sizeof(c->zone), "%.*s", (int)zl, eq + 1);
        if (zl >= sizeof(c->zone) || sl_cron_zone_check(c->zone, why, sizeof(why)) < 0) {
            sl_errprintf(err, "provided bad location %.*s: %s", (int)zl, eq + 1,
                         zl >= sizeof(c->zone) ? "time: invalid location name" : why);
            goto bad;
        }
        spec = sp ? sp : "";
        while (*spec == ' ')
            spec++;
    }
    int rc = *spec == '@' ? descriptor(c, spec, err) : five_fields(c, spec, err);
    if (rc < 0)
        goto bad;
    return c;
bad:
    free(c);
    return NULL;
}

void sl_cron_free(sl_cron_t *c) { free(c); }

/* ---- time.LoadLocation ---------------------------------------------------------- */

int sl_cron_zone_check(const char *zone, char *why, size_t len)
{
    if (!*zone || !strcmp(zone, "UTC") || !strcmp(zone, "Local"))
        return 0;
    if (strstr(zone, "..") || *zone == '/' || *zone == '\\') {
        snprintf(why, len, "time: invalid location name");
        return -1;
    }
    char path[512], magic[4] = {0};
    snprintf(path, sizeof(path), "/usr/share/zoneinfo/%s", zone);
    FILE *f = fopen(path, "rb");
    bool ok = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "TZif", 4);
    if (f)
        fclose(f);
    if (!ok)
        snprintf(why, len, "unknown time zone %s", zone);
    return ok ? 0 : -1;
}

/* ---- Next ------------------------------------------------------------------------- */

typedef struct wall {
    int y, mo, d, h, mi, s, wday; /* mo 1-12, wday 0 = Sunday */
} wall_t;

static UCalendar *cal_open(const sl_cron_t *c)
{
    UErrorCode st = U_ZERO_ERROR;
    UChar id[128];
    const char *z = !strcmp(c->zone, "Local") ? "" : c->zone;
    if (*z)
        u_uastrncpy(id, z, 127);
    id[127] = 0;
    UCalendar *cal = ucal_open(*z ? id : NULL, *z ? -1 : 0, "en_US_POSIX", UCAL_GREGORIAN, &st);
    if (U_FAILURE(st))
        return NULL;
    ucal_setGregorianChange(cal, -1e300, &st); /* proleptic, as Go */
    return cal;
}

static wall_t wall_of(UCalendar *cal, int64_t t)
{
    UErrorCode st = U_ZERO_ERROR;
    ucal_setMillis(cal, (UDate)t * 1000.0, &st);
    wall_t w = {ucal_get(cal, UCAL_EXTENDED_YEAR, &st),  ucal_get(cal, UCAL_MONTH, &st) + 1,
                ucal_get(cal, UCAL_DATE, &st),           ucal_get(cal, UCAL_HOUR_OF_DAY, &st),
                ucal_get(cal, UCAL_MINUTE, &st),         ucal_get(cal, UCAL_SECOND, &st),
                ucal_get(cal, UCAL_DAY_OF_WEEK, &st) - 1};
    return w;
}

/* time.Date: out-of-range fields normalised (ICU's lenient calendar) */
static int64_t mkdate(UCalendar *cal, int y, int mo, int d, int h, int mi, int s)
{
    UErrorCode st = U_ZERO_ERROR;
    ucal_clear(cal);
    ucal_set(cal, UCAL_EXTENDED_YEAR, y);
    ucal_set(cal, UCAL_MONTH, mo - 1);
    ucal_set(cal, UCAL_DATE, d);
    ucal_set(cal, UCAL_HOUR_OF_DAY, h);
    ucal_set(cal, UCAL_MINUTE, mi);
    ucal_set(cal, UCAL_SECOND, s);
    UDate ms = ucal_getMillis(cal, &st);
    return (int64_t)(ms / 1000.0);
}

static bool day_matches(const sl_cron_t *c, const wall_t *w)
{
    bool dom = (1ULL << w->d) & c->dom, dow = (1ULL << w->wday) & c->dow;
    if ((c->dom & STAR) || (c->dow & STAR))
        return dom && dow;
    return dom || dow;
}

/* the month, day and hour loops of SpecSchedule.Next; 1: go round (WRAP) */
static int next_day(const sl_cron_t *c, UCalendar *cal, int64_t *t, bool *added)
{
    wall_t w = wall_of(cal, *t);
    while (!((1ULL << w.mo) & c->month)) {
        if (!*added)
            *added = true, *t = mkdate(cal, w.y, w.mo, 1, 0, 0, 0), w = wall_of(cal, *t);
        *t = mkdate(cal, w.y, w.mo + 1, w.d, w.h, w.mi, w.s), w = wall_of(cal, *t);
        if (w.mo == 1)
            return 1;
    }
    while (!day_matches(c, &w)) {
        if (!*added)
            *added = true, *t = mkdate(cal, w.y, w.mo, w.d, 0, 0, 0), w = wall_of(cal, *t);
        *t = mkdate(cal, w.y, w.mo, w.d + 1, w.h, w.mi, w.s), w = wall_of(cal, *t);
        if (w.h != 0) /* DST moved midnight */
            *t += w.h > 12 ? (int64_t)(24 - w.h) * 3600 : -(int64_t)w.h * 3600,
                w = wall_of(cal, *t);
        if (w.d == 1)
            return 1;
    }
    while (!((1ULL << w.h) & c->hour)) {
        if (!*added)
            *added = true, *t = mkdate(cal, w.y, w.mo, w.d, w.h, 0, 0), w = wall_of(cal, *t);
        *t += 3600, w = wall_of(cal, *t);
        if (w.h == 0)
            return 1;
    }
    return 0;
}

int64_t sl_cron_next(const sl_cron_t *c, int64_t t)
{
    if (c->every)
        return t + c->every;
    UCalendar *cal = cal_open(c);
    if (!cal)
        return -1;
    t += 1;
    bool added = false;
    int limit = wall_of(cal, t).y + 5;
    int64_t r = -1;
    for (;;) {
        if (wall_of(cal, t).y > limit)
            break;
        if (next_day(c, cal, &t, &added))
            continue;
        wall_t w = wall_of(cal, t);
        bool wrap = false;
        while (!((1ULL << w.mi) & c->minute) && !wrap) {
            if (!added)
                added = true, t -= w.s, w = wall_of(cal, t);
            t += 60, w = wall_of(cal, t);
            wrap = w.mi == 0;
        }
        if (wrap)
            continue;
        if (w.s != 0) { /* the second field is 0: on to the next minute, round again */
            added = true;
            t += 60 - w.s;
            continue;
        }
        r = t;
        break;
    }
    ucal_close(cal);
    return r;
}

int sl_cron_utc_offset(const sl_cron_t *c, int64_t t)
{
    UCalendar *cal = cal_open(c);
    if (!cal)
        return 0;
    UErrorCode st = U_ZERO_ERROR;
    ucal_setMillis(cal, (UDate)t * 1000.0, &st);
    int ms = ucal_get(cal, UCAL_ZONE_OFFSET, &st) + ucal_get(cal, UCAL_DST_OFFSET, &st);
    ucal_close(cal);
    return ms / 1000;
}

char *sl_cron_rfc3339(const sl_cron_t *c, int64_t t)
{
    int off = sl_cron_utc_offset(c, t);
    time_t lt = (time_t)(t + off);
    struct tm tm;
    gmtime_r(&lt, &tm);
    char tz[16];
    if (!off)
        snprintf(tz, sizeof(tz), "Z");
    else
        snprintf(tz, sizeof(tz), "%c%02d:%02d", off < 0 ? '-' : '+', abs(off) / 3600,
                 abs(off) % 3600 / 60);
    return sl_xasprintf("%04d-%02d-%02dT%02d:%02d:%02d%s", tm.tm_year + 1900, tm.tm_mon + 1,
                        tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, tz);
}
