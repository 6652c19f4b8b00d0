/* doctor.c — `slurmlink doctor`: check a cluster before users arrive, with
 * slurmlinkd's configuration file (src/doctor does the checks). */
#include "doctor/doctor.h"
#include "cmd.h"
#include "config/config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RT 6

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slurmlink doctor [--config FILE] [--probe-user USER] [--runtime R]... "
            "[--timeout S]\n"
            "  check, on the head node as root, what slurmlinkd and its users need: slurm.conf\n"
            "  and slurmctld, munge, accounting, GPU GRES, and on every node (a probe job per\n"
            "  node) the shared pods root, the shim, the runtimes, the clock and the push\n"
            "  address. One line per check; exit 1 when a check fails.\n"
            "  --config FILE      slurmlinkd's configuration file (default %s)\n"
            "  --probe-user USER  the Unix user the probes run as (default slurm.run_as)\n"
            "  --runtime R        also look for runtime R on the nodes (repeatable)\n"
            "  --timeout S        seconds each node's probe may take (default 60)\n",
            sl_config_default_path());
}

typedef struct doctor_args {
    const char *config, *user;
    const char *rt[MAX_RT + 1];
    int nrt, timeout;
} doctor_args_t;

/* 0, 1 (--help printed) or 2 (bad usage, said) */
static int parse(int argc, char **argv, doctor_args_t *a)
{
    static const struct option lo[] = {
        {"config", required_argument, 0, 'c'},  {"probe-user", required_argument, 0, 'u'},
        {"runtime", required_argument, 0, 'r'}, {"timeout", required_argument, 0, 't'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        char *end = NULL;
        if (ch == 'c') {
            a->config = optarg;
        } else if (ch == 'u') {
            a->user = optarg;
        } else if (ch == 'r' && a->nrt < MAX_RT) {
            a->rt[a->nrt++] = optarg;
        } else if (ch == 't' && (a->timeout = (int)strtol(optarg, &end, 10)) > 0 && !*end &&
                   a->timeout <= 3600) {
            continue;
        } else if (ch == 'h') {
            usage(stdout);
            return 1;
        } else {
            fprintf(stderr, "slurmlink doctor: %s\n",
                    ch == 't'   ? "--timeout must be 1..3600 seconds"
                    : ch == 'r' ? "at most 6 --runtime"
                                : "bad option (see slurmlink doctor --help)");
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slurmlink doctor: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    return 0;
}

int cmd_doctor(int argc, char **argv)
{
    doctor_args_t a = {.timeout = 60};
    int r = parse(argc, argv, &a);
    if (r)
        return r == 1 ? 0 : 2;
    char *cargv[] = {"slurmlinkd", "--config", (char *)a.config, NULL};
    sl_cfg_action_t action;
    sl_error_t err = SL_ERROR_INIT;
    sl_config_t *cfg = sl_config_load(a.config ? 3 : 1, cargv, &action, &err);
    if (!cfg) {
        printf("FAIL  %-11s  %s; fix: slurmlinkd --check-config shows the same\n", "config",
               err.text);
        return 2;
    }
    printf("ok    %-11s  %s\n", "config",
           sl_config_file(cfg) ? sl_config_file(cfg) : "no configuration file: the defaults");
    if (sl_config_str(cfg, SL_CFG_SLURM_CONF))
        setenv("SLURM_CONF", sl_config_str(cfg, SL_CFG_SLURM_CONF), 1);
    sl_doctor_opts_t o = {
        .cfg = cfg, .probe_user = a.user, .runtimes = a.rt, .timeout_s = a.timeout, .out = stdout};
    int fails = sl_doctor_run(&o);
    if (fails)
        printf("doctor: %d check%s failed\n", fails, fails == 1 ? "" : "s");
    else
        printf("doctor: no check failed\n");
    sl_config_destroy(cfg);
    return fails ? 1 : 0;
}
