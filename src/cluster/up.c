/* up.c — start a folder's daemons in order and wait until each answers. */
#include "common/fault.h"
#include "common/fsutil.h"
#include "common/net.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "image/image.h"
#include "internal.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SL_SBINDIR /* the Makefile's SBINDIR */
#define SL_SBINDIR "/usr/local/sbin"
#endif

/* below the kernel's ephemeral ports (Linux's default 32768-60999): a port
 * there can become an outgoing connection's source port between the pick
 * and the daemon's bind */
#define PORT_LO 20000
#define PORT_HI 32768
/* the longest `up` waits for a daemon to answer or a client command to end:
 * each returns as soon as it is ready or dead; a machine that is loaded
 * (a test suite's clusters at once) can take tens of seconds for MariaDB's
 * first start */
#define UP_WAIT_MS 120000

typedef struct upctx {
    cl_state_t st;
    char **env;
    pid_t pid[CL_MAX_INST];
    int kept[CL_MAX_INST]; /* still running from before: not started, never stopped here */
    cl_node_enter_t enter[CL_MAX_NODES + 1]; /* node K's namespaces (several nodes) */
    const sl_cluster_opts_t *opts;
    FILE *out;
    int untrusted; /* the folder failed cl_trust_*: touch nothing in it, even to undo */
} upctx_t;

static int have_prog(const char *name)
{
    const char *path = getenv("PATH");
    char *dirs = sl_xasprintf("%s:/usr/sbin:/sbin", path ? path : "/usr/bin:/bin");
    int found = 0;
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p = sl_xasprintf("%s/%s", d, name);
        found = access(p, X_OK) == 0;
        free(p);
    }
    free(dirs);
    return found;
}

static int check_progs(const upctx_t *c, const char *daemon, sl_error_t *err)
{
    static const struct {
        const char *prog, *pkg;
        int acct; /* 1: with accounting only, 2: with several nodes only */
    } need[] = {
        {"munged", "munge", 0},
        {"slurmctld", "slurmctld", 0},
        {"slurmd", "slurmd", 0},
        {"sinfo", "slurm-client", 0},
        {"slurmdbd", "slurmdbd", 1},
        {"mariadbd", "mariadb-server", 1},
        {"mysql_install_db", "mariadb-server", 1},
        {"mariadb", "mariadb-client", 1},
        {"sacctmgr", "slurm-client", 1},
        {"ip", "iproute2", 2},
    };
    for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
        if ((need[i].acct == 1 && !c->st.accounting) || (need[i].acct == 2 && c->st.nodes <= 1))
            continue;
        if (!have_prog(need[i].prog)) {
            errno = ENOENT;
            return sl_errprintf(err,
                                "%s not found: install the Debian package %s "
                                "(scripts/deps.sh installs everything)",
                                need[i].prog, need[i].pkg);
        }
    }
    if (access(daemon, X_OK) < 0) {
        errno = ENOENT;
        return sl_errprintf(err, "%s not found: run make first", daemon);
    }
    return 0;
}

/* the error for a daemon that is not up: why, plus the last lines of its log */
static int daemon_failed(upctx_t *c, int id, const char *why, sl_error_t *err)
{
    char name[32];
    cl_inst_name(&c->st, id, name, sizeof(name));
    char *log = sl_xasprintf("%s/log/%s.log", c->st.dir, name);
    char *tail = sl_tail_file(log, 6);
    sl_errprintf(err, "%s %s; last lines of %s:\n%s", name, why, log, tail);
    free(tail);
    free(log);
    return -1;
}

static int spawn_daemon(upctx_t *c, int id, const char *const *argv, sl_error_t *err)
{
    char name[32];
    int node = cl_multi(&c->st) ? cl_inst_node(&c->st, id) : 0;
    char *log = sl_xasprintf("%s/log/%s.log", c->st.dir, cl_inst_name(&c->st, id, name, 32));
    sl_spawn_opts_t o = {.envp = (const char *const *)c->env,
                         .stdout_path = log,
                         .stderr_path = log,
                         .stdin_null = 1,
                         .new_session = 1,
                         .child_setup = node ? cl_node_enter : NULL,
                         .child_arg = node ? &c->enter[node] : NULL};
    pid_t pid = sl_spawn(argv, &o, err);
    free(log);
    if (pid < 0)
        return -1;
    c->pid[id] = pid;
    return cl_pidfile_write(&c->st, id, pid, err);
}

/* still running? if not, fill err with its exit and log */
static int alive_or_fail(upctx_t *c, int id, sl_error_t *err)
{
    int status;
    if (sl_wait_timeout(c->pid[id], 0, &status) == 0) {
        c->pid[id] = 0;
        char why[64];
        if (WIFEXITED(status))
            snprintf(why, sizeof(why), "exited at start with status %d", WEXITSTATUS(status));
        else
            snprintf(why, sizeof(why), "died at start (signal %d)", WTERMSIG(status));
        return daemon_failed(c, id, why, err);
    }
    return 0;
}

/* the address slurmlinkd listens on: the bridge's with several nodes (every
 * node's shims reach it there), else loopback */
static void api_addr(const cl_state_t *st, char buf[16])
{
    if (cl_multi(st))
        cl_net_addr(st, 0, buf);
    else
        snprintf(buf, 16, "127.0.0.1");
}

static int wait_tcp(upctx_t *c, int id, int timeout_ms, sl_error_t *err)
{
    long long deadline = sl_now_ms() + timeout_ms;
    char a[16];
    api_addr(&c->st, a);
    while (sl_now_ms() < deadline) {
        if (alive_or_fail(c, id, err) < 0)
            return -1;
        if (sl_wait_port_at(id == SL_D_SLURMLINKD ? a : NULL, c->st.port[id], 100))
            return 0;
    }
    return daemon_failed(c, id, "did not open its port in time", err);
}

/* a process accepts connections on the Unix socket PATH */
static int unix_answers(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    int r = connect(fd, (struct sockaddr *)&a, sizeof(a));
    close(fd);
    return r == 0;
}

static int wait_unix(upctx_t *c, int id, const char *path, int timeout_ms, sl_error_t *err)
{
    long long deadline = sl_now_ms() + timeout_ms;
    while (sl_now_ms() < deadline) {
        if (alive_or_fail(c, id, err) < 0)
            return -1;
        if (unix_answers(path))
            return 0;
        sl_sleep_ms(50);
    }
    return daemon_failed(c, id, "did not open its socket in time", err);
}

/* run a client command with the folder's environment; output into *out */
static int run_client(upctx_t *c, const char *const *argv, char **out, sl_error_t *err)
{
    return sl_run(argv, (const char *const *)c->env, 1, UP_WAIT_MS, out, err);
}

static int any_kept(const upctx_t *c)
{
    for (int id = 0; id < CL_MAX_INST; id++)
        if (c->kept[id])
            return 1;
    return 0;
}

static int pick_ports(upctx_t *c, const cl_state_t *old, sl_error_t *err)
{
    int want[SL_D_COUNT] = {0};
    want[SL_D_SLURMLINKD] = c->opts->api_port;
    want[SL_D_SLURMCTLD] = c->opts->ctld_port;
    int used[SL_D_COUNT];
    int nused = 0;
    /* slurmlinkd's port is chosen even when the admin starts it (--no-slurmlinkd):
     * D/etc/slurmlinkd.conf and the kubeconfig name it */
    for (int id = SL_D_MYSQLD; id < SL_D_COUNT; id++) {
        if (!cl_expected(&c->st, id) && id != SL_D_SLURMLINKD) {
            c->st.port[id] = 0;
            continue;
        }
        if (want[id]) {
            if (sl_port_in_use(want[id])) {
                errno = EADDRINUSE;
                return sl_errprintf(err, "port %d for %s is already in use", want[id],
                                    sl_daemon_name(id));
            }
            c->st.port[id] = want[id];
        } else if (c->kept[id]) {
            c->st.port[id] = old->port[id]; /* it is running there */
        } else if (old && old->port[id] && any_kept(c) && sl_port_in_use(old->port[id])) {
            errno = EADDRINUSE;
            return sl_errprintf(err,
                                "port %d of %s is taken by another program; run slurmlink "
                                "down --dir %s and up again",
                                old->port[id], sl_daemon_name(id), c->st.dir);
        } else if (old && old->port[id] && !sl_port_in_use(old->port[id])) {
            c->st.port[id] = old->port[id]; /* keep kubeconfig and clients valid */
        } else {
            c->st.port[id] = 0;
        }
        if (c->st.port[id])
            used[nused++] = c->st.port[id];
    }
    for (int id = SL_D_MYSQLD; id < SL_D_COUNT; id++) {
        if ((!cl_expected(&c->st, id) && id != SL_D_SLURMLINKD) || c->st.port[id])
            continue;
        int p = sl_free_port(PORT_LO, PORT_HI, used, nused);
        if (p < 0) {
            errno = EADDRINUSE;
            return sl_errprintf(err, "no free TCP port in %d-%d", PORT_LO, PORT_HI);
        }
        c->st.port[id] = p;
        used[nused++] = p;
    }
    return 0;
}

static int ensure_munge_key(upctx_t *c, sl_error_t *err)
{
    char *key = cl_path(&c->st, "etc/munge.key");
    struct stat sb;
    int r = 0;
    if (lstat(key, &sb) < 0) { /* one that exists passed cl_trust_folder */
        unsigned char buf[1024];
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
        if (fd >= 0)
            close(fd);
        if (n != (ssize_t)sizeof(buf))
            r = sl_errprintf(err, "read /dev/urandom: %s", strerror(errno));
        else
            r = sl_write_file(key, buf, sizeof(buf), 0600, err);
    }
    free(key);
    return r;
}

static int start_munged(upctx_t *c, sl_error_t *err)
{
    const char *D = c->st.dir;
    char *sock = sl_xasprintf("--socket=%s/run/munge.sock", D);
    char *key = sl_xasprintf("--key-file=%s/etc/munge.key", D);
    char *pidf = sl_xasprintf("--pid-file=%s/run/munged.daemon.pid", D);
    char *logf = sl_xasprintf("--log-file=%s/log/munged.log", D);
    char *seed = sl_xasprintf("--seed-file=%s/run/munged.seed", D);
    /* no --force: munged then refuses a key that is not root's or that others
     * may read or replace, as `up` does (trust.c) */
    const char *argv[] = {"munged", "--foreground", sock, key, pidf, logf, seed, NULL};
    int r = spawn_daemon(c, SL_D_MUNGED, argv, err);
    free(sock);
    free(key);
    free(pidf);
    free(logf);
    free(seed);
    if (r < 0)
        return -1;
    char *path = cl_path(&c->st, "run/munge.sock");
    r = wait_unix(c, SL_D_MUNGED, path, UP_WAIT_MS, err);
    free(path);
    return r;
}

static int start_mysqld(upctx_t *c, sl_error_t *err)
{
    const char *D = c->st.dir;
    char *datadir = sl_xasprintf("--datadir=%s/db", D);
    /* temporary tables in a folder of root's own: in /tmp, where every user
     * may write, their names (#sql-temptable-PID-...) are predictable */
    char *tmpdir = sl_xasprintf("--tmpdir=%s/db-tmp", D);
    char *probe = sl_xasprintf("%s/db/mysql", D);
    struct stat sb;
    int r = 0;
    if (stat(probe, &sb) < 0) {
        const char *argv[] = {"mysql_install_db",
                              "--user=root",
                              "--skip-test-db",
                              "--auth-root-authentication-method=socket",
                              datadir,
                              tmpdir,
                              NULL};
        char *out = NULL;
        int rc = run_client(c, argv, &out, err);
        if (rc != 0) {
            if (rc > 0) {
                char *tail = sl_run_tail(out, 600);
                sl_errprintf(err, "mysql_install_db failed (status %d): %s", rc, tail);
                free(tail);
            }
            free(out);
            free(probe);
            free(datadir);
            free(tmpdir);
            return -1;
        }
        free(out);
    }
    free(probe);
    char *sock = sl_xasprintf("--socket=%s/run/mysql.sock", D);
    char *port = sl_xasprintf("--port=%d", c->st.port[SL_D_MYSQLD]);
    char *pidf = sl_xasprintf("--pid-file=%s/run/mysqld.daemon.pid", D);
    char *logf = sl_xasprintf("--log-error=%s/log/mysqld.log", D);
    const char *argv[] = {"mariadbd",
                          "--no-defaults",
                          "--user=root",
                          datadir,
                          tmpdir,
                          sock,
                          port,
                          "--bind-address=127.0.0.1",
                          pidf,
                          logf,
                          "--skip-name-resolve",
                          "--innodb-buffer-pool-size=64M",
                          NULL};
    r = spawn_daemon(c, SL_D_MYSQLD, argv, err);
    free(datadir);
    free(tmpdir);
    free(sock);
    free(port);
    free(pidf);
    free(logf);
    if (r < 0 || wait_tcp(c, SL_D_MYSQLD, UP_WAIT_MS, err) < 0)
        return -1;
    char *sql = sl_xasprintf("CREATE DATABASE IF NOT EXISTS slurm_acct_db;"
                             "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '%s';"
                             "ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '%s';"
                             "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';",
                             c->st.db_pass, c->st.db_pass);
    char *s = sl_xasprintf("--socket=%s/run/mysql.sock", D);
    const char *cargv[] = {"mariadb", "--no-defaults", "-uroot", s, "-e", sql, NULL};
    char *out = NULL;
    int rc = run_client(c, cargv, &out, err);
    if (rc > 0) {
        char *tail = sl_run_tail(out, 600);
        sl_errprintf(err, "creating the accounting database failed: %s", tail);
        free(tail);
    }
    free(out);
    free(s);
    free(sql);
    return rc == 0 ? 0 : -1;
}

static int sacctmgr(upctx_t *c, const char *const *args, sl_error_t *err)
{
    const char *argv[16] = {"sacctmgr", "-i"};
    int n = 2;
    for (; *args && n < 15; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    char *out = NULL;
    int rc = run_client(c, argv, &out, err);
    /* what exists already is success for an idempotent up */
    if (rc > 0 && sl_slurm_sacctmgr_unchanged(out))
        rc = 0;
    if (rc > 0) {
        char *tail = sl_run_tail(out, 600);
        sl_errprintf(err, "sacctmgr %s %s failed: %s", argv[2], argv[3], tail);
        free(tail);
    }
    free(out);
    return rc == 0 ? 0 : -1;
}

static int start_slurmdbd(upctx_t *c, sl_error_t *err)
{
    const char *argv[] = {"slurmdbd", "-D", NULL};
    if (spawn_daemon(c, SL_D_SLURMDBD, argv, err) < 0 ||
        wait_tcp(c, SL_D_SLURMDBD, UP_WAIT_MS, err) < 0)
        return -1;
    const char *a1[] = {"add", "cluster", "slurmlink", NULL};
    return sacctmgr(c, a1, err);
}

static int start_slurmctld(upctx_t *c, sl_error_t *err)
{
    char *conf = cl_path(&c->st, "etc/slurm.conf");
    const char *argv[] = {"slurmctld", "-D", "-i", "-f", conf, NULL};
    int r = spawn_daemon(c, SL_D_SLURMCTLD, argv, err);
    free(conf);
    if (r < 0 || wait_tcp(c, SL_D_SLURMCTLD, UP_WAIT_MS, err) < 0)
        return -1;
    if (c->st.accounting) {
        const char *a1[] = {"add",
                            "account",
                            "default",
                            "Cluster=slurmlink",
                            "Description=default namespace",
                            "Organization=slurmlink",
                            NULL};
        const char *a2[] = {"add", "user", "root", "DefaultAccount=default", "Cluster=slurmlink",
                            NULL};
        /* the pods' default job user, so pods are accounted to "default" */
        const char *a3[] = {"add",
                            "user",
                            c->st.run_as ? c->st.run_as : "nobody",
                            "DefaultAccount=default",
                            "Cluster=slurmlink",
                            NULL};
        if (sacctmgr(c, a1, err) < 0 || sacctmgr(c, a2, err) < 0 || sacctmgr(c, a3, err) < 0)
            return -1;
    }
    return 0;
}

/* 1 if sinfo's line "NAME STATE" says the node is registered and answering
 * ("idle*": known but not responding, not yet schedulable) */
static int node_line_ready(const char *line)
{
    const char *st = strchr(line, ' ');
    if (!st)
        return 0;
    st++;
    size_t n = strcspn(st, "\n");
    if (memchr(st, '*', n))
        return 0;
    return !strncmp(st, "idle", 4) || !strncmp(st, "mixed", 5) || !strncmp(st, "allocated", 9) ||
           !strncmp(st, "drain", 5) || !strncmp(st, "completing", 10);
}

/* the first node among the instances not yet ready in sinfo's out, or 0 */
static int first_unready(upctx_t *c, const char *out)
{
    for (int i = 0; i < cl_inst_count(&c->st); i++) {
        int k = cl_inst_node(&c->st, i);
        if (!k)
            continue;
        char name[24];
        snprintf(name, sizeof(name), "node%d ", k);
        const char *l = out;
        while (l && strncmp(l, name, strlen(name)))
            l = (l = strchr(l, '\n')) ? l + 1 : NULL;
        if (!l || !*l || !node_line_ready(l))
            return k;
    }
    return 0;
}

static int any_slurmd_dead(upctx_t *c, sl_error_t *err)
{
    for (int i = 0; i < cl_inst_count(&c->st); i++)
        if (cl_inst_node(&c->st, i) && !c->kept[i] && alive_or_fail(c, i, err) < 0)
            return 1;
    return alive_or_fail(c, SL_D_SLURMCTLD, err) < 0;
}

/* wait until slurmctld has every node registered and schedulable */
static int wait_node_ready(upctx_t *c, sl_error_t *err)
{
    long long deadline = sl_now_ms() + UP_WAIT_MS + 2000LL * cl_inst_count(&c->st);
    char *last = NULL;
    int k = 1;
    while (sl_now_ms() < deadline) {
        if (any_slurmd_dead(c, err)) {
            free(last);
            return -1;
        }
        const char *argv2[] = {"sinfo", "-h", "-N", "-o", "%N %T", NULL};
        char *out = NULL;
        int rc = run_client(c, argv2, &out, NULL);
        if (rc == 0 && out && !(k = first_unready(c, out))) {
            free(out);
            free(last);
            return 0;
        }
        free(last);
        last = out;
        sl_sleep_ms(200);
    }
    char why[200], name[24];
    snprintf(name, sizeof(name), "node%d ", k);
    const char *l = last ? strstr(last, name) : NULL;
    snprintf(why, sizeof(why), "node%d did not become idle in time (state: %.40s)", k,
             l ? l + strlen(name) : "unknown");
    free(last);
    return daemon_failed(c, k == 1 ? SL_D_SLURMD : SL_D_COUNT + k - 2, why, err);
}

/* slurmctld came back under running slurmds: SIGHUP makes each register
 * again now, instead of when slurmctld's next ping finds it (the node would
 * sit "not responding", its jobs waiting, for tens of seconds) */
static void reregister_kept(upctx_t *c)
{
    for (int i = 0; i < cl_inst_count(&c->st); i++)
        if (cl_inst_node(&c->st, i) && c->kept[i] && c->pid[i] > 0)
            kill(c->pid[i], SIGHUP);
}

/* node K's own munged, with several nodes. One munged for every slurmd of
 * the host makes the second node to decode a step's job credential see a
 * replay, which slurmd refuses from Slurm 23.11 (cred/munge accepts replays
 * only in --enable-multiple-slurmd builds): a step across nodes failed to
 * launch ("Header lengths are longer than data received"). As on a real
 * cluster each node has a munged of its own (the folder's key), its socket
 * bound on D/run/munge.sock in the node's mount namespace (netns.c). It is
 * started with the node's slurmd: one of an earlier start is stopped first
 * (the slurmd that bound its socket is gone); `down` sweeps it with the
 * folder's other processes (it carries the folder's environment). */
static int start_node_munged(upctx_t *c, int k, sl_error_t *err)
{
    const char *D = c->st.dir;
    char *pidf = sl_xasprintf("%s/nodes/node%d/munged.pid", D, k);
    char *old = sl_read_file(pidf, NULL, NULL);
    pid_t pid = old ? (pid_t)atoi(old) : 0;
    if (pid > 0 && cl_pid_belongs(pid, D))
        cl_stop_pid(pid, 10000);
    free(old);
    char *sock = sl_xasprintf("%s/nodes/node%d/munge.sock", D, k);
    char *a[5] = {sl_xasprintf("--socket=%s", sock), sl_xasprintf("--key-file=%s/etc/munge.key", D),
                  sl_xasprintf("--pid-file=%s/nodes/node%d/munged.daemon.pid", D, k),
                  sl_xasprintf("--log-file=%s/log/munged-node%d.log", D, k),
                  sl_xasprintf("--seed-file=%s/nodes/node%d/munged.seed", D, k)};
    const char *argv[] = {"munged", "--foreground", a[0], a[1], a[2], a[3], a[4], NULL};
    char *log = sl_xasprintf("%s/log/munged-node%d.out", D, k);
    sl_spawn_opts_t o = {.envp = (const char *const *)c->env,
                         .stdout_path = log,
                         .stderr_path = log,
                         .stdin_null = 1,
                         .new_session = 1};
    pid = sl_spawn(argv, &o, err);
    for (int i = 0; i < 5; i++)
        free(a[i]);
    char num[24];
    int r = pid < 0 ? -1
                    : sl_write_file(pidf, num, (size_t)snprintf(num, sizeof(num), "%d\n", (int)pid),
                                    0644, err);
    long long deadline = sl_now_ms() + UP_WAIT_MS;
    while (r == 0 && !unix_answers(sock)) {
        int status;
        if (sl_wait_timeout(pid, 0, &status) == 0 || sl_now_ms() > deadline)
            r = sl_errprintf(err, "munged of node%d did not open %s; see %s", k, sock, log);
        else
            sl_sleep_ms(50);
    }
    free(log);
    free(sock);
    free(pidf);
    return r;
}

/* start the slurmd of every node not running, then wait for all of them:
 * node1 on the host, or each node in its namespaces (netns.c) */
static int start_slurmds(upctx_t *c, sl_error_t *err)
{
    char *conf = cl_path(&c->st, "etc/slurm.conf");
    int started = 0, r = 0;
    for (int i = 0; i < cl_inst_count(&c->st) && r == 0; i++) {
        int k = cl_inst_node(&c->st, i);
        if (!k || c->kept[i])
            continue;
        char name[16];
        snprintf(name, sizeof(name), "node%d", k);
        const char *argv[] = {"slurmd", "-D", "-N", name, "-f", conf, NULL};
        if (cl_multi(&c->st) && (start_node_munged(c, k, err) < 0 ||
                                 cl_node_enter_prepare(&c->st, k, &c->enter[k], err) < 0))
            r = -1;
        else
            r = spawn_daemon(c, i, argv, err);
        if (cl_multi(&c->st) && c->enter[k].netns_fd > 0)
            close(c->enter[k].netns_fd);
        started++;
    }
    free(conf);
    if (!c->kept[SL_D_SLURMCTLD])
        reregister_kept(c);
    if (r < 0)
        return -1;
    /* with one node its port answers on the host; nodes in namespaces are
     * waited for through slurmctld alone */
    if (!cl_multi(&c->st) && !c->kept[SL_D_SLURMD] && wait_tcp(c, SL_D_SLURMD, UP_WAIT_MS, err) < 0)
        return -1;
    return started || !c->kept[SL_D_SLURMCTLD] ? wait_node_ready(c, err) : 0;
}

/* a YAML double-quoted scalar (JSON's string syntax is YAML's) */
static char *yq(const char *s)
{
    json_t *j = json_string(s);
    char *q = json_dumps(j, JSON_ENCODE_ANY);
    json_decref(j);
    return q;
}

/* D/shared, a folder every node sees (they are namespaces of this one
 * machine), and D/etc/storage-classes.yaml naming it the default
 * StorageClass "shared" unless the file exists already (an admin's) */
static int write_storage_classes(const char *D, const char *file, sl_error_t *err)
{
    char *root = sl_xasprintf("%s/shared", D), *qr = yq(root);
    int r = sl_mkdir_p(root, 0755, err);
    if (r == 0 && chmod(root, 0755) < 0)
        r = sl_errprintf(err, "%s: %s", root, strerror(errno));
    struct stat sb;
    if (r == 0 && stat(file, &sb) < 0) {
        char *text = sl_xasprintf("# the StorageClasses slurmlinkd serves (docs/pods.md, "
                                  "Storage), written by `slurmlink up`\n"
                                  "classes:\n"
                                  "- name: shared\n"
                                  "  root: %s\n"
                                  "  default: true\n"
                                  "  reclaimPolicy: Delete\n"
                                  "  volumeBindingMode: Immediate\n",
                                  qr);
        r = sl_write_file(file, text, strlen(text), 0644, err);
        free(text);
    }
    free(qr);
    free(root);
    return r;
}

/* the first of DIR/REL... that is an executable file, its path without
 * "..", else NULL */
static char *first_exec(const char *dir, const char *const *rel, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *p = sl_xasprintf("%s/%s", dir, rel[i]);
        char *real = access(p, X_OK) == 0 ? realpath(p, NULL) : NULL;
        free(p);
        if (real)
            return real;
    }
    return NULL;
}

/* the shim of the slurmlinkd DAEMON: beside it (a build folder), else where
 * make install puts it, LIBEXECDIR/slurmlink with LIBEXECDIR beside SBINDIR
 * (slurmlinkd's own default, sl_config_default_shim) */
static char *shim_of(const char *daemon)
{
    char *dir = sl_xstrdup(daemon), *slash = strrchr(dir, '/');
    if (!slash) {
        free(dir);
        return sl_xstrdup("slurmlink-shim");
    }
    *slash = '\0';
    static const char *const rel[] = {"slurmlink-shim", "../libexec/slurmlink/slurmlink-shim"};
    char *shim = first_exec(dir, rel, 2);
    if (!shim)
        shim = sl_xasprintf("%s/slurmlink-shim", dir);
    free(dir);
    return shim;
}

/* D/etc/slurmlinkd.conf: the folder's daemon settings in the configuration
 * file a site writes (docs/configuration.md), so the embedded cluster and
 * an installed slurmlinkd read the same file through the same code */
static int write_daemon_conf(upctx_t *c, const char *daemon, sl_error_t *err)
{
    const char *D = c->st.dir;
    char *path = sl_xasprintf("%s/etc/slurmlinkd.conf", D);
    char listen[16];
    api_addr(&c->st, listen);
    char *shim = shim_of(daemon);
    char *p[] = {
        sl_xasprintf("%s/slurmlinkd", D),
        sl_xasprintf("%s/etc/slurm.conf", D),
        sl_xasprintf("%s/pods", D),
        sl_xasprintf("%s/images", D),
        shim,
        sl_xasprintf("%s/pki/server.crt", D),
        sl_xasprintf("%s/pki/server.key", D),
        sl_xasprintf("%s/pki/ca.crt", D),
        sl_xasprintf("%s/etc/tokens.csv", D),
        sl_xasprintf("%s/etc/policy.yaml", D),
        sl_xasprintf("%s/etc/storage-classes.yaml", D),
    };
    enum { N = sizeof(p) / sizeof(p[0]) };
    char *q[N];
    for (int i = 0; i < N; i++)
        q[i] = yq(p[i]);
    /* nobody, slurmlinkd's default, is left unsaid */
    const char *user = c->st.run_as ? c->st.run_as : "nobody";
    char *run_as =
        strcmp(user, "nobody") ? sl_xasprintf("  run_as: \"%s\"\n", user) : sl_xstrdup("");
    char *text =
        sl_xasprintf("# slurmlinkd.conf of the cluster folder %s, written by `slurmlink up`\n"
                     "# (keys: docs/configuration.md)\n"
                     "listen:\n  address: \"%s\"\n  port: %d\n"
                     "tls:\n  cert: %s\n  key: %s\n"
                     "auth:\n  policy: %s\n  client_ca: %s\n  token_file: %s\n"
                     "state:\n  dir: %s\n"
                     "slurm:\n  conf: %s\n%s"
                     "pods:\n  root: %s\n"
                     "images:\n  store: %s\n  unpack_user: \"%s\"\n"
                     "shim:\n  path: %s\n  report_ca: %s\n"
                     "storage:\n  classes: %s\n",
                     D, listen, c->st.port[SL_D_SLURMLINKD], q[5], q[6], q[9], q[7], q[8], q[0],
                     q[1], run_as, q[2], q[3], SL_IMAGE_PULL_USER, q[4], q[7], q[10]);
    int r = sl_mkdir_p(p[0], 0700, err);
    if (r == 0)
        r = write_storage_classes(D, p[10], err);
    if (r == 0)
        r = sl_write_file(path, text, strlen(text), 0644, err);
    for (int i = 0; i < N; i++) {
        free(p[i]);
        free(q[i]);
    }
    free(text);
    free(run_as);
    free(path);
    return r;
}

static int start_slurmlinkd(upctx_t *c, const char *daemon, sl_error_t *err)
{
    const char *D = c->st.dir;
    char *conf = sl_xasprintf("%s/etc/slurmlinkd.conf", D);
    char *ca = sl_xasprintf("%s/pki/ca.crt", D);
    char listen[16];
    api_addr(&c->st, listen);
    const char *argv[] = {daemon, "--config", conf, NULL};
    int r = write_daemon_conf(c, daemon, err);
    if (r == 0)
        r = spawn_daemon(c, SL_D_SLURMLINKD, argv, err);
    free(conf);
    if (r < 0 || wait_tcp(c, SL_D_SLURMLINKD, UP_WAIT_MS, err) < 0) {
        free(ca);
        return -1;
    }
    /* a real answer over verified TLS to the admin's certificate, not just
     * an open port */
    char *url = sl_xasprintf("https://%s:%d/healthz", listen, c->st.port[SL_D_SLURMLINKD]);
    char *acrt = sl_xasprintf("%s/pki/admin.crt", D), *akey = sl_xasprintf("%s/pki/admin.key", D);
    const char *cargv[] = {"curl",   "-sf", "--max-time", "5",  "--cacert", ca,
                           "--cert", acrt,  "--key",      akey, url,        NULL};
    char *out = NULL;
    int rc = sl_run(cargv, NULL, 0, 10000, &out, NULL);
    free(url);
    free(acrt);
    free(akey);
    free(ca);
    int ok = rc == 0 && out && !strncmp(out, "ok", 2);
    free(out);
    if (!ok)
        return daemon_failed(c, SL_D_SLURMLINKD, "did not answer /healthz", err);
    return 0;
}

static int folder_running(const cl_state_t *st, int *alive, int *expect)
{
    *alive = *expect = 0;
    for (int id = 0; id < cl_inst_count(st); id++) {
        if (!cl_expected(st, id))
            continue;
        (*expect)++;
        if (cl_pid_belongs(cl_pidfile_read(st, id), st->dir))
            (*alive)++;
    }
    return *alive;
}

static void clean_run_dir(const cl_state_t *st)
{
    static const char *files[] = {
        "munge.sock",          "mysql.sock",           "munged.daemon.pid", "mysqld.daemon.pid",
        "slurmdbd.daemon.pid", "slurmctld.daemon.pid", "slurmd.daemon.pid", NULL};
    for (int id = 0; id < cl_inst_count(st); id++) {
        char name[32];
        char *p = sl_xasprintf("%s/run/%s.pid", st->dir, cl_inst_name(st, id, name, 32));
        unlink(p);
        free(p);
        if (cl_inst_node(st, id) && cl_multi(st)) {
            p = sl_xasprintf("%s/run/%s.daemon.pid", st->dir, name);
            unlink(p);
            free(p);
        }
    }
    for (int i = 0; files[i]; i++) {
        char *p = sl_xasprintf("%s/run/%s", st->dir, files[i]);
        unlink(p);
        free(p);
    }
}

static char *random_pass(void)
{
    unsigned char b[12];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
        memset(b, 0x5a, sizeof(b));
    if (fd >= 0)
        close(fd);
    char *s = sl_xcalloc(1, 2 * sizeof(b) + 1);
    for (size_t i = 0; i < sizeof(b); i++)
        sprintf(s + 2 * i, "%02x", b[i]);
    return s;
}

static void print_up(const upctx_t *c, FILE *out)
{
    const cl_state_t *st = &c->st;
    int order[CL_MAX_INST];
    int n = cl_inst_order(st, order);
    char name[32], a[16];
    int w = cl_multi(st) ? 12 : 10;
    fprintf(out, "slurmlink: cluster up in %s\n", st->dir);
    for (int i = 0; i < n; i++) {
        int id = order[i], k = cl_inst_node(st, id);
        cl_inst_name(st, id, name, sizeof(name));
        if (k && cl_multi(st)) {
            cl_net_addr(st, k, a);
            fprintf(out, "  %-*s pid %-7d %s port %d\n", w, name, (int)c->pid[id], a,
                    st->port[SL_D_SLURMD]);
        } else if (st->port[cl_inst_daemon(id)])
            fprintf(out, "  %-*s pid %-7d port %d\n", w, name, (int)c->pid[id],
                    st->port[cl_inst_daemon(id)]);
        else
            fprintf(out, "  %-*s pid %-7d socket %s/run/munge.sock\n", w, name, (int)c->pid[id],
                    st->dir);
    }
    if (cl_multi(st)) {
        cl_net_addr(st, 0, a);
        fprintf(out, "  node1..node%d: %d CPUs, %d GPU%s each; bridge sl%sbr %s/24\n", st->nodes,
                st->cpus, st->gpus, st->gpus == 1 ? "" : "s", st->net_tag, a);
    } else
        fprintf(out, "  node1: %d CPUs, %d GPU%s%s%s\n", st->cpus, st->gpus,
                st->gpus == 1 ? "" : "s", st->gpus ? " on " : "", st->gpus ? st->gpu_files : "");
    if (st->gpus > 0 && (st->gpu_types || st->shards > 0))
        fprintf(out, "  GPU types %s; %d shard%s per GPU\n",
                st->gpu_types ? st->gpu_types : "none (untyped)", st->shards,
                st->shards == 1 ? "" : "s");
    fprintf(out, "export KUBECONFIG=%s/kubeconfig\nexport SLURM_CONF=%s/etc/slurm.conf\n", st->dir,
            st->dir);
}

/* root, and a folder path short enough for the sockets inside it: the
 * folder's absolute path, or NULL */
static char *up_dir(const sl_cluster_opts_t *opts, sl_error_t *err)
{
    if (geteuid() != 0) {
        errno = EPERM;
        sl_errprintf(err, "must run as root (slurmd runs jobs as their users, munged and "
                          "GPU device nodes need root)");
        return NULL;
    }
    char *dir = sl_abspath(opts->dir);
    if (strlen(dir) > 80) {
        errno = ENAMETOOLONG;
        sl_errprintf(err, "folder path %s is too long (sockets inside it must fit 108 bytes)", dir);
        free(dir);
        return NULL;
    }
    return dir;
}

/* some daemons of old still run: keep them (c->kept, c->pid), to start only
 * the dead ones, with the folder's own options and ports; the number kept,
 * or -1 when opts asks for other options */
static int keep_alive(upctx_t *c, const cl_state_t *old, const char *dir, int alive,
                      sl_error_t *err)
{
    const sl_cluster_opts_t *opts = c->opts;
    if ((opts->gpus >= 0 && opts->gpus != old->gpus) ||
        (opts->cpus > 0 && opts->cpus != old->cpus) ||
        (opts->shards >= 0 && opts->shards != old->shards) ||
        (opts->gpu_types && strcmp(opts->gpu_types, old->gpu_types ? old->gpu_types : "")) ||
        (opts->nodes > 0 && opts->nodes != old->nodes) ||
        (opts->accounting >= 0 && opts->accounting != old->accounting)) {
        errno = EBUSY;
        return sl_errprintf(err,
                            "%s still runs %d daemon%s with other options; run slurmlink "
                            "down --dir %s first",
                            dir, alive, alive == 1 ? "" : "s", dir);
    }
    int nkept = 0;
    for (int id = 0; id < cl_inst_count(old); id++) {
        pid_t pid = cl_pidfile_read(old, id);
        if (cl_expected(old, id) && cl_pid_belongs(pid, old->dir)) {
            c->kept[id] = 1;
            c->pid[id] = pid;
            nkept++;
        }
    }
    return nkept;
}

/* pidfiles left: a run that was killed; say which daemons will be started */
static void report_stale(const upctx_t *c, const cl_state_t *old, const char *dir, int alive,
                         int expect)
{
    int stale = 0;
    for (int id = 0; id < cl_inst_count(old); id++)
        if (cl_expected(old, id) && cl_pidfile_read(old, id) > 0)
            stale++;
    if (!c->out || c->opts->quiet || !stale)
        return;
    fprintf(c->out,
            "slurmlink: %s was left by an earlier run (%d of %d daemons alive); "
            "recovering:",
            dir, alive, expect);
    char name[32];
    for (int id = 0; id < cl_inst_count(old); id++)
        if (cl_expected(old, id) && !c->kept[id])
            fprintf(c->out, " %s", cl_inst_name(old, id, name, sizeof(name)));
    fprintf(c->out, " will be started\n");
}

/* the folder's earlier run, loaded into old: 1 when all its daemons run
 * (nothing to do), -1 on an error (old is cleared then), else 0 with the
 * daemons kept in *nkept and, with none kept, the leftovers cleaned */
static int recover(upctx_t *c, cl_state_t *old, const char *dir, int *nkept, sl_error_t *err)
{
    int alive, expect;
    folder_running(old, &alive, &expect);
    if (alive == expect) {
        if (c->out)
            fprintf(c->out, "slurmlink: the cluster in %s is already running; nothing changed\n",
                    dir);
        cl_state_clear(old);
        return 1;
    }
    if (alive > 0 && (*nkept = keep_alive(c, old, dir, alive, err)) < 0) {
        cl_state_clear(old);
        return -1;
    }
    report_stale(c, old, dir, alive, expect);
    if (!*nkept) {
        cl_sweep(dir); /* leftovers such as job steps */
        clean_run_dir(old);
        cl_net_down(old); /* namespaces and links a killed run left */
    }
    return 0;
}

/* c->st from opts; options not given keep what the folder was started with */
static void init_state(upctx_t *c, char *dir, const cl_state_t *old)
{
    const sl_cluster_opts_t *opts = c->opts;
    c->st.dir = dir;
    c->st.gpus = opts->gpus >= 0 ? opts->gpus : old ? old->gpus : 2;
    const char *types = opts->gpu_types ? opts->gpu_types : old ? old->gpu_types : NULL;
    c->st.gpu_types = types && *types ? sl_xstrdup(types) : NULL;
    c->st.shards = opts->shards >= 0 ? opts->shards : old ? old->shards : 0;
    c->st.cpus = opts->cpus > 0         ? opts->cpus
                 : old && old->cpus > 0 ? old->cpus
                                        : (int)sysconf(_SC_NPROCESSORS_ONLN);
    c->st.accounting = opts->accounting >= 0 ? opts->accounting : old ? old->accounting : 0;
    c->st.nodes = opts->nodes > 0 ? opts->nodes : old ? old->nodes : 1;
    c->st.no_slurmlinkd = opts->no_slurmlinkd;
    c->st.db_pass = old && old->db_pass ? sl_xstrdup(old->db_pass) : random_pass();
}

/* slurmlinkd: opts, else $SLURMLINKD, else next to this program (a build
 * folder), else where make install puts it: ../sbin of this program's
 * folder (BINDIR and SBINDIR of one prefix, also beneath a DESTDIR), then
 * the SBINDIR compiled in. None there: the path beside this program, which
 * check_progs names */
static char *daemon_path(const sl_cluster_opts_t *opts)
{
    if (opts->daemon)
        return sl_xstrdup(opts->daemon);
    const char *envd = getenv("SLURMLINKD");
    if (envd && *envd)
        return sl_xstrdup(envd);
    char *self = sl_self_dir();
    static const char *const rel[] = {"slurmlinkd", "../sbin/slurmlinkd"};
    const char *sbin = SL_SBINDIR "/slurmlinkd";
    char *daemon = first_exec(self, rel, 2);
    if (!daemon && access(sbin, X_OK) == 0)
        daemon = sl_xstrdup(sbin);
    if (!daemon)
        daemon = sl_xasprintf("%s/slurmlinkd", self);
    free(self);
    return daemon;
}

/* the folder and its subfolders. Jobs run as unprivileged users: they must
 * traverse the folder to their pod folders (0700 each, their own) and read
 * the image store; the logs are root's alone (they name every tenant's
 * pods, jobs and refusals) */
static int make_dirs(upctx_t *c, sl_error_t *err)
{
    static const struct {
        const char *name;
        mode_t mode;
    } subdirs[] = {{"etc", 0755},   {"run", 0755},        {"log", 0700},  {"state", 0700},
                   {"spool", 0755}, {"slurmlinkd", 0700}, {"pods", 0711}, {"images", 0755},
                   {"pmix", 0755},  {"db-tmp", 0700}};
    const char *dir = c->st.dir;
    if (sl_mkdir_p(dir, 0711, err) < 0)
        return -1;
    /* a folder (or parent) someone else made since the first check */
    if (cl_trust_parents(dir, err) < 0 || cl_trust_folder(dir, err) < 0) {
        c->untrusted = 1;
        return -1;
    }
    if (chmod(dir, 0711) < 0)
        return sl_errprintf(err, "cannot prepare %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
        char *p = cl_path(&c->st, subdirs[i].name);
        int r = sl_mkdir_p(p, subdirs[i].mode, err);
        if (r == 0)
            chmod(p, subdirs[i].mode);
        free(p);
        if (r < 0)
            return -1;
    }
    return 0;
}

/* the daemons not kept, in order: munged, MariaDB and slurmdbd, slurmctld,
 * the slurmds, slurmlinkd (or its configuration only); the kubeconfig */
static int start_daemons(upctx_t *c, const char *daemon, sl_error_t *err)
{
    if (!c->kept[SL_D_MUNGED] && start_munged(c, err) < 0)
        return -1;
    if (c->st.accounting && ((!c->kept[SL_D_MYSQLD] && start_mysqld(c, err) < 0) ||
                             (!c->kept[SL_D_SLURMDBD] && start_slurmdbd(c, err) < 0)))
        return -1;
    if ((!c->kept[SL_D_SLURMCTLD] && start_slurmctld(c, err) < 0) || start_slurmds(c, err) < 0 ||
        (!c->st.no_slurmlinkd && !c->kept[SL_D_SLURMLINKD] &&
         start_slurmlinkd(c, daemon, err) < 0) ||
        (c->st.no_slurmlinkd && write_daemon_conf(c, daemon, err) < 0) ||
        cl_write_kubeconfig(&c->st, err) < 0)
        return -1;
    return 0;
}

/* the folder prepared (subfolders, network, node files, ports, GPUs, the
 * configurations, the munge key, the PKI, cluster.json), then the daemons */
static int bring_up(upctx_t *c, const cl_state_t *old, const char *daemon, sl_error_t *err)
{
    if (check_progs(c, daemon, err) < 0 || make_dirs(c, err) < 0 || cl_ensure_pull_user(err) < 0 ||
        !(c->st.run_as = cl_run_as_user(c->st.accounting, err)))
        return -1;
    if (cl_net_plan(&c->st, old, err) < 0 || cl_net_up(&c->st, err) < 0 ||
        cl_node_files(&c->st, err) < 0 || pick_ports(c, old, err) < 0 ||
        cl_make_gpus(&c->st, err) < 0 || cl_write_confs(&c->st, err) < 0 ||
        ensure_munge_key(c, err) < 0 || cl_ensure_security(&c->st, err) < 0 ||
        cl_state_save(&c->st, err) < 0)
        return -1;
    c->env = cl_env(&c->st);
    return start_daemons(c, daemon, err);
}

/* leave nothing half-started behind */
static void undo_up(upctx_t *c, int nkept)
{
    for (int id = CL_MAX_INST - 1; id >= 0; id--)
        if (c->pid[id] && !c->kept[id])
            cl_stop_pid(c->pid[id], 3000);
    if (!nkept && !c->untrusted) {
        cl_sweep(c->st.dir);
        clean_run_dir(&c->st);
        cl_net_down(&c->st);
    }
}

int sl_cluster_up(const sl_cluster_opts_t *opts, FILE *out, sl_error_t *err)
{
    upctx_t c = {.opts = opts, .out = out};
    cl_state_t old;
    int have_old = 0, nkept = 0;
    char *dir = up_dir(opts, err);
    if (!dir)
        return -1;
    /* before anything is read, started or written: a folder another user
     * made or can swap would hand them the cluster */
    if (cl_trust_parents(dir, err) < 0 || cl_trust_folder(dir, err) < 0) {
        free(dir);
        return -1;
    }
    SL_FAULT("up-checked"); /* with hold=: a folder made by another user right after the check */
    if (cl_state_load(dir, &old, NULL) == 0) {
        int r = recover(&c, &old, dir, &nkept, err);
        if (r != 0) {
            free(dir);
            return r;
        }
        have_old = 1;
    }
    init_state(&c, dir, have_old ? &old : NULL);
    char *daemon = daemon_path(opts);
    int rc = bring_up(&c, have_old ? &old : NULL, daemon, err);
    if (rc == 0 && out)
        print_up(&c, out);
    if (rc < 0)
        undo_up(&c, nkept);
    if (have_old)
        cl_state_clear(&old);
    cl_env_free(c.env);
    free(daemon);
    cl_state_clear(&c.st);
    return rc;
}
