#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static const char *log_ident = "slurmlink";
static int log_level = SL_LOG_INFO;

void sl_log_init(const char *ident, int level)
{
    log_ident = ident;
    log_level = level;
}

void sl_log(int level, const char *fmt, ...)
{
    static const char *names[] = {"error", "warning", "info", "debug"};
    if (level > log_level)
        return;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char ts[32];
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s.%03dZ %s %s: %s\n", ts, (int)(tv.tv_usec / 1000), log_ident,
            names[level < 0 ? 0 : level > 3 ? 3 : level], line);
    fflush(stderr);
}
