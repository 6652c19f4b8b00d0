/* pwcache.h — passwd entries by name and by uid, kept a few seconds.
 *
 * Each new pod looks its Unix user up three times (at admission, for the
 * submission's identity, and for its home); through NSS (nss_files reads
 * and parses /etc/passwd each time) that was about 3 % of slurmlinkd's CPU
 * in a burst of creates. An entry found is kept SL_PWCACHE_TTL_MS, as nscd
 * and sssd keep them (nscd: 600 s by default): a user removed or changed
 * is seen at most that late. A user not found is not kept, so one just
 * created is found at once. Any thread. */
#ifndef SL_COMMON_PWCACHE_H
#define SL_COMMON_PWCACHE_H

#include <sys/types.h>

#define SL_PWCACHE_TTL_MS 5000

typedef struct sl_pwent {
    uid_t uid;
    gid_t gid;
    char *name, *home; /* owned */
} sl_pwent_t;

/* 0 and *out filled (sl_pwent_clear frees it), or -1 with errno ENOENT
 * when there is no such user (or the lookup's own error) */
int sl_pwcache_name(const char *name, sl_pwent_t *out);
int sl_pwcache_uid(uid_t uid, sl_pwent_t *out);
void sl_pwent_clear(sl_pwent_t *e);

/* tests: the NSS lookups made so far, every entry forgotten, the time
 * entries are kept (ms; SL_PWCACHE_TTL_MS until set) */
unsigned long sl_pwcache_lookups(void);
void sl_pwcache_flush(void);
void sl_pwcache_set_ttl_ms(long long ms);

#endif
