/* cluster.c — `slurmlink up | down | status`. */
#include "cluster/cluster.h"
#include "cmd.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "slurmlink: %s must be an integer in %d..%d, not '%s'\n", opt, lo, hi, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* --gpu-types: up to 64 names of letters, digits, '.', '_', '-' (GRES type
 * names) joined by commas; "" for untyped */
static int gpu_types_ok(const char *s)
{
    int n = 1, ok = 1;
    size_t len = 0;
    for (const char *p = s; *p && ok; p++) {
        if (*p == ',') {
            ok = len > 0 && ++n <= 64;
            len = 0;
        } else {
            ok = (isalnum((unsigned char)*p) || strchr("._-", *p)) && ++len <= 32;
        }
    }
    if (ok && (!*s || len > 0))
        return 1;
    fprintf(stderr,
            "slurmlink: --gpu-types must be GRES type names (letters, digits, '.', '_', "
            "'-', at most 32 each, 64 in all) joined by commas, not '%s'\n",
            s);
    return 0;
}

int cmd_up(int argc, char **argv)
{
    static const struct option lo[] = {{"dir", required_argument, 0, 'd'},
                                       {"gpus", required_argument, 0, 'g'},
                                       {"cpus", required_argument, 0, 'c'},
                                       {"accounting", no_argument, 0, 'a'},
                                       {"api-port", required_argument, 0, 'p'},
                                       {"slurmctld-port", required_argument, 0, 'P'},
                                       {"daemon", required_argument, 0, 'D'},
                                       {"help", no_argument, 0, 'h'},
                                       {"nodes", required_argument, 0, 'n'},
                                       {"no-slurmlinkd", no_argument, 0, 'N'},
                                       {"gpu-types", required_argument, 0, 'T'},
                                       {"shards", required_argument, 0, 'S'},
                                       {0, 0, 0, 0}};
    sl_cluster_opts_t o = {.dir = cmd_default_dir(), .gpus = -1, .accounting = -1, .shards = -1};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "d:g:c:ap:P:D:n:hT:S:", lo, NULL)) != -1) {
        switch (c) {
        case 'd': o.dir = optarg; break;
        case 'g':
            if (parse_int("--gpus", optarg, 0, 64, &o.gpus) < 0)
                return 2;
            break;
        case 'c':
            if (parse_int("--cpus", optarg, 1, 4096, &o.cpus) < 0)
                return 2;
            break;
        case 'a': o.accounting = 1; break;
        case 'n':
            if (parse_int("--nodes", optarg, 1, 64, &o.nodes) < 0)
                return 2;
            break;
        case 'p':
            if (parse_int("--api-port", optarg, 1, 65535, &o.api_port) < 0)
                return 2;
            break;
        case 'P':
            if (parse_int("--slurmctld-port", optarg, 1, 65535, &o.ctld_port) < 0)
                return 2;
            break;
        case 'D': o.daemon = optarg; break;
        case 'N': o.no_slurmlinkd = 1; break;
        case 'T':
            if (!gpu_types_ok(optarg))
                return 2;
            o.gpu_types = optarg;
            break;
        case 'S':
            if (parse_int("--shards", optarg, 0, 128, &o.shards) < 0)
                return 2;
            break;
        case 'h':
            printf(
                "usage: slurmlink up [--dir D] [--nodes N] [--gpus G] [--cpus C] [--accounting]\n"
                "                    [--api-port P] [--slurmctld-port P] [--daemon PATH]\n"
                "                    [--no-slurmlinkd] [--gpu-types T1,T2,...] [--shards S]\n\n"
                "Start a private, real Slurm cluster in folder D (default $SLURMLINK_DIR or\n"
                "/var/lib/slurmlink-cluster): munged, slurmctld, slurmd with N GPUs as GRES\n"
                "(default 2; fake device nodes when the machine has none), with --accounting\n"
                "MariaDB and slurmdbd, then slurmlinkd and a kubeconfig. Free ports are chosen\n"
                "unless given.\n"
                "--nodes N (2..64): N slurmd nodes node1..nodeN, each in its own network\n"
                "namespace with its own address, hostname, spool and G GPUs.\n"
                "--no-slurmlinkd: everything but slurmlinkd; D/etc/slurmlinkd.conf is written\n"
                "for one started with --config (an installed slurmlinkd, docs/deploy.md).\n"
                "--gpu-types h100,a100: node K's GPUs are GRES type T_K (the list repeated\n"
                "over the nodes; a MIG profile such as 1g.10gb is a type too; \"\": untyped).\n"
                "--shards S: S shard GRES per GPU (pods asking for nvidia.com/gpu.shared).\n"
                "On a folder used before, options not given keep their earlier values.\n"
                "D, its parents and what is in it must be root's alone: up refuses a folder\n"
                "another user made or could replace (docs/security.md).\n");
            return 0;
        default: return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slurmlink up: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_cluster_up(&o, stdout, &err);
    if (r < 0) {
        fprintf(stderr, "slurmlink up: %s\n", err.text);
        return 1;
    }
    return 0;
}

static int dir_only(int argc, char **argv, const char *verb, const char *help, const char **dir,
                    int *json)
{
    static const struct option lo[] = {{"dir", required_argument, 0, 'd'},
                                       {"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    *dir = cmd_default_dir();
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "d:jh", lo, NULL)) != -1) {
        switch (c) {
        case 'd': *dir = optarg; break;
        case 'j':
            if (!json) {
                fprintf(stderr, "slurmlink %s: --json is not an option here\n", verb);
                return 2;
            }
            *json = 1;
            break;
        case 'h': printf("%s", help); return 0;
        default: return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slurmlink %s: unexpected argument '%s'\n", verb, argv[optind]);
        return 2;
    }
    return -1;
}

int cmd_down(int argc, char **argv)
{
    const char *dir;
    int r = dir_only(argc, argv, "down",
                     "usage: slurmlink down [--dir D]\n\nStop every process folder D started "
                     "(and nothing else).\n",
                     &dir, NULL);
    if (r >= 0)
        return r;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_cluster_down(dir, stdout, &err) < 0) {
        fprintf(stderr, "slurmlink down: %s\n", err.text);
        return 1;
    }
    return 0;
}

int cmd_status(int argc, char **argv)
{
    const char *dir;
    int json = 0;
    int r = dir_only(argc, argv, "status",
                     "usage: slurmlink status [--dir D] [--json]\n\nShow each daemon of folder "
                     "D with its pid and port. Exit 0 when all run, 1 otherwise.\n",
                     &dir, &json);
    if (r >= 0)
        return r;
    sl_error_t err = SL_ERROR_INIT;
    r = sl_cluster_status(dir, json, stdout, &err);
    if (r < 0) {
        fprintf(stderr, "slurmlink status: %s\n", err.text);
        return 1;
    }
    return r;
}
