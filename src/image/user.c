/* user.c — an image's USER as the numeric ids the container runs as, by
 * the rules of runc and containerd: "name", "uid", "name:group",
 * "uid:gid"; a name is looked up in the image's own /etc/passwd (a group in
 * its /etc/group), a uid without a group gets the gid of its passwd entry,
 * else 0. Nothing of the host's user database is read. */
#include "image/image.h"

#include "common/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int numeric(const char *s, long *out)
{
    char *end;
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 10)
        return 0;
    long v = strtol(s, &end, 10);
    if (v > 4294967294L)
        return 0;
    *out = v;
    return 1;
}

/* the entry of file (passwd or group, ':'-separated) whose field 0 is name
 * (by_id: whose field 2 is id): field 2 into *id, field 3 into *gid (passwd) */
static int find_entry(const char *rootfs, const char *file, const char *name, long want, long *id,
                      long *gid)
{
    char *path = sl_xasprintf("%s/etc/%s", rootfs, file);
    FILE *f = fopen(path, "re");
    free(path);
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *fld[4] = {0};
        char *p = line;
        for (int i = 0; i < 4 && p; i++) {
            fld[i] = p;
            p = strchr(p, ':');
            if (p)
                *p++ = '\0';
        }
        long v, g = 0;
        if (!fld[2] || !numeric(fld[2], &v))
            continue;
        if (fld[3] && !numeric(fld[3], &g))
            g = 0;
        if (name ? !strcmp(fld[0], name) : v == want) {
            *id = v;
            if (gid)
                *gid = g;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

int sl_image_user_ids(const char *rootfs, const char *user, long *uid, long *gid, sl_error_t *err)
{
    char *u = sl_xstrdup(user), *grp = strchr(u, ':');
    if (grp)
        *grp++ = '\0';
    int rc = 0;
    long pg = 0;
    if (!*u) {
        errno = EINVAL;
        rc = sl_errprintf(err, "image USER \"%s\" names no user", user);
    } else if (numeric(u, uid)) {
        if (!find_entry(rootfs, "passwd", NULL, *uid, uid, &pg))
            pg = 0;
    } else if (!find_entry(rootfs, "passwd", u, 0, uid, &pg)) {
        errno = ENOENT;
        rc = sl_errprintf(err,
                          "unable to find user %s: no matching entries in passwd file (the "
                          "image's USER \"%s\")",
                          u, user);
    }
    if (rc == 0 && grp && *grp) {
        if (!numeric(grp, gid) && !find_entry(rootfs, "group", grp, 0, gid, NULL)) {
            errno = ENOENT;
            rc = sl_errprintf(err,
                              "unable to find group %s: no matching entries in group file (the "
                              "image's USER \"%s\")",
                              grp, user);
        }
    } else if (rc == 0) {
        *gid = pg;
    }
    free(u);
    return rc;
}
