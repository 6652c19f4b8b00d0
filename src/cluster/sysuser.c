/* sysuser.c — the system users `slurmlink up` makes when missing (the
 * registry pulls' and, where Slurm refuses nobody, the pods'): as the
 * Debian package's postinst makes them (docs/deploy.md). */
#include "internal.h"

#include "common/proc.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>

static int user_exists(const char *name)
{
    struct passwd pw, *r = NULL;
    char buf[4096];
    getpwnam_r(name, &pw, buf, sizeof(buf), &r);
    return r != NULL;
}

int cl_ensure_system_user(const char *name, const char *comment, sl_error_t *err)
{
    if (user_exists(name))
        return 0;
    /* Debian's naming of system users (_apt): a leading underscore */
    const char *argv[] = {"useradd",
                          "--system",
                          "--no-create-home",
                          "--home-dir",
                          "/nonexistent",
                          "--shell",
                          "/usr/sbin/nologin",
                          "--user-group",
                          "--comment",
                          comment,
                          name,
                          NULL};
    char *out = NULL;
    int rc = sl_run(argv, NULL, 1, 30000, &out, err);
    if (rc != 0 && user_exists(name)) /* another `slurmlink up` made it meanwhile */
        rc = 0;
    else if (rc > 0) {
        char *tail = sl_run_tail(out, 400);
        errno = EIO;
        sl_errprintf(err, "useradd %s failed (status %d): %s", name, rc, tail);
        free(tail);
    }
    free(out);
    return rc == 0 ? 0 : -1;
}
