/* record.c — run records: failure text, ordering check, shim event times. */
#include "bench/record.h"

#include "common/fsutil.h"
#include "common/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void sl_bench_run_fail(sl_bench_run_t *r, const char *fmt, ...)
{
    if (r->error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof(r->error), fmt, ap);
    va_end(ap);
    if (!r->error[0])
        snprintf(r->error, sizeof(r->error), "failed");
}

int sl_bench_run_check(const sl_bench_run_t *r, char *why, size_t len)
{
    static const char *names[] = {"t_submit", "t_ack", "t_start", "t_end", "t_seen"};
    const int64_t t[] = {r->t_submit, r->t_ack, r->t_start, r->t_end, r->t_seen};
    for (int i = 0; i < 5; i++)
        if (t[i] <= 0) {
            snprintf(why, len, "%s was not recorded", names[i]);
            return -1;
        }
    for (int i = 1; i < 5; i++)
        if (t[i] < t[i - 1]) {
            snprintf(why, len, "%s is %.3f ms before %s", names[i],
                     (double)(t[i - 1] - t[i]) / 1000.0, names[i - 1]);
            return -1;
        }
    if (len)
        why[0] = '\0';
    return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), so no timegm() and
 * no dependence on TZ. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

int64_t sl_bench_parse_time(const char *s)
{
    int Y, M, D, h, m, sec;
    if (!s || strlen(s) < 20)
        return -1;
    if (digits(s, 4, &Y) || s[4] != '-' || digits(s + 5, 2, &M) || s[7] != '-' ||
        digits(s + 8, 2, &D) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &m) || s[16] != ':' ||
        digits(s + 17, 2, &sec))
        return -1;
    if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
        return -1;
    const char *p = s + 19;
    int64_t frac_us = 0;
    if (*p == '.') {
        p++;
        int nd = 0;
        int64_t scale = 100000;
        while (isdigit((unsigned char)*p)) {
            if (nd < 6) {
                frac_us += (*p - '0') * scale;
                scale /= 10;
            }
            nd++;
            p++;
        }
        if (!nd)
            return -1;
    }
    int64_t off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om;
        if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om))
            return -1;
        off = (int64_t)(oh * 3600 + om * 60) * (*p == '+' ? 1 : -1);
        p += 6;
    } else {
        return -1;
    }
    if (*p)
        return -1;
    int64_t secs = days_from_civil(Y, (unsigned)M, (unsigned)D) * 86400 + h * 3600 + m * 60 + sec;
    return (secs - off) * 1000000 + frac_us;
}

static int64_t event_time(json_t *ev, const char *field)
{
    int64_t t = sl_bench_parse_time(json_string_value(json_object_get(ev, field)));
    if (t < 0)
        t = sl_bench_parse_time(json_string_value(json_object_get(ev, "time")));
    return t;
}

int sl_bench_events_times(const char *text, int64_t *t_start, int64_t *t_end, sl_error_t *err)
{
    int64_t start = 0, end = 0;
    int nstarted = 0, nfinal = 0;
    const char *line = text ? text : "";
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        json_t *ev = json_loadb(line, n, 0, NULL);
        line += n + (nl ? 1 : 0);
        if (!json_is_object(ev)) {
            json_decref(ev);
            continue;
        }
        const char *kind = json_string_value(json_object_get(ev, "event"));
        int init = json_is_true(json_object_get(ev, "init"));
        if (kind && !init && !strcmp(kind, "started")) {
            int64_t t = event_time(ev, "startedAt");
            if (t > 0 && (!nstarted || t < start))
                start = t;
            if (t > 0)
                nstarted++;
        } else if (kind && !init && !strcmp(kind, "exited") &&
                   !json_object_get(ev, "restartInMs")) {
            int64_t t = event_time(ev, "finishedAt");
            if (t > 0 && (!nfinal || t > end))
                end = t;
            if (t > 0)
                nfinal++;
        }
        json_decref(ev);
    }
    if (!nstarted) {
        errno = ENOENT;
        return sl_errprintf(err, "events.jsonl has no app container 'started' event");
    }
    if (!nfinal) {
        errno = ENOENT;
        return sl_errprintf(err, "events.jsonl has no final app container 'exited' event");
    }
    *t_start = start;
    *t_end = end;
    return 0;
}

int sl_bench_run_read_events(sl_bench_run_t *r)
{
    if (!r->pod_dir[0]) {
        sl_bench_run_fail(r, "pod folder unknown: no container times");
        return -1;
    }
    char *path = sl_xasprintf("%s/events.jsonl", r->pod_dir);
    sl_error_t err = SL_ERROR_INIT;
    char *text = sl_read_file(path, NULL, &err);
    free(path);
    if (!text) {
        sl_bench_run_fail(r, "%s", err.text);
        return -1;
    }
    int rc = sl_bench_events_times(text, &r->t_start, &r->t_end, &err);
    free(text);
    if (rc < 0)
        sl_bench_run_fail(r, "%s: %s", r->pod_dir, err.text);
    return rc;
}
