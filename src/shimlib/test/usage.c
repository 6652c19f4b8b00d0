/* Unit tests: a container's usage from /proc/PID/stat (fake /proc trees). */
#include "shimlib/usage.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *root;

static void put(const char *rel, const char *content)
{
    char *p = sl_xasprintf("%s/%s", root, rel);
    char *d = sl_xstrdup(p);
    *strrchr(d, '/') = '\0';
    sl_mkdir_p(d, 0755, NULL);
    sl_write_file(p, content, strlen(content), 0644, NULL);
    free(d);
    free(p);
}

/* a stat line: pid, comm, pgrp, utime, stime, cutime, cstime, rss */
static char *stat_line(int pid, const char *comm, int pgrp, int ut, int st, int cut, int cst,
                       int rss)
{
    return sl_xasprintf("%d (%s) S 1 %d %d 0 -1 4194560 10 0 0 0 %d %d %d %d 20 0 1 0 123 "
                        "4096000 %d 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n",
                        pid, comm, pgrp, pgrp, ut, st, cut, cst, rss);
}

int main(void)
{
    char tmpl[] = "/tmp/usage.XXXXXX";
    root = mkdtemp(tmpl);
    ok(root != NULL, "temp root");
    long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);

    pid_t pg;
    unsigned long long ticks, pages;
    char *l = stat_line(7, "a) b (c", 7, 1, 2, 3, 4, 5);
    is_int(sl_usage_parse_stat(l, &pg, &ticks, &pages), 0, "a comm with ') ' parses");
    is_int(pg, 7, "its process group");
    is_int((long long)ticks, 10, "utime + stime + cutime + cstime");
    is_int((long long)pages, 5, "rss pages");
    free(l);
    is_int(sl_usage_parse_stat("12 (x S 1 2", &pg, &ticks, &pages), -1, "no ')': refused");
    is_int(sl_usage_parse_stat("12 (x) S 1 2 3", &pg, &ticks, &pages), -1, "cut short: refused");

    /* two containers (groups 100 and 200), a stranger (300), junk */
    const struct {
        int pid, pgrp, ut, rss;
    } procs[] = {{100, 100, 50, 10}, {101, 100, 25, 20}, {200, 200, 5, 1}, {300, 300, 999, 999}};
    for (size_t i = 0; i < sizeof(procs) / sizeof(*procs); i++) {
        char rel[64];
        snprintf(rel, sizeof(rel), "proc/%d/stat", procs[i].pid);
        l = stat_line(procs[i].pid, "sh", procs[i].pgrp, procs[i].ut, 0, 0, 0, procs[i].rss);
        put(rel, l);
        free(l);
    }
    put("proc/400/stat", "garbage");
    put("proc/self/stat", "not a pid folder");
    pid_t groups[3] = {100, 0, 200};
    sl_usage_t u[3];
    is_int(sl_usage_read(root, groups, 3, u), 0, "read the fake /proc");
    is_int((long long)u[0].cpu_ns, 75LL * (1000000000LL / hz), "group 100: both processes' CPU");
    is_int((long long)u[0].mem_bytes, 30LL * page, "group 100: both processes' rss");
    is_int(u[0].nprocs, 2, "group 100: two processes");
    is_int(u[1].nprocs, 0, "a skipped slot stays zero");
    is_int((long long)u[2].cpu_ns, 5LL * (1000000000LL / hz), "group 200: its one process");
    is_int((long long)u[2].mem_bytes, 1LL * page, "group 200: rss");

    char *none = sl_xasprintf("%s/nope", root);
    is_int(sl_usage_read(none, groups, 3, u), -1, "no /proc: -1");
    free(none);

    pid_t me = getpgrp();
    sl_usage_t mine;
    is_int(sl_usage_read("", &me, 1, &mine), 0, "the real /proc");
    ok(mine.nprocs >= 1 && mine.mem_bytes > 0, "this test's own process group is counted");
    return tap_done();
}
