/* http.c — the bench's HTTP client (libcurl easy interface): one handle per
 * connection, kept alive between requests as a real client would. */
#include "bench/internal.h"

#include "common/buf.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <curl/curl.h>
#include <errno.h>
#include <string.h>

struct bench_http {
    CURL *curl;
    char *base;
    struct curl_slist *headers;
    char errbuf[CURL_ERROR_SIZE];
};

static void set_blob(CURL *h, CURLoption opt, const char *pem)
{
    struct curl_blob blob = {(void *)pem, strlen(pem), CURL_BLOB_COPY};
    curl_easy_setopt(h, opt, &blob);
}

bench_http_t *bench_http_create(const bench_http_target_t *t)
{
    bench_http_t *h = sl_xcalloc(1, sizeof(*h));
    h->curl = curl_easy_init();
    if (!h->curl) {
        free(h);
        errno = ENOMEM;
        return NULL;
    }
    h->base = sl_xstrdup(t->base);
    CURL *c = h->curl;
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
    if (t->unix_path)
        curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, t->unix_path);
    if (t->ca_file)
        curl_easy_setopt(c, CURLOPT_CAINFO, t->ca_file);
    if (t->ca_data)
        set_blob(c, CURLOPT_CAINFO_BLOB, t->ca_data);
    if (t->cert_file)
        curl_easy_setopt(c, CURLOPT_SSLCERT, t->cert_file);
    if (t->key_file)
        curl_easy_setopt(c, CURLOPT_SSLKEY, t->key_file);
    if (t->cert_data)
        set_blob(c, CURLOPT_SSLCERT_BLOB, t->cert_data);
    if (t->key_data)
        set_blob(c, CURLOPT_SSLKEY_BLOB, t->key_data);
    if (t->insecure) {
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    h->headers = curl_slist_append(NULL, "Accept: application/json");
    h->headers = curl_slist_append(h->headers, "Content-Type: application/json");
    h->headers = curl_slist_append(h->headers, "Expect:"); /* no 100-continue round trip */
    if (t->token) {
        char *a = sl_xasprintf("Authorization: Bearer %s", t->token);
        h->headers = curl_slist_append(h->headers, a);
        free(a);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "slurmlink-bench");
    return h;
}

void bench_http_destroy(bench_http_t *h)
{
    if (!h)
        return;
    curl_easy_cleanup(h->curl);
    curl_slist_free_all(h->headers);
    free(h->base);
    free(h);
}

static size_t collect(char *p, size_t sz, size_t n, void *arg)
{
    sl_buf_append(arg, p, sz * n);
    return sz * n;
}

static long timeout_left(long long deadline_ms)
{
    long long left = deadline_ms - sl_now_ms();
    return left < 1 ? 1 : (long)left;
}

int bench_http_call(bench_http_t *h, const char *method, const char *path, const char *body,
                    long *status, char **resp, long long *t_done, long long deadline_ms,
                    sl_error_t *err)
{
    CURL *c = h->curl;
    sl_buf_t b = SL_BUF_INIT;
    char *url = sl_xasprintf("%s%s", h->base, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_left(deadline_ms));
    h->errbuf[0] = '\0';
    CURLcode rc = curl_easy_perform(c);
    if (t_done)
        *t_done = sl_wall_us();
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, NULL);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, NULL);
    if (rc != CURLE_OK) {
        sl_buf_free(&b);
        errno = rc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT : ECONNREFUSED;
        sl_errprintf(err, "%s %s: %s", method, url,
                     h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc));
        free(url);
        return -1;
    }
    free(url);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    if (resp)
        *resp = sl_buf_steal(&b);
    sl_buf_free(&b);
    return 0;
}

typedef struct stream {
    sl_buf_t line;
    int (*on_line)(void *arg, const char *line, long long t_us);
    void *arg;
    int stopped;
} stream_t;

static size_t stream_write(char *p, size_t sz, size_t n, void *arg)
{
    stream_t *s = arg;
    long long t = sl_wall_us();
    for (size_t i = 0; i < sz * n; i++) {
        if (p[i] != '\n') {
            sl_buf_putc(&s->line, p[i]);
            continue;
        }
        if (s->line.len && s->on_line(s->arg, s->line.data, t)) {
            s->stopped = 1;
            return 0; /* aborts the transfer: we have what we waited for */
        }
        sl_buf_reset(&s->line);
    }
    return sz * n;
}

int bench_http_stream(bench_http_t *h, const char *path,
                      int (*on_line)(void *arg, const char *line, long long t_us), void *arg,
                      long long deadline_ms, sl_error_t *err)
{
    CURL *c = h->curl;
    stream_t s = {SL_BUF_INIT, on_line, arg, 0};
    char *url = sl_xasprintf("%s%s", h->base, path);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, stream_write);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_left(deadline_ms));
    h->errbuf[0] = '\0';
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    int ret = 0;
    if (s.stopped) {
        ret = 0;
    } else if (rc == CURLE_OK && status >= 300) {
        errno = EPROTO;
        ret = sl_errprintf(err, "GET %s: HTTP %ld: %.200s", url, status,
                           s.line.data ? s.line.data : "");
    } else if (rc == CURLE_OK) {
        errno = EPIPE;
        ret = sl_errprintf(err, "GET %s: the watch ended before every pod finished", url);
    } else {
        errno = rc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT : EIO;
        ret =
            sl_errprintf(err, "GET %s: %s", url, h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc));
    }
    sl_buf_free(&s.line);
    free(url);
    return ret;
}
