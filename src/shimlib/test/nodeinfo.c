/* Unit tests: node name and addresses for spec.nodeName / status.*IP(s). */
#include "shimlib/nodeinfo.h"
#include "common/tap.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_ip(const char *s)
{
    unsigned char b[16];
    return inet_pton(AF_INET, s, b) == 1 || inet_pton(AF_INET6, s, b) == 1;
}

int main(void)
{
    setenv("SLURMD_NODENAME", "node7", 1);
    char *n = sl_node_name();
    is_str(n, "node7", "node name from SLURMD_NODENAME");
    free(n);
    n = sl_node_field(SL_FIELD_NODE_NAME);
    is_str(n, "node7", "spec.nodeName field");
    free(n);
    unsetenv("SLURMD_NODENAME");
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    n = sl_node_name();
    is_str(n, host, "else the host name");
    free(n);

    char *ip = sl_node_ips(0);
    ok(is_ip(ip), "status.hostIP is one address (%s)", ip);
    char *ips = sl_node_ips(1);
    ok(!strncmp(ips, ip, strlen(ip)), "status.hostIPs starts with hostIP (%s)", ips);
    char *comma = strchr(ips, ',');
    if (comma) {
        *comma = '\0';
        ok(is_ip(ips) && is_ip(comma + 1) && !strchr(comma + 1, ','),
           "hostIPs: two addresses, one per family");
    } else {
        ok(is_ip(ips), "hostIPs: one address");
    }
    char *pip = sl_node_field(SL_FIELD_POD_IP);
    is_str(pip, ip, "status.podIP is the node's (the job shares its network)");
    free(ip);
    free(ips);
    free(pip);
    return tap_done();
}
