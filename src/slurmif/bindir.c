/* bindir.c — the folder of Slurm's commands (srun, scontrol, sbatch) and
 * the PATH jobs get: a Slurm installed in a prefix of its own is found
 * where it is, not only in the system's folders. */
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* the system's folders every job's PATH holds, in this order */
#define SL_SLURM_SYS_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* 1 if dir/srun is an executable regular file */
static int has_srun(const char *dir, size_t n)
{
    char *p = sl_xasprintf("%.*s/srun", (int)n, dir);
    struct stat sb;
    int r = stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && access(p, X_OK) == 0;
    free(p);
    return r;
}

char *sl_slurm_bin_dir(const char *dir)
{
    if (dir && *dir)
        return sl_xstrdup(dir);
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n && p[0] == '/' && has_srun(p, n))
            return sl_xstrndup(p, n);
        p += n + (p[n] == ':');
    }
    return sl_xstrdup(SL_SLURM_BIN_DIR);
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
