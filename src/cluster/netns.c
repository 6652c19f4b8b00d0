/* netns.c — the network of a folder with several nodes (`up --nodes N`).
 *
 * Debian's slurmd is built without --enable-multiple-slurmd, so each node is
 * a slurmd in a network namespace of its own. Everything is named from a
 * short hash of the folder path (the tag), so folders never share a name:
 *   bridge     sl<tag>br        on the host, address 198.18.x.1/24
 *   namespace  sl<tag>-nodeK    link eth0, address 198.18.x.(10+K)/24
 *   veth       sl<tag>hK        the host end, a port of the bridge
 * The /24 is the folder's own inside 198.18.0.0/15 (RFC 2544's benchmarking
 * range): the first one, from the tag's hash on, that no interface on the
 * host has an address in. cluster.json records tag, subnet and node count;
 * `down` and a recovering `up` remove every namespace and link of the tag
 * (including ones a killed run made beyond the recorded count).
 *
 * Links and namespaces are made with iproute2's `ip` (argv vectors). Each
 * slurmd also gets a UTS namespace (its hostname is the node name) and a
 * mount namespace in which D/nodes/hosts covers /etc/hosts, so node names
 * resolve on every node without touching anything outside the folder, and
 * D/nodes/nodeK/pmix covers D/pmix: etc/mpi.conf names one
 * PMIxCliTmpDirBase for every node, and Slurm's PMIx plugin gives a step's
 * client folder the same name on each node of the step (spmix_appdir_UID_
 * JOB.STEP), so on one shared folder the second node's mkdir fails with
 * EEXIST; each node now has a folder of its own behind the same path.
 * Likewise each node's munged (up.c) has its socket D/nodes/nodeK/munge.sock
 * bound on D/run/munge.sock, the AuthInfo socket of the one slurm.conf. */
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "internal.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define NETNS_RUN "/run/netns"

static uint32_t subnet_base(int subnet)
{
    return (198u << 24) | ((18u + (uint32_t)subnet / 256) << 16) | ((uint32_t)subnet % 256) << 8;
}

void cl_net_addr(const cl_state_t *st, int node, char buf[16])
{
    uint32_t a = subnet_base(st->subnet) | (node == 0 ? 1u : 10u + (uint32_t)node);
    snprintf(buf, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

void cl_net_ns(const cl_state_t *st, int node, char *buf, size_t len)
{
    snprintf(buf, len, "sl%s-node%d", st->net_tag, node);
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* 1 if an interface other than own_bridge has an IPv4 address in the /24 */
static int subnet_taken(int subnet, const char *own_bridge)
{
    struct ifaddrs *ifa = NULL;
    if (getifaddrs(&ifa) < 0)
        return 1;
    int taken = 0;
    for (struct ifaddrs *i = ifa; i && !taken; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !strcmp(i->ifa_name, own_bridge))
            continue;
        uint32_t a = ntohl(((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr);
        taken = (a & 0xffffff00u) == subnet_base(subnet);
    }
    freeifaddrs(ifa);
    return taken;
}

/* the first free /24 from first on, or -1 */
static int free_subnet(int first, const char *br)
{
    for (int i = 0; i < 512; i++)
        if (!subnet_taken((first + i) % 512, br))
            return (first + i) % 512;
    return -1;
}

int cl_net_plan(cl_state_t *st, const cl_state_t *old, sl_error_t *err)
{
    free(st->net_tag);
    st->net_tag = NULL;
    if (st->nodes <= 1)
        return 0;
    uint32_t h = fnv1a(st->dir);
    st->net_tag = sl_xasprintf("%06x", h & 0xffffffu);
    char br[24];
    snprintf(br, sizeof(br), "sl%sbr", st->net_tag);
    int first = old && old->net_tag && !strcmp(old->net_tag, st->net_tag) ? old->subnet
                                                                          : (int)(h >> 24) * 2;
    if ((st->subnet = free_subnet(first, br)) >= 0)
        return 0;
    errno = EADDRINUSE;
    return sl_errprintf(err, "no free /24 left in 198.18.0.0/15 for the nodes' network");
}

static int ip(sl_error_t *err, const char *const *args)
{
    const char *argv[24] = {"ip"};
    int n = 1;
    for (; *args && n < 23; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    char *out = NULL;
    int rc = sl_run(argv, NULL, 1, 10000, &out, err);
    if (rc > 0) {
        char cmd[256] = "";
        for (int i = 1; i < n; i++)
            snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s", argv[i]);
        char *tail = sl_run_tail(out, 400);
        sl_errprintf(err, "ip%s failed: %s", cmd, tail);
        free(tail);
    }
    free(out);
    return rc == 0 ? 0 : -1;
}

static int exists_link(const char *name)
{
    char p[64];
    snprintf(p, sizeof(p), "/sys/class/net/%s", name);
    return access(p, F_OK) == 0;
}

static int exists_ns(const char *name)
{
    char p[96];
    snprintf(p, sizeof(p), NETNS_RUN "/%s", name);
    return access(p, F_OK) == 0;
}

static int bridge_up(const cl_state_t *st, const char *br, sl_error_t *err)
{
    char a[16], cidr[24];
    cl_net_addr(st, 0, a);
    snprintf(cidr, sizeof(cidr), "%s/24", a);
    if (!exists_link(br)) {
        const char *add[] = {"link", "add", br, "type", "bridge", NULL};
        const char *addr[] = {"addr", "add", cidr, "dev", br, NULL};
        if (ip(err, add) < 0 || ip(err, addr) < 0)
            return -1;
    }
    const char *up[] = {"link", "set", br, "up", NULL};
    return ip(err, up);
}

static int node_net_up(const cl_state_t *st, const char *br, int k, sl_error_t *err)
{
    char ns[48], veth[24], a[16], cidr[24];
    cl_net_ns(st, k, ns, sizeof(ns));
    snprintf(veth, sizeof(veth), "sl%sh%d", st->net_tag, k);
    cl_net_addr(st, k, a);
    snprintf(cidr, sizeof(cidr), "%s/24", a);
    if (exists_ns(ns) && exists_link(veth))
        return 0; /* a living node's, or one a killed run left whole */
    if (exists_link(veth)) {
        const char *del[] = {"link", "del", veth, NULL};
        ip(NULL, del);
    }
    if (!exists_ns(ns)) {
        const char *add[] = {"netns", "add", ns, NULL};
        if (ip(err, add) < 0)
            return -1;
    }
    const char *pair[] = {"link", "add",  veth,    "type", "veth", "peer",
                          "name", "eth0", "netns", ns,     NULL};
    const char *port[] = {"link", "set", veth, "master", br, "up", NULL};
    const char *addr[] = {"-n", ns, "addr", "add", cidr, "dev", "eth0", NULL};
    const char *eth[] = {"-n", ns, "link", "set", "eth0", "up", NULL};
    const char *lo[] = {"-n", ns, "link", "set", "lo", "up", NULL};
    if (ip(err, pair) < 0 || ip(err, port) < 0 || ip(err, addr) < 0 || ip(err, eth) < 0 ||
        ip(err, lo) < 0)
        return -1;
    return 0;
}

/* Make the bridge on the folder's /24. Another folder's `up` may have chosen
 * the same free /24 at the same moment: whoever finds another interface on
 * it after adding its bridge takes the bridge down again and moves on to a
 * free /24 a pid-dependent step further (so two that collided part). A
 * bridge that existed (living nodes) is kept as it is. */
static int bridge_claim(cl_state_t *st, const char *br, sl_error_t *err)
{
    int had = exists_link(br);
    for (int tries = 0; tries < 16; tries++) {
        if (bridge_up(st, br, err) < 0)
            return -1;
        if (had || !subnet_taken(st->subnet, br))
            return 0;
        const char *del[] = {"link", "del", br, NULL};
        int step = 1 + (int)(((unsigned)getpid() + 7919u * (unsigned)tries) % 97u);
        if (ip(err, del) < 0 || (st->subnet = free_subnet(st->subnet + step, br)) < 0)
            break;
    }
    errno = EADDRINUSE;
    return sl_errprintf(err, "no /24 in 198.18.0.0/15 stayed free for the nodes' network");
}

int cl_net_up(cl_state_t *st, sl_error_t *err)
{
    if (!cl_multi(st))
        return 0;
    if (sl_mkdir_p(NETNS_RUN, 0755, err) < 0)
        return -1;
    char br[24];
    snprintf(br, sizeof(br), "sl%sbr", st->net_tag);
    if (bridge_claim(st, br, err) < 0)
        return -1;
    for (int k = 1; k <= st->nodes; k++)
        if (node_net_up(st, br, k, err) < 0)
            return -1;
    return 0;
}

/* delete every entry of dir whose name starts with prefix, with `ip ARGS name` */
static int remove_named(const char *dir, const char *prefix, const char *kind)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, strlen(prefix)))
            continue;
        const char *ns[] = {"netns", "del", de->d_name, NULL};
        const char *link[] = {"link", "del", de->d_name, NULL};
        if (ip(NULL, !strcmp(kind, "netns") ? ns : link) == 0)
            n++;
    }
    closedir(d);
    return n;
}

int cl_net_down(const cl_state_t *st)
{
    if (!st->net_tag)
        return 0;
    char prefix[24];
    snprintf(prefix, sizeof(prefix), "sl%s-node", st->net_tag);
    int n = remove_named(NETNS_RUN, prefix, "netns"); /* takes each veth pair along */
    snprintf(prefix, sizeof(prefix), "sl%sh", st->net_tag);
    n += remove_named("/sys/class/net", prefix, "link"); /* a pair whose namespace is gone */
    snprintf(prefix, sizeof(prefix), "sl%sbr", st->net_tag);
    n += remove_named("/sys/class/net", prefix, "link");
    return n;
}

static int write_hosts(const cl_state_t *st, sl_error_t *err)
{
    char a[16], host[64] = "";
    gethostname(host, sizeof(host) - 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cl_net_addr(st, 0, a);
    fprintf(f,
            "# generated by slurmlink up: every node of %s\n127.0.0.1\tlocalhost\n"
            "::1\tlocalhost ip6-localhost ip6-loopback\n%s\tslurmlink-host %s\n",
            st->dir, a, host);
    for (int k = 1; k <= st->nodes; k++) {
        cl_net_addr(st, k, a);
        fprintf(f, "%s\tnode%d\n", a, k);
    }
    fclose(f);
    char *p = cl_path(st, "nodes/hosts");
    int r = sl_write_file(p, buf, len, 0644, err);
    free(p);
    free(buf);
    return r;
}

int cl_node_files(const cl_state_t *st, sl_error_t *err)
{
    if (!cl_multi(st))
        return 0;
    for (int k = 1; k <= st->nodes; k++) {
        static const char *const sub[] = {"spool", "pmix"};
        for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
            char *p = sl_xasprintf("%s/nodes/node%d/%s", st->dir, k, sub[i]);
            int r = sl_mkdir_p(p, 0755, err);
            if (r == 0)
                chmod(p, 0755);
            free(p);
            if (r < 0)
                return -1;
        }
    }
    return write_hosts(st, err);
}

int cl_node_enter_prepare(const cl_state_t *st, int node, cl_node_enter_t *ne, sl_error_t *err)
{
    char ns[48], path[96];
    int n = snprintf(ne->node_pmix, sizeof(ne->node_pmix), "%s/nodes/node%d/pmix", st->dir, node);
    if (n < 0 || (size_t)n >= sizeof(ne->node_pmix))
        return sl_errprintf(err, "%s: the folder path is too long", st->dir);
    snprintf(ne->pmix, sizeof(ne->pmix), "%s/pmix", st->dir);
    snprintf(ne->node_munge, sizeof(ne->node_munge), "%s/nodes/node%d/munge.sock", st->dir, node);
    snprintf(ne->munge, sizeof(ne->munge), "%s/run/munge.sock", st->dir);
    cl_net_ns(st, node, ns, sizeof(ns));
    snprintf(path, sizeof(path), NETNS_RUN "/%s", ns);
    ne->netns_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (ne->netns_fd < 0)
        return sl_errprintf(err, "open %s: %s", path, strerror(errno));
    snprintf(ne->hostname, sizeof(ne->hostname), "node%d", node);
    snprintf(ne->hosts, sizeof(ne->hosts), "%s/nodes/hosts", st->dir);
    return 0;
}

static void say(const char *what)
{
    char msg[160];
    int n =
        snprintf(msg, sizeof(msg), "slurmlink: entering the node: %s: %s\n", what, strerror(errno));
    ssize_t w = write(2, msg, n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : 0);
    (void)w;
}

int cl_node_enter(void *arg)
{
    const cl_node_enter_t *ne = arg;
    if (setns(ne->netns_fd, CLONE_NEWNET) < 0)
        return say("setns"), -1;
    if (unshare(CLONE_NEWUTS | CLONE_NEWNS) < 0)
        return say("unshare"), -1;
    if (sethostname(ne->hostname, strlen(ne->hostname)) < 0)
        return say("sethostname"), -1;
    /* nothing mounted here reaches the host's mount namespace */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return say("mount --make-rprivate /"), -1;
    if (mount(ne->hosts, "/etc/hosts", NULL, MS_BIND, NULL) < 0)
        return say("bind D/nodes/hosts on /etc/hosts"), -1;
    if (mount(ne->node_pmix, ne->pmix, NULL, MS_BIND, NULL) < 0)
        return say("bind D/nodes/nodeK/pmix on D/pmix"), -1;
    if (mount(ne->node_munge, ne->munge, NULL, MS_BIND, NULL) < 0)
        return say("bind D/nodes/nodeK/munge.sock on D/run/munge.sock"), -1;
    return 0;
}
