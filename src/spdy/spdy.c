/* spdy.c — SPDY/3.1 frames (spdy.h). Frame layout (all big-endian):
 * control: 1 bit set, 15 bits version (3), 16 bits type, 8 bits flags, 24
 * bits length, then length bytes; data: 1 bit clear, 31 bits stream id, 8
 * bits flags, 24 bits length, the payload. A header block is a 32-bit count
 * of pairs, each a 32-bit length and a name, a 32-bit length and a value,
 * compressed by zlib (Debian's) with SPDY/3's dictionary and flushed with
 * Z_SYNC_FLUSH after each block. */
#include "spdy/spdy.h"

#include "common/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* SPDY/3's header dictionary (the spec, 2.6.10.1): these words, each after
 * its length as 4 bytes, then the text of tail as it is. */
static const char *const dict_words[] = {"options",
                                         "head",
                                         "post",
                                         "put",
                                         "delete",
                                         "trace",
                                         "accept",
                                         "accept-charset",
                                         "accept-encoding",
                                         "accept-language",
                                         "accept-ranges",
                                         "age",
                                         "allow",
                                         "authorization",
                                         "cache-control",
                                         "connection",
                                         "content-base",
                                         "content-encoding",
                                         "content-language",
                                         "content-length",
                                         "content-location",
                                         "content-md5",
                                         "content-range",
                                         "content-type",
                                         "date",
                                         "etag",
                                         "expect",
                                         "expires",
                                         "from",
                                         "host",
                                         "if-match",
                                         "if-modified-since",
                                         "if-none-match",
                                         "if-range",
                                         "if-unmodified-since",
                                         "last-modified",
                                         "location",
                                         "max-forwards",
                                         "pragma",
                                         "proxy-authenticate",
                                         "proxy-authorization",
                                         "range",
                                         "referer",
                                         "retry-after",
                                         "server",
                                         "te",
                                         "trailer",
                                         "transfer-encoding",
                                         "upgrade",
                                         "user-agent",
                                         "vary",
                                         "via",
                                         "warning",
                                         "www-authenticate",
                                         "method",
                                         "get",
                                         "status",
                                         "200 OK",
                                         "version",
                                         "HTTP/1.1",
                                         "url",
                                         "public",
                                         "set-cookie",
                                         "keep-alive",
                                         "origin"};
static const char dict_tail[] =
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
    "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 "
    "Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 "
    "Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, "
    "Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,application/"
    "xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,"
    "sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

static unsigned char dict[1536];
static size_t dict_len;
static pthread_once_t dict_once = PTHREAD_ONCE_INIT;

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void dict_build(void)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof(dict_words) / sizeof(dict_words[0]); i++) {
        size_t l = strlen(dict_words[i]);
        put32(dict + n, (uint32_t)l);
        memcpy(dict + n + 4, dict_words[i], l);
        n += 4 + l;
    }
    memcpy(dict + n, dict_tail, sizeof(dict_tail) - 1);
    dict_len = n + sizeof(dict_tail) - 1;
}

struct sl_spdy {
    z_stream in, out; /* inflate the peer's header blocks, deflate ours */
    bool in_ok, out_ok;
    sl_buf_t pending; /* the bytes of a frame not yet whole */
    sl_buf_t block;   /* an inflated header block */
};

sl_spdy_t *sl_spdy_new(void)
{
    pthread_once(&dict_once, dict_build);
    sl_spdy_t *s = sl_xcalloc(1, sizeof(*s));
    s->in_ok = inflateInit(&s->in) == Z_OK;
    s->out_ok = deflateInit(&s->out, Z_DEFAULT_COMPRESSION) == Z_OK &&
                deflateSetDictionary(&s->out, dict, (uInt)dict_len) == Z_OK;
    if (!s->in_ok || !s->out_ok) {
        sl_spdy_free(s);
        return NULL;
    }
    return s;
}

void sl_spdy_free(sl_spdy_t *s)
{
    if (!s)
        return;
    if (s->in_ok)
        inflateEnd(&s->in);
    if (s->out_ok)
        deflateEnd(&s->out);
    sl_buf_free(&s->pending);
    sl_buf_free(&s->block);
    free(s);
}

/* ---- reading ---- */

/* inflates a header block into s->block: 0, or -1 */
static int inflate_block(sl_spdy_t *s, const unsigned char *p, size_t n)
{
    sl_buf_reset(&s->block);
    s->in.next_in = (Bytef *)p;
    s->in.avail_in = (uInt)n;
    unsigned char chunk[4096];
    do {
        s->in.next_out = chunk;
        s->in.avail_out = sizeof(chunk);
        int rc = inflate(&s->in, Z_SYNC_FLUSH);
        if (rc == Z_NEED_DICT) {
            if (inflateSetDictionary(&s->in, dict, (uInt)dict_len) != Z_OK)
                return -1;
            continue;
        }
        size_t got = sizeof(chunk) - s->in.avail_out;
        if ((rc != Z_OK && rc != Z_BUF_ERROR) || (rc == Z_BUF_ERROR && !got && s->in.avail_in))
            return -1; /* broken, or no progress */
        if (s->block.len + got > SL_SPDY_MAX_HEADERS)
            return -1;
        sl_buf_append(&s->block, chunk, got);
    } while (s->in.avail_in > 0 || s->in.avail_out == 0);
    return 0;
}

/* The pairs of s->block into *hdr and *strs (their strings, each ended by
 * a NUL; the caller frees both), or -1. */
static int parse_block(sl_spdy_t *s, sl_spdy_header_t **hdr, size_t *nhdr, char **strs)
{
    size_t len = s->block.len;
    const unsigned char *b = (const unsigned char *)s->block.data;
    if (len < 4)
        return -1;
    uint32_t count = get32(b);
    if (count > 256 || count > (len - 4) / 8)
        return -1;
    char *copy = sl_xmalloc(len + 1); /* a string's NUL where the next length was */
    sl_spdy_header_t *h = sl_xcalloc(count ? count : 1, sizeof(*h));
    size_t off = 4, w = 0;
    for (uint32_t i = 0; i < 2 * count; i++) {
        uint32_t l = len - off >= 4 ? get32(b + off) : UINT32_MAX;
        /* a name is not empty and has no NUL (the draft: a protocol error) */
        if (l == UINT32_MAX || l > len - off - 4 ||
            (i % 2 == 0 && (l == 0 || memchr(b + off + 4, 0, l)))) {
            free(copy);
            free(h);
            return -1;
        }
        memcpy(copy + w, b + off + 4, l);
        copy[w + l] = '\0';
        if (i % 2 == 0)
            h[i / 2].name = copy + w;
        else {
            h[i / 2].value = copy + w;
            h[i / 2].value_len = l;
        }
        w += l + 1;
        off += 4 + l;
    }
    *hdr = h;
    *nhdr = count;
    *strs = copy;
    return 0;
}

/* the stream id and header block of a SYN_STREAM (skip 10), SYN_REPLY or
 * HEADERS (skip 4) into f; -1 when malformed */
static int headers_frame(sl_spdy_t *s, sl_spdy_frame_t *f, const unsigned char *p, size_t len,
                         size_t skip, char **strs)
{
    if (len < skip)
        return -1;
    f->stream = get32(p) & 0x7fffffff;
    sl_spdy_header_t *h = NULL;
    if (inflate_block(s, p + skip, len - skip) < 0 || parse_block(s, &h, &f->nhdr, strs) < 0)
        return -1;
    f->hdr = h;
    return 0;
}

/* a control frame's fields into f; -1 when malformed */
static int control_frame(sl_spdy_t *s, sl_spdy_frame_t *f, const unsigned char *p, size_t len,
                         char **strs)
{
    switch (f->type) {
    case SL_SPDY_SYN_STREAM: return headers_frame(s, f, p, len, 10, strs);
    case SL_SPDY_SYN_REPLY:
    case SL_SPDY_HEADERS: return headers_frame(s, f, p, len, 4, strs);
    case SL_SPDY_RST_STREAM:
    case SL_SPDY_GOAWAY:
    case SL_SPDY_WINDOW_UPDATE:
        if (len != 8)
            return -1;
        f->stream = get32(p) & 0x7fffffff;
        f->value = get32(p + 4) & (f->type == SL_SPDY_WINDOW_UPDATE ? 0x7fffffff : 0xffffffff);
        return 0;
    case SL_SPDY_PING:
        if (len != 4)
            return -1;
        f->value = get32(p);
        return 0;
    case SL_SPDY_SETTINGS: return len >= 4 && (len - 4) / 8 >= get32(p) ? 0 : -1;
    default: return 1; /* unknown: skipped (the spec: MUST ignore it) */
    }
}

/* one whole frame at p (header included): 0, the callback's return, or -1 */
static int one_frame(sl_spdy_t *s, const unsigned char *p, size_t len, sl_spdy_frame_fn fn,
                     void *arg)
{
    sl_spdy_frame_t f = {0};
    f.flags = p[4];
    f.len = len - 8;
    if (!(p[0] & 0x80)) {
        f.type = SL_SPDY_DATA;
        f.stream = get32(p) & 0x7fffffff;
        f.data = p + 8;
        return fn(arg, &f);
    }
    f.type = (p[2] << 8) | p[3];
    f.len = 0;
    char *strs = NULL;
    int rc = control_frame(s, &f, p + 8, len - 8, &strs);
    if (rc == 0)
        rc = fn(arg, &f);
    else if (rc > 0)
        rc = 0;
    free((void *)f.hdr);
    free(strs);
    return rc;
}

int sl_spdy_feed(sl_spdy_t *s, const void *data, size_t len, sl_spdy_frame_fn fn, void *arg,
                 sl_error_t *err)
{
    sl_buf_append(&s->pending, data, len);
    const unsigned char *p = (const unsigned char *)s->pending.data;
    size_t off = 0, have = s->pending.len;
    int rc = 0;
    while (rc == 0 && have - off >= 8) {
        const unsigned char *h = p + off;
        size_t flen = ((size_t)h[5] << 16) | ((size_t)h[6] << 8) | h[7];
        if ((h[0] & 0x80) && (((h[0] & 0x7f) << 8) | h[1]) != 3) {
            rc = sl_errkindf(err, SL_ERR_INVALID, "SPDY: version %d, not 3",
                             ((h[0] & 0x7f) << 8) | h[1]);
            break;
        }
        if (flen > SL_SPDY_MAX_FRAME) {
            rc = sl_errkindf(err, SL_ERR_INVALID, "SPDY: a frame of %zu bytes (at most %u)", flen,
                             SL_SPDY_MAX_FRAME);
            break;
        }
        if (have - off - 8 < flen)
            break;
        rc = one_frame(s, h, 8 + flen, fn, arg);
        if (rc < 0)
            sl_errkindf(err, SL_ERR_INVALID, "SPDY: a malformed frame (type %d)",
                        (h[0] & 0x80) ? (h[2] << 8) | h[3] : 0);
        off += 8 + flen;
    }
    if (off) {
        memmove(s->pending.data, s->pending.data + off, have - off);
        s->pending.len = have - off;
    }
    return rc;
}

const char *sl_spdy_header(const sl_spdy_frame_t *f, const char *name)
{
    for (size_t i = 0; i < f->nhdr; i++)
        if (!strcmp(f->hdr[i].name, name))
            return f->hdr[i].value;
    return NULL;
}

/* ---- writing ---- */

static void put_head(sl_buf_t *out, int type, uint8_t flags, size_t len)
{
    unsigned char h[8] = {0x80,
                          3,
                          (unsigned char)(type >> 8),
                          (unsigned char)type,
                          flags,
                          (unsigned char)(len >> 16),
                          (unsigned char)(len >> 8),
                          (unsigned char)len};
    sl_buf_append(out, h, 8);
}

void sl_spdy_put_data(sl_buf_t *out, uint32_t stream, uint8_t flags, const void *data, size_t len)
{
    unsigned char h[8];
    put32(h, stream & 0x7fffffff);
    h[4] = flags;
    h[5] = (unsigned char)(len >> 16);
    h[6] = (unsigned char)(len >> 8);
    h[7] = (unsigned char)len;
    sl_buf_append(out, h, 8);
    sl_buf_append(out, data, len);
}

/* the compressed block of hdr into z: 0, or -1 */
static int deflate_block(sl_spdy_t *s, const sl_spdy_header_t *hdr, size_t nhdr, sl_buf_t *z)
{
    sl_buf_t raw = SL_BUF_INIT;
    unsigned char n[4];
    put32(n, (uint32_t)nhdr);
    sl_buf_append(&raw, n, 4);
    for (size_t i = 0; i < nhdr; i++) {
        size_t vl = hdr[i].value_len ? hdr[i].value_len : strlen(hdr[i].value);
        put32(n, (uint32_t)strlen(hdr[i].name));
        sl_buf_append(&raw, n, 4);
        sl_buf_puts(&raw, hdr[i].name);
        put32(n, (uint32_t)vl);
        sl_buf_append(&raw, n, 4);
        sl_buf_append(&raw, hdr[i].value, vl);
    }
    s->out.next_in = (Bytef *)raw.data;
    s->out.avail_in = (uInt)raw.len;
    int rc = Z_OK;
    do {
        unsigned char chunk[4096];
        s->out.next_out = chunk;
        s->out.avail_out = sizeof(chunk);
        rc = deflate(&s->out, Z_SYNC_FLUSH);
        sl_buf_append(z, chunk, sizeof(chunk) - s->out.avail_out);
    } while (rc == Z_OK && s->out.avail_out == 0);
    sl_buf_free(&raw);
    return rc == Z_OK || rc == Z_BUF_ERROR ? 0 : -1;
}

static int put_headers_frame(sl_spdy_t *s, sl_buf_t *out, int type, uint32_t stream, uint8_t flags,
                             const sl_spdy_header_t *hdr, size_t nhdr)
{
    sl_buf_t z = SL_BUF_INIT;
    if (deflate_block(s, hdr, nhdr, &z) < 0) {
        sl_buf_free(&z);
        return -1;
    }
    size_t pre = type == SL_SPDY_SYN_STREAM ? 10 : 4;
    unsigned char p[10] = {0};
    put32(p, stream & 0x7fffffff);
    put_head(out, type, flags, pre + z.len);
    sl_buf_append(out, p, pre);
    sl_buf_append(out, z.data, z.len);
    sl_buf_free(&z);
    return 0;
}

int sl_spdy_put_syn_stream(sl_spdy_t *s, sl_buf_t *out, uint32_t stream, uint8_t flags,
                           const sl_spdy_header_t *hdr, size_t nhdr)
{
    return put_headers_frame(s, out, SL_SPDY_SYN_STREAM, stream, flags, hdr, nhdr);
}

int sl_spdy_put_syn_reply(sl_spdy_t *s, sl_buf_t *out, uint32_t stream, uint8_t flags,
                          const sl_spdy_header_t *hdr, size_t nhdr)
{
    return put_headers_frame(s, out, SL_SPDY_SYN_REPLY, stream, flags, hdr, nhdr);
}

static void put_two(sl_buf_t *out, int type, uint32_t a, uint32_t b)
{
    unsigned char p[8];
    put32(p, a);
    put32(p + 4, b);
    put_head(out, type, 0, 8);
    sl_buf_append(out, p, 8);
}

void sl_spdy_put_rst_stream(sl_buf_t *out, uint32_t stream, uint32_t status)
{
    put_two(out, SL_SPDY_RST_STREAM, stream & 0x7fffffff, status);
}

void sl_spdy_put_goaway(sl_buf_t *out, uint32_t last_good, uint32_t status)
{
    put_two(out, SL_SPDY_GOAWAY, last_good & 0x7fffffff, status);
}

void sl_spdy_put_window_update(sl_buf_t *out, uint32_t stream, uint32_t delta)
{
    put_two(out, SL_SPDY_WINDOW_UPDATE, stream & 0x7fffffff, delta & 0x7fffffff);
}

void sl_spdy_put_settings(sl_buf_t *out, uint32_t id, uint32_t value)
{
    unsigned char p[12];
    put32(p, 1);
    put32(p + 4, id & 0xffffff);
    put32(p + 8, value);
    put_head(out, SL_SPDY_SETTINGS, 0, 12);
    sl_buf_append(out, p, 12);
}

void sl_spdy_put_ping(sl_buf_t *out, uint32_t id)
{
    unsigned char p[4];
    put32(p, id);
    put_head(out, SL_SPDY_PING, 0, 4);
    sl_buf_append(out, p, 4);
}
