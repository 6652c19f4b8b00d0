/* nodeinfo.c — node name and addresses (see nodeinfo.h). */
#include "shimlib/nodeinfo.h"

#include "common/xalloc.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *sl_node_name(void)
{
    const char *n = getenv("SLURMD_NODENAME");
    if (n && *n)
        return sl_xstrdup(n);
    char h[256] = "";
    if (gethostname(h, sizeof(h) - 1) < 0 || !*h)
        return sl_xstrdup("localhost");
    return sl_xstrdup(h);
}

char *sl_node_ips(int all)
{
    char v4[INET_ADDRSTRLEN] = "", v6[INET6_ADDRSTRLEN] = "";
    struct ifaddrs *ifa = NULL;
    if (getifaddrs(&ifa) == 0) {
        for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
            if (!i->ifa_addr || !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
                continue;
            if (i->ifa_addr->sa_family == AF_INET && !*v4) {
                inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr, v4,
                          sizeof(v4));
            } else if (i->ifa_addr->sa_family == AF_INET6 && !*v6) {
                const struct in6_addr *a = &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr;
                if (!IN6_IS_ADDR_LINKLOCAL(a) && !IN6_IS_ADDR_LOOPBACK(a))
                    inet_ntop(AF_INET6, a, v6, sizeof(v6));
            }
        }
        freeifaddrs(ifa);
    }
    if (!*v4 && !*v6)
        return sl_xstrdup("127.0.0.1");
    if (!*v4 || !*v6 || !all)
        return sl_xstrdup(*v4 ? v4 : v6);
    return sl_xasprintf("%s,%s", v4, v6);
}

char *sl_node_field(sl_shim_field_t f)
{
    switch (f) {
    case SL_FIELD_NODE_NAME: return sl_node_name();
    case SL_FIELD_HOST_IP:
    case SL_FIELD_POD_IP: return sl_node_ips(0);
    case SL_FIELD_HOST_IPS:
    case SL_FIELD_POD_IPS: return sl_node_ips(1);
    }
    return sl_xstrdup("");
}
