/* What `up` trusts in a cluster folder (trust.c): the cases the integration
 * test t/39-privsep-cluster.t does not start a cluster for: links (the
 * folder, a file in it, a parent, where a root link leads), a FIFO for the
 * munge key, group-writable folders, secrets readable by the group, a
 * sticky world-writable parent. As root (chown to another uid); skipped
 * otherwise. */
#include "cluster/internal.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OTHER 65534 /* nobody */

static char *base;

static char *P(const char *rel)
{
    static char buf[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof(buf[i]), "%s/%s", base, rel);
    return buf[i];
}

/* cl_trust_folder (and parents) on rel: 0, or -1 with err's text having want */
static void refused(const char *rel, const char *want, const char *desc)
{
    sl_error_t e = SL_ERROR_INIT;
    int r = cl_trust_parents(P(rel), &e);
    if (r == 0)
        r = cl_trust_folder(P(rel), &e);
    if (!want) {
        is_int(r, 0, "%s: accepted", desc);
        if (r)
            printf("# %s\n", e.text);
        return;
    }
    is_int(r, -1, "%s: refused", desc);
    has_str(e.text, want, "%s: says why", desc);
}

static void folder(void)
{
    mkdir(P("ok"), 0711);
    mkdir(P("ok/etc"), 0755);
    sl_write_file(P("ok/etc/munge.key"), "k", 1, 0600, NULL);
    refused("ok", NULL, "root's folder and key");
    refused("missing/deeper", NULL, "a folder not made yet, in root's");

    symlink(P("ok"), P("lnk"));
    refused("lnk", "a symbolic link", "the folder a link");

    mkdir(P("fifo"), 0711);
    mkdir(P("fifo/etc"), 0755);
    mkfifo(P("fifo/etc/munge.key"), 0600);
    refused("fifo", "fifo/etc/munge.key: owned by uid 0 (root) with mode 0600: not a regular file",
            "a FIFO for the munge key");

    mkdir(P("lk"), 0711);
    mkdir(P("lk/pki"), 0755);
    symlink("/etc/shadow", P("lk/pki/ca.key"));
    refused("lk", "lk/pki/ca.key", "the CA key a link");

    mkdir(P("gw"), 0711);
    mkdir(P("gw/state"), 0775);
    chmod(P("gw/state"), 0775);
    refused("gw", "gw/state: owned by uid 0 (root) with mode 0775: writable by group or others",
            "a group-writable state folder");

    mkdir(P("gr"), 0711);
    mkdir(P("gr/pki"), 0755);
    sl_write_file(P("gr/pki/admin.key"), "k", 1, 0640, NULL);
    refused("gr", "mode 0640: a secret readable by group or others", "a key the group reads");
    sl_write_file(P("gr/pki/admin.key"), "k", 1, 0600, NULL);
    sl_write_file(P("gr/pki/admin.crt"), "c", 1, 0644, NULL);
    chown(P("gr/pki/admin.crt"), OTHER, OTHER);
    refused("gr", "gr/pki/admin.crt: owned by uid 65534", "a certificate another user owns");
}

static void parents(void)
{
    mkdir(P("sticky"), 01777);
    chmod(P("sticky"), 01777);
    refused("sticky/c", NULL, "a sticky world-writable parent, as /tmp");

    mkdir(P("theirs"), 0755);
    chown(P("theirs"), OTHER, OTHER);
    refused("theirs/c", "theirs: owned by uid 65534", "a parent another user owns");

    symlink(P("theirs"), P("rootlink")); /* root's link into their folder */
    refused("rootlink/c", "theirs: owned by uid 65534", "a root link to their folder");

    mkdir(P("mine"), 0755);
    symlink(P("mine"), P("theirlink"));
    lchown(P("theirlink"), OTHER, OTHER);
    refused("theirlink/c", "theirlink: owned by uid 65534", "a link another user owns");
    refused("mine/c", NULL, "the same folder without the link");
}

int main(void)
{
    if (geteuid() != 0) {
        printf("1..0 # SKIP needs root (chown to another user)\n");
        return 0;
    }
    char tmpl[] = "/tmp/sl-trust-XXXXXX";
    base = mkdtemp(tmpl);
    ok(base != NULL, "mkdtemp");
    chmod(base, 0755);
    folder();
    parents();
    sl_rm_rf(base);
    return tap_done();
}
