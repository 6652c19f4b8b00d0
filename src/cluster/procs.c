/* procs.c — pidfiles and the processes that belong to a cluster folder.
 *
 * A pid is only signalled when the process still carries the folder's mark
 * in its environment (see environ_marks): a recycled pid of some other
 * program, or a user's shell, is never touched. */
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static const char *names[SL_D_COUNT] = {"munged",    "mysqld", "slurmdbd",
                                        "slurmctld", "slurmd", "slurmlinkd"};

const char *sl_daemon_name(int id) { return id >= 0 && id < SL_D_COUNT ? names[id] : "?"; }

int cl_multi(const cl_state_t *st) { return st->nodes > 1 && st->net_tag; }

int cl_inst_count(const cl_state_t *st) { return SL_D_COUNT + (cl_multi(st) ? st->nodes - 1 : 0); }

int cl_inst_daemon(int inst) { return inst < SL_D_COUNT ? inst : SL_D_SLURMD; }

int cl_inst_node(const cl_state_t *st, int inst)
{
    (void)st;
    if (inst == SL_D_SLURMD)
        return 1;
    return inst >= SL_D_COUNT ? inst - SL_D_COUNT + 2 : 0;
}

/* "slurmd" with one node, "slurmd-nodeK" with several: pidfile and log name */
const char *cl_inst_name(const cl_state_t *st, int inst, char *buf, size_t len)
{
    int k = cl_inst_node(st, inst);
    if (k && cl_multi(st))
        snprintf(buf, len, "slurmd-node%d", k);
    else
        snprintf(buf, len, "%s", sl_daemon_name(cl_inst_daemon(inst)));
    return buf;
}

int cl_inst_order(const cl_state_t *st, int order[CL_MAX_INST])
{
    int n = 0;
    for (int id = 0; id < SL_D_COUNT; id++) {
        if (id == SL_D_SLURMLINKD) /* every node before the API */
            for (int i = SL_D_COUNT; i < cl_inst_count(st); i++)
                order[n++] = i;
        if (cl_expected(st, id))
            order[n++] = id;
    }
    return n;
}

int cl_expected(const cl_state_t *st, int id)
{
    if (id == SL_D_MYSQLD || id == SL_D_SLURMDBD)
        return st->accounting;
    if (id == SL_D_SLURMLINKD)
        return !st->no_slurmlinkd;
    return id >= 0 && id < cl_inst_count(st);
}

static char *pidfile_path(const cl_state_t *st, int id)
{
    char name[32];
    return sl_xasprintf("%s/run/%s.pid", st->dir, cl_inst_name(st, id, name, sizeof(name)));
}

pid_t cl_pidfile_read(const cl_state_t *st, int id)
{
    char name[32];
    char *rel = sl_xasprintf("run/%s.pid", cl_inst_name(st, id, name, sizeof(name)));
    char *s = cl_read_small(st->dir, rel, 64); /* `down` and `status` read any folder */
    free(rel);
    if (!s)
        return 0;
    long v = strtol(s, NULL, 10);
    free(s);
    return v > 0 ? (pid_t)v : 0;
}

int cl_pidfile_write(const cl_state_t *st, int id, pid_t pid, sl_error_t *err)
{
    char *p = pidfile_path(st, id);
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
    int r = sl_write_file(p, buf, (size_t)n, 0644, err);
    free(p);
    return r;
}

/* The environment marks what the folder started: its daemons carry
 * SLURMLINK_DIR=<dir> (set by `up` only), and job processes carry the
 * folder's SLURM_CONF together with a SLURM_JOB_ID. A user's shell that
 * merely exported SLURM_CONF is never matched. */
static int environ_marks(pid_t pid, const char *dir)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    size_t len = 0;
    char *s = sl_read_file(path, &len, NULL);
    if (!s)
        return 0;
    char *mark = sl_xasprintf("SLURMLINK_DIR=%s", dir);
    char *conf = sl_xasprintf("SLURM_CONF=%s/etc/slurm.conf", dir);
    int has_mark = 0, has_conf = 0, has_job = 0;
    for (size_t i = 0; i < len;) {
        const char *e = s + i;
        size_t el = strnlen(e, len - i);
        if (!strcmp(e, mark))
            has_mark = 1;
        else if (!strcmp(e, conf))
            has_conf = 1;
        else if (!strncmp(e, "SLURM_JOB_ID=", 13))
            has_job = 1;
        i += el + 1;
    }
    free(mark);
    free(conf);
    free(s);
    return has_mark || (has_conf && has_job);
}

/* 1 if pid is this process or one of its ancestors (never signal those) */
static int is_ancestor(pid_t pid)
{
    pid_t p = getpid();
    for (int depth = 0; p > 1 && depth < 64; depth++) {
        if (p == pid)
            return 1;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)p);
        char *st = sl_read_file(path, NULL, NULL);
        if (!st)
            return 0;
        char *rp = strrchr(st, ')');
        int ppid = 0;
        if (!rp || sscanf(rp + 2, "%*c %d", &ppid) != 1)
            ppid = 0;
        free(st);
        p = (pid_t)ppid;
    }
    return 0;
}

int cl_pid_belongs(pid_t pid, const char *dir)
{
    if (pid <= 0 || !sl_pid_alive(pid) || is_ancestor(pid))
        return 0;
    /* a zombie has no cmdline; it is gone for our purposes */
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    char *stat = sl_read_file(path, NULL, NULL);
    if (stat) {
        char *rp = strrchr(stat, ')');
        int zombie = rp && rp[1] == ' ' && rp[2] == 'Z';
        free(stat);
        if (zombie)
            return 0;
    }
    return environ_marks(pid, dir);
}

int cl_stop_pid(pid_t pid, int grace_ms)
{
    if (pid <= 0 || !sl_pid_alive(pid))
        return 0;
    kill(pid, SIGTERM);
    long long deadline = sl_now_ms() + grace_ms;
    while (sl_now_ms() < deadline) {
        /* reap if it is our child; otherwise poll for its disappearance */
        if (sl_wait_timeout(pid, 0, NULL) == 0)
            return 1;
        if (!sl_pid_alive(pid))
            return 1;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        char *s = sl_read_file(path, NULL, NULL);
        int zombie = 0;
        if (s) {
            char *rp = strrchr(s, ')');
            zombie = rp && rp[1] == ' ' && rp[2] == 'Z';
            free(s);
        }
        if (zombie)
            return 1;
        sl_sleep_ms(20);
    }
    kill(pid, SIGKILL);
    sl_wait_timeout(pid, 1000, NULL);
    return 1;
}

int cl_sweep(const char *dir)
{
    int killed = 0;
    for (int round = 0; round < 3; round++) {
        DIR *d = opendir("/proc");
        if (!d)
            return killed;
        int found = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!isdigit((unsigned char)de->d_name[0]))
                continue;
            pid_t pid = (pid_t)atoi(de->d_name);
            if (!cl_pid_belongs(pid, dir))
                continue;
            found++;
            kill(pid, round == 0 ? SIGTERM : SIGKILL);
            killed++;
        }
        closedir(d);
        if (!found)
            break;
        sl_sleep_ms(round == 0 ? 500 : 100);
    }
    return killed;
}

char **cl_env(const cl_state_t *st)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = sl_xcalloc(n + 4, sizeof(char *));
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "SLURM_CONF=", 11) && strncmp(environ[i], "SLURMLINK_DIR=", 14))
            env[o++] = sl_xstrdup(environ[i]);
    env[o++] = sl_xasprintf("SLURM_CONF=%s/etc/slurm.conf", st->dir);
    env[o++] = sl_xasprintf("SLURMLINK_DIR=%s", st->dir);
    env[o] = NULL;
    return env;
}

void cl_env_free(char **env)
{
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
}
