/* conns: the per-identity stream counts of http/conns.c (the connection
 * and watch counts need libmicrohttpd's connections: t/67-attack-limits.t
 * and t/39-privsep-stream.t reach them through slurmlinkd). */
#include "http/conns.h"
#include "common/tap.h"

int main(void)
{
    http_conn_limits_t lim = {.max_connections = 8,
                              .max_unauth = 4,
                              .max_per_user = 2,
                              .max_watches = 2,
                              .idle_s = 60,
                              .handshake_s = 5};
    http_conns_t *c = http_conns_create(&lim);
    http_streams_refusal_t no = {0};
    is_int(http_conns_streams_take(c, "alice", 2, 3, &no), 0, "alice takes 2 of 3");
    is_int(http_conns_streams_take(c, "alice", 2, 3, &no), -1, "2 more: over her cap");
    is_int((int)no.held, 2, "the refusal says she holds 2");
    is_int(http_conns_streams_take(c, "bob", 3, 3, &no), 0, "bob's count is his own");
    http_conns_streams_give(c, "alice", 2);
    is_int(http_conns_streams_take(c, "alice", 3, 3, &no), 0, "given back: 3 fit again");
    http_conns_streams_give(c, "alice", 9);
    is_int(http_conns_streams_take(c, "alice", 3, 3, &no), 0,
           "giving back more than held empties the count, no more");
    is_int(http_conns_streams_take(c, "", 100, 1, &no), 0, "identity \"\" is not capped");
    is_int(http_conns_streams_take(NULL, "x", 100, 1, &no), 0, "no counts: nothing capped");
    unsigned cap = 0;
    is_int(http_conns_attach(c, NULL, "alice", &cap), 0, "no connection: nothing to count");
    is_int(http_conns_watch_begin(c, NULL, "alice", &cap), 0, "no connection: no watch counted");
    http_conns_destroy(c);
    http_conns_destroy(NULL);
    return tap_done();
}
