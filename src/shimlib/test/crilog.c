/* Unit tests: CRI log lines — timestamps, F/P tags, long lines, CRLF, binary bytes. */
#include "shimlib/crilog.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "shimlib/tstamp.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct timespec fixed(void)
{
    /* 2026-11-30T11:00:00.123456789Z */
    struct timespec ts = {1796036400, 123456789};
    return ts;
}

#define TS "2026-11-30T11:00:00.123456789Z"

static char *dir;

/* Run fn against a fresh log file; return the file's bytes (caller frees). */
static char *with_log(void (*fn)(sl_crilog_t *), size_t *len)
{
    static int n;
    char *path = sl_xasprintf("%s/%d.log", dir, n++);
    sl_error_t err = SL_ERROR_INIT;
    sl_crilog_t *l = sl_crilog_open(path, &err);
    if (!l) {
        ok(0, "open log: %s", err.text);
        free(path);
        return sl_xstrdup("");
    }
    sl_crilog_set_clock(l, fixed);
    fn(l);
    sl_crilog_close(l);
    char *s = sl_read_file(path, len, NULL);
    free(path);
    return s;
}

static void simple(sl_crilog_t *l)
{
    sl_crilog_write(l, SL_CRILOG_STDOUT, "hello\nwor", 9);
    sl_crilog_write(l, SL_CRILOG_STDERR, "oops\n", 5);
    sl_crilog_write(l, SL_CRILOG_STDOUT, "ld\n\n", 4);
}

static void partial_at_eof(sl_crilog_t *l)
{
    sl_crilog_write(l, SL_CRILOG_STDOUT, "no newline", 10);
    sl_crilog_eof(l, SL_CRILOG_STDOUT);
    sl_crilog_eof(l, SL_CRILOG_STDOUT); /* nothing pending: nothing written */
    sl_crilog_write(l, SL_CRILOG_STDERR, "closed by close", 15);
}

static void crlf(sl_crilog_t *l)
{
    sl_crilog_write(l, SL_CRILOG_STDOUT, "a\r\nb\rc\n", 7);
    sl_crilog_write(l, SL_CRILOG_STDOUT, "d\r", 2); /* CR and LF in two reads */
    sl_crilog_write(l, SL_CRILOG_STDOUT, "\n", 1);
}

static void binary(sl_crilog_t *l)
{
    sl_crilog_write(l, SL_CRILOG_STDOUT, "\x00\xff\xfe\x80 \x1b[31m\n", 11);
}

static void exactly_max(sl_crilog_t *l)
{
    char *big = malloc(SL_CRILOG_MAX_LINE + 1);
    memset(big, 'x', SL_CRILOG_MAX_LINE);
    big[SL_CRILOG_MAX_LINE] = '\n';
    /* in two reads, to cross the pending buffer */
    sl_crilog_write(l, SL_CRILOG_STDOUT, big, 100);
    sl_crilog_write(l, SL_CRILOG_STDOUT, big + 100, SL_CRILOG_MAX_LINE + 1 - 100);
    free(big);
}

static void longer(sl_crilog_t *l)
{
    size_t n = 2 * SL_CRILOG_MAX_LINE + 5;
    char *big = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    big[n] = '\n';
    sl_crilog_write(l, SL_CRILOG_STDERR, big, n + 1);
    free(big);
}

int main(void)
{
    char tmpl[] = "/tmp/crilog.XXXXXX";
    dir = mkdtemp(tmpl);
    ok(dir != NULL, "temp dir");

    char t[SL_TSTAMP_MAX];
    struct timespec ts = fixed();
    sl_tstamp_nano(&ts, t);
    is_str(t, TS, "nanosecond timestamp, 9 digits, UTC");
    sl_tstamp_micro(&ts, t);
    is_str(t, "2026-11-30T11:00:00.123456Z", "microsecond timestamp");
    struct timespec z = {1796036400, 5};
    sl_tstamp_nano(&z, t);
    is_str(t, "2026-11-30T11:00:00.000000005Z", "zero-padded nanoseconds");

    sl_buf_t b = SL_BUF_INIT;
    sl_crilog_format(&b, &ts, SL_CRILOG_STDERR, 1, "abc", 3);
    is_str(b.data, TS " stderr P abc\n", "format: stderr partial");
    sl_buf_free(&b);

    size_t len;
    char *s = with_log(simple, &len);
    is_str(s, TS " stdout F hello\n" TS " stderr F oops\n" TS " stdout F world\n" TS " stdout F \n",
           "full lines, streams kept apart, line joined across reads, empty line");
    free(s);

    s = with_log(partial_at_eof, &len);
    is_str(s, TS " stdout P no newline\n" TS " stderr P closed by close\n",
           "unfinished last line written as P at EOF and at close");
    free(s);

    s = with_log(crlf, &len);
    is_str(s, TS " stdout F a\n" TS " stdout F b\rc\n" TS " stdout F d\n",
           "CRLF ends a line like LF; a lone CR is content");
    free(s);

    s = with_log(binary, &len);
    const char want_bin[] = TS " stdout F \x00\xff\xfe\x80 \x1b[31m\n";
    ok(len == sizeof(want_bin) - 1 && !memcmp(s, want_bin, len),
       "NUL, invalid UTF-8 and escapes written unchanged");
    free(s);

    s = with_log(exactly_max, &len);
    size_t head = strlen(TS " stdout F ");
    ok(len == head + SL_CRILOG_MAX_LINE + 1 && !strncmp(s, TS " stdout F x", head + 1),
       "a line of exactly 16 KiB is one F record");
    free(s);

    s = with_log(longer, &len);
    /* 2*16384+5 bytes: P 16384, P 16384, F 5 */
    size_t h = strlen(TS " stderr P ");
    size_t want = 3 * h + 2 * SL_CRILOG_MAX_LINE + 5 + 3;
    is_int(len, want, "long line split into pieces of 16 KiB");
    ok(!strncmp(s, TS " stderr P abc", h + 3), "first piece tagged P");
    const char *second = s + h + SL_CRILOG_MAX_LINE + 1;
    ok(!strncmp(second, TS " stderr P ", h), "second piece tagged P");
    const char *third = second + h + SL_CRILOG_MAX_LINE + 1;
    ok(!strncmp(third, TS " stderr F ", h), "last piece tagged F");
    /* the content of the pieces, concatenated, is the original line */
    int same = 1;
    for (size_t i = 0; i < 2 * SL_CRILOG_MAX_LINE + 5; i++) {
        const char *p = i < SL_CRILOG_MAX_LINE       ? s + h + i
                        : i < 2 * SL_CRILOG_MAX_LINE ? second + h + (i - SL_CRILOG_MAX_LINE)
                                                     : third + h + (i - 2 * SL_CRILOG_MAX_LINE);
        if (*p != (char)('a' + i % 26)) {
            same = 0;
            break;
        }
    }
    ok(same, "pieces reassemble to the original bytes");
    free(s);

    sl_error_t err = SL_ERROR_INIT;
    ok(sl_crilog_open("/nonexistent/dir/0.log", &err) == NULL, "open in a missing folder fails");
    has_str(err.text, "/nonexistent/dir/0.log", "error names the path");
    sl_crilog_close(NULL);

    sl_rm_rf(dir);
    return tap_done();
}
