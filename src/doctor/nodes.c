/* nodes.c — the checks of the probes' answers, one line each over all
 * nodes: the pods root shared, the shim, the runtimes, the clock, the push
 * address. A node without an answer is named in the probe's line and
 * counted here as not checked. */
#include "doctor/internal.h"

#include "common/safefs.h"
#include "common/xalloc.h"

#include <errno.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a list of "node: what" texts, for one report line */
typedef struct dr_list {
    char text[1024];
    size_t n;
} dr_list_t;

static void list_add(dr_list_t *l, const char *node, const char *what)
{
    size_t len = strlen(l->text);
    snprintf(l->text + len, sizeof(l->text) - len, "%s%s%s%s", l->n ? "; " : "", node,
             what ? ": " : "", what ? what : "");
    l->n++;
}

/* the answered nodes, with the count of those that did not */
static size_t answered(const dr_ctx_t *c, size_t *missing)
{
    size_t a = 0;
    *missing = 0;
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].probed)
            a++;
        else
            (*missing)++;
    return a;
}

/* the level and line of a check over the nodes */
static void summary(dr_ctx_t *c, const char *name, const dr_list_t *bad, const char *fix,
                    const char *good)
{
    size_t missing;
    size_t a = answered(c, &missing);
    if (bad->n)
        dr_report(c, DR_FAIL, name, fix, "%s", bad->text);
    else if (!a)
        dr_report(c, DR_FAIL, name, NULL, "not checked: no node answered the probe");
    else if (missing)
        dr_report(c, DR_WARN, name, NULL, "%s on the %zu nodes that answered (%zu did not)", good,
                  a, missing);
    else
        dr_report(c, DR_OK, name, NULL, "%s on every node (%zu)", good, a);
}

/* the node wrote the nonce; does the head read it at the same path? */
static void pods_node(const dr_ctx_t *c, const dr_node_t *n, dr_list_t *bad)
{
    char v[512];
    dr_probe_get(n, "pods", v, sizeof(v));
    if (!strcmp(v, "absent")) {
        list_add(bad, n->name,
                 "the folder the head made in the pods root is not there: the pods root is "
                 "not the same shared storage on this node");
        return;
    }
    if (strcmp(v, "ok")) {
        char what[600];
        snprintf(what, sizeof(what), "the job user cannot write there: %s", v);
        list_add(bad, n->name, what);
        return;
    }
    /* the job user owns the folder and may have put a FIFO (an open that
     * never returns), a link or a huge file in place of the answer */
    size_t len;
    char *got = sl_safefs_read(c->probe_fd, n->name, 4096, &len, NULL);
    if (!got && errno != ENOENT) {
        char what[700];
        snprintf(what, sizeof(what), "%s/%s: %s", c->probe_dir, n->name,
                 errno == EINVAL  ? "not a regular file (the job user put another kind there)"
                 : errno == ELOOP ? "a symbolic link (the job user put it there)"
                 : errno == EFBIG ? "larger than the answer can be"
                                  : strerror(errno));
        list_add(bad, n->name, what);
    } else if (!got || strncmp(got, c->nonce, strlen(c->nonce)))
        list_add(bad, n->name,
                 "the file the job wrote is not seen by the head: the pods root is not "
                 "shared storage there");
    free(got);
}

void dr_check_pods_shared(dr_ctx_t *c)
{
    dr_list_t bad = {0};
    if (!c->probe_dir) {
        dr_report(c, DR_FAIL, "pods-shared", NULL, "not checked: no probe folder in %s",
                  c->pods_root);
        return;
    }
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].probed)
            pods_node(c, &c->nodes[i], &bad);
    char good[600];
    snprintf(good, sizeof(good), "%s written by %s, read back by the head,", c->pods_root, c->user);
    summary(c, "pods-shared", &bad,
            "mount the pods root (pods.root) from shared storage at the same path on "
            "the head and every node, writable by the job users",
            good);
}

void dr_check_shim(dr_ctx_t *c)
{
    dr_list_t bad = {0};
    char v[512], version[128] = "";
    for (size_t i = 0; i < c->nnodes; i++) {
        if (!c->nodes[i].probed)
            continue;
        dr_probe_get(&c->nodes[i], "shim", v, sizeof(v));
        if (strncmp(v, "ok ", 3))
            list_add(&bad, c->nodes[i].name, v);
        else
            snprintf(version, sizeof(version), "%.100s", v + 3);
    }
    char good[700];
    snprintf(good, sizeof(good), "%s runs (%s)", c->shim ? c->shim : "?", version);
    summary(c, "shim", &bad,
            "install slurmlink-shim on every node at shim.path (the slurmlink-shim package), "
            "readable and executable by the job users",
            good);
}

void dr_check_runtimes(dr_ctx_t *c)
{
    dr_list_t bad = {0};
    char key[80], v[512], names[256] = "";
    if (!c->nrt) {
        dr_report(c, DR_OK, "runtimes", NULL, "none configured: pods run on the host");
        return;
    }
    for (size_t r = 0; r < c->nrt; r++) {
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s (%s)", r ? ", " : "",
                 c->rt[r], c->rt_bin[r] ? c->rt_bin[r] : "unknown runtime");
        snprintf(key, sizeof(key), "rt.%s", c->rt_bin[r] ? c->rt_bin[r] : c->rt[r]);
        for (size_t i = 0; i < c->nnodes; i++) {
            if (!c->nodes[i].probed)
                continue;
            dr_probe_get(&c->nodes[i], key, v, sizeof(v));
            char what[300];
            snprintf(what, sizeof(what), "runtime %s: %s not found on PATH", c->rt[r],
                     c->rt_bin[r] ? c->rt_bin[r] : c->rt[r]);
            if (!c->rt_bin[r] || strncmp(v, "ok", 2))
                list_add(&bad, c->nodes[i].name, what);
        }
    }
    summary(c, "runtimes", &bad,
            "install the runtime on every node, or leave it out of runtimes.default", names);
}

void dr_check_clock(dr_ctx_t *c)
{
    dr_list_t bad = {0};
    double worst = 0;
    char v[64];
    for (size_t i = 0; i < c->nnodes; i++) {
        dr_node_t *n = &c->nodes[i];
        if (!n->probed)
            continue;
        dr_probe_get(n, "time", v, sizeof(v));
        double t = atof(v), skew = t < n->t0 ? n->t0 - t : t > n->t1 ? t - n->t1 : 0;
        if (skew > worst)
            worst = skew;
        char what[96];
        snprintf(what, sizeof(what), "%.1f s %s the head", skew, t < n->t0 ? "behind" : "ahead of");
        if (skew > 2.0)
            list_add(&bad, n->name, what);
    }
    char good[96];
    snprintf(good, sizeof(good), "clock within %.1f s of the head's", worst);
    summary(c, "clock", &bad,
            "run an NTP client (chrony, systemd-timesyncd) on the head and the nodes: munge "
            "credentials and Slurm's times need the same clock",
            good);
}

void dr_check_push(dr_ctx_t *c)
{
    dr_list_t bad = {0};
    char v[64], what[300];
    snprintf(what, sizeof(what), "cannot connect to %s:%d", c->push_host ? c->push_host : "?",
             c->push_port);
    for (size_t i = 0; i < c->nnodes; i++) {
        if (!c->nodes[i].probed)
            continue;
        dr_probe_get(&c->nodes[i], "push", v, sizeof(v));
        if (strcmp(v, "ok"))
            list_add(&bad, c->nodes[i].name, what);
    }
    char good[300];
    snprintf(good, sizeof(good), "the push address %s:%d answers",
             c->push_host ? c->push_host : "?", c->push_port);
    summary(c, "push", &bad,
            "start slurmlinkd; make it listen on an address the nodes reach (listen.address) "
            "and open the port to them, or set shim.report_url",
            good);
}
