/* usage.c — a container's CPU time and resident memory from /proc (usage.h). */
#include "shimlib/usage.h"

#include "common/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sl_usage_parse_stat(const char *line, pid_t *pgrp, unsigned long long *ticks,
                        unsigned long long *rss_pages)
{
    /* "PID (COMM) S PPID PGRP ...": COMM may hold anything, ')' included */
    const char *p = strrchr(line, ')');
    if (!p)
        return -1;
    char state;
    long long ppid, pg, sess, tty, tpgid;
    unsigned long flags, minflt, cminflt, majflt, cmajflt;
    unsigned long long ut, st;
    long long cut, cst, prio, nice, nthr, itreal;
    unsigned long long start, vsize;
    long long rss;
    int n =
        sscanf(p + 1,
               " %c %lld %lld %lld %lld %lld %lu %lu %lu %lu %lu %llu %llu %lld %lld %lld %lld "
               "%lld %lld %llu %llu %lld",
               &state, &ppid, &pg, &sess, &tty, &tpgid, &flags, &minflt, &cminflt, &majflt,
               &cmajflt, &ut, &st, &cut, &cst, &prio, &nice, &nthr, &itreal, &start, &vsize, &rss);
    if (n != 22 || pg <= 0 || cut < 0 || cst < 0)
        return -1;
    *pgrp = (pid_t)pg;
    *ticks = ut + st + (unsigned long long)cut + (unsigned long long)cst;
    *rss_pages = rss > 0 ? (unsigned long long)rss : 0;
    return 0;
}

static int read_stat(int dfd, const char *pid, char *buf, size_t len)
{
    char rel[300];
    snprintf(rel, sizeof(rel), "%.255s/stat", pid);
    int fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, len - 1);
    close(fd);
    if (r <= 0)
        return -1;
    buf[r] = '\0';
    return 0;
}

static void count(const pid_t *pgrps, size_t n, sl_usage_t *out, const char *line)
{
    pid_t pg;
    unsigned long long ticks, pages;
    if (sl_usage_parse_stat(line, &pg, &ticks, &pages) < 0)
        return;
    static long hz, page;
    if (!hz) {
        hz = sysconf(_SC_CLK_TCK);
        page = sysconf(_SC_PAGESIZE);
        if (hz <= 0)
            hz = 100;
        if (page <= 0)
            page = 4096;
    }
    for (size_t i = 0; i < n; i++) {
        if (pgrps[i] > 0 && pgrps[i] == pg) {
            out[i].cpu_ns += ticks * (1000000000ULL / (unsigned long long)hz);
            out[i].mem_bytes += pages * (unsigned long long)page;
            out[i].nprocs++;
            return;
        }
    }
}

int sl_usage_read(const char *root, const pid_t *pgrps, size_t n, sl_usage_t *out)
{
    memset(out, 0, n * sizeof(*out));
    char *path = sl_xasprintf("%s/proc", root);
    DIR *d = opendir(path);
    free(path);
    if (!d)
        return -1;
    char buf[1024];
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        if (read_stat(dirfd(d), e->d_name, buf, sizeof(buf)) == 0) /* gone meanwhile: skipped */
            count(pgrps, n, out, buf);
    }
    closedir(d);
    return 0;
}
