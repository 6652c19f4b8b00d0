/* crilog.h — a container log file in the CRI format kubelet and kubectl read.
 *
 * Each line of the file is
 *     <RFC 3339 nano timestamp> <stream> <tag> <content>\n
 * with stream "stdout" or "stderr" and tag "F" (the content ends a line) or
 * "P" (a partial piece: the line continues in the next P/F record of the
 * same stream). As in containerd, a line longer than SL_CRILOG_MAX_LINE
 * bytes is cut into P pieces of that size, a last chunk that ends without a
 * newline (the stream closed) is written as P, the "\n" or "\r\n" ending is
 * not part of the content, and every other byte (NUL, invalid UTF-8, lone
 * "\r") is written unchanged.
 *
 * Both streams of one container share one file; each stream keeps its own
 * pending partial line, and every record reaches the file in one write() so
 * a reader never sees half a record.
 */
#ifndef SL_SHIMLIB_CRILOG_H
#define SL_SHIMLIB_CRILOG_H

#include <stddef.h>
#include <time.h>

#include "common/buf.h"
#include "common/err.h"

#define SL_CRILOG_MAX_LINE 16384

typedef enum { SL_CRILOG_STDOUT = 0, SL_CRILOG_STDERR = 1 } sl_crilog_stream_t;

typedef struct sl_crilog sl_crilog_t;

/* Append one record for content[0..len) to out (pure; used by the writer and
 * by tests). partial selects the "P" tag. */
void sl_crilog_format(sl_buf_t *out, const struct timespec *ts, sl_crilog_stream_t stream,
                      int partial, const void *content, size_t len);

/* Open (create, append) path with mode 0640. NULL with err on failure. */
sl_crilog_t *sl_crilog_open(const char *path, sl_error_t *err);

/* Tests pin the clock; NULL restores the realtime clock. */
void sl_crilog_set_clock(sl_crilog_t *log, struct timespec (*now)(void));

/* Feed bytes read from a stream. Complete lines are written at once; an
 * unfinished line waits for its newline (or for SL_CRILOG_MAX_LINE bytes).
 * Returns -1 with errno if the file cannot be written (the data is dropped:
 * a full disk must not block the container). */
int sl_crilog_write(sl_crilog_t *log, sl_crilog_stream_t stream, const void *data, size_t len);

/* The stream reached end of file: write its pending partial line as "P". */
int sl_crilog_eof(sl_crilog_t *log, sl_crilog_stream_t stream);
/* The same while the stream goes on: its unfinished line now, as a P
 * record (a terminal's prompt, which no newline follows). */
int sl_crilog_flush(sl_crilog_t *log, sl_crilog_stream_t stream);

/* Flush both streams' pending data (as "P") and close. NULL is a no-op. */
void sl_crilog_close(sl_crilog_t *log);

#endif
