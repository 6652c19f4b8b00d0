/* Several nodes: daemon instances, names and addresses, the network record
 * in cluster.json (a tag that is not one `up` writes is never used), each
 * node's own folders (spool, and pmix: bound on D/pmix in its namespace). */
#include "cluster/internal.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void instances(void)
{
    cl_state_t st = {.dir = "/tmp/x", .nodes = 1};
    int order[CL_MAX_INST];
    char name[32];
    is_int(cl_inst_order(&st, order), 4, "one node, no accounting: 4 daemons");
    is_str(cl_inst_name(&st, order[2], name, sizeof(name)), "slurmd", "one node: slurmd");
    st.nodes = 16;
    st.net_tag = "abc123";
    st.accounting = 1;
    is_int(cl_inst_order(&st, order), 21, "16 nodes with accounting: 21 daemons");
    is_str(cl_inst_name(&st, order[4], name, sizeof(name)), "slurmd-node1", "node1's slurmd first");
    is_str(cl_inst_name(&st, order[19], name, sizeof(name)), "slurmd-node16",
           "node16's slurmd last of the nodes");
    is_int(order[20], SL_D_SLURMLINKD, "slurmlinkd after every node");
    is_int(cl_inst_node(&st, order[19]), 16, "its node number");
    is_int(cl_inst_daemon(order[19]), SL_D_SLURMD, "it is a slurmd");
    ok(!cl_expected(&st, SL_D_COUNT + 15), "no node17 is expected");
}

static void addresses(void)
{
    cl_state_t st = {.dir = "/tmp/x", .nodes = 4, .net_tag = "abc123", .subnet = 300};
    char a[16], ns[48];
    cl_net_addr(&st, 0, a);
    is_str(a, "198.19.44.1", "subnet 300: the bridge is 198.19.44.1");
    cl_net_addr(&st, 4, a);
    is_str(a, "198.19.44.14", "node4 is .14");
    cl_net_ns(&st, 4, ns, sizeof(ns));
    is_str(ns, "slabc123-node4", "node4's namespace");
    st.subnet = 511;
    cl_net_addr(&st, 64, a);
    is_str(a, "198.19.255.74", "the last /24 of 198.18.0.0/15 holds node64");
}

static void record(const char *d)
{
    cl_state_t st = {
        .dir = sl_xstrdup(d), .nodes = 3, .net_tag = sl_xstrdup("0f0f0f"), .subnet = 7};
    ok(cl_state_save(&st, NULL) == 0, "save a 3-node folder");
    cl_state_t back;
    ok(cl_state_load(d, &back, NULL) == 0, "load it");
    ok(back.nodes == 3 && back.subnet == 7 && back.net_tag && !strcmp(back.net_tag, "0f0f0f"),
       "nodes, subnet and tag come back");
    cl_state_clear(&back);
    char *p = sl_xasprintf("%s/cluster.json", d);
    const char *bad = "{\"network\": {\"nodes\": 3, \"tag\": \"x;rm -rf\", \"subnet\": 7}}";
    sl_write_file(p, bad, strlen(bad), 0600, NULL);
    ok(cl_state_load(d, &back, NULL) == 0 && back.nodes == 1 && !back.net_tag,
       "a tag up never writes is not taken: one node, no network");
    cl_state_clear(&back);
    const char *far = "{\"network\": {\"nodes\": 3, \"tag\": \"0f0f0f\", \"subnet\": 512}}";
    sl_write_file(p, far, strlen(far), 0600, NULL);
    ok(cl_state_load(d, &back, NULL) == 0 && !back.net_tag, "a subnet outside the range neither");
    cl_state_clear(&back);
    free(p);
    cl_state_clear(&st);
}

static void node_files(const char *d)
{
    cl_state_t st = {.dir = (char *)d, .nodes = 2, .subnet = 3, .net_tag = "0f0f0f"};
    ok(cl_node_files(&st, NULL) == 0, "the files of a 2-node folder");
    for (int k = 1; k <= 2; k++) {
        static const char *const sub[] = {"spool", "pmix"};
        for (int i = 0; i < 2; i++) {
            char *p = sl_xasprintf("%s/nodes/node%d/%s", d, k, sub[i]);
            struct stat sb;
            ok(stat(p, &sb) == 0 && S_ISDIR(sb.st_mode) && (sb.st_mode & 07777) == 0755,
               "node%d/%s: a folder of its own, 0755", k, sub[i]);
            free(p);
        }
    }
    char *h = sl_xasprintf("%s/nodes/hosts", d);
    ok(access(h, R_OK) == 0, "and the hosts file");
    free(h);
}

int main(void)
{
    instances();
    addresses();
    char tmpl[] = "/tmp/sl-nodes-XXXXXX";
    char *d = mkdtemp(tmpl);
    ok(d != NULL, "mkdtemp");
    record(d);
    node_files(d);
    sl_rm_rf(d);
    return tap_done();
}
