#include "net.h"
#include "proc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int try_bind(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    /* as the daemons do: a port whose last user left connections in
     * TIME_WAIT is free for a new listener */
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    int r = bind(fd, (struct sockaddr *)&a, sizeof(a));
    if (r == 0)
        r = listen(fd, 1); /* bind alone succeeds next to a listener bound with SO_REUSEADDR */
    close(fd);
    return r;
}

int sl_port_in_use(int port) { return try_bind(port) < 0; }

int sl_free_port(int lo, int hi, const int *avoid, int navoid)
{
    int span = hi - lo;
    if (span <= 0)
        return -1;
    /* start at a pid-derived offset so concurrent callers rarely collide */
    int start = (int)((unsigned)getpid() * 7919u % (unsigned)span);
    for (int i = 0; i < span; i++) {
        int port = lo + (start + i) % span;
        int skip = 0;
        for (int j = 0; j < navoid; j++)
            if (avoid[j] == port)
                skip = 1;
        if (!skip && try_bind(port) == 0)
            return port;
    }
    return -1;
}

int sl_wait_port_at(const char *ipv4, int port, int timeout_ms)
{
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (ipv4 && inet_pton(AF_INET, ipv4, &a.sin_addr) != 1)
        return 0;
    long long deadline = sl_now_ms() + timeout_ms;
    do {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return 0;
        int r = connect(fd, (struct sockaddr *)&a, sizeof(a));
        close(fd);
        if (r == 0)
            return 1;
        sl_sleep_ms(50);
    } while (sl_now_ms() < deadline);
    return 0;
}

int sl_wait_port(int port, int timeout_ms) { return sl_wait_port_at(NULL, port, timeout_ms); }
