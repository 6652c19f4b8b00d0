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
            "$SLURMLINK_DIR or /var/tmp/slurmlink) and print a kubeconfig that uses it:\n"
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

int cmd_kubeconfig(int argc, char **argv)
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
    const char *user = NULL, *groups = NULL, *dir = cmd_default_dir(), *server = NULL;
    const char *ns = NULL, *outpath = NULL;
    int token = 0, cert = 0, days = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "u:g:tcd:s:n:D:o:h", lo, NULL)) != -1) {
        switch (c) {
        case 'u': user = optarg; break;
        case 'g': groups = optarg; break;
        case 't': token = 1; break;
        case 'c': cert = 1; break;
        case 'd': dir = optarg; break;
        case 's': server = optarg; break;
        case 'n': ns = optarg; break;
        case 'o': outpath = optarg; break;
        case 'D': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > 36500) {
                fprintf(stderr, "slurmlink kubeconfig: --days must be 1..36500, not '%s'\n",
                        optarg);
                return 2;
            }
            days = (int)v;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "slurmlink kubeconfig: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!user || !*user) {
        fprintf(stderr, "slurmlink kubeconfig: --user NAME is required\n");
        return 2;
    }
    if (token && cert) {
        fprintf(stderr, "slurmlink kubeconfig: --token and --cert exclude each other\n");
        return 2;
    }

    sl_error_t err = SL_ERROR_INIT;
    char *srv = NULL;
    if (server)
        srv = sl_xstrdup(server);
    else {
        srv = sl_cluster_api_url(dir, &err);
        if (!srv) {
            fprintf(stderr, "slurmlink kubeconfig: %s\n", err.text);
            return 1;
        }
    }
    char **gv = groups ? split_groups(groups) : NULL;
    char *cac = sl_xasprintf("%s/pki/ca.crt", dir), *cak = sl_xasprintf("%s/pki/ca.key", dir);
    char *tok = sl_xasprintf("%s/etc/tokens.csv", dir);
    sl_auth_issue_t o = {.ca_cert = cac,
                         .ca_key = cak,
                         .token_file = tok,
                         .server = srv,
                         .user = user,
                         .groups = (const char *const *)gv,
                         .ns = ns,
                         .token = token,
                         .days = days};
    char *y = sl_auth_kubeconfig_issue(&o, &err);
    int rc = 0;
    if (!y) {
        fprintf(stderr, "slurmlink kubeconfig: %s\n", err.text);
        rc = 1;
    } else if (outpath) {
        if (sl_write_file(outpath, y, strlen(y), 0600, &err) < 0) {
            fprintf(stderr, "slurmlink kubeconfig: %s\n", err.text);
            rc = 1;
        }
    } else {
        fputs(y, stdout);
        if (fflush(stdout) != 0)
            rc = 1;
    }
    if (y) {
        explicit_bzero(y, strlen(y));
        free(y);
    }
    for (size_t i = 0; gv && gv[i]; i++)
        free(gv[i]);
    free(gv);
    free(cac);
    free(cak);
    free(tok);
    free(srv);
    return rc;
}
