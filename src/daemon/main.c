/* slurmlinkd — the daemon: Kubernetes API in front, Slurm behind.
 * main() reads as a lifecycle script of init/fini pairs:
 *   options → state dir → store → API server → (controllers) → wait for a
 *   signal → stop in reverse order. */
#include "api/server.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/version.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct daemon_opts {
    const char *listen;
    int port;
    const char *state_dir;
    const char *slurm_conf;
    const char *pods_root; /* default <state-dir>/pods */
    const char *tls_cert, *tls_key;
    long max_connections, max_per_ip, bookmark_s, event_ttl_s, watch_log;
    int verbose;
} daemon_opts_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slurmlinkd [OPTIONS]\n"
            "  -l, --listen ADDR        IPv4 address to listen on (127.0.0.1)\n"
            "  -p, --port N             port (6443; 0 picks a free one)\n"
            "  -s, --state-dir DIR      objects database and state (/var/lib/slurmlink)\n"
            "  -c, --slurm-conf PATH    slurm.conf of the cluster (SLURM_CONF)\n"
            "      --pods-root DIR      pod folders, shim logs (<state-dir>/pods)\n"
            "      --tls-cert PEM       serve HTTPS with this certificate chain ...\n"
            "      --tls-key PEM        ... and this private key\n"
            "      --max-connections N  total connections (1024)\n"
            "      --max-per-ip N       connections per client address (512)\n"
            "      --bookmark-interval S  watch BOOKMARK period in seconds (60)\n"
            "      --event-ttl S        remove events older than S seconds (3600)\n"
            "      --watch-log N        changes kept for resuming watches (10000)\n"
            "  -v, --verbose            log every request\n"
            "  -V, --version\n");
}

static int parse_long(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        fprintf(stderr, "slurmlinkd: --%s must be %ld..%ld, not '%s'\n", opt, lo, hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

/* -1: go on; otherwise the exit status. */
static int parse_args(int argc, char **argv, daemon_opts_t *o)
{
    enum { O_PODS = 256, O_CERT, O_KEY, O_MAXC, O_MAXIP, O_BOOKMARK, O_TTL, O_WLOG };
    static const struct option lo[] = {{"listen", required_argument, 0, 'l'},
                                       {"port", required_argument, 0, 'p'},
                                       {"state-dir", required_argument, 0, 's'},
                                       {"slurm-conf", required_argument, 0, 'c'},
                                       {"pods-root", required_argument, 0, O_PODS},
                                       {"tls-cert", required_argument, 0, O_CERT},
                                       {"tls-key", required_argument, 0, O_KEY},
                                       {"max-connections", required_argument, 0, O_MAXC},
                                       {"max-per-ip", required_argument, 0, O_MAXIP},
                                       {"bookmark-interval", required_argument, 0, O_BOOKMARK},
                                       {"event-ttl", required_argument, 0, O_TTL},
                                       {"watch-log", required_argument, 0, O_WLOG},
                                       {"verbose", no_argument, 0, 'v'},
                                       {"version", no_argument, 0, 'V'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    int c;
    long v;
    while ((c = getopt_long(argc, argv, "l:p:s:c:vVh", lo, NULL)) != -1) {
        switch (c) {
        case 'l': o->listen = optarg; break;
        case 'p':
            if (parse_long("port", optarg, 0, 65535, &v) < 0)
                return 2;
            o->port = (int)v;
            break;
        case 's': o->state_dir = optarg; break;
        case 'c': o->slurm_conf = optarg; break;
        case O_PODS: o->pods_root = optarg; break;
        case O_CERT: o->tls_cert = optarg; break;
        case O_KEY: o->tls_key = optarg; break;
        case O_MAXC:
            if (parse_long("max-connections", optarg, 1, 100000, &o->max_connections) < 0)
                return 2;
            break;
        case O_MAXIP:
            if (parse_long("max-per-ip", optarg, 1, 100000, &o->max_per_ip) < 0)
                return 2;
            break;
        case O_BOOKMARK:
            if (parse_long("bookmark-interval", optarg, 1, 86400, &o->bookmark_s) < 0)
                return 2;
            break;
        case O_TTL:
            if (parse_long("event-ttl", optarg, 1, 100L * 86400, &o->event_ttl_s) < 0)
                return 2;
            break;
        case O_WLOG:
            if (parse_long("watch-log", optarg, 1, 10000000, &o->watch_log) < 0)
                return 2;
            break;
        case 'v': o->verbose = 1; break;
        case 'V': printf("slurmlinkd %s\n", SLURMLINK_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slurmlinkd: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (!o->tls_cert != !o->tls_key) {
        fprintf(stderr, "slurmlinkd: --tls-cert and --tls-key go together\n");
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    daemon_opts_t o = {.listen = "127.0.0.1", .port = 6443, .state_dir = "/var/lib/slurmlink"};
    int r = parse_args(argc, argv, &o);
    if (r >= 0)
        return r;
    sl_log_init("slurmlinkd", o.verbose ? SL_LOG_DEBUG : SL_LOG_INFO);
    if (o.slurm_conf)
        setenv("SLURM_CONF", o.slurm_conf, 1);

    /* signals are taken synchronously by main below; threads inherit the mask */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    int rc = 1;
    sl_error_t err = {""};
    char *pods_root = NULL, *db = NULL;
    sl_store_t *store = NULL;
    sl_api_t *api = NULL;

    if (sl_mkdir_p(o.state_dir, 0700, &err) < 0) {
        sl_err("%s", err.text);
        goto out;
    }
    pods_root = o.pods_root ? strdup(o.pods_root) : NULL;
    if (!pods_root && asprintf(&pods_root, "%s/pods", o.state_dir) < 0)
        goto out;
    if (sl_mkdir_p(pods_root, 0755, &err) < 0) {
        sl_err("%s", err.text);
        goto out;
    }
    if (asprintf(&db, "%s/objects.db", o.state_dir) < 0)
        goto out;
    if (!(store = sl_store_open(db, &err))) {
        sl_err("store %s: %s", db, err.text);
        goto out;
    }
    if (o.watch_log)
        sl_store_set_log_limit(store, (size_t)o.watch_log);
    sl_api_opts_t ao = {
        .listen = o.listen,
        .port = o.port,
        .store = store,
        .pods_root = pods_root,
        .tls_cert = o.tls_cert,
        .tls_key = o.tls_key,
        .max_connections = (unsigned)o.max_connections,
        .max_per_ip = (unsigned)o.max_per_ip,
        .bookmark_interval_s = (int)o.bookmark_s,
        .event_ttl_s = (size_t)o.event_ttl_s,
    };
    if (!(api = sl_api_create(&ao, &err))) {
        sl_err("%s", err.text);
        goto out;
    }
    sl_info("slurmlinkd %s listening on %s://%s:%d, state in %s, pods in %s", SLURMLINK_VERSION,
            o.tls_cert ? "https" : "http", o.listen, sl_api_port(api), o.state_dir, pods_root);

    int sig = 0;
    while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
        sl_info("SIGHUP: nothing to reload yet");
    sl_info("signal %d: shutting down", sig);
    rc = 0;
out:
    sl_api_destroy(api);
    sl_store_close(store);
    free(db);
    free(pods_root);
    return rc;
}
