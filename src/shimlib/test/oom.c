/* Unit tests: OOMKilled detection from oom_kill counters (fake /proc and /sys trees). */
#include "shimlib/oom.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    char tmpl[] = "/tmp/oom.XXXXXX";
    root = mkdtemp(tmpl);
    ok(root != NULL, "temp root");

    /* node-wide counter only (no memory cgroup line) */
    put("proc/self/cgroup", "1:cpu:/\n");
    put("proc/vmstat", "nr_free_pages 1\noom_kill 4\nother 9\n");
    sl_oom_mark_t m;
    sl_oom_mark(&m, root);
    is_int(m.cgroup, -1, "no memory cgroup");
    is_int(m.node, 4, "vmstat oom_kill read");
    is_str(sl_oom_reason(0, 0, 0, &m, root), "Completed", "exit 0: Completed");
    is_str(sl_oom_reason(137, SIGKILL, 0, &m, root), "Error", "SIGKILL without OOM: Error");
    put("proc/vmstat", "nr_free_pages 1\noom_kill 5\n");
    is_str(sl_oom_reason(137, SIGKILL, 0, &m, root), "OOMKilled", "SIGKILL + node OOM: OOMKilled");
    is_str(sl_oom_reason(137, 0, 0, &m, root), "OOMKilled",
           "exit 137 from a shell + OOM: OOMKilled");
    is_str(sl_oom_reason(137, SIGKILL, 1, &m, root), "Error", "SIGKILL the shim sent: Error");
    is_str(sl_oom_reason(143, SIGTERM, 0, &m, root), "Error", "SIGTERM: Error");
    is_str(sl_oom_reason(1, 0, 0, &m, root), "Error", "exit 1: Error");

    /* cgroup v1 memory controller: its counter wins over the node's */
    put("proc/self/cgroup", "5:cpuacct,cpu:/x\n4:memory:/slurm/uid_0/job_7\n0::/\n");
    put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.oom_control",
        "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
    sl_oom_mark(&m, root);
    is_int(m.cgroup, 2, "cgroup v1 oom_kill read");
    put("proc/vmstat", "oom_kill 9\n"); /* someone else on the node */
    is_str(sl_oom_reason(0, SIGKILL, 0, &m, root), "Error",
           "node OOM elsewhere does not count when the job's cgroup is known");
    put("sys/fs/cgroup/memory/slurm/uid_0/job_7/memory.oom_control", "oom_kill 3\n");
    is_str(sl_oom_reason(0, SIGKILL, 0, &m, root), "OOMKilled", "job cgroup OOM: OOMKilled");

    /* cgroup v2 */
    put("proc/self/cgroup", "0::/system.slice/slurmstepd.scope/job_9\n");
    put("sys/fs/cgroup/system.slice/slurmstepd.scope/job_9/memory.events",
        "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
    sl_oom_mark(&m, root);
    is_int(m.cgroup, 1, "cgroup v2 memory.events oom_kill read");
    ok(!sl_oom_since(&m, root), "nothing since the mark");
    put("sys/fs/cgroup/system.slice/slurmstepd.scope/job_9/memory.events", "oom_kill 2\n");
    ok(sl_oom_since(&m, root), "counted since the mark");

    sl_oom_mark(&m, "/nonexistent");
    ok(m.cgroup == -1 && m.node == -1, "nothing readable: both -1");
    is_str(sl_oom_reason(137, SIGKILL, 0, &m, "/nonexistent"), "Error",
           "without counters SIGKILL is just Error");

    sl_oom_mark(&m, "");
    ok(m.node >= 0, "this machine's /proc/vmstat has oom_kill");

    sl_rm_rf(root);
    return tap_done();
}
