/* spdy.h — SPDY/3.1 framing (the draft spec, "SPDY Protocol - Draft 3.1",
 * chromium.org), as kubectl port-forward speaks it: frames parsed from a
 * byte stream fed in pieces, and frames written into a buffer. Header
 * blocks are compressed with zlib and SPDY/3's dictionary, one zlib stream
 * per direction for the whole session. No C library of Debian frames SPDY
 * (docs/api.md).
 *
 * Malformed input (a version other than 3, a length past the bounds or too
 * short for its type, a header block that does not inflate or does not
 * parse) makes sl_spdy_feed fail: the caller closes the session. Control
 * frames of unknown types are skipped, as the spec says. */
#ifndef SL_SPDY_SPDY_H
#define SL_SPDY_SPDY_H

#include "common/buf.h"
#include "common/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    SL_SPDY_DATA = 0, /* not a control type: a DATA frame */
    SL_SPDY_SYN_STREAM = 1,
    SL_SPDY_SYN_REPLY = 2,
    SL_SPDY_RST_STREAM = 3,
    SL_SPDY_SETTINGS = 4,
    SL_SPDY_PING = 6,
    SL_SPDY_GOAWAY = 7,
    SL_SPDY_HEADERS = 8,
    SL_SPDY_WINDOW_UPDATE = 9,
};
#define SL_SPDY_FLAG_FIN 0x01
#define SL_SPDY_FLAG_UNIDIRECTIONAL 0x02
#define SL_SPDY_RST_PROTOCOL_ERROR 1
#define SL_SPDY_RST_REFUSED_STREAM 3
#define SL_SPDY_RST_CANCEL 5
/* a frame's payload at most (ours: the draft allows 16 MiB) */
#define SL_SPDY_MAX_FRAME (1u << 20)
#define SL_SPDY_MAX_HEADERS (64u << 10) /* an inflated header block at most */

typedef struct sl_spdy sl_spdy_t;

typedef struct {
    const char *name, *value; /* NUL-terminated; a value of several is NUL-separated in len */
    size_t value_len;
} sl_spdy_header_t;

typedef struct {
    int type; /* SL_SPDY_DATA or a control type */
    uint8_t flags;
    uint32_t stream;             /* the stream's id (GOAWAY: the last good one) */
    uint32_t value;              /* RST_STREAM/GOAWAY status, PING id, WINDOW_UPDATE delta */
    const uint8_t *data;         /* DATA: the payload */
    size_t len;                  /* its length */
    const sl_spdy_header_t *hdr; /* SYN_STREAM, SYN_REPLY, HEADERS: the headers */
    size_t nhdr;
} sl_spdy_frame_t;

/* Called for every complete frame; what it points to lives until it
 * returns. A non-zero return stops sl_spdy_feed (which returns it). */
typedef int (*sl_spdy_frame_fn)(void *arg, const sl_spdy_frame_t *f);

/* One end of a session: its two zlib streams and the bytes of a frame not
 * yet whole. NULL when zlib cannot start. */
sl_spdy_t *sl_spdy_new(void);
void sl_spdy_free(sl_spdy_t *s);

/* Feeds bytes from the peer: calls fn for each frame they complete. 0, the
 * callback's non-zero return, or -1 with err (Invalid: the session is
 * broken, close it). */
int sl_spdy_feed(sl_spdy_t *s, const void *data, size_t len, sl_spdy_frame_fn fn, void *arg,
                 sl_error_t *err);

/* The header of that name (lower case, as SPDY sends them), or NULL. */
const char *sl_spdy_header(const sl_spdy_frame_t *f, const char *name);

/* Writers: one frame appended to out. Those with headers compress them
 * with s's stream (-1 when zlib fails). */
void sl_spdy_put_data(sl_buf_t *out, uint32_t stream, uint8_t flags, const void *data, size_t len);
int sl_spdy_put_syn_stream(sl_spdy_t *s, sl_buf_t *out, uint32_t stream, uint8_t flags,
                           const sl_spdy_header_t *hdr, size_t nhdr);
int sl_spdy_put_syn_reply(sl_spdy_t *s, sl_buf_t *out, uint32_t stream, uint8_t flags,
                          const sl_spdy_header_t *hdr, size_t nhdr);
void sl_spdy_put_rst_stream(sl_buf_t *out, uint32_t stream, uint32_t status);
void sl_spdy_put_ping(sl_buf_t *out, uint32_t id);
void sl_spdy_put_goaway(sl_buf_t *out, uint32_t last_good, uint32_t status);
void sl_spdy_put_window_update(sl_buf_t *out, uint32_t stream, uint32_t delta);
void sl_spdy_put_settings(sl_buf_t *out, uint32_t id, uint32_t value); /* one entry */

#endif
