/* Unit tests: an image's USER as ids from the image's own passwd and group
 * files (runc's rules), and runc's texts when a name is not there. */
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "image/image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *root;

static void ids(const char *user, long wu, long wg, const char *what)
{
    long u = -1, g = -1;
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_image_user_ids(root, user, &u, &g, &err);
    ok(r == 0 && u == wu && g == wg, "USER %s: %ld:%ld, %s (got %ld:%ld %s)", user, wu, wg, what, u,
       g, err.text);
}

static void none(const char *user, const char *text)
{
    long u, g;
    sl_error_t err = SL_ERROR_INIT;
    ok(sl_image_user_ids(root, user, &u, &g, &err) < 0 && errno == ENOENT, "USER %s: refused",
       user);
    has_str(err.text, text, "  %s", err.text);
}

int main(void)
{
    tap_plan(11);
    char tmpl[] = "/tmp/imguser.XXXXXX";
    root = mkdtemp(tmpl);
    char *etc = sl_xasprintf("%s/etc", root), *pw = sl_xasprintf("%s/passwd", etc),
         *gr = sl_xasprintf("%s/group", etc);
    sl_mkdir_p(etc, 0755, NULL);
    const char *p = "root:x:0:0:root:/root:/bin/sh\napp:x:1234:2345::/app:/bin/sh\n"
                    "broken:x:abc:1::/:/bin/sh\n";
    const char *g = "root:x:0:\nstaff:x:50:app\n";
    sl_write_file(pw, p, strlen(p), 0644, NULL);
    sl_write_file(gr, g, strlen(g), 0644, NULL);
    ids("app", 1234, 2345, "a name: its passwd entry");
    ids("1000", 1000, 0, "a uid without an entry: gid 0");
    ids("1234", 1234, 2345, "a uid with an entry: its gid");
    ids("app:staff", 1234, 50, "name:group from the group file");
    ids("1000:77", 1000, 77, "uid:gid as given");
    none("nobody", "unable to find user nobody: no matching entries in passwd file");
    none("app:wheel", "unable to find group wheel: no matching entries in group file");
    none("broken", "unable to find user broken");
    sl_rm_rf(root);
    free(etc);
    free(pw);
    free(gr);
    return tap_done();
}
