/* watchhub: the shared window of recent changes is bounded by its texts'
 * bytes as well as by its count (the oldest go first, an event larger than
 * the bound is kept alone, a watcher behind the window is told so and reads
 * the store's log); each event's line is the object's text as stored. */
#include "api/http/watchhub.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "kube/meta.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* a config map in namespace ns whose data.v is `size` bytes of c */
static json_t *config_map(const char *name, size_t size, char c)
{
    char *v = malloc(size + 1);
    memset(v, c, size);
    v[size] = '\0';
    json_t *o =
        json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                  "metadata", "name", name, "namespace", "default", "data", "v", v);
    free(v);
    return o;
}

/* the events after rv: their number (-1 with errno), *contiguous whether
 * they run on from rv one revision at a time, *lines_ok whether each line
 * is {"type":...,"object":<the object>}\n */
static int read_after(api_hub_t *h, int64_t rv, bool *contiguous, bool *lines_ok)
{
    api_wev_t *evs[256];
    int64_t covered = 0;
    int n = api_hub_get(h, rv, evs, 256, &covered);
    *contiguous = *lines_ok = n >= 0;
    for (int i = 0; i < n; i++) {
        api_wev_t *e = evs[i];
        *contiguous = *contiguous && e->rv == rv + 1 + i;
        *lines_ok = *lines_ok && e->len == strlen(e->line) && e->line[e->len - 1] == '\n' &&
                    e->line[e->len - 2] == '}' && e->line[e->obj_off] == '{' &&
                    !strncmp(e->line, "{\"type\":\"", 9);
        json_t *o = api_wev_obj(e);
        *lines_ok = *lines_ok && o && sl_kube_name(o);
        api_wev_unref(e);
    }
    return n;
}

int main(void)
{
    tap_plan(16);
    char dir[] = "/tmp/sl-hub.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[64];
    snprintf(path, sizeof(path), "%s/db", dir);
    sl_store_t *st = sl_store_open(path, NULL);
    api_hub_t *bounded = api_hub_create(st, "configmaps", 1024, 64 << 10);
    api_hub_t *counted = api_hub_create(st, "configmaps", 1024, 0);
    char name[32];
    for (int i = 0; i < 100; i++) { /* 100 changes of ~4 KB each: ~400 KB */
        snprintf(name, sizeof(name), "cm-%d", i);
        json_t *o = config_map(name, 4000, 'a');
        sl_store_create(st, "configmaps", o, NULL);
        json_decref(o);
    }
    int64_t top = sl_store_revision(st);
    bool contiguous, lines_ok;
    size_t bytes = 0;
    ok(read_after(counted, 0, &contiguous, &lines_ok) == 100 && contiguous && lines_ok,
       "without a bound by bytes the window holds all 100 changes, as their lines");
    int n = read_after(bounded, 0, &contiguous, &lines_ok);
    ok(n < 0 && errno == ERANGE,
       "bounded at 64 KiB: a watcher from the start is behind the window");
    size_t held = api_hub_held(bounded, &bytes);
    ok(held >= 10 && held <= 16, "it holds the newest 64 KiB's worth of changes (%zu)", held);
    ok(bytes <= 64 << 10 && bytes > (64 << 10) - 8192, "their texts take at most the bound (%zu)",
       bytes);
    n = read_after(bounded, top - (int64_t)held, &contiguous, &lines_ok);
    ok(n == (int)held && contiguous && lines_ok, "they run on to the last change, in order");

    /* MODIFIED: the object before the change is kept beside the line */
    snprintf(name, sizeof(name), "cm-0");
    json_t *o = sl_store_get(st, "configmaps", "default", name);
    json_object_set_new(json_object_get(o, "data"), "w", json_string("x"));
    sl_store_update(st, "configmaps", o, 0, NULL);
    json_decref(o);
    api_wev_t *e = NULL;
    int64_t covered = 0;
    ok(api_hub_get(bounded, top, &e, 1, &covered) == 1 && !strcmp(e->type, "MODIFIED") &&
           e->prev_text && e->prev_len == strlen(e->prev_text) && api_wev_prev(e) &&
           !json_object_get(json_object_get(api_wev_prev(e), "data"), "w"),
       "a MODIFIED change keeps the object as it was before");
    api_wev_unref(e);
    api_hub_held(bounded, &bytes);
    ok(bytes <= 64 << 10, "the previous object counts in the bound (%zu)", bytes);

    /* one change larger than the bound: kept alone */
    top = sl_store_revision(st);
    o = config_map("big", 100000, 'b');
    sl_store_create(st, "configmaps", o, NULL);
    json_decref(o);
    n = read_after(bounded, top, &contiguous, &lines_ok);
    held = api_hub_held(bounded, &bytes);
    ok(n == 1 && held == 1, "a change larger than the bound is the window's one event");
    ok(contiguous && lines_ok, "its line is whole");
    ok(bytes > 100000, "and counted (%zu)", bytes);
    n = read_after(bounded, top - 1, &contiguous, &lines_ok);
    ok(n < 0 && errno == ERANGE, "the change before it is behind the window");

    /* what is behind the window is in the store's log */
    api_wev_t *log[256];
    n = api_hub_read_log(st, "configmaps", NULL, 0, log, 256, 0, NULL);
    ok(n == 102, "the store's log has every change (%d)", n);
    bool all = n > 0;
    for (int i = 0; i < n; i++) {
        all = all && log[i]->rv == i + 1 && log[i]->len == strlen(log[i]->line);
        api_wev_unref(log[i]);
    }
    ok(all, "in order, as whole lines");
    /* a watcher's read of the log stops at its bytes: the next read goes on */
    n = api_hub_read_log(st, "configmaps", NULL, 0, log, 256, 64 << 10, NULL);
    size_t lines = 0;
    for (int i = 0; i < n; i++)
        lines += log[i]->len;
    ok(n >= 15 && n <= 17 && lines >= 64 << 10 && lines < (64 << 10) + 4200,
       "a read of the log bounded at 64 KiB stops at the change that reaches it (%d, %zu bytes)", n,
       lines);
    int64_t next = n > 0 ? log[n - 1]->rv : 0;
    for (int i = 0; i < n; i++)
        api_wev_unref(log[i]);
    n = api_hub_read_log(st, "configmaps", NULL, next, log, 256, 64 << 10, NULL);
    ok(n > 0 && log[0]->rv == next + 1, "the next read goes on from there");
    for (int i = 0; i < n; i++)
        api_wev_unref(log[i]);
    n = api_hub_read_log(st, "configmaps", NULL, 100, log, 256, 4096, NULL);
    ok(n == 1 && log[0]->rv == 101, "one change larger than the bound is read alone");
    for (int i = 0; i < n; i++)
        api_wev_unref(log[i]);

    api_hub_destroy(bounded);
    api_hub_destroy(counted);
    sl_store_close(st);
    sl_rm_rf(dir);
    return tap_done();
}
