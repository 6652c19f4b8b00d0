/* oom.h — was a container killed by the kernel's OOM killer?
 *
 * Without a container runtime's cgroup per container the shim cannot ask
 * "was *this* process OOM-killed" directly. What it can see:
 *   - the oom_kill counter of the job's memory cgroup, when the job has one
 *     (cgroup v2 memory.events, or cgroup v1 memory.oom_control), which Slurm
 *     creates with task/cgroup and ConstrainRAMSpace=yes;
 *   - the node-wide oom_kill counter in /proc/vmstat (Linux >= 4.13).
 * The shim marks the counters when a container starts; if the container then
 * dies of SIGKILL that the shim did not send (or exits 137, a shell reporting
 * that its child was SIGKILLed) and a counter grew meanwhile, the reason is
 * OOMKilled. The cgroup counter is used when readable (it only counts this
 * job); otherwise the node-wide one, which can blame an unrelated OOM kill
 * on a container that happened to be SIGKILLed at the same time.
 *
 * When Slurm itself enforces the memory limit (OverMemoryKill, or the cgroup
 * OOM killing the whole step) the shim dies with the job; slurmlinkd then sees
 * OUT_OF_MEMORY from Slurm instead.
 */
#ifndef SL_SHIMLIB_OOM_H
#define SL_SHIMLIB_OOM_H

typedef struct sl_oom_mark {
    long long cgroup; /* -1: no readable memory cgroup counter */
    long long node;   /* -1: no /proc/vmstat oom_kill */
} sl_oom_mark_t;

/* Read the counters now. root is "" normally; tests pass a fake tree
 * ("<root>/proc/self/cgroup", "<root>/proc/vmstat", "<root>/sys/fs/cgroup/..."). */
void sl_oom_mark(sl_oom_mark_t *m, const char *root);

/* 1 if an OOM kill was counted since m (by the job's cgroup when it has
 * one, else node-wide), else 0. */
int sl_oom_since(const sl_oom_mark_t *m, const char *root);

/* Decide the Kubernetes reason for a finished container: "Completed" for
 * exit 0, "OOMKilled" for an unexplained SIGKILL (or 137) with an OOM kill
 * counted since start, else "Error". sent_kill: the shim sent SIGKILL. */
const char *sl_oom_reason(int exit_code, int term_signal, int sent_kill, const sl_oom_mark_t *start,
                          const char *root);

#endif
