/* crilog.c — CRI log writer (see crilog.h for the format rules). */
#include "shimlib/crilog.h"

#include "common/xalloc.h"
#include "shimlib/tstamp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct sl_crilog {
    int fd;
    sl_buf_t pending[2]; /* the unfinished line of each stream */
    struct timespec (*now)(void);
    sl_buf_t rec; /* scratch for one record */
};

static const char *const stream_name[2] = {"stdout", "stderr"};

void sl_crilog_format(sl_buf_t *out, const struct timespec *ts, sl_crilog_stream_t stream,
                      int partial, const void *content, size_t len)
{
    char t[SL_TSTAMP_MAX];
    int tl = sl_tstamp_nano(ts, t);
    sl_buf_append(out, t, (size_t)tl);
    sl_buf_putc(out, ' ');
    sl_buf_puts(out, stream_name[stream]);
    sl_buf_puts(out, partial ? " P " : " F ");
    sl_buf_append(out, content, len);
    sl_buf_putc(out, '\n');
}

sl_crilog_t *sl_crilog_open(const char *path, sl_error_t *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0) {
        sl_errprintf(err, "open %s: %s", path, strerror(errno));
        return NULL;
    }
    sl_crilog_t *l = sl_xcalloc(1, sizeof(*l));
    l->fd = fd;
    l->now = sl_tstamp_now;
    return l;
}

void sl_crilog_set_clock(sl_crilog_t *log, struct timespec (*now)(void))
{
    log->now = now ? now : sl_tstamp_now;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Write one record whose content is a + b (pending bytes + new bytes). */
static int emit(sl_crilog_t *l, sl_crilog_stream_t s, int partial, const char *a, size_t alen,
                const char *b, size_t blen)
{
    struct timespec ts = l->now();
    sl_buf_reset(&l->rec);
    if (alen && blen) {
        /* join first so the record stays one write() */
        sl_buf_t tmp = SL_BUF_INIT;
        sl_buf_append(&tmp, a, alen);
        sl_buf_append(&tmp, b, blen);
        sl_crilog_format(&l->rec, &ts, s, partial, tmp.data, tmp.len);
        sl_buf_free(&tmp);
    } else {
        sl_crilog_format(&l->rec, &ts, s, partial, alen ? a : b, alen ? alen : blen);
    }
    return write_all(l->fd, l->rec.data, l->rec.len);
}

int sl_crilog_write(sl_crilog_t *l, sl_crilog_stream_t s, const void *data, size_t len)
{
    sl_buf_t *pend = &l->pending[s];
    const char *p = data;
    int rc = 0;
    while (len) {
        size_t room = SL_CRILOG_MAX_LINE - pend->len;
        /* one byte more than fits: a line of exactly the limit is still F */
        size_t scan = len < room + 1 ? len : room + 1;
        const char *nl = memchr(p, '\n', scan);
        if (nl) {
            size_t take = (size_t)(nl - p);
            size_t content = take;
            /* "\r\n" ends a line like "\n" (bufio.ReadLine in containerd) */
            if (content && p[content - 1] == '\r')
                content--;
            else if (!content && pend->len && pend->data[pend->len - 1] == '\r')
                pend->data[--pend->len] = '\0';
            if (emit(l, s, 0, pend->data, pend->len, p, content) < 0)
                rc = -1;
            sl_buf_reset(pend);
            p += take + 1;
            len -= take + 1;
            continue;
        }
        if (len > room) {
            /* the line is longer than the limit: a P piece of exactly the limit */
            if (emit(l, s, 1, pend->data, pend->len, p, room) < 0)
                rc = -1;
            sl_buf_reset(pend);
            p += room;
            len -= room;
            continue;
        }
        sl_buf_append(pend, p, len);
        break;
    }
    return rc;
}

int sl_crilog_eof(sl_crilog_t *l, sl_crilog_stream_t s)
{
    sl_buf_t *pend = &l->pending[s];
    if (!pend->len)
        return 0;
    int rc = emit(l, s, 1, pend->data, pend->len, NULL, 0);
    sl_buf_reset(pend);
    return rc;
}

int sl_crilog_flush(sl_crilog_t *l, sl_crilog_stream_t s) { return sl_crilog_eof(l, s); }

void sl_crilog_close(sl_crilog_t *l)
{
    if (!l)
        return;
    int e = errno;
    sl_crilog_eof(l, SL_CRILOG_STDOUT);
    sl_crilog_eof(l, SL_CRILOG_STDERR);
    close(l->fd);
    sl_buf_free(&l->pending[0]);
    sl_buf_free(&l->pending[1]);
    sl_buf_free(&l->rec);
    free(l);
    errno = e;
}
