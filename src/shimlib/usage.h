/* usage.h — what a pod's containers use now, for kubectl top pod.
 *
 * The shim runs each container in a process group of its own (its first
 * process leads it). A container's usage is the sum over the live
 * processes of its group, read from /proc/PID/stat:
 *   cpu     utime + stime + cutime + cstime (the processes' own CPU time and
 *           that of the children they reaped), as nanoseconds since the
 *           container started: a counter, the rate is the daemon's
 *   memory  the resident set (rss), in bytes
 * /proc rather than the job's cgroup: Slurm's job cgroup (where the site's
 * cgroup plugins make one) holds every container of the pod and the shim
 * itself, and a cluster with proctrack/linuxproc and task/none has none. */
#ifndef SL_SHIMLIB_USAGE_H
#define SL_SHIMLIB_USAGE_H

#include <stddef.h>
#include <sys/types.h>

typedef struct sl_usage {
    unsigned long long cpu_ns;    /* CPU time, nanoseconds */
    unsigned long long mem_bytes; /* resident memory, bytes */
    unsigned nprocs;              /* live processes counted */
} sl_usage_t;

/* For each of the n process groups pgrps[i] (0: skipped) the sum over its
 * processes into out[i] (zeroed first), from one pass over root/proc
 * (root: "" normally; tests pass a fake tree). 0, or -1 with errno when
 * root/proc cannot be read. */
int sl_usage_read(const char *root, const pid_t *pgrps, size_t n, sl_usage_t *out);

/* One /proc/PID/stat line: its process group, CPU ticks (utime + stime +
 * cutime + cstime) and rss pages. 0, or -1 when it does not parse. */
int sl_usage_parse_stat(const char *line, pid_t *pgrp, unsigned long long *ticks,
                        unsigned long long *rss_pages);

#endif
