/* rowcache — printed Table rows kept for reuse: a pod's row printed as a
 * template (its AGE and RESTARTS' "ago" marked) reads as the plain print
 * at the time it is printed and, reused later, as the plain print at that
 * later time; an object whose own text holds the mark is not templated;
 * keys are (resource, revision, form); the byte budget drops the oldest. */
#include "api/rowcache.h"
#include "api/printers.h"
#include "common/buf.h"
#include "common/tap.h"
#include "kube/meta.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SEC 1000000000LL

static void put(void *out, const char *text, size_t len) { sl_buf_append(out, text, len); }

static char *cells_text(json_t *pod, long long now)
{
    json_t *c = api_pod_cells(pod, now);
    char *s = json_dumps(c, JSON_COMPACT);
    json_decref(c);
    return s;
}

/* the template of pod's cells at now, and its durations */
static char *template(json_t *pod, long long now, int64_t *d, size_t *nd)
{
    sl_kube_durations_begin(d, API_ROWCACHE_MAX_DURATIONS);
    char *s = cells_text(pod, now);
    *nd = sl_kube_durations_end();
    return s;
}

static char *render(const char *tpl, const int64_t *d, size_t nd, int64_t shift)
{
    sl_buf_t b = SL_BUF_INIT;
    if (api_rowcache_render(tpl, strlen(tpl), d, nd, shift, put, &b) < 0) {
        sl_buf_free(&b);
        return NULL;
    }
    return sl_buf_steal(&b);
}

static void check_templates(long long now)
{
    char *created = sl_kube_rfc3339(now - 100 * SEC, 0);
    char *restarted = sl_kube_rfc3339(now - 30 * SEC, 0);
    char *text = NULL;
    json_t *pod = json_pack(
        "{s:{s:s, s:s}, s:{s:[{s:s}]}, s:{s:s, s:[{s:s, s:b, s:i, s:{s:{}}, s:{s:{s:s}}}]}}",
        "metadata", "name", "p", "creationTimestamp", created, "spec", "containers", "name", "c",
        "status", "phase", "Running", "containerStatuses", "name", "c", "ready", 1, "restartCount",
        2, "state", "running", "lastState", "terminated", "finishedAt", restarted);
    int64_t d[API_ROWCACHE_MAX_DURATIONS];
    size_t nd = 0;
    char *tpl = template(pod, now, d, &nd);
    is_int((int)nd, 2, "the pod's row prints two durations (RESTARTS' ago, AGE)");
    ok(!strstr(tpl, "100s") && strstr(tpl, "\\u0001"), "the template holds marks, not ages");
    char *r0 = render(tpl, d, nd, 0), *p0 = cells_text(pod, now);
    is_str(r0, p0, "rendered for its own time it is the plain print");
    char *r1 = render(tpl, d, nd, 600 * SEC), *p1 = cells_text(pod, now + 600 * SEC);
    is_str(r1, p1, "rendered 10 min later it is the plain print of then");
    ok(strstr(r1, "11m") != NULL, "... whose AGE has moved on (%s)", r1);
    ok(render(tpl, d, 1, 0) == NULL, "more marks than durations: not rendered");
    /* the object's own text holds the mark */
    json_object_set_new(json_object_get(pod, "metadata"), "name",
                        json_string("x" SL_KUBE_DURATION_MARK));
    free(tpl);
    tpl = template(pod, now, d, &nd);
    ok(render(tpl, d, nd, 0) == NULL, "an object holding the mark itself is not rendered");
    free(tpl), free(r0), free(p0), free(r1), free(p1), free(text);
    free(created), free(restarted);
    json_decref(pod);
}

static char *get(api_rowcache_t *c, const void *res, int64_t rv, int form, int64_t now)
{
    sl_buf_t b = SL_BUF_INIT;
    if (!api_rowcache_get(c, res, rv, form, now, put, &b)) {
        sl_buf_free(&b);
        return NULL;
    }
    return sl_buf_steal(&b);
}

static void check_cache(void)
{
    static const int res_a = 1, res_b = 2;
    api_rowcache_t *c = api_rowcache_create(64 * 1024);
    int64_t d[1] = {5 * SEC};
    api_rowcache_add(c, &res_a, 7, 1, 1000 * SEC, d, 1, "[\"p\",\"\\u0001\"]", 14);
    char *s = get(c, &res_a, 7, 1, 1010 * SEC);
    is_str(s, "[\"p\",\"15s\"]", "a kept row comes back with its age printed for now");
    free(s);
    ok(!get(c, &res_a, 7, 5, 1000 * SEC), "another form of the same version: not kept");
    ok(!get(c, &res_b, 7, 1, 1000 * SEC), "the same revision of another resource: not kept");
    ok(!get(c, &res_a, 8, 1, 1000 * SEC), "another revision: not kept");
    ok(!get(c, &res_a, 0, 1, 1000 * SEC), "revision 0 (not known) is never kept");
    char big[1000];
    memset(big, 'x', sizeof(big));
    for (int64_t rv = 100; rv < 300; rv++)
        api_rowcache_add(c, &res_a, rv, 1, 0, NULL, 0, big, sizeof(big));
    size_t rows, bytes;
    api_rowcache_stats(c, &rows, &bytes);
    ok(bytes <= 64 * 1024 && rows < 200, "the budget holds (%zu rows, %zu bytes)", rows, bytes);
    ok(!get(c, &res_a, 7, 1, 0) && !get(c, &res_a, 100, 1, 0), "the oldest went first");
    s = get(c, &res_a, 299, 1, 0);
    ok(s && strlen(s) == sizeof(big), "the newest is kept");
    free(s);
    api_rowcache_add(c, &res_a, 299, 1, 0, NULL, 0, "[\"again\"]", 9);
    s = get(c, &res_a, 299, 1, 0);
    is_str(s, "[\"again\"]", "a row added again replaces the kept one");
    free(s);
    api_rowcache_destroy(c);
    c = api_rowcache_create(0);
    api_rowcache_add(c, &res_a, 7, 1, 0, NULL, 0, "[]", 2);
    ok(!get(c, &res_a, 7, 1, 0), "a budget of 0 keeps nothing");
    api_rowcache_destroy(c);
}

static void check_fixed(void)
{
    int64_t d[2];
    char a[32], b[32];
    sl_kube_durations_begin(d, 2);
    sl_kube_human_duration(125 * SEC, a, sizeof(a));
    sl_kube_since(0, 30 * SEC, b, sizeof(b));
    size_t n = sl_kube_durations_end();
    ok(n == 1 && !strcmp(a, "2m5s") && !strcmp(b, SL_KUBE_DURATION_MARK),
       "in a template a fixed duration prints as text, a time since is marked");
    is_str(sl_kube_since(0, 125 * SEC, b, sizeof(b)), "2m5s",
           "after the template, times since print again");
}

int main(void)
{
    tap_plan(19);
    check_templates(sl_kube_now_ns());
    check_cache();
    check_fixed();
    return tap_done();
}
