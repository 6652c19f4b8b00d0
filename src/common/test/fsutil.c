#include "common/fsutil.h"
#include "common/tap.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    char tmpl[] = "/tmp/sl-fsutil-XXXXXX";
    char *d = mkdtemp(tmpl);
    ok(d != NULL, "mkdtemp");
    char path[256];
    snprintf(path, sizeof(path), "%s/a/b/c", d);
    ok(sl_mkdir_p(path, 0755, NULL) == 0, "mkdir -p nested");
    struct stat st;
    ok(stat(path, &st) == 0 && S_ISDIR(st.st_mode), "nested folder exists");
    snprintf(path, sizeof(path), "%s/a/f", d);
    ok(sl_write_file(path, "x\ny\nz\n", 6, 0600, NULL) == 0, "write file");
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode 0600 kept");
    size_t len = 0;
    char *s = sl_read_file(path, &len, NULL);
    is_str(s, "x\ny\nz\n", "read back");
    is_int(len, 6, "length");
    free(s);
    s = sl_tail_file(path, 2);
    is_str(s, "y\nz", "tail 2 lines");
    free(s);
    sl_error_t err;
    ok(sl_read_file("/nonexistent/x", NULL, &err) == NULL, "missing file fails");
    has_str(err.text, "/nonexistent/x", "error names the path");
    s = sl_abspath("/a/./b//c/../d");
    is_str(s, "/a/b/d", "abspath normalises");
    free(s);

    /* the pid lock: exclusive, names its holder, gone with its process */
    snprintf(path, sizeof(path), "%s/d.lock", d);
    pid_t holder = -1;
    int fd = sl_lock_pidfile(path, &holder, &err);
    ok(fd >= 0, "a free lock is taken");
    s = sl_read_file(path, NULL, NULL);
    ok(s && atol(s) == (long)getpid(), "its file holds our pid");
    free(s);
    ok(sl_lock_pidfile(path, &holder, &err) < 0 && errno == EWOULDBLOCK,
       "a second taker is refused with EWOULDBLOCK");
    is_int(holder, getpid(), "and told the holder's pid");
    close(fd);
    pid_t child = fork();
    if (child == 0) { /* holds it, then dies without closing anything */
        pid_t h;
        _exit(sl_lock_pidfile(path, &h, NULL) >= 0 ? (kill(getpid(), SIGKILL), 0) : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    ok(WIFSIGNALED(status), "a child took it and was killed holding it");
    fd = sl_lock_pidfile(path, &holder, &err);
    ok(fd >= 0, "the lock went with the killed process: taken again");
    close(fd);
    char link_path[300];
    snprintf(link_path, sizeof(link_path), "%s/link.lock", d);
    ok(symlink(path, link_path) == 0 && sl_lock_pidfile(link_path, &holder, &err) < 0,
       "a lock file that is a link is refused");
    ok(sl_rm_rf(d) == 0 && access(d, F_OK) != 0, "rm -rf");
    return tap_done();
}
