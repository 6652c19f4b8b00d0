/* Unit tests: the pod's hosts file (shim.json "hosts", its text, the
 * member → node rule). */
#include "shimlib/hosts.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "shimlib/nodeinfo.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sl_hosts_t *parse(const char *text, sl_error_t *err)
{
    json_t *j = json_loads(text, 0, NULL);
    sl_hosts_t *h = NULL;
    int rc = sl_hosts_parse(j, &h, err);
    json_decref(j);
    return rc == 0 ? h : NULL;
}

static void refused(const char *text, const char *want, const char *label)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_hosts_t *h = parse(text, &err);
    ok(!h, "refused: %s", label);
    has_str(err.text, want, "%s: the error names the field", label);
    sl_hosts_free(h);
}

#define GOOD                                                                                       \
    "{\"path\":\"/pods/ns/p-u/hosts\",\"hostname\":\"w0\","                                        \
    "\"names\":[\"w0.g.ns.svc.cluster.local\",\"w0.g\",\"w0\"],"                                   \
    "\"members\":[{\"rank\":0,\"names\":[\"boss.g.ns.svc.cluster.local\",\"boss.g\"]},"            \
    "{\"rank\":3,\"names\":[\"w2.g\"]}],"                                                          \
    "\"aliases\":[{\"ip\":\"10.0.0.5\",\"hostnames\":[\"storage\"]},"                              \
    "{\"ip\":\"fd00::7\",\"hostnames\":[\"metrics\",\"m.example\"]}]}"

/* sl_hosts_write as on node "me-node" of a 3-node job: rank 0 on
 * "localhost", rank 1 on a node with no address (left out), rank 5 on node
 * 5 mod 3 = 2, this one */
static void write_on_node(void)
{
    char dir[] = "/tmp/sl-hosts-XXXXXX";
    ok(mkdtemp(dir) != NULL, "a folder for the file");
    char *path = sl_xasprintf("%s/hosts", dir);
    setenv("SLURM_JOB_NODELIST", "localhost,nosuchnode.invalid,me-node", 1);
    setenv("SLURMD_NODENAME", "me-node", 1);
    sl_hosts_t h = {.path = path, .hostname = "w1"};
    char *own[] = {"w1.g", NULL}, *m0[] = {"boss.g", NULL}, *m1[] = {"lost.g", NULL},
         *m5[] = {"w5.g", NULL};
    sl_hosts_entry_t members[] = {{.rank = 0, .names = m0, .nnames = 1},
                                  {.rank = 1, .names = m1, .nnames = 1},
                                  {.rank = 5, .names = m5, .nnames = 1}};
    h.names = own;
    h.nnames = 1;
    h.members = members;
    h.nmembers = 3;
    sl_error_t err = SL_ERROR_INIT;
    is_int(sl_hosts_write(&h, &err), 0, "written (%s)", err.text);
    char *text = sl_read_file(path, NULL, &err);
    ok(text && (strstr(text, "127.0.0.1\tboss.g\n") || strstr(text, "::1\tboss.g\n")),
       "rank 0: localhost's address, as this node resolves it");
    char *own_ip = sl_node_ips(0), *line5 = sl_xasprintf("\n%s\tw5.g\n", own_ip);
    ok(text && strstr(text, line5),
       "rank 5 of 3 nodes: node 2, this node (SLURMD_NODENAME): this node's address %s", own_ip);
    ok(text && !strstr(text, "lost.g"), "rank 1: its node has no address here: left out");
    free(own_ip);
    free(line5);
    ok(text && strstr(text, "\tw1.g\n"), "the pod's own line");
    free(text);
    unlink(path);
    rmdir(dir);
    free(path);
}

/* the Service names file: read at the first write, then followed by
 * sl_hosts_refresh in place (the inode kept: bind mounts hold it) */
static void services_follow(void)
{
    char dir[] = "/tmp/sl-hosts-svc-XXXXXX";
    ok(mkdtemp(dir) != NULL, "a folder for the files");
    char *path = sl_xasprintf("%s/hosts", dir), *svc = sl_xasprintf("%s/names.json", dir);
    unsetenv("SLURM_JOB_NODELIST");
    sl_hosts_t h = {.path = path, .hostname = "c", .services = svc};
    sl_error_t err = SL_ERROR_INIT;
    is_int(sl_hosts_write(&h, &err), 0, "written without the Services' file (%s)", err.text);
    is_int(sl_hosts_refresh(&h, &err), 0, "... still missing: nothing to do");
    struct stat st0, st1;
    ok(stat(path, &st0) == 0, "the pod's file is there");
    const char *v1 = "{\"entries\":[{\"ip\":\"198.18.0.21\",\"hostnames\":"
                     "[\"web.ns.svc.cluster.local\",\"web.ns.svc\",\"web.ns\",\"web\"]}]}";
    sl_write_file(svc, v1, strlen(v1), 0644, &err);
    is_int(sl_hosts_refresh(&h, &err), 1, "the Services' file appeared: rewritten (%s)", err.text);
    char *text = sl_read_file(path, NULL, &err);
    has_str(text ? text : "",
            "# Service names (slurmlink): the ready endpoints' addresses.\n"
            "198.18.0.21\tweb.ns.svc.cluster.local\tweb.ns.svc\tweb.ns\tweb\n",
            "the Service's line at its endpoint's address");
    free(text);
    ok(stat(path, &st1) == 0 && st1.st_ino == st0.st_ino, "... in place: the same inode");
    is_int(sl_hosts_refresh(&h, &err), 0, "unchanged: not rewritten");
    const char *bad = "{\"entries\":[{\"ip\":\"198.18.0.22\",\"hostnames\":[\"x\\ny\"]}]}";
    sl_write_file(svc, bad, strlen(bad), 0644, &err);
    sl_error_clear(&err);
    is_int(sl_hosts_refresh(&h, &err), -1, "a name with a newline: refused");
    text = sl_read_file(path, NULL, &err);
    ok(text && strstr(text, "198.18.0.21\tweb.ns.svc.cluster.local") &&
           !strstr(text, "198.18.0.22"),
       "... the last good names kept");
    free(text);
    unlink(svc);
    sl_error_clear(&err);
    is_int(sl_hosts_refresh(&h, &err), 1, "the Services' file removed: rewritten");
    text = sl_read_file(path, NULL, &err);
    ok(text && !strstr(text, "web") && !strstr(text, "Service names"), "... without them");
    free(text);
    ok(h.nsvc == 0 && h.svc == NULL, "... and no entries held");
    unlink(path);
    rmdir(dir);
    free(path);
    free(svc);
}

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_hosts_t *h = parse(GOOD, &err);
    ok(h != NULL, "a full hosts object parses (%s)", err.text);
    if (!h)
        return tap_done();
    is_str(h->path, "/pods/ns/p-u/hosts", "path");
    is_str(h->hostname, "w0", "hostname");
    is_int(h->nnames, 3, "own names");
    is_int(h->nmembers, 2, "members");
    is_int(h->members[1].rank, 3, "a member's rank");
    is_int(h->naliases, 2, "aliases");

    const char *ips[] = {"198.18.0.11", NULL};
    char *t = sl_hosts_render(h, "127.0.0.1\tlocalhost", "198.18.0.12", ips);
    is_str(t,
           "127.0.0.1\tlocalhost\n"
           "\n# Kubernetes-managed hosts file (slurmlink-shim): the pod's names.\n"
           "198.18.0.12\tw0.g.ns.svc.cluster.local\tw0.g\tw0\n"
           "198.18.0.11\tboss.g.ns.svc.cluster.local\tboss.g\n"
           "\n# Entries added by HostAliases.\n"
           "10.0.0.5\tstorage\n"
           "fd00::7\tmetrics\tm.example\n",
           "the text: the node's file, the pod's line, a resolved member's, the aliases "
           "(an unresolved member left out)");
    free(t);
    sl_hosts_free(h);

    char *nodes[] = {"n1", "n2", NULL};
    is_str(sl_hosts_member_node(nodes, 0), "n1", "rank 0 on the job's first node");
    is_str(sl_hosts_member_node(nodes, 1), "n2", "rank 1 on the second");
    is_str(sl_hosts_member_node(nodes, 3), "n2", "rank 3 of 2 nodes: node 3 mod 2 (gang.h)");
    ok(sl_hosts_member_node(NULL, 0) == NULL, "no node list: no node");

    sl_hosts_t *none = NULL;
    is_int(sl_hosts_parse(json_null(), &none, &err), 0, "null: no error");
    ok(none == NULL, "null: no hosts");
    h = parse("{\"path\":\"/p/hosts\",\"hostname\":\"a\"}", &err);
    ok(h && !h->nnames && !h->nmembers && !h->naliases, "names, members and aliases optional");
    sl_hosts_free(h);

    refused("{\"path\":\"rel/hosts\",\"hostname\":\"a\"}", "hosts.path", "a relative path");
    refused("{\"path\":\"/p\",\"hostname\":\"A B\"}", "hosts.hostname", "a hostname with a space");
    refused("{\"path\":\"/p\",\"hostname\":\"a\",\"names\":[\"x\\nevil 1.2.3.4\"]}",
            "hosts.names[0]", "a name with a newline (another line of the file)");
    refused("{\"path\":\"/p\",\"hostname\":\"a\",\"members\":[{\"rank\":-1,\"names\":[\"x\"]}]}",
            "hosts.members[0].rank", "a negative rank");
    refused("{\"path\":\"/p\",\"hostname\":\"a\",\"aliases\":[{\"ip\":\"10.1\",\"hostnames\":[]}]}",
            "hosts.aliases[0].ip", "an alias address that is no IP");
    refused("{\"path\":\"/p\",\"hostname\":\"a\",\"aliases\":[{\"ip\":\"10.0.0.1\","
            "\"hostnames\":[\"a\\tb\"]}]}",
            "hosts.aliases[0].hostnames[0]", "an alias name with a tab");
    write_on_node();
    services_follow();
    return tap_done();
}
