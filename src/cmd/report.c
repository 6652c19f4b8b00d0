/* report.c — `slurmlink report`: the summary of a mixed sbatch + pod load
 * from Slurm accounting, the pods and each job's recorded GPUs, and its
 * verdict (src/report). */
#include "cmd.h"

#include "bench/bench.h"
#include "common/argv.h"
#include "common/fsutil.h"
#include "report/report.h"
#include "slurmif/slurmif.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: slurmlink report [--dir D] [--jobs LIST] [--since TIME] [--user U]\n"
               "                        [--account A] [--sacct FILE] [--records FILE]...\n"
               "                        [--pods FILE | --kubeconfig FILE | --no-pods] [-o json]\n\n"
               "One line per job from Slurm accounting (id, origin sbatch or namespace/name,\n"
               "user, account, nodes, GPUs held as node:index, queue wait, run time, exit\n"
               "code), then a verdict: no (node, GPU) held by two jobs in overlapping\n"
               "[Start, End); each GPU job recorded exactly its gres/gpu=N GPUs on its own\n"
               "nodes and has ended; each pod agrees with accounting (JobName, NodeList,\n"
               "ExitCode).\n\n"
               "  --dir D           cluster folder: D/etc/slurm.conf, D/kubeconfig (default:\n"
               "                    $SLURM_CONF and $KUBECONFIG, else $SLURMLINK_DIR's or\n"
               "                    /var/lib/slurmlink-cluster's files)\n"
               "  --jobs LIST       these job ids (comma list), whenever they ran\n"
               "  --since TIME      jobs eligible or running since TIME (YYYY-MM-DD[THH:MM:SS];\n"
               "                    default with no --jobs: 00:00 today, as sacct)\n"
               "  --user U, --account A   only that user's / account's jobs\n"
               "  --sacct FILE      the jobs from `sacct -X -P -o JobID,JobName,User,Account,\n"
               "                    NodeList,AllocTRES,Submit,Start,End,ExitCode,State,Comment`\n"
               "                    instead of accounting\n"
               "  --records FILE    text with `gpu-record job=J node=N gpu=I` lines (job\n"
               "                    outputs, pod logs as they are); repeatable\n"
               "  --pods FILE       `kubectl get pods -A -o json` instead of asking the API\n"
               "  --kubeconfig FILE the API to list the pods from (default above)\n"
               "  --no-pods         no pods: a pod's job shows its JobName\n"
               "  -o json           the report as JSON\n"
               "Exit status: 0 all checks hold, 1 a check is violated, 2 unreadable input.\n");
}

typedef struct rpt_opts {
    const char *dir, *sacct, *pods, *kubeconfig, *since;
    sl_slurm_acct_query_t q;
    sl_argv_t records;
    int no_pods, json;
} rpt_opts_t;

/* -1 to go on, else the exit status */
static int parse_args(int argc, char **argv, rpt_opts_t *o)
{
    static const struct option lo[] = {{"dir", required_argument, 0, 'd'},
                                       {"jobs", required_argument, 0, 'j'},
                                       {"since", required_argument, 0, 'S'},
                                       {"user", required_argument, 0, 'u'},
                                       {"account", required_argument, 0, 'A'},
                                       {"sacct", required_argument, 0, 's'},
                                       {"records", required_argument, 0, 'r'},
                                       {"pods", required_argument, 0, 'p'},
                                       {"kubeconfig", required_argument, 0, 'k'},
                                       {"no-pods", no_argument, 0, 'n'},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        switch (c) {
        case 'd': o->dir = optarg; break;
        case 'j': o->q.jobs = optarg; break;
        case 'S': o->since = optarg; break;
        case 'u': o->q.user = optarg; break;
        case 'A': o->q.account = optarg; break;
        case 's': o->sacct = optarg; break;
        case 'r': sl_argv_add(&o->records, optarg); break;
        case 'p': o->pods = optarg; break;
        case 'k': o->kubeconfig = optarg; break;
        case 'n': o->no_pods = 1; break;
        case 'o':
            if (strcmp(optarg, "json")) {
                fprintf(stderr, "slurmlink report: -o: json is the one format, not '%s'\n", optarg);
                return 2;
            }
            o->json = 1;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    for (int i = optind; i < argc; i++) /* more --records files */
        sl_argv_add(&o->records, argv[i]);
    return -1;
}

static int since_time(const char *s, time_t *out)
{
    char buf[64];
    if (strlen(s) == 10 && snprintf(buf, sizeof(buf), "%sT00:00:00", s) > 0)
        s = buf;
    return sl_rpt_parse_time(s, out) < 0 || !*out ? -1 : 0;
}

/* a file of the cluster folder (--dir, else the env's, else the default folder's) */
static char *folder_file(const rpt_opts_t *o, const char *env, const char *rel)
{
    if (!o->dir && getenv(env) && *getenv(env))
        return strdup(getenv(env));
    char *p = NULL;
    if (asprintf(&p, "%s/%s", o->dir ? o->dir : cmd_default_dir(), rel) < 0)
        abort();
    if (!o->dir && access(p, R_OK)) {
        free(p);
        return NULL;
    }
    return p;
}

static int jobs_from_file(sl_rpt_t *r, const char *path, sl_error_t *err)
{
    char *text = sl_read_file(path, NULL, err);
    if (!text)
        return -1;
    int rc = sl_rpt_add_sacct(r, text, path, err);
    free(text);
    return rc;
}

static int jobs_from_accounting(sl_rpt_t *r, const rpt_opts_t *o, sl_error_t *err)
{
    char *conf = folder_file(o, "SLURM_CONF", "etc/slurm.conf");
    int rc = sl_slurm_init(conf, err);
    free(conf);
    sl_slurm_acct_list_t *l = NULL;
    if (rc < 0 || sl_slurm_acct_jobs(&o->q, &l, err) < 0)
        return -1;
    for (size_t i = 0; i < sl_slurm_acct_count(l); i++) {
        const sl_slurm_acct_rec_t *a = sl_slurm_acct_at(l, i);
        char id[16];
        snprintf(id, sizeof(id), "%u", a->job_id);
        sl_rpt_job_t j = {id,           a->name,  a->user,    a->account, a->nodes, a->alloc_tres,
                          a->exit_code, a->state, a->comment, a->submit,  a->start, a->end};
        sl_rpt_add_job(r, &j);
    }
    sl_slurm_acct_free(l);
    return 0;
}

static int load_records(sl_rpt_t *r, const rpt_opts_t *o, sl_error_t *err)
{
    for (size_t i = 0; i < o->records.n; i++) {
        char *text = sl_read_file(o->records.v[i], NULL, err);
        if (!text)
            return -1;
        sl_rpt_add_records(r, text);
        free(text);
    }
    return 0;
}

static int load_pods(sl_rpt_t *r, const rpt_opts_t *o, sl_error_t *err)
{
    if (o->no_pods)
        return 0;
    json_t *list = NULL;
    const char *what = o->pods;
    char *kc = NULL;
    if (o->pods) {
        json_error_t je;
        list = json_load_file(o->pods, 0, &je);
        if (!list)
            return sl_errprintf(err, "%s: not a pod list: %s", o->pods, je.text);
    } else {
        kc = o->kubeconfig ? strdup(o->kubeconfig) : folder_file(o, "KUBECONFIG", "kubeconfig");
        if (!kc)
            return 0; /* no API to ask: as --no-pods */
        list = sl_bench_api_get(kc, "/api/v1/pods", err);
        what = "GET /api/v1/pods";
    }
    int rc = list ? sl_rpt_add_pods(r, list, what, err) : -1;
    json_decref(list);
    free(kc);
    return rc;
}

static int load(sl_rpt_t *r, rpt_opts_t *o, sl_error_t *err)
{
    if (o->since && since_time(o->since, &o->q.since) < 0)
        return sl_errprintf(err, "--since: %s is no time (YYYY-MM-DD[THH:MM:SS])", o->since);
    if (o->sacct ? jobs_from_file(r, o->sacct, err) : jobs_from_accounting(r, o, err))
        return -1;
    if (load_records(r, o, err) < 0 || load_pods(r, o, err) < 0)
        return -1;
    return 0;
}

int cmd_report(int argc, char **argv)
{
    rpt_opts_t o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) {
        sl_argv_free(&o.records);
        return rc;
    }
    sl_error_t err = SL_ERROR_INIT;
    sl_rpt_t *r = sl_rpt_create();
    if (load(r, &o, &err) < 0) {
        fprintf(stderr, "slurmlink report: %s\n", err.text);
        rc = 2;
    } else {
        rc = sl_rpt_check(r) ? 1 : 0;
        if (o.json) {
            json_t *j = sl_rpt_json(r);
            json_dumpf(j, stdout, JSON_INDENT(2));
            fputc('\n', stdout);
            json_decref(j);
        } else {
            sl_rpt_print(r, stdout);
        }
    }
    sl_rpt_free(r);
    sl_error_clear(&err);
    sl_argv_free(&o.records);
    return rc;
}
