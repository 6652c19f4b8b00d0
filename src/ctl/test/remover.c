/* remover — the deleted pods' folders go on one thread: every folder
 * pushed is removed (its contents too, a link in it not followed), a
 * missing one is no error, a stop removes what is still queued, and a
 * remover that could not start removes in place. */
#include "ctl/remover.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 300

static char base[] = "/tmp/remover-test-XXXXXX";

static char *folder(int i)
{
    char *d = sl_xasprintf("%s/pod%d", base, i);
    char *sub = sl_xasprintf("%s/logs", d), *f = sl_xasprintf("%s/logs/0.log", d);
    char *ln = sl_xasprintf("%s/escape", d), *out = sl_xasprintf("%s/outside", base);
    mkdir(d, 0700);
    mkdir(sub, 0700);
    close(open(f, O_CREAT | O_WRONLY, 0600));
    if (symlink(out, ln) < 0) /* a link to a folder outside: never followed */
        perror("symlink");
    free(sub);
    free(f);
    free(ln);
    free(out);
    return d;
}

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* threads of this process named name */
static int threads_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f) && !strncmp(comm, name, strlen(name)))
            n++;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    tap_plan(6);
    if (!mkdtemp(base))
        return 1;
    char *out = sl_xasprintf("%s/outside", base), *keep = sl_xasprintf("%s/outside/keep", base);
    mkdir(out, 0700);
    close(open(keep, O_CREAT | O_WRONLY, 0600));

    ctl_remover_t *r = ctl_remover_start();
    ok(r != NULL, "the remover starts");
    char *names[N];
    for (int i = 0; i < N; i++) {
        names[i] = folder(i);
        ctl_remover_push(r, sl_xstrdup(names[i]));
    }
    ctl_remover_push(r, sl_xasprintf("%s/never-made", base)); /* missing: no error */
    is_int(threads_named("sl-remove"), 1, "one remover thread for all the folders pushed");
    ctl_remover_stop(r); /* removes what is still queued first */
    int left = 0;
    for (int i = 0; i < N; i++)
        left += exists(names[i]);
    is_int(left, 0, "after the stop every folder pushed is gone");
    ok(exists(keep), "a link in a folder was not followed: the file outside stays");
    is_int(threads_named("sl-remove"), 0, "the stop ends the thread");

    char *d = folder(N);
    ctl_remover_push(NULL, sl_xstrdup(d)); /* no remover: removed here and now */
    ok(!exists(d), "without a remover, a push removes the folder at once");
    free(d);
    for (int i = 0; i < N; i++)
        free(names[i]);
    unlink(keep);
    rmdir(out);
    rmdir(base);
    free(out);
    free(keep);
    return tap_done();
}
