/* server — the API server in-process (store in memory, port 0): the shim
 * push hook and its answers, health, a Status for a bad body, shutdown with
 * a watch open. */
#include "api/server.h"
#include "common/proc.h"
#include "common/tap.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int calls;
static char last_bearer[64];
static char last_pod[64];

static int hook(void *arg, const char *bearer, json_t *ev, sl_error_t *err)
{
    (void)arg;
    calls++;
    snprintf(last_bearer, sizeof(last_bearer), "%s", bearer ? bearer : "(none)");
    const char *uid = json_string_value(json_object_get(ev, "pod_uid"));
    snprintf(last_pod, sizeof(last_pod), "%s", uid ? uid : "");
    if (!bearer || strcmp(bearer, "good")) {
        errno = EACCES;
        return sl_errprintf(err, "bad token");
    }
    if (!json_object_get(ev, "event")) {
        errno = EINVAL;
        return sl_errprintf(err, "event: missing");
    }
    return 0;
}

typedef struct resp {
    char buf[4096];
    size_t len;
} resp_t;

static size_t sink(char *p, size_t sz, size_t n, void *arg)
{
    resp_t *r = arg;
    size_t k = sz * n;
    size_t room = sizeof(r->buf) - 1 - r->len;
    size_t c = k < room ? k : room;
    memcpy(r->buf + r->len, p, c);
    r->len += c;
    r->buf[r->len] = '\0';
    return k;
}

static long call(int port, const char *method, const char *path, const char *auth, const char *body,
                 resp_t *out)
{
    CURL *c = curl_easy_init();
    char url[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    if (auth)
        h = curl_slist_append(h, auth);
    memset(out, 0, sizeof(*out));
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L);
    long code = 0;
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return code;
}

/* the watch: open (its headers came) and how it ended; curl's own timeout is
 * only a guard against a hang, far beyond anything the test waits for */
static int watch_port;
static atomic_int watch_open, watch_done;
static CURLcode watch_result = CURLE_OK; /* read after watch_done or the join */

static size_t watch_headers(char *p, size_t sz, size_t n, void *arg)
{
    (void)p;
    (void)arg;
    atomic_store(&watch_open, 1);
    return sz * n;
}

static size_t discard(char *p, size_t sz, size_t n, void *arg)
{
    (void)p;
    (void)arg;
    return sz * n;
}

static void *watch_thread(void *arg)
{
    (void)arg;
    CURL *c = curl_easy_init();
    char url[256];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/namespaces/default/pods?watch=1",
             watch_port);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, watch_headers);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    watch_result = curl_easy_perform(c);
    atomic_store(&watch_done, 1);
    curl_easy_cleanup(c);
    return NULL;
}

int main(void)
{
    tap_plan(20);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    sl_error_t err = SL_ERROR_INIT;
    sl_store_t *store = sl_store_open(":memory:", &err);
    ok(store != NULL, "store (%s)", err.text);
    sl_api_opts_t o = {.listen = "127.0.0.1",
                       .port = 0,
                       .store = store,
                       .pods_root = "/nonexistent",
                       .shim_event = hook};
    sl_api_t *api = sl_api_create(&o, &err);
    ok(api != NULL, "api on a free port (%s)", err.text);
    int port = sl_api_port(api);
    ok(port > 0, "bound port %d", port);
    resp_t r;
    is_int(call(port, "GET", "/healthz", NULL, NULL, &r), 200, "healthz");
    is_str(r.buf, "ok", "healthz body");

    const char *ev =
        "{\"pod_uid\":\"u1\",\"container\":\"main\",\"event\":\"started\",\"restartCount\":0}";
    is_int(call(port, "POST", "/internal/v1/shim/events", "Authorization: Bearer good", ev, &r),
           204, "shim event accepted: 204");
    is_str(last_bearer, "good", "the hook got the bearer token");
    is_str(last_pod, "u1", "the hook got the event");
    is_int(call(port, "POST", "/internal/v1/shim/events", "Authorization: Bearer bad", ev, &r), 401,
           "wrong token: 401");
    has_str(r.buf, "\"reason\":\"Unauthorized\"", "401 is a Status");
    is_int(call(port, "POST", "/internal/v1/shim/events", NULL, ev, &r), 401, "no token: 401");
    is_str(last_bearer, "(none)", "the hook saw no token");
    is_int(call(port, "POST", "/internal/v1/shim/events", "Authorization: Bearer good",
                "{\"pod_uid\":\"u\"}", &r),
           400, "refused event: 400");
    has_str(r.buf, "event: missing", "with the hook's text");
    is_int(call(port, "POST", "/internal/v1/shim/events", "Authorization: Bearer good", "{not json",
                &r),
           400, "malformed body: 400");
    is_int(calls, 4, "the hook ran for every parsable push, not for the malformed one");
    is_int(call(port, "GET", "/internal/v1/shim/events", NULL, NULL, &r), 405,
           "GET on the push URL: 405");

    /* namespaces and service accounts exist from the start */
    is_int(
        call(port, "GET", "/api/v1/namespaces/kube-system/serviceaccounts/default", NULL, NULL, &r),
        200, "bootstrap: kube-system/default service account");

    /* a watch left open does not hold up the shutdown */
    watch_port = port;
    pthread_t t;
    pthread_create(&t, NULL, watch_thread, NULL);
    while (!atomic_load(&watch_open) && !atomic_load(&watch_done))
        sl_sleep_ms(10);
    ok(atomic_load(&watch_open), "the watch is open");
    sl_api_destroy(api);
    pthread_join(t, NULL);
    /* the server ended the watch: had destroy waited for the client instead,
     * the client would have given up (its timeout) first */
    ok(watch_result != CURLE_OPERATION_TIMEDOUT,
       "destroy ends an open watch rather than waiting for the client (%s)",
       curl_easy_strerror(watch_result));
    sl_api_destroy(NULL);
    sl_store_close(store);
    curl_global_cleanup();
    return tap_done();
}
