/* pwcache.c — passwd entries kept a few seconds (pwcache.h). A small table
 * under one mutex, searched whole: a cluster's pods in a burst belong to a
 * few users. The NSS lookup runs outside the mutex. */
#include "common/pwcache.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 32

typedef struct slot {
    int by_uid;         /* the key: the uid, else the name */
    long long until_ms; /* 0: empty */
    sl_pwent_t e;
} slot_t;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static slot_t slots[SLOTS];
static size_t next_slot;
static unsigned long lookups;
static long long ttl_ms = SL_PWCACHE_TTL_MS;

static void copy(sl_pwent_t *to, const sl_pwent_t *from)
{
    to->uid = from->uid;
    to->gid = from->gid;
    to->name = sl_xstrdup(from->name);
    to->home = sl_xstrdup(from->home);
}

void sl_pwent_clear(sl_pwent_t *e)
{
    free(e->name);
    free(e->home);
    e->name = e->home = NULL;
}

/* a live entry for the key copied to out: 1, else 0 (mu held) */
static int find(int by_uid, const char *name, uid_t uid, long long now, sl_pwent_t *out)
{
    for (size_t i = 0; i < SLOTS; i++) {
        slot_t *s = &slots[i];
        if (!s->until_ms || now >= s->until_ms || s->by_uid != by_uid)
            continue;
        if (by_uid ? s->e.uid == uid : !strcmp(s->e.name, name)) {
            copy(out, &s->e);
            return 1;
        }
    }
    return 0;
}

static int lookup(int by_uid, const char *name, uid_t uid, sl_pwent_t *out)
{
    long long now = sl_now_ms();
    pthread_mutex_lock(&mu);
    int hit = find(by_uid, name, uid, now, out);
    if (!hit)
        lookups++;
    pthread_mutex_unlock(&mu);
    if (hit)
        return 0;
    long sz = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t len = sz > 0 ? (size_t)sz : 16384;
    char *buf = sl_xmalloc(len);
    struct passwd pw, *res = NULL;
    int rc = by_uid ? getpwuid_r(uid, &pw, buf, len, &res) : getpwnam_r(name, &pw, buf, len, &res);
    if (rc != 0 || !res) {
        free(buf);
        errno = rc ? rc : ENOENT;
        return -1;
    }
    out->uid = res->pw_uid;
    out->gid = res->pw_gid;
    out->name = sl_xstrdup(res->pw_name);
    out->home = sl_xstrdup(res->pw_dir ? res->pw_dir : "/");
    free(buf);
    pthread_mutex_lock(&mu);
    slot_t *s = &slots[next_slot];
    next_slot = (next_slot + 1) % SLOTS;
    sl_pwent_clear(&s->e);
    copy(&s->e, out);
    s->by_uid = by_uid;
    s->until_ms = now + ttl_ms;
    pthread_mutex_unlock(&mu);
    return 0;
}

int sl_pwcache_name(const char *name, sl_pwent_t *out)
{
    if (!name || !*name) {
        errno = ENOENT;
        return -1;
    }
    return lookup(0, name, 0, out);
}

int sl_pwcache_uid(uid_t uid, sl_pwent_t *out) { return lookup(1, NULL, uid, out); }

unsigned long sl_pwcache_lookups(void)
{
    pthread_mutex_lock(&mu);
    unsigned long n = lookups;
    pthread_mutex_unlock(&mu);
    return n;
}

void sl_pwcache_flush(void)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < SLOTS; i++) {
        sl_pwent_clear(&slots[i].e);
        slots[i].until_ms = 0;
    }
    pthread_mutex_unlock(&mu);
}

void sl_pwcache_set_ttl_ms(long long ms)
{
    pthread_mutex_lock(&mu);
    ttl_ms = ms;
    pthread_mutex_unlock(&mu);
}
