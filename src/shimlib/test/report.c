/* Unit tests: event pushes — delivered in order with the bearer token, and
 * never holding up the caller when the daemon is down or silent.
 * The receiver is a real HTTP server (libmicrohttpd) on a loopback port. */
#include "shimlib/report.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char got[8][512];
static char auth[8][128];
static int ngot;
static unsigned status_code = 200;
/* the receiver answers only while the gate is open */
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open = 1;

static void gate(int open)
{
    pthread_mutex_lock(&mu);
    gate_open = open;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&mu);
}

struct req {
    char body[256];
    size_t len;
};

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *data,
                               size_t *size, void **ctx)
{
    struct req *r = *ctx;
    if (!r) {
        *ctx = sl_xcalloc(1, sizeof(struct req));
        return MHD_YES;
    }
    if (*size) {
        size_t n = *size < sizeof(r->body) - 1 - r->len ? *size : sizeof(r->body) - 1 - r->len;
        memcpy(r->body + r->len, data, n);
        r->len += n;
        *size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&mu);
    while (!gate_open)
        pthread_cond_wait(&gate_cv, &mu);
    if (ngot < 8) {
        snprintf(got[ngot], sizeof(got[0]), "%s %s %s", method, url, r->body);
        const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
        snprintf(auth[ngot], sizeof(auth[0]), "%s", a ? a : "(none)");
        ngot++;
    }
    pthread_mutex_unlock(&mu);
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(2, (void *)"ok", MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(conn, status_code, resp);
    MHD_destroy_response(resp);
    return ret;
}

static void done_cb(void *cls, struct MHD_Connection *c, void **ctx,
                    enum MHD_RequestTerminationCode t)
{
    free(*ctx);
    *ctx = NULL;
}

static int count(void)
{
    pthread_mutex_lock(&mu);
    int n = ngot;
    pthread_mutex_unlock(&mu);
    return n;
}

/* Drive transfers until cond or timeout. */
static void spin(sl_report_t *r, int ms, int want)
{
    long long end = sl_now_ms() + ms;
    while (sl_now_ms() < end && count() < want)
        sl_report_poll(r, NULL, 0, 20);
    /* let the response be collected too */
    for (int i = 0; i < 5; i++)
        sl_report_poll(r, NULL, 0, 10);
}

int main(void)
{
    tap_plan(23);
    struct MHD_Daemon *d =
        MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                         handler, NULL, MHD_OPTION_NOTIFY_COMPLETED, done_cb, NULL, MHD_OPTION_END);
    ok(d != NULL, "receiver started");
    if (!d)
        return tap_done();
    int port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
    char *url = sl_xasprintf("http://127.0.0.1:%d/internal/v1/shim/events", port);

    sl_report_opts_t o = {url, "s3cr3t", NULL, NULL};
    sl_error_t err = SL_ERROR_INIT;
    sl_report_t *r = sl_report_create(&o, &err);
    ok(r != NULL, "report created (%s)", err.text);
    gate(0); /* the receiver holds its answers: a push that waited for one would not return */
    sl_report_push(r, "{\"seq\":1}");
    sl_report_push(r, "{\"seq\":2}");
    sl_report_push(r, "{\"seq\":3}");
    sl_report_stats_t st = sl_report_stats(r);
    ok(st.queued == 3 && st.sent == 0 && st.failed == 0,
       "push returns before any answer (queued %lu, sent %lu)", st.queued, st.sent);
    gate(1);
    spin(r, 30000, 3);
    is_int(count(), 3, "three POSTs received");
    is_str(got[0], "POST /internal/v1/shim/events {\"seq\":1}",
           "first event, POST to the URL path");
    is_str(got[1], "POST /internal/v1/shim/events {\"seq\":2}", "second, in order");
    is_str(got[2], "POST /internal/v1/shim/events {\"seq\":3}", "third, in order");
    is_str(auth[0], "Bearer s3cr3t", "Authorization: Bearer token");
    st = sl_report_stats(r);
    is_int(st.sent, 3, "stats: 3 sent");
    is_int(st.failed, 0, "stats: 0 failed");

    status_code = 503;
    sl_report_push(r, "{\"seq\":4}");
    spin(r, 30000, 4);
    st = sl_report_stats(r);
    is_int(st.failed, 1, "a non-2xx answer counts as failed");
    sl_report_destroy(r);
    MHD_stop_daemon(d);

    /* nobody listening: the push fails, and drain ends with it (its budget,
     * ten minutes, is only a guard: were drain to wait for it, the test
     * would hang) */
    o.url = url;
    r = sl_report_create(&o, &err);
    sl_report_push(r, "{\"seq\":5}");
    sl_report_drain(r, 600000);
    st = sl_report_stats(r);
    ok(st.failed == 1 && st.sent == 0, "refused connection: drain returns with the push failed");
    is_int(st.failed, 1, "refused push counted as failed");
    sl_report_destroy(r);

    /* a server that accepts connections but never answers */
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    bind(ls, (struct sockaddr *)&a, sizeof(a));
    listen(ls, 64);
    getsockname(ls, (struct sockaddr *)&a, &al);
    char *url2 = sl_xasprintf("http://127.0.0.1:%d/x", ntohs(a.sin_port));
    o.url = url2;
    r = sl_report_create(&o, &err);
    int pfd[2];
    ok(pipe(pfd) == 0, "pipe");
    sl_report_push(r, "{\"seq\":6}");
    st = sl_report_stats(r);
    ok(st.sent == 0 && st.failed == 0,
       "push to a silent server returns while its POST is unanswered");
    ok(write(pfd[1], "x", 1) == 1, "pipe written");
    struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
    int n = sl_report_poll(r, &pf, 1, 5000);
    st = sl_report_stats(r);
    ok(n == 1 && (pf.revents & POLLIN) && st.sent == 0,
       "caller's fd reported while a POST hangs (n %d, sent %lu)", n, st.sent);
    close(pfd[1]);
    char c;
    ok(read(pfd[0], &c, 1) == 1, "read the byte");
    pf.revents = 0;
    n = sl_report_poll(r, &pf, 1, 1000);
    ok(n == 1 && (pf.revents & POLLHUP), "a closed pipe shows as POLLHUP (revents %#x)",
       (unsigned)pf.revents);
    close(pfd[0]);
    for (int i = 0; i < SL_REPORT_QUEUE + 10; i++)
        sl_report_push(r, "{\"seq\":7}");
    st = sl_report_stats(r);
    ok(st.dropped >= 10, "queue bounded: %lu dropped", st.dropped);
    long long t0 = sl_now_ms();
    sl_report_drain(r, 300);
    long long took = sl_now_ms() - t0;
    st = sl_report_stats(r);
    ok(took >= 250 && st.sent == 0, "drain waits out its budget for an unanswered POST (%lld ms)",
       took);
    sl_report_destroy(r);
    /* destroy closed the connection the server never answered: the server
     * reads its end */
    int cs = accept(ls, NULL, NULL);
    char buf[4096];
    ssize_t got_n;
    while ((got_n = read(cs, buf, sizeof(buf))) > 0)
        ;
    ok(cs >= 0 && got_n == 0, "destroy does not wait for the server: it closes the connection");
    if (cs >= 0)
        close(cs);
    close(ls);

    /* reporting disabled */
    sl_report_push(NULL, "{}");
    sl_report_drain(NULL, 1000);
    struct pollfd none;
    ok(sl_report_poll(NULL, &none, 0, 1) == 0, "NULL report: plain poll");
    sl_report_destroy(NULL);

    free(url);
    free(url2);
    return tap_done();
}
