#include "shimlib/tstamp.h"

#include <stdio.h>

static int fmt(const struct timespec *ts, char out[SL_TSTAMP_MAX], int digits)
{
    struct tm tm;
    time_t sec = ts->tv_sec;
    gmtime_r(&sec, &tm);
    long frac = ts->tv_nsec;
    if (digits == 6)
        frac /= 1000;
    return snprintf(out, SL_TSTAMP_MAX, "%04d-%02d-%02dT%02d:%02d:%02d.%0*ldZ", tm.tm_year + 1900,
                    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, digits, frac);
}

int sl_tstamp_nano(const struct timespec *ts, char out[SL_TSTAMP_MAX]) { return fmt(ts, out, 9); }

int sl_tstamp_micro(const struct timespec *ts, char out[SL_TSTAMP_MAX]) { return fmt(ts, out, 6); }

struct timespec sl_tstamp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts;
}
