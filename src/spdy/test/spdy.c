/* SPDY/3.1 framing: frames written by one end and read by the other (the
 * header blocks through the two ends' zlib streams), fed whole and byte by
 * byte; malformed input fails cleanly. */
#include "spdy/spdy.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct {
    int n;
    sl_spdy_frame_t last;
    char name[64], value[64], data[64];
    int types[16];
} seen_t;

static int on_frame(void *arg, const sl_spdy_frame_t *f)
{
    seen_t *s = arg;
    if (s->n < 16)
        s->types[s->n] = f->type;
    s->n++;
    s->last = *f;
    s->name[0] = s->value[0] = s->data[0] = '\0';
    if (f->nhdr) {
        snprintf(s->name, sizeof(s->name), "%s", f->hdr[f->nhdr - 1].name);
        snprintf(s->value, sizeof(s->value), "%s", f->hdr[f->nhdr - 1].value);
    }
    if (f->type == SL_SPDY_DATA)
        snprintf(s->data, sizeof(s->data), "%.*s", (int)f->len, (const char *)f->data);
    return 0;
}

static int feed(sl_spdy_t *r, const sl_buf_t *b, bool bytewise, seen_t *s)
{
    sl_error_t e = SL_ERROR_INIT;
    if (!bytewise)
        return sl_spdy_feed(r, b->data, b->len, on_frame, s, &e);
    for (size_t i = 0; i < b->len; i++)
        if (sl_spdy_feed(r, b->data + i, 1, on_frame, s, &e) != 0)
            return -1;
    return 0;
}

static void round_trip(bool bytewise)
{
    sl_spdy_t *c = sl_spdy_new(), *srv = sl_spdy_new();
    sl_buf_t b = SL_BUF_INIT;
    sl_spdy_header_t h[] = {{"streamtype", "error", 0}, {"port", "8080", 0}, {"requestid", "0", 0}};
    sl_spdy_put_syn_stream(c, &b, 1, 0, h, 3);
    h[0].value = "data";
    sl_spdy_put_syn_stream(c, &b, 3, 0, h, 3); /* the second block: the zlib stream goes on */
    sl_spdy_put_data(&b, 3, SL_SPDY_FLAG_FIN, "hello", 5);
    sl_spdy_put_ping(&b, 7);
    sl_spdy_put_rst_stream(&b, 3, SL_SPDY_RST_CANCEL);
    sl_spdy_put_window_update(&b, 3, 1000);
    sl_spdy_put_settings(&b, 7, 65536);
    sl_spdy_put_goaway(&b, 3, 0);
    seen_t s = {0};
    const char *how = bytewise ? "byte by byte" : "whole";
    is_int(feed(srv, &b, bytewise, &s), 0, "%s: the frames parse", how);
    is_int(s.n, 8, "%s: eight frames", how);
    int want[] = {1, 1, 0, 6, 3, 9, 4, 7};
    ok(!memcmp(s.types, want, sizeof(want)), "%s: in order, of their types", how);
    sl_buf_reset(&b);
    sl_spdy_put_syn_reply(srv, &b, 3, 0, NULL, 0);
    seen_t r = {0};
    is_int(feed(c, &b, bytewise, &r), 0, "%s: a SYN_REPLY without headers back", how);
    ok(r.n == 1 && r.last.type == SL_SPDY_SYN_REPLY && r.last.stream == 3 && r.last.nhdr == 0,
       "%s: ... stream 3, no headers", how);
    sl_buf_free(&b);
    sl_spdy_free(c);
    sl_spdy_free(srv);
}

static void fields(void)
{
    sl_spdy_t *c = sl_spdy_new(), *srv = sl_spdy_new();
    sl_buf_t b = SL_BUF_INIT;
    sl_spdy_header_t h[] = {{"streamtype", "data", 0}, {"port", "9090", 0}};
    sl_spdy_put_syn_stream(c, &b, 5, SL_SPDY_FLAG_FIN, h, 2);
    seen_t s = {0};
    feed(srv, &b, false, &s);
    ok(s.last.stream == 5 && s.last.flags == SL_SPDY_FLAG_FIN, "SYN_STREAM: its stream and flags");
    ok(!strcmp(s.name, "port") && !strcmp(s.value, "9090"), "... and its headers (port: 9090)");
    sl_buf_reset(&b);
    sl_spdy_put_data(&b, 5, 0, "abc", 3);
    feed(srv, &b, false, &s);
    ok(s.last.type == SL_SPDY_DATA && s.last.stream == 5 && !strcmp(s.data, "abc"),
       "DATA: stream and payload");
    sl_buf_reset(&b);
    sl_spdy_put_ping(&b, 0x12345679);
    feed(srv, &b, false, &s);
    ok(s.last.value == 0x12345679, "PING: its id");
    sl_buf_free(&b);
    sl_spdy_free(c);
    sl_spdy_free(srv);
}

static int bad(const unsigned char *p, size_t n)
{
    sl_spdy_t *r = sl_spdy_new();
    seen_t s = {0};
    sl_error_t e = SL_ERROR_INIT;
    int rc = sl_spdy_feed(r, p, n, on_frame, &s, &e);
    sl_spdy_free(r);
    return rc;
}

/* a SYN_REPLY whose header block is raw, compressed by hand (zlib without
 * the dictionary is valid too): sl_spdy_feed's result */
static int bad_block(const unsigned char *raw, size_t n)
{
    z_stream z = {0};
    deflateInit(&z, Z_DEFAULT_COMPRESSION);
    unsigned char zb[128];
    z.next_in = (Bytef *)raw;
    z.avail_in = (uInt)n;
    z.next_out = zb;
    z.avail_out = sizeof(zb);
    deflate(&z, Z_SYNC_FLUSH);
    size_t zl = sizeof(zb) - z.avail_out;
    deflateEnd(&z);
    sl_buf_t b = SL_BUF_INIT;
    unsigned char head[] = {0x80, 3, 0, 2, 0, 0, 0, (unsigned char)(4 + zl), 0, 0, 0, 1};
    sl_buf_append(&b, head, sizeof(head));
    sl_buf_append(&b, zb, zl);
    int rc = bad((unsigned char *)b.data, b.len);
    sl_buf_free(&b);
    return rc;
}

static void malformed(void)
{
    unsigned char v2[] = {0x80, 2, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1};
    ok(bad(v2, sizeof(v2)) < 0, "version 2: refused");
    unsigned char big[] = {0x00, 0, 0, 1, 0, 0xff, 0xff, 0xff};
    ok(bad(big, sizeof(big)) < 0, "a 16 MiB frame: refused (at most 1 MiB)");
    unsigned char ping5[] = {0x80, 3, 0, 6, 0, 0, 0, 5, 0, 0, 0, 1, 0};
    ok(bad(ping5, sizeof(ping5)) < 0, "a PING of 5 bytes: refused");
    unsigned char rst3[] = {0x80, 3, 0, 3, 0, 0, 0, 3, 0, 0, 1};
    ok(bad(rst3, sizeof(rst3)) < 0, "a RST_STREAM of 3 bytes: refused");
    unsigned char syn[] = {0x80, 3, 0, 1, 0, 0, 0, 14,  0,   0,   0,
                           1,    0, 0, 0, 0, 0, 0, 'j', 'u', 'n', 'k'};
    ok(bad(syn, sizeof(syn)) < 0, "a SYN_STREAM whose header block does not inflate: refused");
    unsigned char syn_short[] = {0x80, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0};
    ok(bad(syn_short, sizeof(syn_short)) < 0, "a SYN_STREAM shorter than its fields: refused");
    unsigned char unknown[] = {0x80, 3, 0, 42, 0, 0, 0, 2, 'x', 'y', 0x80,
                               3,    0, 6, 0,  0, 0, 4, 0, 0,   0,   9};
    sl_spdy_t *r = sl_spdy_new();
    seen_t s = {0};
    sl_error_t e = SL_ERROR_INIT;
    int rc = sl_spdy_feed(r, unknown, sizeof(unknown), on_frame, &s, &e);
    ok(rc == 0 && s.n == 1 && s.last.type == SL_SPDY_PING,
       "an unknown control type is skipped (the spec), the next frame read");
    sl_spdy_free(r);
    ok(bad_block((const unsigned char[]){0, 0, 0, 9, 0, 0, 0, 1, 'a', 0, 0, 0, 1, 'b'}, 14) < 0,
       "a header block (without the dictionary) whose count is past its pairs: refused");
    ok(bad_block((const unsigned char[]){0, 0, 0, 1, 0, 0, 0, 2, 'a', 0, 0, 0, 0, 1, 'b'}, 15) < 0,
       "a header name with a NUL in it: refused");
}

int main(void)
{
    tap_plan(23);
    round_trip(false);
    round_trip(true);
    fields();
    malformed();
    return tap_done();
}
