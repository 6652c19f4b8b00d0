/* cl_ensure_system_user (sysuser.c): a system user made once, by several
 * `slurmlink up` at once. Twenty-four processes, released together and spread over 0.1 s, each
 * ensure the same new user; every one must succeed (the losers of the race see useradd's "already
 * exists"). As root (useradd); skipped otherwise. The user is removed at the end. */
#include "cluster/internal.h"
#include "common/proc.h"
#include "common/tap.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RACERS 24

static int exists(const char *name) { return getpwnam(name) != NULL; }

int main(void)
{
    if (geteuid() != 0) {
        printf("1..0 # SKIP needs root (useradd)\n");
        return 0;
    }
    tap_plan(4);
    char name[32];
    snprintf(name, sizeof(name), "_sltest%d", (int)getpid() % 100000);
    sl_error_t err = SL_ERROR_INIT;
    int go[2];
    if (pipe(go) < 0)
        return 1;
    pid_t kids[RACERS];
    for (int i = 0; i < RACERS; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            char c;
            close(go[1]);
            if (read(go[0], &c, 1) < 0) /* released together: the pipe closes */
                _exit(3);
            usleep((useconds_t)i * 4000); /* spread over one useradd's time: some
                                           * look before the first has made the
                                           * user, and run useradd after */
            int rc = cl_ensure_system_user(name, "slurmlink test", &err);
            if (rc < 0)
                fprintf(stderr, "# racer %d: %s\n", i, err.text);
            _exit(rc < 0 ? 1 : 0);
        }
    }
    close(go[0]);
    close(go[1]);
    int failed = 0;
    for (int i = 0; i < RACERS; i++) {
        int st = 0;
        waitpid(kids[i], &st, 0);
        failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    is_int(failed, 0, "%d processes ensure one new system user at once: none fails", RACERS);
    ok(exists(name), "the user exists");
    is_int(cl_ensure_system_user(name, "slurmlink test", &err), 0, "ensured again: nothing to do");
    const char *del[] = {"userdel", name, NULL};
    sl_run(del, NULL, 1, 30000, NULL, NULL);
    ok(!exists(name), "the test's user is removed");
    sl_error_clear(&err);
    return tap_done();
}
