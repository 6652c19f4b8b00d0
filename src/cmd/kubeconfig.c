/* kubeconfig.c — `slurmlink kubeconfig`: issue a user's credential for a
 * cluster folder and print (or write) a kubeconfig that carries it. */
#include "auth/kubeconfig.h"
#include "cluster/cluster.h"
#include "cmd.h"
#include "common/fsutil.h"
#include "common/xalloc.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slurmlink kubeconfig --user NAME [--groups G1,G2] [--cert | --token]\n"
            "                            [--dir D] [--server URL] [--namespace NS]\n"
            "                            [--days N] [-o FILE]\n\n"
            "Issue a credential for user NAME on the cluster in folder D (default\n"
            "$SLURMLINK_DIR or /var/lib/slurmlink-cluster) and print a kubeconfig that uses it:\n"
            "  --cert      (default) a client certificate signed by D/pki/ca.crt with\n"
            "              CN=NAME and one O per group, valid --days N (default 365)\n"
            "  --token     a new random bearer token appended to D/etc/tokens.csv,\n"
            "              expiring after --days N (default: never)\n"
            "  --server    the API URL (default slurmlinkd's address and port in D/cluster.json)\n"
            "  --namespace the context's namespace (default \"default\")\n"
            "  -o FILE     write the kubeconfig to FILE (mode 0600) instead of stdout\n"
            "Run as a user that can read D/pki/ca.key (--cert) or write D/etc/tokens.csv\n"
            "(--token). What a user may do is set in D/etc/policy.yaml.\n");
}

/* "a, b,,c" → {"a","b","c",NULL}; caller frees the array and its strings */
static char **split_groups(const char *s)
{
    char **v = sl_xcalloc(1, sizeof(char *));
    size_t n = 0;
    char *copy = sl_xstrdup(s), *save = NULL;
    for (char *g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
        while (*g == ' ')
            g++;
        size_t len = strlen(g);
        while (len && g[len - 1] == ' ')
            g[--len] = '\0';
        if (!len)
            continue;
        v = sl_xrealloc(v, (n + 2) * sizeof(char *));
        v[n++] = sl_xstrdup(g);
        v[n] = NULL;
    }
    free(copy);
    return v;
}

struct kc_opts {
    const char *user, *groups, *dir, *server, *ns, *outpath;
    int token, cert, days;
};

static int parse_days(const char *arg, int *days)
{
    char *end;
    long v = strtol(arg, &end, 10);
    if (!*arg || *end || v < 1 || v > 36500) {
        fprintf(stderr, "slurmlink kubeconfig: --days must be 1..36500, not '%s'\n", arg);
        return -1;
    }
    *days = (int)v;
    return 0;
}

/* the command line into o: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct kc_opts *o)
{
    static const struct option lo[] = {{"user", required_argument, 0, 'u'},
                                       {"groups", required_argument, 0, 'g'},
                                       {"token", no_argument, 0, 't'},
                                       {"cert", no_argument, 0, 'c'},
                                       {"dir", required_argument, 0, 'd'},
                                       {"server", required_argument, 0, 's'},
                                       {"namespace", required_argument, 0, 'n'},
                                       {"days", required_argument, 0, 'D'},
                                       {"output", required_argument, 0, 'o'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "u:g:tcd:s:n:D:o:h", lo, NULL)) != -1) {
        switch (c) {
        case 'u': o->user = optarg; break;
        case 'g': o->groups = optarg; break;
        case 't': o->token = 1; break;
        case 'c': o->cert = 1; break;
        case 'd': o->dir = optarg; break;
        case 's': o->server = optarg; break;
        case 'n': o->ns = optarg; break;
        case 'o': o->outpath = optarg; break;
        case 'D':
            if (parse_days(optarg, &o->days) < 0)
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slurmlink kubeconfig: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!o->user || !*o->user) {
        fprintf(stderr, "slurmlink kubeconfig: --user NAME is required\n");
        return 2;
    }
    if (o->token && o->cert) {
        fprintf(stderr, "slurmlink kubeconfig: --token and --cert exclude each other\n");
        return 2;
    }
    return -1;
}

/* the issued kubeconfig y to outpath (mode 0600) or stdout; the exit status. */
static int write_out(const char *y, const char *outpath)
{
    sl_error_t err = SL_ERROR_INIT;
    if (outpath) {
        if (sl_write_file(outpath, y, strlen(y), 0600, &err) < 0) {
            fprintf(stderr, "slurmlink kubeconfig: %s\n", err.text);
            return 1;
        }
        return 0;
    }
    fputs(y, stdout);
    return fflush(stdout) != 0 ? 1 : 0;
}

/* a kubeconfig for o->user issued against the cluster in o->dir; the exit status. */
static int issue(const struct kc_opts *a, const char *srv)
{
    sl_error_t err = SL_ERROR_INIT;
    char **gv = a->groups ? split_groups(a->groups) : NULL;
    char *cac = sl_xasprintf("%s/pki/ca.crt", a->dir);
    char *cak = sl_xasprintf("%s/pki/ca.key", a->dir);
    char *tok = sl_xasprintf("%s/etc/tokens.csv", a->dir);
    sl_auth_issue_t o = {.ca_cert = cac,
                         .ca_key = cak,
                         .token_file = tok,
                         .server = srv,
                         .user = a->user,
                         .groups = (const char *const *)gv,
                         .ns = a->ns,
                         .token = a->token,
                         .days = a->days};
    char *y = sl_auth_kubeconfig_issue(&o, &err);
    int rc;
    if (!y) {
        fprintf(stderr, "slurmlink kubeconfig: %s\n", err.text);
        rc = 1;
    } else {
        rc = write_out(y, a->outpath);
        explicit_bzero(y, strlen(y));
        free(y);
    }
    for (size_t i = 0; gv && gv[i]; i++)
        free(gv[i]);
    free(gv);
    free(cac);
    free(cak);
    free(tok);
    return rc;
}

int cmd_kubeconfig(int argc, char **argv)
{
    struct kc_opts o = {.dir = cmd_default_dir()};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    sl_error_t err = SL_ERROR_INIT;
    char *srv = o.server ? sl_xstrdup(o.server) : sl_cluster_api_url(o.dir, &err);
    if (!srv) {
        fprintf(stderr, "slurmlink kubeconfig: %s\n", err.text);
        return 1;
    }
    rc = issue(&o, srv);
    free(srv);
    return rc;
}
