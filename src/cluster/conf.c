/* conf.c — slurm.conf, gres.conf, slurmdbd.conf and kubeconfig for a folder. */
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "internal.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CLUSTER_NAME "slurmlink"
/* slurm.conf (squeue, scontrol) and slurmdbd.conf (sacct, sacctmgr) alike */
#define PRIVATE_DATA "accounts,jobs,usage,users"

static long mem_total_mib(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    long kb = 0;
    if (f) {
        char line[256];
        while (fgets(line, sizeof(line), f))
            if (sscanf(line, "MemTotal: %ld kB", &kb) == 1)
                break;
        fclose(f);
    }
    return kb / 1024;
}

static int count_real_gpus(void)
{
    int real = 0;
    for (int i = 0; i < 256; i++) {
        char p[32];
        struct stat sb;
        snprintf(p, sizeof(p), "/dev/nvidia%d", i);
        if (stat(p, &sb) < 0 || !S_ISCHR(sb.st_mode))
            break;
        real++;
    }
    return real;
}

/* "P0" or "P[0-N]" style names of count devices numbered from first */
static char *dev_range(const char *prefix, int first, int count)
{
    return count == 1 ? sl_xasprintf("%s%d", prefix, first)
                      : sl_xasprintf("%s[%d-%d]", prefix, first, first + count - 1);
}

/* Slurm binds GRES only to character devices: make ones with /dev/null's
 * numbers so CUDA_VISIBLE_DEVICES and exclusivity are real Slurm behaviour */
static int make_fake(const char *dev, int count, sl_error_t *err)
{
    if (sl_mkdir_p(dev, 0755, err) < 0)
        return -1;
    for (int i = 0; i < count; i++) {
        char *p = sl_xasprintf("%s/gpu%d", dev, i);
        struct stat sb;
        int r = stat(p, &sb) < 0 && mknod(p, S_IFCHR | 0666, makedev(1, 3)) < 0;
        if (r)
            sl_errprintf(err, "mknod %s: %s", p, strerror(errno));
        free(p);
        if (r)
            return -1;
    }
    return 0;
}

/* the GPU type of node k (1..N): the k-th of --gpu-types, the list
 * repeated over the nodes; "" when untyped (caller frees) */
char *cl_gpu_type(const cl_state_t *st, int k)
{
    const char *t = st->gpu_types;
    if (!t || !*t)
        return sl_xstrdup("");
    int n = 1;
    for (const char *p = t; *p; p++)
        n += *p == ',';
    int want = (k - 1) % n;
    for (int i = 0; i < want; i++)
        t = strchr(t, ',') + 1;
    size_t len = strcspn(t, ",");
    return sl_xstrndup(t, len);
}

/* the file of GPU i of node k */
static char *gpu_file(const cl_state_t *st, int k, int i)
{
    if (count_real_gpus() >= st->gpus * (cl_multi(st) ? st->nodes : 1))
        return sl_xasprintf("/dev/nvidia%d", (k - 1) * st->gpus + i);
    return cl_multi(st) ? sl_xasprintf("%s/nodes/node%d/dev/gpu%d", st->dir, k, i)
                        : sl_xasprintf("%s/dev/gpu%d", st->dir, i);
}

/* gres File= of node k (1..N): real GPUs when the machine has enough for
 * every node (node k gets its own slice), else the node's own fake files */
static char *gres_file(const cl_state_t *st, int k)
{
    if (count_real_gpus() >= st->gpus * (cl_multi(st) ? st->nodes : 1))
        return dev_range("/dev/nvidia", (k - 1) * st->gpus, st->gpus);
    char *prefix = cl_multi(st) ? sl_xasprintf("%s/nodes/node%d/dev/gpu", st->dir, k)
                                : sl_xasprintf("%s/dev/gpu", st->dir);
    char *r = dev_range(prefix, 0, st->gpus);
    free(prefix);
    return r;
}

int cl_make_gpus(cl_state_t *st, sl_error_t *err)
{
    free(st->gpu_files);
    st->gpu_files = NULL;
    if (st->gpus <= 0)
        return 0;
    int nodes = cl_multi(st) ? st->nodes : 1;
    if (count_real_gpus() < st->gpus * nodes)
        for (int k = 1; k <= nodes; k++) {
            char *dev =
                cl_multi(st) ? sl_xasprintf("%s/nodes/node%d/dev", st->dir, k) : cl_path(st, "dev");
            int r = make_fake(dev, st->gpus, err);
            free(dev);
            if (r < 0)
                return -1;
        }
    st->gpu_files = gres_file(st, 1);
    return 0;
}

static int write_conf(const cl_state_t *st, const char *rel, sl_buf_t *b, mode_t mode,
                      sl_error_t *err)
{
    char *p = cl_path(st, rel);
    int r = sl_write_file(p, b->data, b->len, mode, err);
    free(p);
    sl_buf_free(b);
    return r;
}

/* the node lines and the partition: node1 on the host (127.0.0.1), or
 * node1..N each at its namespace's address, named after itself */
static int write_nodes(const cl_state_t *st, sl_buf_t *b, const char *host, long real_mem)
{
    int n = cl_multi(st) ? st->nodes : 1;
    for (int k = 1; k <= n; k++) {
        char a[16] = "127.0.0.1", name[16];
        snprintf(name, sizeof(name), "node%d", k);
        if (cl_multi(st))
            cl_net_addr(st, k, a);
        sl_buf_printf(b, "NodeName=%s NodeHostname=%s NodeAddr=%s CPUs=%d RealMemory=%ld", name,
                      cl_multi(st) ? name : host, a, st->cpus, real_mem);
        if (st->gpus > 0) {
            char *t = cl_gpu_type(st, k);
            sl_buf_printf(b, " Gres=gpu:%s%s%d", t, *t ? ":" : "", st->gpus);
            free(t);
        }
        if (st->gpus > 0 && st->shards > 0)
            sl_buf_printf(b, ",shard:%d", st->gpus * st->shards);
        sl_buf_puts(b, " State=UNKNOWN\n");
    }
    if (n == 1)
        sl_buf_puts(b, "PartitionName=gpu Nodes=node1 Default=YES MaxTime=INFINITE State=UP\n");
    else
        sl_buf_printf(b,
                      "PartitionName=gpu Nodes=node[1-%d] Default=YES MaxTime=INFINITE "
                      "State=UP\n",
                      n);
    return 0;
}

/* slurm.conf's settings before the accounting and the nodes. With several
 * nodes, slurmd and clients in the namespaces reach slurmctld on the
 * bridge; each slurmd has its own spool, pid and log */
static void slurm_conf_base(const cl_state_t *st, sl_buf_t *b)
{
    const char *D = st->dir;
    char br[16];
    cl_net_addr(st, 0, br);
    int m = cl_multi(st);
    char *ctl = m ? sl_xasprintf("localhost(%s)", br) : sl_xstrdup("localhost");
    char *spool = m ? sl_xasprintf("%s/nodes/%%n/spool", D) : sl_xasprintf("%s/spool", D);
    char *dpid = m ? sl_xasprintf("%s/run/slurmd-%%n.daemon.pid", D)
                   : sl_xasprintf("%s/run/slurmd.daemon.pid", D);
    char *dlog =
        m ? sl_xasprintf("%s/log/slurmd-%%n.log", D) : sl_xasprintf("%s/log/slurmd.log", D);

    sl_buf_printf(b,
                  "# generated by slurmlink up; rewritten at every start\n"
                  "ClusterName=" CLUSTER_NAME "\n"
                  "SlurmctldHost=%s\n"
                  "SlurmctldPort=%d\n"
                  "SlurmdPort=%d\n"
                  "AuthType=auth/munge\n"
                  "AuthInfo=socket=%s/run/munge.sock,cred_expire=30\n"
                  "SlurmUser=root\n"
                  "StateSaveLocation=%s/state\n"
                  "SlurmdSpoolDir=%s\n"
                  "SlurmctldPidFile=%s/run/slurmctld.daemon.pid\n"
                  "SlurmdPidFile=%s\n"
                  "SlurmctldLogFile=%s/log/slurmctld.log\n"
                  "SlurmdLogFile=%s\n"
                  "ProctrackType=proctrack/linuxproc\n"
                  "TaskPlugin=task/none\n"
                  "MpiDefault=none\n"
                  "SchedulerType=sched/backfill\n"
                  "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0\n"
                  "SelectType=select/cons_tres\n"
                  "SelectTypeParameters=CR_Core_Memory\n"
                  "SlurmdParameters=config_overrides\n"
                  "DefMemPerCPU=500\n"
                  "ReturnToService=2\n"
                  /* a shared site: users see their own jobs, usage and
                   * associations only (root and SlurmUser see all) */
                  "PrivateData=" PRIVATE_DATA "\n"
                  /* a job its partition would never run (AllowAccounts,
                   * AllowGroups, limits) is refused at submission, not
                   * left pending forever */
                  "EnforcePartLimits=ALL\n"
                  "MinJobAge=300\n"
                  /* finished jobs count until MinJobAge: the default
                   * 10000 refuses submissions (EAGAIN) in a 10,000-pod
                   * run; docs/cluster.md */
                  "MaxJobCount=100000\n"
                  "KillWait=10\n"
                  "SlurmdTimeout=15\n",
                  ctl, st->port[SL_D_SLURMCTLD], st->port[SL_D_SLURMD], D, D, spool, D, dpid, D,
                  dlog);
    free(ctl);
    free(spool);
    free(dpid);
    free(dlog);
}

/* slurm.conf's GRES types and accounting (slurmdbd or none) */
static void slurm_conf_accounting(const cl_state_t *st, sl_buf_t *b)
{
    const char *D = st->dir;
    if (st->gpus > 0)
        sl_buf_puts(b, st->shards > 0 ? "GresTypes=gpu,shard\n" : "GresTypes=gpu\n");
    if (st->accounting)
        sl_buf_printf(b,
                      "AccountingStorageType=accounting_storage/slurmdbd\n"
                      "AccountingStorageHost=localhost\n"
                      "AccountingStoragePort=%d\n"
                      "AccountingStoragePass=%s/run/munge.sock\n"
                      "AccountingStorageTRES=gres/gpu%s\n"
                      /* sacct's Comment: a pod's job carries slurmlink:uid=UID */
                      "AccountingStoreFlags=job_comment\n"
                      /* a job needs an association of its user and account;
                       * its limits and QOS apply (Slurm's refusals reach the pod) */
                      "AccountingStorageEnforce=associations,limits,qos\n"
                      "JobAcctGatherType=jobacct_gather/linux\n"
                      "JobAcctGatherFrequency=30\n",
                      st->port[SL_D_SLURMDBD], D, st->shards > 0 ? ",gres/shard" : "");
    else
        sl_buf_puts(b, "AccountingStorageType=accounting_storage/none\n"
                       "JobAcctGatherType=jobacct_gather/none\n");
}

static int write_slurm_conf(const cl_state_t *st, sl_error_t *err)
{
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    long mem = mem_total_mib();
    long real_mem = mem > 2048 ? mem - 1024 : mem / 2;
    sl_buf_t b = SL_BUF_INIT;
    slurm_conf_base(st, &b);
    slurm_conf_accounting(st, &b);
    if (write_nodes(st, &b, host, real_mem) < 0 ||
        write_conf(st, "etc/slurm.conf", &b, 0644, err) < 0)
        return -1;
    return 0;
}

static int write_gres_conf(const cl_state_t *st, sl_error_t *err)
{
    sl_buf_t b = SL_BUF_INIT;
    if (st->gpus <= 0)
        sl_buf_puts(&b, "# no GPUs\n");
    for (int k = 1; st->gpus > 0 && k <= (cl_multi(st) ? st->nodes : 1); k++) {
        char *f = gres_file(st, k), *t = cl_gpu_type(st, k);
        sl_buf_printf(&b, "NodeName=node%d Name=gpu%s%s File=%s\n", k, *t ? " Type=" : "", t, f);
        free(f);
        free(t);
        /* shards: Count per GPU, each line naming its GPU's file */
        for (int i = 0; st->shards > 0 && i < st->gpus; i++) {
            f = gpu_file(st, k, i);
            sl_buf_printf(&b, "NodeName=node%d Name=shard Count=%d File=%s\n", k, st->shards, f);
            free(f);
        }
    }
    return write_conf(st, "etc/gres.conf", &b, 0644, err);
}

/* slurmlink-gpu.json beside slurm.conf, read by slurmlink-shim (src/shim/gpu.h):
 * which file GPU index N is on the node, when they are the fake ones */
static int write_gpu_json(const cl_state_t *st, sl_error_t *err)
{
    if (st->gpus <= 0 || count_real_gpus() >= st->gpus * (cl_multi(st) ? st->nodes : 1))
        return 0;
    sl_buf_t b = SL_BUF_INIT;
    if (cl_multi(st))
        sl_buf_printf(&b, "{\"devices\": \"%s/nodes/{node}/dev/gpu%%d\"}\n", st->dir);
    else
        sl_buf_printf(&b, "{\"devices\": \"%s/dev/gpu%%d\"}\n", st->dir);
    return write_conf(st, "etc/slurmlink-gpu.json", &b, 0644, err);
}

static int write_slurmdbd_conf(const cl_state_t *st, sl_error_t *err)
{
    const char *D = st->dir;
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_printf(&b,
                  "AuthType=auth/munge\n"
                  "AuthInfo=socket=%s/run/munge.sock\n"
                  "DbdHost=localhost\n"
                  "DbdPort=%d\n"
                  "SlurmUser=root\n"
                  "PrivateData=" PRIVATE_DATA "\n"
                  "LogFile=%s/log/slurmdbd.log\n"
                  "PidFile=%s/run/slurmdbd.daemon.pid\n"
                  "StorageType=accounting_storage/mysql\n"
                  "StorageHost=127.0.0.1\n"
                  "StoragePort=%d\n"
                  "StorageLoc=slurm_acct_db\n"
                  "StorageUser=slurm\n"
                  "StoragePass=%s\n",
                  D, st->port[SL_D_SLURMDBD], D, D, st->port[SL_D_MYSQLD], st->db_pass);
    /* slurmdbd refuses a config readable by others */
    if (write_conf(st, "etc/slurmdbd.conf", &b, 0600, err) < 0)
        return -1;
    return 0;
}

int cl_write_confs(const cl_state_t *st, sl_error_t *err)
{
    if (write_slurm_conf(st, err) < 0 || write_gres_conf(st, err) < 0 ||
        write_gpu_json(st, err) < 0)
        return -1;

    /* srun --mpi=pmix (MpiDefault stays none): Slurm's PMIx plugin makes a
     * folder per step for the job's PMIx clients below this base (TmpFS,
     * /tmp, by default), owned by the job's user; here it is in the
     * cluster folder, with the rest of what the cluster writes */
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_printf(&b, "PMIxCliTmpDirBase=%s/pmix\nPMIxTimeout=60\n", st->dir);
    if (write_conf(st, "etc/mpi.conf", &b, 0644, err) < 0)
        return -1;

    /* slurmd 22.05 always initialises a cgroup plugin, and its autodetection
     * fails where /sys/fs/cgroup is not mounted (containers, chroots). Name
     * the v1 plugin: with proctrack/linuxproc and task/none it is loaded but
     * never used, so it works with or without a cgroup filesystem. */
    sl_buf_puts(&b, "CgroupPlugin=cgroup/v1\n");
    if (write_conf(st, "etc/cgroup.conf", &b, 0644, err) < 0)
        return -1;
    if (st->accounting && write_slurmdbd_conf(st, err) < 0)
        return -1;
    return 0;
}

/* D/kubeconfig is the admin's: HTTPS to 127.0.0.1, the folder's CA, the
 * admin client certificate (security.c renders it) */
int cl_write_kubeconfig(const cl_state_t *st, sl_error_t *err)
{
    return cl_write_kubeconfig_https(st, err);
}
