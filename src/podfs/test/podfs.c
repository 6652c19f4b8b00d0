/* podfs: the pod folder is written fresh, never through a link its user
 * planted, and nothing is left of a write that failed. */
#include "podfs/podfs.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64];

static sl_translate_file_t entry(const char *path, const char *data, int mode)
{
    sl_translate_file_t f = {
        .path = (char *)path, .data = (char *)data, .len = data ? strlen(data) : 0, .mode = mode};
    return f;
}

static char *at(const char *rel) { return sl_xasprintf("%s/%s", base, rel); }

static void write_at(const char *rel, const char *data)
{
    char *p = at(rel);
    FILE *f = fopen(p, "w");
    fputs(data, f);
    fclose(f);
    free(p);
}

int main(void)
{
    tap_plan(12);
    snprintf(base, sizeof(base), "/tmp/sl-podfs-XXXXXX");
    ok(mkdtemp(base) != NULL, "mkdtemp");
    char *etc = at("etc"), *pod = at("pods/ns/p-uid");
    mkdir(etc, 0700);
    write_at("etc/tokens.csv", "# root's\n");
    /* a leftover folder of an earlier attempt, changed by its user */
    char *v = at("pods/ns/p-uid/volumes");
    sl_mkdir_p(v, 0700, NULL);
    free(v);
    v = at("pods/ns/p-uid/volumes/v");
    ok(symlink(etc, v) == 0, "the leftover's volumes/v is a symlink to etc/");
    free(v);
    sl_translate_file_t files[] = {entry("volumes", NULL, 0755), entry("volumes/v", NULL, 0755),
                                   entry("volumes/v/tokens.csv", "evil,admin,admin\n", 0644),
                                   entry("job.sh", "#!/bin/sh\n", 0700)};
    sl_translate_result_t r = {.pod_dir = pod, .files = files, .nfiles = 4};
    sl_error_t err = SL_ERROR_INIT;
    ok(sl_podfs_write(&r, 1, 65534, 65534, &err) == 0, "the pod folder is written (%s)", err.text);
    char *s = at("etc/tokens.csv");
    char *t = sl_read_file(s, NULL, NULL);
    is_str(t, "# root's\n", "etc/tokens.csv is untouched");
    free(t);
    struct stat st;
    ok(stat(s, &st) == 0 && st.st_uid == 0, "... and still root's");
    free(s);
    s = at("pods/ns/p-uid/volumes/v");
    ok(lstat(s, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 65534,
       "volumes/v is a fresh folder of the job's user");
    free(s);
    s = at("pods/ns/p-uid/volumes/v/tokens.csv");
    ok(lstat(s, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 65534 &&
           (st.st_mode & 0777) == 0644,
       "the file is in it: the job user's, 0644");
    free(s);
    ok(stat(pod, &st) == 0 && st.st_uid == 65534 && (st.st_mode & 07777) == 0700,
       "the pod folder is handed to the job's user, 0700");

    /* a file and a path inside it: fails, and nothing stays */
    sl_translate_file_t clash[] = {entry("volumes", NULL, 0755), entry("volumes/a", "x", 0644),
                                   entry("volumes/a/x", "y", 0644)};
    sl_translate_result_t r2 = {.pod_dir = pod, .files = clash, .nfiles = 3};
    ok(sl_podfs_write(&r2, 1, 65534, 65534, &err) < 0, "colliding paths fail");
    has_str(err.text, "volumes/a", "... naming the path");
    ok(lstat(pod, &st) < 0 && errno == ENOENT, "... and no half-written folder stays");

    /* a namespace folder others can write is not trusted */
    s = at("pods/ns");
    chmod(s, 0777);
    free(s);
    ok(sl_podfs_write(&r, 1, 65534, 65534, &err) < 0 && errno == EPERM,
       "a namespace folder writable by others is refused");
    free(etc);
    free(pod);
    sl_rm_rf(base);
    return tap_done();
}
