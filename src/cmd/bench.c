/* bench.c — `slurmlink bench`: the comparison study's end-to-end method
 * (src/bench) on a local cluster folder. */
#include "cmd.h"

#include "bench/bench.h"
#include "common/argv.h"

#include <getopt.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: slurmlink bench [--dir D] [--paths sbatch,kubectl,api,slurmrestd]\n"
        "                       [--runs N] [--warmup N] [--workload CMD|pod.yaml]\n"
        "                       [--out DIR] [--throughput N] [--json]\n\n"
        "Run the same pod through each path on the cluster in D and time it end to end:\n"
        "  sbatch      the script slurmlinkd would submit, with sbatch --parsable\n"
        "  kubectl     kubectl apply -f, then kubectl wait for phase Succeeded\n"
        "  api         POST to slurmlinkd's API, then a watch until Succeeded\n"
        "  slurmrestd  Debian's slurmrestd (started privately): job/submit, job/{id} polled\n"
        "Per run: t_submit <= t_ack <= t_start <= t_end <= t_seen (container times from\n"
        "the shim's events.jsonl). Per path: warm mean, median, min, max, the phases, and\n"
        "the ratio against sbatch. Files: runs.csv, summary.csv, bench.json, bench.svg.\n\n"
        "  --dir D           cluster folder (default $SLURMLINK_DIR, else /var/lib/slurmlink-cluster)\n"
        "  --paths LIST      paths to measure, in this order (default all four)\n"
        "  --runs N          measured runs per path (default 5)\n"
        "  --warmup N        warm-up runs per path, excluded from the figures (default 1)\n"
        "  --workload W      a command for `sh -c` in busybox, or a pod file (one Pod;\n"
        "                    GPU pods welcome); default: a no-op busybox container\n"
        "  --out DIR         result folder (default D/bench/<date-time>)\n"
        "  --throughput N    instead: N pods at once per path; time until all were\n"
        "                    acknowledged, started, finished, seen; jobs/s\n"
        "  --json            print the results as JSON instead of the table\n"
        "The direct paths (sbatch, slurmrestd) use slurmlinkd's own settings, read from\n"
        "the command line of the folder's running daemon; these override them:\n"
        "  --run-as USER     the jobs' user (slurmlinkd's --run-as, default nobody)\n"
        "  --pods-root DIR   pod folders (slurmlinkd's --pods-root)\n"
        "  --image-store DIR charliecloud images (slurmlinkd's --image-store, else D/images)\n"
        "  --runtime NAME    default runtime for registry images (--default-runtime)\n"
        "  --kubectl PATH    kubectl program (default kubectl)\n"
        "  --poll-ms N       sbatch/slurmrestd completion polling (default 50)\n"
        "  --timeout S       per run, seconds (default 300)\n"
        "  --no-stagger      submit each run as soon as the previous one was seen (default:\n"
        "                    each round at its own phase of the second, the same for every\n"
        "                    path, spread over the second: slurmctld starts jobs on a 1 s tick)\n"
        "  --keep-pods       leave the kubectl/api paths' pods (and so their pod folders\n"
        "                    and logs) in place; default: they are deleted at the end\n"
        "  --quiet           no progress lines\n"
        "Exit status: 0 when every run worked and is ordered, 1 otherwise, 2 usage.\n");
}

static int num(const char *opt, const char *v, int min, int *out)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || end == v || x < min || x > INT_MAX) {
        fprintf(stderr, "slurmlink bench: %s must be an integer >= %d, not '%s'\n", opt, min, v);
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* the command line into o, json and quiet: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, sl_bench_opts_t *o, int *json, int *quiet)
{
    static const struct option lo[] = {{"dir", required_argument, 0, 'd'},
                                       {"paths", required_argument, 0, 'p'},
                                       {"runs", required_argument, 0, 'n'},
                                       {"warmup", required_argument, 0, 'w'},
                                       {"workload", required_argument, 0, 'W'},
                                       {"out", required_argument, 0, 'o'},
                                       {"throughput", required_argument, 0, 'T'},
                                       {"json", no_argument, 0, 'j'},
                                       {"run-as", required_argument, 0, 'u'},
                                       {"pods-root", required_argument, 0, 'R'},
                                       {"image-store", required_argument, 0, 'I'},
                                       {"runtime", required_argument, 0, 'r'},
                                       {"kubectl", required_argument, 0, 'k'},
                                       {"poll-ms", required_argument, 0, 'P'},
                                       {"timeout", required_argument, 0, 't'},
                                       {"quiet", no_argument, 0, 'q'},
                                       {"no-stagger", no_argument, 0, 'S'},
                                       {"keep-pods", no_argument, 0, 'K'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    int c, bad = 0;
    optind = 1;
    while (!bad && (c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'd': o->dir = optarg; break;
        case 'p': o->paths = optarg; break;
        case 'n': bad = num("--runs", optarg, 1, &o->runs) < 0; break;
        case 'w': bad = num("--warmup", optarg, 0, &o->warmup) < 0; break;
        case 'W': o->workload = optarg; break;
        case 'o': o->out_dir = optarg; break;
        case 'T': bad = num("--throughput", optarg, 1, &o->throughput) < 0; break;
        case 'j': *json = 1; break;
        case 'u': o->run_as = optarg; break;
        case 'R': o->pods_root = optarg; break;
        case 'I': o->image_store = optarg; break;
        case 'r': o->runtime = optarg; break;
        case 'k': o->kubectl = optarg; break;
        case 'P': bad = num("--poll-ms", optarg, 1, &o->poll_ms) < 0; break;
        case 't': bad = num("--timeout", optarg, 1, &o->timeout_s) < 0; break;
        case 'q': *quiet = 1; break;
        case 'S': o->no_stagger = 1; break;
        case 'K': o->keep_pods = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (bad)
        return 2;
    if (optind < argc) {
        fprintf(stderr, "slurmlink bench: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    return -1;
}

/* the results of b on stdout, as JSON or the table (box drawing in UTF-8) */
static void print_results(sl_bench_t *b, int json)
{
    if (json) {
        json_t *j = sl_bench_to_json(b);
        json_dumpf(j, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(j);
    } else {
        setlocale(LC_CTYPE, "");
        const char *cs = nl_langinfo(CODESET);
        sl_bench_print(b, stdout, cs && !strcmp(cs, "UTF-8"));
    }
    fflush(stdout);
}

/* run the bench of o: execute, write the files, print; the exit status */
static int run_bench(const sl_bench_opts_t *o, int json)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_bench_t *b = sl_bench_create(o, &err);
    if (!b) {
        fprintf(stderr, "slurmlink bench: %s\n", err.text);
        return 1;
    }
    int rc = 0;
    if (sl_bench_execute(b, &err) < 0) {
        fprintf(stderr, "slurmlink bench: %s\n", err.text);
        rc = 1;
    }
    if (sl_bench_write_files(b, &err) < 0) {
        fprintf(stderr, "slurmlink bench: writing results: %s\n", err.text);
        rc = 1;
    }
    print_results(b, json);
    int problems = sl_bench_problems(b, stderr);
    if (problems) {
        fprintf(stderr,
                "slurmlink bench: %d run%s failed or broke t_submit <= t_ack <= t_start "
                "<= t_end <= t_seen\n",
                problems, problems == 1 ? "" : "s");
        rc = 1;
    }
    sl_bench_destroy(b);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    sl_bench_opts_t o = {.dir = cmd_default_dir(), .runs = 5, .warmup = 1};
    int json = 0, quiet = 0;
    int rc = parse_args(argc, argv, &o, &json, &quiet);
    if (rc >= 0)
        return rc;
    sl_argv_t cmdline = SL_ARGV_INIT;
    sl_argv_add(&cmdline, "slurmlink");
    for (int i = 0; i < argc; i++)
        sl_argv_add(&cmdline, argv[i]);
    char *command = sl_argv_join(&cmdline);
    sl_argv_free(&cmdline);
    o.command = command;
    o.progress = quiet ? NULL : stderr;
    rc = run_bench(&o, json);
    free(command);
    return rc;
}
