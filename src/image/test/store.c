/* Unit tests: image references, the store layout, imports (folder, tar,
 * busybox), rootfs preparation that never writes outside the tree, list, rm. */
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "image/image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *base;

static void good(const char *ref, const char *name, const char *tag, const char *dir)
{
    char *n, *t;
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_image_parse_ref(ref, &n, &t, &err);
    ok(r == 0, "valid: %s (%s)", ref, err.text);
    if (r == 0) {
        is_str(n, name, "  name of %s", ref);
        is_str(t, tag, "  tag of %s", ref);
        free(n);
        free(t);
    }
    char *d = sl_image_dir("/s", ref, NULL);
    is_str(d, dir, "  folder of %s", ref);
    free(d);
}

static void bad(const char *ref, const char *why)
{
    char shown[64];
    snprintf(shown, sizeof(shown), "%s", ref); /* TAP lines must stay one line */
    for (char *c = shown; *c; c++)
        if (*c == '\n')
            *c = '?';
    char *n, *t;
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_image_parse_ref(ref, &n, &t, &err);
    ok(r < 0 && errno == EINVAL && n == NULL, "invalid: %s", shown);
    has_str(err.text, why, "  reason for %s", shown);
    ok(sl_image_dir("/s", ref, NULL) == NULL, "  no folder for %s", shown);
}

static int is_file(const char *dir, const char *rel, int want_dir)
{
    char *p = sl_xasprintf("%s/%s", dir, rel);
    struct stat st;
    int r = lstat(p, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
    free(p);
    return r;
}

static void sh(const char *cmd)
{
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    char *out = NULL;
    int r = sl_run(argv, NULL, 1, 30000, &out, NULL);
    if (r != 0)
        printf("# %s: exit %d: %s\n", cmd, r, out ? out : "");
    free(out);
}

int main(void)
{
    char tmpl[] = "/tmp/imgtest.XXXXXX";
    base = mkdtemp(tmpl);
    ok(base != NULL, "temp dir");

    good("busybox", "busybox", "latest", "/s/busybox+latest");
    good("library/busybox:1.36", "library/busybox", "1.36", "/s/library%busybox+1.36");
    good("x/a.b_c__d-e--f/x0:T_1.2-3", "x/a.b_c__d-e--f/x0", "T_1.2-3",
         "/s/x%a.b_c__d-e--f%x0+T_1.2-3");
    good("localhost:5000/team/app:v2", "localhost:5000/team/app", "v2",
         "/s/localhost:5000%team%app+v2");
    good("Registry.Example.com/app", "Registry.Example.com/app", "latest",
         "/s/Registry.Example.com%app+latest");
    good("localhost/app", "localhost/app", "latest", "/s/localhost%app+latest");

    char *slash = sl_image_dir("/s/", "busybox", NULL);
    is_str(slash, "/s/busybox+latest", "store given with a trailing slash");
    free(slash);

    bad("", "empty");
    bad("/abs/path", "not a path");
    bad("./rel", "not a path");
    bad("a/../b", "not a path");
    bad("..", "not a path");
    bad("Busybox", "lower-case");
    bad("busy box", "printable ASCII without spaces");
    bad("busybox:", "empty tag");
    bad(":tag", "empty name");
    bad("busybox:-x", "a tag starts");
    bad("busybox:a/b", "registry host"); /* the ':' before the last '/' is not a tag */
    bad("busybox:a+b", "a tag may only");
    bad("a//b", "lower-case");
    bad("a/", "lower-case");
    bad("a_-b", "lower-case");
    bad("-a", "lower-case");
    bad("a%b", "lower-case");
    bad("busybox@sha256:0123", "digests are not supported");
    bad("bad_host.com:port/app", "registry host");
    bad("x\n", "printable");
    char longname[300];
    memset(longname, 'a', 299);
    longname[299] = '\0';
    bad(longname, "longer than 255");

    /* rootfs preparation refuses to follow symlinks out of the tree */
    char *tree = sl_xasprintf("%s/tree", base), *outside = sl_xasprintf("%s/outside", base);
    sl_mkdir_p(tree, 0700, NULL);
    sl_mkdir_p(outside, 0755, NULL);
    char *link = sl_xasprintf("%s/etc", tree);
    ok(symlink(outside, link) == 0, "tree with etc -> a folder outside");
    sl_error_t err = SL_ERROR_INIT;
    ok(sl_image_prepare_rootfs(tree, &err) < 0, "prepare refuses /etc as a symlink");
    has_str(err.text, "/etc is a symlink", "  and says so");
    ok(!is_file(outside, "passwd", 0), "  nothing written through the link");
    unlink(link);
    sl_mkdir_p(link, 0755, NULL);
    char *rl = sl_xasprintf("%s/etc/resolv.conf", tree);
    char *hosts_target = sl_xasprintf("%s/hosts", outside);
    ok(symlink(hosts_target, rl) == 0, "resolv.conf -> outside file");
    char *hl = sl_xasprintf("%s/etc/hosts", tree);
    ok(symlink(hosts_target, hl) == 0, "hosts -> outside file");
    ok(sl_image_prepare_rootfs(tree, &err) == 0, "prepare ok (%s)", err.text);
    ok(!is_file(outside, "hosts", 0), "  the outside target was not created");
    ok(is_file(tree, "etc/hosts", 0) && is_file(tree, "etc/resolv.conf", 0),
       "  links replaced by files in the tree");
    ok(is_file(tree, "etc/passwd", 0) && is_file(tree, "etc/group", 0), "  passwd, group made");
    ok(is_file(tree, "proc", 1) && is_file(tree, "sys", 1) && is_file(tree, "dev", 1) &&
           is_file(tree, "tmp", 1) && is_file(tree, "home", 1),
       "  mount points made");
    struct stat st;
    ok(stat(tree, &st) == 0 && (st.st_mode & 0755) == 0755, "  root made world-readable");
    char *tmpd = sl_xasprintf("%s/tmp", tree);
    ok(stat(tmpd, &st) == 0 && (st.st_mode & 07777) == 01777, "  /tmp is 1777");

    /* imports */
    char *store = sl_xasprintf("%s/store", base);
    ok(sl_image_import(store, "tree:v1", tree, 0, &err) == 0, "import a folder (%s)", err.text);
    char *d1 = sl_image_dir(store, "tree:v1", NULL);
    ok(is_file(d1, "etc/passwd", 0), "  imported tree present");
    ok(sl_image_import(store, "tree:v1", tree, 0, &err) < 0 && errno == EEXIST,
       "import over an existing image fails without force");
    has_str(err.text, "--force", "  error suggests --force");
    char *marker = sl_xasprintf("%s/home/marker", tree);
    sl_write_file(marker, "new", 3, 0644, NULL);
    ok(sl_image_import(store, "tree:v1", tree, 1, &err) == 0, "import with force replaces");
    ok(is_file(d1, "home/marker", 0), "  new content in place");

    char *tarf = sl_xasprintf("%s/rootfs.tar.gz", base);
    char *cmd = sl_xasprintf("mkdir -p %s/tsrc/bin %s/tsrc/data && echo x > %s/tsrc/data/f && "
                             "tar -C %s/tsrc -czf %s .",
                             base, base, base, base, tarf);
    sh(cmd);
    ok(sl_image_import(store, "org/tarred:1", tarf, 0, &err) == 0, "import a .tar.gz (%s)",
       err.text);
    char *d2 = sl_image_dir(store, "org/tarred:1", NULL);
    ok(is_file(d2, "data/f", 0) && is_file(d2, "etc/hosts", 0), "  unpacked and prepared");

    char *saved = sl_xasprintf("%s/saved.tar", base);
    free(cmd);
    cmd = sl_xasprintf("mkdir -p %s/ssrc && echo '[]' > %s/ssrc/manifest.json && "
                       "tar -C %s/ssrc -cf %s .",
                       base, base, base, saved);
    sh(cmd);
    ok(sl_image_import(store, "saved", saved, 0, &err) < 0, "docker-save archive refused");
    has_str(err.text, "docker export", "  with advice");
    char *junk = sl_xasprintf("%s/junk.tar", base);
    sl_write_file(junk, "not a tar", 9, 0644, NULL);
    ok(sl_image_import(store, "junk", junk, 0, &err) < 0, "a file that is not a tar fails");
    has_str(err.text, "tar failed", "  tar's failure reported");
    ok(sl_image_import(store, "x", "/nonexistent", 0, &err) < 0 && errno == ENOENT,
       "missing source");
    ok(sl_image_import(store, "Bad", tree, 0, &err) < 0, "bad name refused before any work");

    int have_bb = access("/bin/busybox", X_OK) == 0;
    ok(have_bb, "/bin/busybox present (busybox-static)");
    ok(sl_image_import_busybox(store, "busybox", NULL, 0, &err) == 0, "busybox image (%s)",
       err.text);
    char *d3 = sl_image_dir(store, "busybox", NULL);
    char *shl = sl_xasprintf("%s/bin/sh", d3);
    char target[64] = "";
    ssize_t tl = readlink(shl, target, sizeof(target) - 1);
    if (tl > 0)
        target[tl] = '\0';
    is_str(target, "busybox", "  /bin/sh -> busybox");
    char *envl = sl_xasprintf("%s/usr/bin/env", d3);
    tl = readlink(envl, target, sizeof(target) - 1);
    if (tl > 0)
        target[tl] = '\0';
    is_str(target, "../../bin/busybox", "  /usr/bin/env -> ../../bin/busybox");
    const char *sh_argv[] = {shl, "-c", "echo $((6*7))", NULL};
    char *out = NULL;
    sl_run(sh_argv, NULL, 1, 5000, &out, NULL);
    is_str(out, "42\n", "  the image's sh runs");
    free(out);
    ok(sl_image_import_busybox(store, "dyn", "/bin/ls", 0, &err) < 0,
       "a dynamically linked binary is refused");
    has_str(err.text, "dynamically linked", "  and says why");

    size_t n;
    sl_image_info_t *v = sl_image_list(store, &n, &err);
    is_int(n, 3, "list: three images (no work folders)");
    if (v && n == 3) {
        is_str(v[0].ref, "busybox:latest", "  sorted: busybox first");
        is_str(v[1].ref, "org/tarred:1", "  org/tarred:1");
        is_str(v[1].name, "org/tarred", "  name with '/' restored");
        is_str(v[2].ref, "tree:v1", "  tree:v1");
        ok(v[0].size > 1000000, "  busybox size %llu > 1 MB", v[0].size);
        is_str(v[0].path, d3, "  absolute path");
    }
    sl_image_list_free(v, n);
    char *nostore = sl_xasprintf("%s/none", base);
    v = sl_image_list(nostore, &n, &err);
    ok(v && n == 0, "a store that does not exist yet is empty");
    sl_image_list_free(v, n);

    ok(sl_image_rm(store, "org/tarred:1", &err) == 0, "rm");
    ok(!is_file(d2, "", 1), "  folder gone");
    ok(sl_image_rm(store, "org/tarred:1", &err) < 0 && errno == ENOENT, "rm again: ENOENT");
    has_str(err.text, "no image org/tarred:1", "  says which");
    ok(sl_image_rm(store, "../etc", &err) < 0 && errno == EINVAL, "rm of a path refused");

    sl_rm_rf(base);
    free(tree);
    free(outside);
    free(link);
    free(rl);
    free(hosts_target);
    free(hl);
    free(tmpd);
    free(store);
    free(d1);
    free(marker);
    free(tarf);
    free(cmd);
    free(d2);
    free(saved);
    free(junk);
    free(d3);
    free(shl);
    free(envl);
    free(nostore);
    return tap_done();
}
