/* crash: a writer killed with SIGKILL in the middle of its writes leaves a
 * store that opens, holds every write it reported as done, and whose
 * objects, revision and change log agree. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/store.h"

static void writer(const char *path, int fd)
{
    sl_store_t *s = sl_store_open(path, NULL);
    if (!s)
        _exit(2);
    sl_store_set_log_limit(s, 300); /* trimming happens during the run too */
    for (int i = 0;; i++) {
        char name[32];
        snprintf(name, sizeof name, "p%d", i % 200);
        json_t *p = json_pack("{s:{s:s,s:s},s:{s:i}}", "metadata", "name", name, "namespace", "ns",
                              "spec", "i", i);
        int rc =
            i < 200 ? sl_store_create(s, "pods", p, NULL) : sl_store_update(s, "pods", p, 0, NULL);
        if (rc == 0 && i % 7 == 0 && i >= 200) {
            sl_store_delete(s, "pods", "ns", name, 0, NULL, NULL);
            json_t *again = json_pack("{s:{s:s,s:s},s:{s:i}}", "metadata", "name", name,
                                      "namespace", "ns", "spec", "i", i);
            sl_store_create(s, "pods", again, NULL);
            json_decref(again);
        }
        json_decref(p);
        if (rc == 0) {
            long long rv = sl_store_revision(s);
            if (write(fd, &rv, sizeof rv) != sizeof rv)
                _exit(3);
        }
    }
}

int main(void)
{
    char dir[] = "/tmp/sl-store-crash.XXXXXX";
    ok(mkdtemp(dir) != NULL, "temp dir");
    char *path = sl_xasprintf("%s/store.db", dir);

    for (int round = 0; round < 3; round++) {
        int fds[2];
        if (pipe(fds) < 0)
            return 1;
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            writer(path, fds[1]);
        }
        close(fds[1]);
        sl_sleep_ms(150 + 100 * round);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        long long rv, last = 0;
        while (read(fds[0], &rv, sizeof rv) == sizeof rv)
            last = rv;
        close(fds[0]);
        ok(WIFSIGNALED(status) && last > 0, "round %d: writer killed after revision %lld", round,
           last);

        sl_error_t err;
        sl_store_t *s = sl_store_open(path, &err);
        ok(s != NULL, "round %d: store opens after the kill", round);
        int64_t rev = sl_store_revision(s);
        ok(rev >= last, "round %d: every reported write survived (revision %lld >= %lld)", round,
           (long long)rev, last);
        int64_t list_rv = 0;
        json_t *all = sl_store_list(s, "pods", NULL, &list_rv);
        int consistent = all && list_rv == rev;
        for (size_t i = 0; i < json_array_size(all); i++) {
            int64_t orv = sl_kube_rv(json_array_get(all, i));
            if (orv <= 0 || orv > rev)
                consistent = 0;
        }
        ok(consistent, "round %d: %zu objects, each rv <= revision", round, json_array_size(all));
        json_decref(all);
        int64_t oldest = sl_store_oldest_rv(s);
        json_t *c = sl_store_changes(s, oldest, "pods", NULL, 0, &err);
        int gapless = c && (int64_t)json_array_size(c) == rev - oldest;
        for (size_t i = 0; gapless && i < json_array_size(c); i++)
            if (json_integer_value(json_object_get(json_array_get(c, i), "rv")) !=
                oldest + 1 + (int64_t)i)
                gapless = 0;
        ok(gapless, "round %d: change log (%lld..%lld) has no gaps", round, (long long)oldest + 1,
           (long long)rev);
        json_decref(c);
        json_t *p = json_pack("{s:{s:s}}", "metadata", "name", "after");
        char name[32];
        snprintf(name, sizeof name, "after%d", round);
        sl_kube_meta_set_str(p, "name", name);
        ok(sl_store_create(s, "pods", p, NULL) == 0 && sl_kube_rv(p) == rev + 1,
           "round %d: writes continue at the next revision", round);
        json_decref(p);
        sl_store_close(s);
    }
    sl_rm_rf(dir);
    free(path);
    return tap_done();
}
