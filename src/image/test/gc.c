/* Unit tests: the pulled images of the store (use.c, gc.c) on digest
 * folders laid out by hand: use records and their sweep, list order (least
 * recently used first), rm refused while used and removing every tag,
 * prune of dangling images vs --all, and room under a size limit. */
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "image/image.h"
#include "image/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *store;

static char *hex_of(char c)
{
    char *h = sl_xmalloc(65);
    memset(h, c, 64);
    h[64] = '\0';
    return h;
}

/* the same, in one of a few static buffers (no free) */
static const char *hx(char c)
{
    static char buf[4][65];
    static int k;
    char *h = buf[k++ % 4];
    memset(h, c, 64);
    h[64] = '\0';
    return h;
}

/* a complete digest folder of size bytes, used at `used` (0: never), tagged ref (NULL: none) */
static void digest(char c, unsigned long long size, long long used, const char *ref)
{
    char *h = hex_of(c);
    char *dir = sl_xasprintf("%s/sha256/%s/rootfs", store, h);
    sl_mkdir_p(dir, 0755, NULL);
    char *info = sl_xasprintf("%s/sha256/%s/image.json", store, h);
    char *text = sl_xasprintf("{\"digest\": \"sha256:%s\", \"size\": %llu}", h, size);
    sl_write_file(info, text, strlen(text), 0644, NULL);
    struct timespec ts[2] = {{used ? used - 10 : 1000, 0}, {used ? used - 10 : 1000, 0}};
    utimensat(AT_FDCWD, info, ts, 0);
    if (used) {
        char *stamp = sl_xasprintf("%s/sha256/%s/last-used", store, h);
        sl_write_file(stamp, "", 0, 0644, NULL);
        ts[0].tv_sec = ts[1].tv_sec = used;
        utimensat(AT_FDCWD, stamp, ts, 0);
        free(stamp);
    }
    if (ref) {
        char *refs = sl_xasprintf("%s/refs", store);
        sl_mkdir_p(refs, 0755, NULL);
        char *rec = sl_image_ref_record(store, ref);
        char *j = sl_xasprintf("{\"ref\": \"%s\", \"digest\": \"sha256:%s\"}", ref, h);
        sl_write_file(rec, j, strlen(j), 0644, NULL);
        free(j);
        free(rec);
        free(refs);
    }
    free(text);
    free(info);
    free(dir);
    free(h);
}

static int present(char c)
{
    char *h = hex_of(c);
    char *p = sl_xasprintf("%s/sha256/%s", store, h);
    int r = access(p, F_OK) == 0;
    free(p);
    free(h);
    return r;
}

static const char *live_uid;
static int live(void *arg, const char *uid)
{
    (void)arg;
    return live_uid && !strcmp(uid, live_uid);
}

static void use_records(void)
{
    sl_error_t err = SL_ERROR_INIT;
    char *ha = hex_of('a'), *hz = hex_of('9');
    char *da = sl_xasprintf("sha256:%s", ha), *dz = sl_xasprintf("sha256:%s", hz);
    ok(sl_image_use_claim(store, da, "uid-1", "ns1", "p1", &err) == 0, "claim (%s)", err.text);
    ok(sl_image_use_claim(store, da, "uid-2", "ns1", "p2", &err) == 0, "a second pod's claim");
    ok(sl_image_use_claim(store, dz, "uid-1", "ns1", "p1", &err) < 0 && errno == ENOENT,
       "a claim of a digest not in the store: ENOENT (pull again)");
    ok(sl_image_use_claim(store, da, "../x", "ns1", "p1", &err) < 0 && errno == EINVAL,
       "a uid that is a path is refused");
    size_t n;
    char **u = sl_image_users(store, ha, &n);
    is_int((int)n, 2, "two users");
    sl_image_users_free(u, n);
    live_uid = "uid-1";
    is_int((int)sl_image_use_sweep(store, live, NULL), 1, "the sweep drops the pod no longer live");
    u = sl_image_users(store, ha, &n);
    ok(n == 1 && !strcmp(u[0], "ns1/p1"), "the live one stays, named ns/name");
    sl_image_users_free(u, n);
    free(da);
    free(dz);
    free(ha);
    free(hz);
}

static void list_rm(void)
{
    sl_error_t err = SL_ERROR_INIT;
    size_t n;
    sl_image_stored_t *v = sl_image_stored_list(store, &n, &err);
    is_int((int)n, 4, "four complete digests listed (the half one is not)");
    ok(n == 4 && v[0].digest[7] == 'c' && v[1].digest[7] == 'b' && v[3].digest[7] == 'a',
       "least recently used first (a never-used image counts from its pull)");
    ok(n == 4 && v[3].nusers == 1 && v[3].nrefs == 2, "a: one user, two tags");
    sl_image_stored_free(v, n);
    ok(sl_image_rm_pulled(store, "example.com/a:v1", NULL, &err) < 0 && errno == EBUSY,
       "rm of an image a live pod uses is refused");
    has_str(err.text, "in use by pod ns1/p1", "  naming the pod: %s", err.text);
    ok(present('a'), "  and it stays");
    char *d = NULL;
    ok(sl_image_rm_pulled(store, "example.com/b:v1", &d, &err) == 0, "rm by reference (%s)",
       err.text);
    ok(!present('b') && d && d[7] == 'b', "  the digest is gone");
    free(d);
    char *rec = sl_image_ref_record(store, "example.com/b2:v1");
    ok(access(rec, F_OK) < 0, "  with every tag naming it");
    free(rec);
    ok(sl_image_rm_pulled(store, "dddddddddddd", NULL, &err) == 0, "rm by a digest prefix");
    ok(sl_image_rm_pulled(store, "example.com/nope:v1", NULL, &err) < 0 && errno == ENOENT,
       "rm of an unknown image: ENOENT");
}

static void prune_room(void)
{
    sl_error_t err = SL_ERROR_INIT;
    digest('e', 1000, 0, NULL);
    digest('f', 1000, 3000, "example.com/f:v1");
    is_int(sl_image_prune(store, 0, NULL, NULL, &err), 2, "prune removes the dangling ones");
    ok(!present('c') && !present('e') && present('f') && present('a'),
       "  c and e; the tagged f and the used a stay");
    is_int(sl_image_prune(store, 1, NULL, NULL, &err), 1, "prune --all: every unused one");
    ok(!present('f') && present('a'), "  f; a is in use");
    char *half = sl_xasprintf("%s/.pull-%s-xyz", store, hx('0'));
    ok(access(half, F_OK) < 0, "a pull's leftover is pruned");
    free(half);
    digest('1', 4000, 1000, NULL);
    digest('2', 4000, 2000, NULL);
    digest('3', 4000, 3000, NULL);
    ok(sl_image_make_room(store, "4444444444444444444444444444444444444444444444444444444444444444",
                          5000, 18000, &err) == 0,
       "room for 5000 under 18000 (%s)", err.text);
    ok(!present('1') && present('2') && present('3'), "  the least recently used one went");
    ok(sl_image_make_room(store, "4444444444444444444444444444444444444444444444444444444444444444",
                          8000, 9000, &err) < 0 &&
           errno == ENOSPC,
       "no room when the used image alone leaves too little");
    has_str(err.text, "image store full", "  image store full: %s", err.text);
    ok(!present('2') && !present('3') && present('a'), "  the unused ones went, the used stays");
}

int main(void)
{
    tap_plan(29);
    char tmpl[] = "/tmp/imggc.XXXXXX";
    store = mkdtemp(tmpl);
    ok(store != NULL, "temp store");
    digest('a', 5000, 4000, "example.com/a:v1");
    digest('b', 1000, 2000, "example.com/b:v1");
    digest('c', 1000, 0, NULL);
    digest('d', 1000, 3000, NULL);
    char *rec = sl_image_ref_record(store, "example.com/b2:v1");
    char *j = sl_xasprintf("{\"ref\": \"example.com/b2:v1\", \"digest\": \"sha256:%s\"}", hx('b'));
    sl_write_file(rec, j, strlen(j), 0644, NULL);
    char *b = sl_xasprintf("%s/refs/example.com%%a+v2", store);
    char *ja = sl_xasprintf("{\"ref\": \"example.com/a:v2\", \"digest\": \"sha256:%s\"}", hx('a'));
    sl_write_file(b, ja, strlen(ja), 0644, NULL);
    char *half = sl_xasprintf("%s/sha256/%s", store, hx('8'));
    sl_mkdir_p(half, 0755, NULL); /* no image.json: not complete */
    char *pull = sl_xasprintf("%s/.pull-%s-xyz", store, hx('0'));
    sl_mkdir_p(pull, 0755, NULL);
    use_records();
    list_rm();
    prune_room();
    free(rec);
    free(j);
    free(b);
    free(ja);
    free(half);
    free(pull);
    sl_rm_rf(store);
    return tap_done();
}
