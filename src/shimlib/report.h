/* report.h — pushing shim events to slurmlinkd without ever holding up the pod.
 *
 * Each event is one HTTP POST (JSON body, "Authorization: Bearer <token>")
 * sent by libcurl's multi interface from the shim's own poll loop: no
 * thread, no blocking call. Events go out one at a time, in order, over one
 * kept-alive connection; a POST that is not answered with 2xx within
 * SL_REPORT_TOTAL_MS (connect: SL_REPORT_CONNECT_MS) is dropped and never
 * retried, because events.jsonl in the pod folder is the durable copy the
 * daemon reads when it comes back. At most SL_REPORT_QUEUE events wait; the
 * oldest are dropped beyond that.
 */
#ifndef SL_SHIMLIB_REPORT_H
#define SL_SHIMLIB_REPORT_H

#include <poll.h>

#include "common/err.h"

#define SL_REPORT_CONNECT_MS 500
#define SL_REPORT_TOTAL_MS 1000
#define SL_REPORT_QUEUE 1024

typedef struct sl_report sl_report_t;

typedef struct sl_report_opts {
    const char *url;        /* http:// or https:// (required) */
    const char *token;      /* NULL: no Authorization header */
    const char *ca_file;    /* NULL: system CA store */
    const char *pinned_key; /* NULL or "sha256//BASE64" (curl CURLOPT_PINNEDPUBLICKEY) */
} sl_report_opts_t;

/* NULL with err if libcurl cannot be set up. The strings are copied. */
sl_report_t *sl_report_create(const sl_report_opts_t *o, sl_error_t *err);
void sl_report_destroy(sl_report_t *r); /* NULL is a no-op; drops what is queued */

/* Queue a copy of body (a JSON document) and start sending if idle.
 * r may be NULL (reporting disabled): then nothing happens. */
void sl_report_push(sl_report_t *r, const char *body);

/* poll() for the caller's fds while driving the transfers: waits up to
 * timeout_ms (-1: no limit) for an fd event or until a transfer needs
 * attention, then fills fds[].revents exactly as poll() would. Returns the
 * number of fds with events (0 on timeout), -1 with errno on error (EINTR
 * included). r may be NULL: then this is plain poll(). */
int sl_report_poll(sl_report_t *r, struct pollfd *fds, nfds_t nfds, int timeout_ms);

/* At exit: keep sending for at most budget_ms, stopping early when the
 * queue is empty or a POST fails (the daemon is away; the files remain). */
void sl_report_drain(sl_report_t *r, int budget_ms);

typedef struct sl_report_stats {
    unsigned long sent, failed, dropped, queued;
} sl_report_stats_t;
sl_report_stats_t sl_report_stats(const sl_report_t *r);

#endif
