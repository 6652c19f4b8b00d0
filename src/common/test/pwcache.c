/* pwcache: passwd entries by name and uid, served again without NSS while
 * fresh, looked up again once stale; a missing user is never kept. */
#include "common/pwcache.h"
#include "common/tap.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    tap_plan(10);
    struct passwd *root = getpwuid(0);
    sl_pwent_t e = {0};
    unsigned long n0 = sl_pwcache_lookups();
    ok(sl_pwcache_name(root->pw_name, &e) == 0 && e.uid == 0 && e.gid == root->pw_gid &&
           !strcmp(e.home, root->pw_dir),
       "by name: %s is uid 0, its group and home", root->pw_name);
    sl_pwent_clear(&e);
    ok(sl_pwcache_name(root->pw_name, &e) == 0 && e.uid == 0 && sl_pwcache_lookups() == n0 + 1,
       "again: from the cache (one NSS lookup in all)");
    sl_pwent_clear(&e);
    ok(sl_pwcache_uid(0, &e) == 0 && !strcmp(e.name, root->pw_name) &&
           sl_pwcache_lookups() == n0 + 2,
       "by uid: its own key, one lookup more");
    sl_pwent_clear(&e);
    ok(sl_pwcache_uid(0, &e) == 0 && sl_pwcache_lookups() == n0 + 2, "... then cached");
    sl_pwent_clear(&e);

    errno = 0;
    ok(sl_pwcache_name("no-such-user-sl", &e) < 0 && errno == ENOENT && !e.name,
       "a missing user: ENOENT");
    ok(sl_pwcache_name("no-such-user-sl", &e) < 0 && sl_pwcache_lookups() == n0 + 4,
       "... asked of NSS every time (a user created meanwhile is found at once)");
    ok(sl_pwcache_name("", &e) < 0 && errno == ENOENT, "an empty name: ENOENT");

    sl_pwcache_set_ttl_ms(50);
    sl_pwcache_flush();
    unsigned long n1 = sl_pwcache_lookups();
    sl_pwcache_name(root->pw_name, &e);
    sl_pwent_clear(&e);
    sl_pwcache_name(root->pw_name, &e);
    sl_pwent_clear(&e);
    ok(sl_pwcache_lookups() == n1 + 1, "flushed: looked up once more, then cached");
    usleep(120 * 1000);
    sl_pwcache_name(root->pw_name, &e);
    ok(sl_pwcache_lookups() == n1 + 2 && e.uid == 0, "stale after its time: looked up again");
    sl_pwent_clear(&e);

    /* more users than slots: each still right */
    int right = 1;
    for (uid_t u = 0; u < 100; u++) {
        struct passwd *pw = getpwuid(u);
        if (!pw)
            continue;
        char name[256];
        snprintf(name, sizeof(name), "%s", pw->pw_name);
        if (sl_pwcache_uid(u, &e) < 0 || strcmp(e.name, name))
            right = 0;
        sl_pwent_clear(&e);
    }
    ok(right, "the entries of uids 0-99 each right, through a table of fewer slots");
    sl_pwcache_flush();
    return tap_done();
}
