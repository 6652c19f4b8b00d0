/* net.h — loopback port helpers. */
#ifndef SL_NET_H
#define SL_NET_H

/* 1 if something listens on (or has bound) 127.0.0.1:port over TCP. */
int sl_port_in_use(int port);
/* A port in [lo,hi) that is free now and not in avoid[0..navoid). -1 if none. */
int sl_free_port(int lo, int hi, const int *avoid, int navoid);
/* 1 once a TCP connect to 127.0.0.1:port succeeds within timeout_ms. */
int sl_wait_port(int port, int timeout_ms);
/* the same for an IPv4 address other than 127.0.0.1 (NULL: 127.0.0.1) */
int sl_wait_port_at(const char *ipv4, int port, int timeout_ms);

#endif
