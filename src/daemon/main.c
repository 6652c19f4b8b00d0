/* slurmlinkd — the daemon: Kubernetes API in front, Slurm behind.
 * main() reads as a lifecycle script of init/fini pairs:
 *   options → state dir → store → API server → (controllers) → wait for a
 *   signal → stop in reverse order. */
#include "api/server.h"
#include "auth/policy.h"
#include "ctl/ctl.h"
#include "slurmif/slurmif.h"
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
    /* authentication and authorization (docs/security.md) */
    const char *client_ca, *token_file, *plain_address;
    long plain_port; /* -1: no plain-HTTP listener */
    long max_connections, max_per_ip, bookmark_s, event_ttl_s, watch_log, watch_window;
    long idle_timeout_s;
    long max_unauth, max_per_user, max_watches, handshake_s;
    long max_body, max_object;
    int verbose;
    /* controllers (src/ctl): on when a slurm.conf is known */
    int no_controllers;
    const char *run_as, *shim, *image_store, *default_runtime, *report_url, *report_ca, *policy;
    long poll_ms;
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
            "      --policy FILE        policy.yaml: who may do what, users -> Unix users,\n"
            "                           namespaces -> accounts; turns authentication on\n"
            "                           (needs TLS). Without it: development mode, no checks\n"
            "      --client-ca PEM      accept client certificates signed by this CA\n"
            "      --token-file CSV     accept the bearer tokens of this file\n"
            "      --plain-http-port N  also serve plain HTTP on a loopback address, as the\n"
            "                           policy's anonymous identity (0 picks a port)\n"
            "      --plain-http-address ADDR  its address (127.0.0.1; only 127.0.0.0/8)\n"
            "      --max-connections N  total connections per listener (1024)\n"
            "      --max-per-ip N       connections per client address (no limit: local\n"
            "                           clients all share 127.0.0.1)\n"
            "      --max-per-user N     connections per authenticated identity (256)\n"
            "      --max-watches-per-user N  concurrent watches per identity (128)\n"
            "      --max-unauthenticated N  connections not yet authenticated (128); when\n"
            "                           full, the oldest of them is closed for a new one\n"
            "      --handshake-timeout S  time for TLS and a first request (10)\n"
            "      --idle-timeout S     close connections idle for S seconds (120)\n"
            "      --max-body-bytes N   request body limit (3 MiB)\n"
            "      --max-object-bytes N stored object size limit (1.5 MiB)\n"
            "      --bookmark-interval S  watch BOOKMARK period in seconds (60)\n"
            "      --event-ttl S        remove events older than S seconds (3600)\n"
            "      --watch-log N        changes kept for resuming watches (10000)\n"
            "      --watch-window N     recent changes per resource shared by all watches (1024)\n"
            "      --no-controllers     serve the API only (no Slurm)\n"
            "      --run-as USER        Unix user the jobs run as (nobody)\n"
            "      --shim PATH          slurmlink-shim for the batch scripts (beside slurmlinkd)\n"
            "      --image-store DIR    local images for charliecloud\n"
            "      --default-runtime R  runtime for registry images (apptainer)\n"
            "      --report-url URL     where shims push (http[s]://<listen>:<port>/internal/v1/shim/events)\n"
            "      --report-ca PEM      CA file the shims trust for an https report URL\n"
            "      --poll-ms N          Slurm job poll period in ms (250)\n"
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
    enum { O_PODS = 256, O_CERT, O_KEY, O_MAXC, O_MAXIP, O_BOOKMARK, O_TTL, O_WLOG, O_NOCTL,
           O_RUNAS, O_SHIM, O_IMAGES, O_RUNTIME, O_REPORT, O_POLL, O_POLICY, O_CLIENTCA,
           O_TOKENS, O_PLAINPORT, O_PLAINADDR, O_IDLE, O_MAXBODY, O_MAXOBJ, O_REPORTCA,
           O_MAXUSER, O_MAXWATCH, O_MAXUNAUTH, O_HANDSHAKE, O_WWINDOW };
    static const struct option lo[] = {{"listen", required_argument, 0, 'l'},
                                       {"port", required_argument, 0, 'p'},
                                       {"state-dir", required_argument, 0, 's'},
                                       {"slurm-conf", required_argument, 0, 'c'},
                                       {"pods-root", required_argument, 0, O_PODS},
                                       {"tls-cert", required_argument, 0, O_CERT},
                                       {"tls-key", required_argument, 0, O_KEY},
                                       {"max-connections", required_argument, 0, O_MAXC},
                                       {"max-per-ip", required_argument, 0, O_MAXIP},
                                       {"max-per-user", required_argument, 0, O_MAXUSER},
                                       {"max-watches-per-user", required_argument, 0, O_MAXWATCH},
                                       {"max-unauthenticated", required_argument, 0, O_MAXUNAUTH},
                                       {"handshake-timeout", required_argument, 0, O_HANDSHAKE},
                                       {"bookmark-interval", required_argument, 0, O_BOOKMARK},
                                       {"event-ttl", required_argument, 0, O_TTL},
                                       {"watch-log", required_argument, 0, O_WLOG},
                                       {"watch-window", required_argument, 0, O_WWINDOW},
                                       {"no-controllers", no_argument, 0, O_NOCTL},
                                       {"run-as", required_argument, 0, O_RUNAS},
                                       {"shim", required_argument, 0, O_SHIM},
                                       {"image-store", required_argument, 0, O_IMAGES},
                                       {"default-runtime", required_argument, 0, O_RUNTIME},
                                       {"report-url", required_argument, 0, O_REPORT},
                                       {"poll-ms", required_argument, 0, O_POLL},
                                       {"policy", required_argument, 0, O_POLICY},
                                       {"client-ca", required_argument, 0, O_CLIENTCA},
                                       {"token-file", required_argument, 0, O_TOKENS},
                                       {"plain-http-port", required_argument, 0, O_PLAINPORT},
                                       {"plain-http-address", required_argument, 0, O_PLAINADDR},
                                       {"idle-timeout", required_argument, 0, O_IDLE},
                                       {"max-body-bytes", required_argument, 0, O_MAXBODY},
                                       {"max-object-bytes", required_argument, 0, O_MAXOBJ},
                                       {"report-ca", required_argument, 0, O_REPORTCA},
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
        case O_MAXUSER:
            if (parse_long("max-per-user", optarg, 1, 100000, &o->max_per_user) < 0)
                return 2;
            break;
        case O_MAXWATCH:
            if (parse_long("max-watches-per-user", optarg, 1, 100000, &o->max_watches) < 0)
                return 2;
            break;
        case O_MAXUNAUTH:
            if (parse_long("max-unauthenticated", optarg, 1, 100000, &o->max_unauth) < 0)
                return 2;
            break;
        case O_HANDSHAKE:
            if (parse_long("handshake-timeout", optarg, 1, 3600, &o->handshake_s) < 0)
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
        case O_WWINDOW:
            if (parse_long("watch-window", optarg, 1, 1000000, &o->watch_window) < 0)
                return 2;
            break;
        case O_NOCTL: o->no_controllers = 1; break;
        case O_RUNAS: o->run_as = optarg; break;
        case O_POLICY: o->policy = optarg; break;
        case O_CLIENTCA: o->client_ca = optarg; break;
        case O_TOKENS: o->token_file = optarg; break;
        case O_PLAINADDR: o->plain_address = optarg; break;
        case O_REPORTCA: o->report_ca = optarg; break;
        case O_PLAINPORT:
            if (parse_long("plain-http-port", optarg, 0, 65535, &o->plain_port) < 0)
                return 2;
            break;
        case O_IDLE:
            if (parse_long("idle-timeout", optarg, 1, 86400, &o->idle_timeout_s) < 0)
                return 2;
            break;
        case O_MAXBODY:
            if (parse_long("max-body-bytes", optarg, 1024, 1L << 30, &o->max_body) < 0)
                return 2;
            break;
        case O_MAXOBJ:
            if (parse_long("max-object-bytes", optarg, 1024, 1L << 30, &o->max_object) < 0)
                return 2;
            break;
        case O_SHIM: o->shim = optarg; break;
        case O_IMAGES: o->image_store = optarg; break;
        case O_RUNTIME: o->default_runtime = optarg; break;
        case O_REPORT: o->report_url = optarg; break;
        case O_POLL:
            if (parse_long("poll-ms", optarg, 10, 60000, &o->poll_ms) < 0)
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
    const char *needs_policy = o->client_ca ? "--client-ca" : o->token_file ? "--token-file"
                               : o->plain_port >= 0                         ? "--plain-http-port"
                                                                            : NULL;
    if (needs_policy && !o->policy) {
        fprintf(stderr, "slurmlinkd: %s needs --policy (without a policy nothing is "
                        "authenticated or authorized)\n", needs_policy);
        return 2;
    }
    if (o->policy && !o->tls_cert) {
        fprintf(stderr, "slurmlinkd: --policy needs --tls-cert and --tls-key: credentials must "
                        "not cross the network in clear text\n");
        return 2;
    }
    if (o->plain_address && o->plain_port < 0) {
        fprintf(stderr, "slurmlinkd: --plain-http-address needs --plain-http-port\n");
        return 2;
    }
    return -1;
}

/* the API server's options from the daemon's */
static sl_api_opts_t api_opts(const daemon_opts_t *o, sl_store_t *store, const char *pods_root,
                              sl_authz_policy_t *policy)
{
    sl_api_opts_t ao = {
        .listen = o->listen,
        .port = o->port,
        .store = store,
        .pods_root = pods_root,
        .tls_cert = o->tls_cert,
        .tls_key = o->tls_key,
        .max_connections = (unsigned)o->max_connections,
        .max_per_ip = (unsigned)o->max_per_ip,
        .max_per_user = (unsigned)o->max_per_user,
        .max_watches_per_user = (unsigned)o->max_watches,
        .max_unauthenticated = (unsigned)o->max_unauth,
        .handshake_timeout_s = (unsigned)o->handshake_s,
        .bookmark_interval_s = (int)o->bookmark_s,
        .watch_window = (size_t)o->watch_window,
        .event_ttl_s = (size_t)o->event_ttl_s,
        .idle_timeout_s = (unsigned)o->idle_timeout_s,
        .max_body = (size_t)o->max_body,
        .max_object = (size_t)o->max_object,
        .client_ca = o->client_ca,
        .token_file = o->token_file,
        .policy = policy,
        .plain_listen =
            o->plain_port >= 0 ? (o->plain_address ? o->plain_address : "127.0.0.1") : NULL,
        .plain_port = o->plain_port >= 0 ? (int)o->plain_port : 0,
    };
    return ao;
}

/* The controllers, once the API has its port (the shims' report URL names
 * it): NULL with err. *shim and *report are the daemon's to free. */
static sl_ctl_t *start_controllers(const daemon_opts_t *o, sl_store_t *store, sl_api_t *api,
                                   const char *pods_root, char **shim, char **report,
                                   sl_error_t *err)
{
    if (o->shim) {
        *shim = strdup(o->shim);
    } else {
        char *self = sl_self_dir();
        if (asprintf(shim, "%s/slurmlink-shim", self) < 0)
            *shim = NULL;
        free(self);
    }
    if (o->report_url)
        *report = strdup(o->report_url);
    else if (asprintf(report, "%s://%s:%d/internal/v1/shim/events", o->tls_cert ? "https" : "http",
                      strcmp(o->listen, "0.0.0.0") ? o->listen : "127.0.0.1", sl_api_port(api)) < 0)
        *report = NULL;
    sl_ctl_opts_t co = {
        .state_dir = o->state_dir,
        .pods_root = pods_root,
        .shim_path = *shim,
        .report_url = *report,
        .report_ca_file = o->report_ca,
        .run_as = o->run_as,
        .policy_path = o->policy,
        .image_store = o->image_store,
        .default_runtime = o->default_runtime,
        .slurm_conf = o->slurm_conf,
        .poll_ms = (int)o->poll_ms,
    };
    sl_ctl_t *ctl = sl_ctl_create(store, &co, err);
    if (ctl)
        sl_api_set_shim_hook(api, sl_ctl_shim_event, ctl);
    return ctl;
}

int main(int argc, char **argv)
{
    daemon_opts_t o = {
        .listen = "127.0.0.1", .port = 6443, .state_dir = "/var/lib/slurmlink", .plain_port = -1};
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
    sl_error_t err = SL_ERROR_INIT;
    char *pods_root = NULL, *db = NULL;
    sl_store_t *store = NULL;
    sl_api_t *api = NULL;
    sl_ctl_t *ctl = NULL;
    sl_authz_policy_t *policy = NULL;
    char *shim = NULL, *report = NULL;
    int controllers = !o.no_controllers && (o.slurm_conf || getenv("SLURM_CONF"));

    /* Slurm first, before anything is created or listens (and before any
     * thread: the check forks): a slurm.conf libslurm cannot load stops the
     * start with its name and the reason, instead of libslurm's fatal()
     * ending a daemon that has accepted pods */
    if (controllers && sl_slurm_init(o.slurm_conf, &err) < 0) {
        sl_err("%s", err.text);
        goto out;
    }
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
    /* one policy for the API's decisions; an invalid one stops the start
     * with its file, line and field */
    if (o.policy && !(policy = sl_authz_policy_load(o.policy, &err))) {
        sl_err("%s", err.text);
        goto out;
    }
    if (!policy)
        sl_warn("no --policy: development mode, nothing is authenticated or authorized; every "
                "client that reaches %s:%d may do everything",
                o.listen, o.port);
    else if (!o.client_ca && !o.token_file)
        sl_warn("--policy without --client-ca or --token-file: no credential can succeed "
                "on the TLS listener");
    sl_api_opts_t ao = api_opts(&o, store, pods_root, policy);
    /* the controllers start after the API has its port (the shims' report
     * URL names it); shim pushes before that find no pod and are dropped
     * harmlessly (the pod folder keeps them) */
    if (!(api = sl_api_create(&ao, &err))) {
        sl_err("%s", err.text);
        goto out;
    }
    if (controllers) {
        if (!(ctl = start_controllers(&o, store, api, pods_root, &shim, &report, &err))) {
            sl_err("%s", err.text);
            goto out;
        }
    } else {
        sl_info("no slurm.conf given: serving the API without controllers");
    }
    sl_info("slurmlinkd %s listening on %s://%s:%d, state in %s, pods in %s", SLURMLINK_VERSION,
            o.tls_cert ? "https" : "http", o.listen, sl_api_port(api), o.state_dir, pods_root);
    if (sl_api_plain_port(api) >= 0)
        sl_info("plain HTTP on http://%s:%d as the policy's anonymous identity%s", ao.plain_listen,
                sl_api_plain_port(api),
                sl_authz_anonymous(policy) ? "" : " (none: every request there gets 401)");

    int sig = 0;
    while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
        sl_info("SIGHUP: nothing to reload yet");
    sl_info("signal %d: shutting down", sig);
    rc = 0;
out:
    /* the API first (no more shim pushes into the controller), then the controller */
    sl_api_destroy(api);
    sl_ctl_destroy(ctl);
    sl_authz_policy_destroy(policy); /* after the API: requests use it */
    free(shim);
    free(report);
    sl_store_close(store);
    free(db);
    free(pods_root);
    return rc;
}
