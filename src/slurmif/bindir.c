/* bindir.c — the folder of Slurm's commands (srun, scontrol, sbatch) and
 * the PATH jobs get: a Slurm installed in a prefix of its own is found
 * where it is, not only in the system's folders. */
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the system's folders every job's PATH holds, in this order */
#define SL_SLURM_SYS_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* 1 if dir/srun is an executable regular file */
static int has_srun(const char *dir)
{
    char *p = sl_xasprintf("%s/srun", dir);
    struct stat sb;
    int r = stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0;
    free(p);
    return r;
}

/* path (a folder, links followed) is root's and only root may change what
 * is in it: not writable by group or others; a folder above it may be
 * writable by all only with the sticky bit (/tmp), which keeps others from
 * renaming root's entries */
static int check_dir(const char *path, int leaf, sl_error_t *err)
{
    struct stat sb;
    if (stat(path, &sb) < 0)
        return sl_errprintf(err, "%s: %s", path, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return sl_errprintf(err, "%s: not a folder", path);
    if (sb.st_uid != 0)
        return sl_errprintf(err, "%s: owned by uid %u, not root", path, (unsigned)sb.st_uid);
    if ((sb.st_mode & 022) && (leaf || !(sb.st_mode & S_ISVTX)))
        return sl_errprintf(err, "%s: writable by others (mode %04o)", path,
                            (unsigned)(sb.st_mode & 07777));
    return 0;
}

/* dir and every folder above it, on the path with links resolved */
static int trusted(const char *dir, sl_error_t *err)
{
    if (dir[0] != '/')
        return sl_errprintf(err, "%s: not an absolute path", dir);
    char *real = realpath(dir, NULL);
    if (!real)
        return sl_errprintf(err, "%s: %s", dir, strerror(errno));
    int r = check_dir(real, 1, err);
    for (char *slash = strrchr(real, '/'); r == 0 && slash; slash = strrchr(real, '/')) {
        *slash = '\0';
        r = check_dir(slash == real ? "/" : real, 0, err);
        if (slash == real)
            break;
    }
    free(real);
    return r;
}

int sl_slurm_bin_dir(const char *dir, char **out, sl_error_t *err)
{
    *out = NULL;
    if (dir && *dir) {
        sl_error_t why = SL_ERROR_INIT;
        if (trusted(dir, &why) < 0) {
            errno = EPERM;
            return sl_errprintf(err, "slurm.bin_dir %s", why.text);
        }
        *out = sl_xstrdup(dir);
        return 0;
    }
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        char *d = sl_xstrndup(p, n);
        if (d[0] == '/' && has_srun(d) && trusted(d, NULL) == 0) {
            *out = d;
            return 0;
        }
        free(d);
        p += n + (p[n] == ':');
    }
    if (trusted(SL_SLURM_BIN_DIR, NULL) == 0)
        *out = sl_xstrdup(SL_SLURM_BIN_DIR);
    return 0;
}

/* 1 if dir is one of the system folders already in the PATH */
static int in_sys_path(const char *dir)
{
    const char *p = SL_SLURM_SYS_PATH;
    size_t len = strlen(dir);
    while (*p) {
        size_t n = strcspn(p, ":");
        if (n == len && !strncmp(p, dir, n))
            return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

char *sl_slurm_job_path(const char *bin_dir)
{
    if (!bin_dir || !*bin_dir || in_sys_path(bin_dir))
        return sl_xstrdup("PATH=" SL_SLURM_SYS_PATH);
    return sl_xasprintf("PATH=%s:" SL_SLURM_SYS_PATH, bin_dir);
}
