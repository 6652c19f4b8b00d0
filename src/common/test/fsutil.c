#include "common/fsutil.h"
#include "common/tap.h"

#include <stdlib.h>
#include <sys/stat.h>
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
    ok(sl_rm_rf(d) == 0 && access(d, F_OK) != 0, "rm -rf");
    return tap_done();
}
