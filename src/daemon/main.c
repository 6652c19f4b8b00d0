/* slurmlinkd — the daemon: Kubernetes API in front, Slurm behind.
 * main() reads as a lifecycle script of init/fini pairs. */
#include "api/server.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/version.h"

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
    int verbose;
} daemon_opts_t;

static void usage(FILE *f)
{
    fprintf(f, "usage: slurmlinkd [--listen ADDR] [--port N] [--state-dir DIR]\n"
               "                  [--slurm-conf PATH] [-v]\n");
}

static int parse_args(int argc, char **argv, daemon_opts_t *o)
{
    static const struct option lo[] = {{"listen", required_argument, 0, 'l'},
                                       {"port", required_argument, 0, 'p'},
                                       {"state-dir", required_argument, 0, 's'},
                                       {"slurm-conf", required_argument, 0, 'c'},
                                       {"verbose", no_argument, 0, 'v'},
                                       {"version", no_argument, 0, 'V'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "l:p:s:c:vVh", lo, NULL)) != -1) {
        switch (c) {
        case 'l': o->listen = optarg; break;
        case 'p': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 65535) {
                fprintf(stderr, "slurmlinkd: --port must be 1..65535, not '%s'\n", optarg);
                return 2;
            }
            o->port = (int)v;
            break;
        }
        case 's': o->state_dir = optarg; break;
        case 'c': o->slurm_conf = optarg; break;
        case 'v': o->verbose = 1; break;
        case 'V': printf("slurmlinkd %s\n", SLURMLINK_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
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

    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL); /* threads inherit the mask; main waits below */
    signal(SIGPIPE, SIG_IGN);

    sl_error_t err = {""};
    if (sl_mkdir_p(o.state_dir, 0700, &err) < 0) {
        sl_err("%s", err.text);
        return 1;
    }
    sl_api_opts_t ao = {.listen = o.listen, .port = o.port};
    sl_api_t *api = sl_api_create(&ao, &err);
    if (!api) {
        sl_err("%s", err.text);
        return 1;
    }
    sl_info("slurmlinkd %s listening on %s:%d, state in %s", SLURMLINK_VERSION, o.listen, o.port,
            o.state_dir);

    int sig = 0;
    while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
        sl_info("SIGHUP: nothing to reload yet");
    sl_info("signal %d: shutting down", sig);

    sl_api_destroy(api);
    return 0;
}
