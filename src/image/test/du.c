/* Unit test: sizes as du counts them (hard links once) from several threads
 * at once, as slurmlinkd's pull workers take them (each pull counts its
 * tree, and the store limit counts the store). */
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "image/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FILES 300
#define ROUNDS 40

static char *trees[2];
static unsigned long long want[2];
static int wrong[2];

/* a tree of FILES small files, each with a second hard link */
static void tree(const char *dir)
{
    sl_mkdir_p(dir, 0755, NULL);
    for (int i = 0; i < FILES; i++) {
        char *f = sl_xasprintf("%s/f%d", dir, i), *l = sl_xasprintf("%s/l%d", dir, i);
        sl_write_file(f, "0123456789", 10, 0644, NULL);
        link(f, l);
        free(f);
        free(l);
    }
}

static void *count(void *arg)
{
    int k = (int)(long)arg;
    for (int r = 0; r < ROUNDS; r++)
        if (sl_image_disk_usage(trees[k]) != want[k])
            wrong[k]++;
    return NULL;
}

int main(void)
{
    tap_plan(3);
    char tmpl[] = "/tmp/imgdu.XXXXXX";
    char *base = mkdtemp(tmpl);
    for (int k = 0; k < 2; k++) {
        trees[k] = sl_xasprintf("%s/t%d", base, k);
        tree(trees[k]);
        want[k] = sl_image_disk_usage(trees[k]);
    }
    ok(want[0] > 0 && want[0] == want[1], "one thread: a tree's size, hard links once (%llu)",
       want[0]);
    pthread_t t[2];
    for (long k = 0; k < 2; k++)
        pthread_create(&t[k], NULL, count, (void *)k);
    for (int k = 0; k < 2; k++)
        pthread_join(t[k], NULL);
    is_int(wrong[0], 0, "two threads at once: every count of the first tree right");
    is_int(wrong[1], 0, "  and of the second");
    sl_rm_rf(base);
    free(trees[0]);
    free(trees[1]);
    return tap_done();
}
