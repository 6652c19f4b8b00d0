/* fuzz_spdy.c — libFuzzer: bytes from a SPDY peer (src/spdy) → the frame
 * reader, fed in pieces whose sizes the first byte picks; every SYN_STREAM
 * is answered (the writer's zlib stream), as the port-forward session does.
 *
 * Invariants (abort on violation): nothing crashes or trips a sanitizer;
 * a frame's fields are within what was fed (a DATA payload inside the
 * input, headers with names); after a failure the reader is not fed again. */
#include "spdy/spdy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    sl_spdy_t *w;
    sl_buf_t out;
    size_t fed;
} fz_t;

static int on_frame(void *arg, const sl_spdy_frame_t *f)
{
    fz_t *z = arg;
    if (f->type == SL_SPDY_DATA && f->len > z->fed)
        abort();
    for (size_t i = 0; i < f->nhdr; i++)
        if (!f->hdr[i].name || !*f->hdr[i].name || !f->hdr[i].value)
            abort();
    if (f->type == SL_SPDY_SYN_STREAM) {
        (void)sl_spdy_header(f, "port");
        if (sl_spdy_put_syn_reply(z->w, &z->out, f->stream, 0, f->hdr, f->nhdr) < 0)
            abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t piece = data[0] ? data[0] : 1;
    sl_spdy_t *r = sl_spdy_new();
    fz_t z = {sl_spdy_new(), SL_BUF_INIT, 0};
    if (!r || !z.w)
        abort();
    for (size_t off = 1; off < size; off += piece) {
        size_t n = size - off < piece ? size - off : piece;
        z.fed += n;
        sl_error_t e = SL_ERROR_INIT;
        if (sl_spdy_feed(r, data + off, n, on_frame, &z, &e) != 0)
            break;
    }
    sl_buf_free(&z.out);
    sl_spdy_free(z.w);
    sl_spdy_free(r);
    return 0;
}
