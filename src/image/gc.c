/* gc.c — the pulled images of the store: list, remove, prune, and room for
 * a pull under images.store_limit (least recently used first). Removal of
 * a digest always holds its lock (use.c) and refuses one a live pod uses. */
#include "image/image.h"
#include "image/internal.h"

#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *sl_image_ref_record(const char *store, const char *full)
{
    char *refs = sl_xasprintf("%s/refs", store);
    char *p = sl_runtime_image_dir(refs, full);
    free(refs);
    return p;
}

/* the refs/ records naming sha256:hex: fn(arg, path, ref) for each */
static void each_ref(const char *store, const char *hex,
                     void (*fn)(void *, const char *, const char *), void *arg)
{
    char *refs = sl_xasprintf("%s/refs", store);
    char *want = sl_xasprintf("sha256:%s", hex);
    DIR *d = opendir(refs);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char *p = sl_xasprintf("%s/%s", refs, de->d_name);
        json_t *j = json_load_file(p, 0, NULL);
        const char *dg = json_string_value(json_object_get(j, "digest"));
        const char *ref = json_string_value(json_object_get(j, "ref"));
        if (dg && ref && !strcmp(dg, want))
            fn(arg, p, ref);
        json_decref(j);
        free(p);
    }
    if (d)
        closedir(d);
    free(want);
    free(refs);
}

static void add_ref(void *arg, const char *path, const char *ref)
{
    (void)path;
    sl_image_stored_t *s = arg;
    s->refs = sl_xrealloc(s->refs, (s->nrefs + 1) * sizeof(char *));
    s->refs[s->nrefs++] = sl_xstrdup(ref);
}

static void unlink_ref(void *arg, const char *path, const char *ref)
{
    (void)arg;
    (void)ref;
    unlink(path);
}

static long long mtime_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_mtime : 0;
}

/* one digest folder's entry (0), or -1 when it is not a complete image */
static int stored_one(const char *store, const char *hex, sl_image_stored_t *s)
{
    memset(s, 0, sizeof(*s));
    char *info = sl_xasprintf("%s/sha256/%s/image.json", store, hex);
    json_t *j = json_load_file(info, 0, NULL);
    if (!j) {
        free(info);
        return -1;
    }
    s->digest = sl_xasprintf("sha256:%s", hex);
    s->dir = sl_xasprintf("%s/sha256/%s", store, hex);
    s->size = (unsigned long long)json_integer_value(json_object_get(j, "size"));
    char *stamp = sl_xasprintf("%s/last-used", s->dir);
    s->last_used = mtime_of(stamp);
    s->pulled = mtime_of(info);
    free(stamp);
    json_decref(j);
    free(info);
    for (int f = 0; f < 2; f++) { /* the converted files count too (convert.c) */
        char *p = sl_xasprintf("%s/image.%s", s->dir, f ? "sif" : "sqsh");
        if (access(p, F_OK) == 0)
            s->size += sl_image_disk_usage(p);
        free(p);
    }
    each_ref(store, hex, add_ref, s);
    s->users = sl_image_users(store, hex, &s->nusers);
    return 0;
}

static long long lru_key(const sl_image_stored_t *s)
{
    return s->last_used ? s->last_used : s->pulled;
}

static int stored_cmp(const void *a, const void *b)
{
    const sl_image_stored_t *x = a, *y = b;
    long long kx = lru_key(x), ky = lru_key(y);
    return kx < ky ? -1 : kx > ky ? 1 : strcmp(x->digest, y->digest);
}

sl_image_stored_t *sl_image_stored_list(const char *store, size_t *n, sl_error_t *err)
{
    *n = 0;
    sl_image_stored_t *v = sl_xcalloc(1, sizeof(*v));
    char *sha = sl_xasprintf("%s/sha256", store);
    DIR *d = opendir(sha);
    if (!d && errno != ENOENT) {
        sl_errprintf(err, "open %s: %s", sha, strerror(errno));
        free(sha);
        free(v);
        return NULL;
    }
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strlen(de->d_name) != 64 || strspn(de->d_name, "0123456789abcdef") != 64)
            continue;
        v = sl_xrealloc(v, (*n + 1) * sizeof(*v));
        if (stored_one(store, de->d_name, &v[*n]) == 0)
            (*n)++;
    }
    if (d)
        closedir(d);
    free(sha);
    qsort(v, *n, sizeof(*v), stored_cmp); /* least recently used first */
    return v;
}

void sl_image_stored_free(sl_image_stored_t *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        for (size_t k = 0; k < v[i].nrefs; k++)
            free(v[i].refs[k]);
        free(v[i].refs);
        sl_image_users_free(v[i].users, v[i].nusers);
        free(v[i].digest);
        free(v[i].dir);
    }
    free(v);
}

/* remove sha256/hex and the refs naming it; the caller holds its lock */
static int remove_locked(const char *store, const char *hex, sl_error_t *err)
{
    size_t nu;
    char **users = sl_image_users(store, hex, &nu);
    if (nu) {
        errno = EBUSY;
        sl_errprintf(err,
                     "image sha256:%.12s is in use by pod %s%s; it is removed once no live "
                     "pod uses it",
                     hex, users[0], nu > 1 ? " and others" : "");
        sl_image_users_free(users, nu);
        return -1;
    }
    sl_image_users_free(users, nu);
    char *dir = sl_xasprintf("%s/sha256/%s", store, hex);
    char *aside = sl_xasprintf("%s/.rm-%s-%d-%lld", store, hex, (int)getpid(), sl_now_ms());
    int rc = 0;
    if (rename(dir, aside) < 0) {
        rc = errno == ENOENT ? 0 : sl_errprintf(err, "remove %s: %s", dir, strerror(errno));
    } else {
        each_ref(store, hex, unlink_ref, NULL);
        sl_rm_rf(aside);
    }
    char *uses = sl_xasprintf("%s/uses/%s", store, hex);
    rmdir(uses);
    free(uses);
    free(aside);
    free(dir);
    return rc;
}

int sl_image_remove_digest(const char *store, const char *hex, int wait, sl_error_t *err)
{
    int fd = sl_image_lock(store, hex, wait, err);
    if (fd < 0) {
        if (errno == EWOULDBLOCK)
            sl_errprintf(err, "image sha256:%.12s is being pulled or used just now", hex);
        return -1;
    }
    int rc = remove_locked(store, hex, err);
    close(fd);
    return rc;
}

/* the digest a REF, sha256:HEX, HEX or a unique HEX prefix (12+) names */
static char *digest_of(const char *store, const char *what, sl_error_t *err)
{
    const char *h = !strncmp(what, "sha256:", 7) ? what + 7 : what;
    size_t n = strlen(h);
    if (n >= 12 && n <= 64 && strspn(h, "0123456789abcdef") == n) {
        size_t cnt;
        sl_image_stored_t *v = sl_image_stored_list(store, &cnt, err);
        char *found = NULL;
        int many = 0;
        for (size_t i = 0; v && i < cnt; i++)
            if (!strncmp(v[i].digest + 7, h, n)) {
                many += found != NULL;
                free(found);
                found = sl_xstrdup(v[i].digest + 7);
            }
        sl_image_stored_free(v, cnt);
        if (found && !many)
            return found;
        free(found);
        errno = many ? EINVAL : ENOENT;
        sl_errprintf(err, many ? "%s names more than one image" : "no image %s in the store", what);
        return NULL;
    }
    sl_image_ref_t r;
    if (sl_image_ref_parse(what, &r, err) < 0)
        return NULL;
    char *path = sl_image_ref_record(store, r.full);
    json_t *j = json_load_file(path, 0, NULL);
    const char *d = json_string_value(json_object_get(j, "digest"));
    char *hex = d && strlen(d) == 71 ? sl_xstrdup(d + 7) : NULL;
    if (!hex) {
        errno = ENOENT;
        sl_errprintf(err, "no image %s in the store", r.full);
    }
    json_decref(j);
    free(path);
    sl_image_ref_free(&r);
    return hex;
}

int sl_image_rm_pulled(const char *store, const char *what, char **digest, sl_error_t *err)
{
    char *hex = digest_of(store, what, err);
    if (!hex)
        return -1;
    int rc = sl_image_remove_digest(store, hex, 1, err);
    if (rc == 0 && digest)
        *digest = sl_xasprintf("sha256:%s", hex);
    free(hex);
    return rc;
}

/* .pull-<hex>-* folders of pulls cut short whose digest no pull holds now */
static void prune_leftovers(const char *store)
{
    DIR *d = opendir(store);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strncmp(de->d_name, ".pull-", 6) || strlen(de->d_name) < 6 + 64 + 1)
            continue;
        char hex[65];
        memcpy(hex, de->d_name + 6, 64);
        hex[64] = '\0';
        int fd = sl_image_lock(store, hex, 0, NULL);
        if (fd < 0)
            continue; /* a pull of it runs */
        char *p = sl_xasprintf("%s/%s", store, de->d_name);
        sl_rm_rf(p);
        free(p);
        close(fd);
    }
    if (d)
        closedir(d);
}

int sl_image_prune(const char *store, int all, sl_image_removed_fn fn, void *arg, sl_error_t *err)
{
    size_t n;
    sl_image_stored_t *v = sl_image_stored_list(store, &n, err);
    if (!v)
        return -1;
    int removed = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].nusers || (!all && v[i].nrefs))
            continue;
        sl_error_t e = SL_ERROR_INIT;
        if (sl_image_remove_digest(store, v[i].digest + 7, 0, &e) == 0) {
            removed++;
            if (fn)
                fn(arg, &v[i]);
        }
    }
    sl_image_stored_free(v, n);
    prune_leftovers(store);
    return removed;
}

/* Room for `need` more bytes under limit, removing the least recently used
 * images no live pod uses (and no pull holds); the caller holds the store
 * lock and the lock of `hex`, the digest being installed. */
int sl_image_make_room(const char *store, const char *hex, unsigned long long need,
                       unsigned long long limit, sl_error_t *err)
{
    size_t n;
    sl_image_stored_t *v = sl_image_stored_list(store, &n, err);
    if (!v)
        return -1;
    unsigned long long total = 0;
    for (size_t i = 0; i < n; i++)
        total += strcmp(v[i].digest + 7, hex) ? v[i].size : 0;
    for (size_t i = 0; i < n && total + need > limit; i++) {
        if (v[i].nusers || !strcmp(v[i].digest + 7, hex))
            continue;
        if (sl_image_remove_digest(store, v[i].digest + 7, 0, NULL) == 0)
            total -= v[i].size; /* v is least recently used first */
    }
    sl_image_stored_free(v, n);
    if (total + need <= limit)
        return 0;
    errno = ENOSPC;
    return sl_errprintf(err,
                        "image store full: the image needs %llu bytes and %llu bytes are held by "
                        "images in use by live pods or being pulled (images.store_limit %llu)",
                        need, total, limit);
}
