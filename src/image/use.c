/* use.c — the digest locks and the use records of pulled images (layout:
 * image.h): which live pods use a digest, and when it was last used.
 *
 * A use record is <store>/uses/<hex>/<pod uid> ({"namespace", "name",
 * "uid"}), written under the digest's lock by the controller before the pod
 * is submitted (sl_image_use_claim) and dropped when the pod is terminal or
 * gone (sl_image_use_sweep). Removal (gc.c) takes the same lock and refuses a
 * digest with a record, so a pod is never admitted between the check and
 * the removal: either the claim comes first and the removal is refused, or
 * the removal comes first and the claim finds no image (ENOENT) and the
 * caller pulls again. */
#include "image/image.h"
#include "image/internal.h"

#include "common/fsutil.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* <store>/.locks, root's alone: a tenant who could open a lock file could
 * flock it and stall every pull and claim of that digest. An older store's
 * 0755 folder is closed too. */
static int locks_dir(const char *locks, sl_error_t *err)
{
    if (sl_mkdir_p(locks, 0700, err) < 0)
        return -1;
    int fd = open(locks, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    int rc = fd < 0 || fstat(fd, &st) < 0 || ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0)
                 ? sl_errprintf(err, "lock folder %s: %s", locks, strerror(errno))
                 : 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

int sl_image_lock(const char *store, const char *name, int wait, sl_error_t *err)
{
    char *locks = sl_xasprintf("%s/.locks", store);
    char *lock = sl_xasprintf("%s/%s.lock", locks, name);
    int fd = -1;
    if (locks_dir(locks, err) == 0) {
        fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 && fchmod(fd, 0600) < 0) { /* one made 0644 before */
            close(fd);
            fd = -1;
        }
        if (fd < 0 || flock(fd, wait ? LOCK_EX : LOCK_EX | LOCK_NB) < 0) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            fd = -1;
            errno = e;
            if (e != EWOULDBLOCK)
                sl_errprintf(err, "lock %s: %s", lock, strerror(e));
        }
    }
    free(lock);
    free(locks);
    return fd;
}

static int hex_sane(const char *hex)
{
    return hex && strlen(hex) == 64 && strspn(hex, "0123456789abcdef") == 64;
}

static int uid_sane(const char *uid)
{
    return uid && *uid && uid[0] != '.' && !strchr(uid, '/') && strlen(uid) < 128;
}

/* <store>/uses, root's 0700 (also when an older version made it 0755) */
static int uses_dir(const char *store, sl_error_t *err)
{
    char *uses = sl_xasprintf("%s/uses", store);
    int rc = sl_mkdir_p(uses, 0700, err);
    if (rc == 0 && chmod(uses, 0700) < 0)
        rc = sl_errprintf(err, "chmod %s: %s", uses, strerror(errno));
    free(uses);
    return rc;
}

/* the record and the stamp, the caller holding the digest's lock */
static int claim_locked(const char *store, const char *hex, const char *uid, const char *ns,
                        const char *name, sl_error_t *err)
{
    char *info = sl_xasprintf("%s/sha256/%s/image.json", store, hex);
    char *dir = sl_xasprintf("%s/uses/%s", store, hex);
    char *path = sl_xasprintf("%s/%s", dir, uid);
    char *stamp = sl_xasprintf("%s/sha256/%s/last-used", store, hex);
    char *digest_dir = sl_xasprintf("%s/sha256/%s", store, hex);
    int rc = -1;
    if (access(info, F_OK) < 0) {
        errno = ENOENT;
        sl_errprintf(err, "image sha256:%s is no longer in the store", hex);
    } else if (sl_image_digest_safe(digest_dir, err) == 0 && uses_dir(store, err) == 0 &&
               sl_mkdir_p(dir, 0700, err) == 0) {
        json_t *j = json_pack("{s:s, s:s, s:s}", "namespace", ns ? ns : "", "name",
                              name ? name : "", "uid", uid);
        char *text = json_dumps(j, 0);
        rc = sl_write_file(path, text, strlen(text), 0600, err);
        free(text);
        json_decref(j);
        /* last use: the stamp's mtime (written anew: mtime is now) */
        if (rc == 0)
            sl_write_file(stamp, "", 0, 0644, NULL);
    }
    free(digest_dir);
    free(stamp);
    free(path);
    free(dir);
    free(info);
    return rc;
}

int sl_image_use_claim(const char *store, const char *digest, const char *uid, const char *ns,
                       const char *name, sl_error_t *err)
{
    const char *hex = digest && !strncmp(digest, "sha256:", 7) ? digest + 7 : NULL;
    if (!hex_sane(hex) || !uid_sane(uid)) {
        errno = EINVAL;
        return sl_errprintf(err, "bad digest or pod uid for a use record");
    }
    int fd = sl_image_lock(store, hex, 1, err);
    if (fd < 0)
        return -1;
    int rc = claim_locked(store, hex, uid, ns, name, err);
    close(fd);
    return rc;
}

/* every record of uses/<hex>/: fn(arg, hex, uid, path) */
static void each_record(const char *store, void (*fn)(void *, const char *, const char *, char *),
                        void *arg)
{
    char *uses = sl_xasprintf("%s/uses", store);
    DIR *d = opendir(uses);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (!hex_sane(de->d_name))
            continue;
        char *sub = sl_xasprintf("%s/%s", uses, de->d_name);
        DIR *s = opendir(sub);
        struct dirent *e;
        while (s && (e = readdir(s)))
            if (uid_sane(e->d_name)) {
                char *p = sl_xasprintf("%s/%s", sub, e->d_name);
                fn(arg, de->d_name, e->d_name, p);
                free(p);
            }
        if (s)
            closedir(s);
        rmdir(sub); /* when empty */
        free(sub);
    }
    if (d)
        closedir(d);
    free(uses);
}

typedef struct sweep {
    sl_image_live_fn live;
    void *arg;
    size_t removed;
} sweep_t;

static void sweep_one(void *arg, const char *hex, const char *uid, char *path)
{
    (void)hex;
    sweep_t *s = arg;
    if (!s->live(s->arg, uid) && unlink(path) == 0)
        s->removed++;
}

/* is name a private part's "<uid>.<gid>"? */
static int part_sane(const char *name)
{
    size_t n = strspn(name, "0123456789");
    return n && n < 11 && name[n] == '.' && name[n + 1] &&
           strspn(name + n + 1, "0123456789") == strlen(name + n + 1) && strlen(name + n + 1) < 11;
}

size_t sl_image_use_sweep(const char *store, sl_image_live_fn live, void *arg)
{
    sweep_t s = {live, arg, 0};
    if (!store)
        return 0;
    each_record(store, sweep_one, &s);
    char *priv = sl_xasprintf("%s/private", store);
    DIR *d = opendir(priv);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (part_sane(de->d_name)) {
            char *part = sl_xasprintf("%s/%s", priv, de->d_name);
            each_record(part, sweep_one, &s);
            free(part);
        }
    if (d)
        closedir(d);
    free(priv);
    return s.removed;
}

/* mkdir path (when missing), then owner root:gid and mode, never through
 * a symbolic link */
static int own_dir(const char *path, gid_t gid, mode_t mode, sl_error_t *err)
{
    if (mkdir(path, mode) < 0 && errno != EEXIST)
        return sl_errprintf(err, "mkdir %s: %s", path, strerror(errno));
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = fd >= 0 && fchown(fd, 0, gid) == 0 && fchmod(fd, mode) == 0
                 ? 0
                 : sl_errprintf(err, "%s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

char *sl_image_private_store(const char *store, uid_t uid, gid_t gid, sl_error_t *err)
{
    char *priv = sl_xasprintf("%s/private", store);
    char *part = sl_xasprintf("%s/%u.%u", priv, (unsigned)uid, (unsigned)gid);
    if (sl_mkdir_p(store, 0755, err) < 0 || own_dir(priv, 0, 0711, err) < 0 ||
        own_dir(part, gid, 0750, err) < 0) {
        free(part);
        part = NULL;
    }
    free(priv);
    return part;
}

char **sl_image_users(const char *store, const char *hex, size_t *n)
{
    *n = 0;
    char *sub = sl_xasprintf("%s/uses/%s", store, hex);
    DIR *d = opendir(sub);
    char **v = sl_xcalloc(1, sizeof(char *));
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!uid_sane(e->d_name))
            continue;
        char *p = sl_xasprintf("%s/%s", sub, e->d_name);
        json_t *j = json_load_file(p, 0, NULL);
        free(p);
        const char *ns = json_string_value(json_object_get(j, "namespace"));
        const char *name = json_string_value(json_object_get(j, "name"));
        v = sl_xrealloc(v, (*n + 2) * sizeof(char *));
        v[(*n)++] = ns && name && *name ? sl_xasprintf("%s/%s", ns, name)
                                        : sl_xasprintf("uid %s", e->d_name);
        v[*n] = NULL;
        json_decref(j);
    }
    if (d)
        closedir(d);
    free(sub);
    return v;
}

void sl_image_users_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}
