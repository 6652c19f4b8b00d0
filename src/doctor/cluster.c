/* cluster.c — the head's view of the compute nodes: which there are, their
 * GPU GRES against gres.conf, and the pods root the probes write into. */
#include "doctor/internal.h"

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static void add_node(dr_ctx_t *c, const sl_slurm_node_t *sn)
{
    dr_node_t *n = &c->nodes[c->nnodes++];
    snprintf(n->name, sizeof(n->name), "%s", sn->name);
    snprintf(n->partition, sizeof(n->partition), "%.*s", (int)strcspn(sn->partitions, ","),
             sn->partitions);
    n->gpus = sn->gpus;
    n->usable = !sn->down && !sn->drain && !sn->not_responding;
}

void dr_check_nodes(dr_ctx_t *c)
{
    sl_error_t e = SL_ERROR_INIT;
    sl_slurm_nodes_t *ns = NULL;
    if (!c->slurm_ok) {
        dr_report(c, DR_FAIL, "nodes", NULL, "skipped: slurmctld does not answer");
        return;
    }
    if (sl_slurm_nodes_load(NULL, &ns, &e) < 0) {
        dr_report(c, DR_FAIL, "nodes", NULL, "%s", e.text);
        return;
    }
    size_t count = sl_slurm_nodes_count(ns);
    c->nodes = sl_xcalloc(count ? count : 1, sizeof(*c->nodes));
    sl_buf_t all = {0}, bad = {0};
    for (size_t i = 0; i < count; i++) {
        const sl_slurm_node_t *sn = sl_slurm_nodes_at(ns, i);
        add_node(c, sn);
        sl_buf_printf(&all, "%s%s", i ? "," : "", sn->name);
        if (!c->nodes[c->nnodes - 1].usable)
            sl_buf_printf(&bad, "%s%s (%s)", bad.len ? ", " : "", sn->name, sn->state);
    }
    if (!count)
        dr_report(c, DR_FAIL, "nodes", "add NodeName lines to slurm.conf", "slurmctld has no node");
    else if (bad.len)
        dr_report(c, DR_WARN, "nodes", "scontrol update nodename=NODE state=resume",
                  "%zu nodes (%s); not probed: %s", count, all.data, bad.data);
    else
        dr_report(c, DR_OK, "nodes", NULL, "%zu nodes: %s", count, all.data);
    sl_buf_free(&all);
    sl_buf_free(&bad);
    sl_slurm_nodes_free(ns);
}

/* one gres.conf line: whether it gives node the GPUs' files (File= or
 * AutoDetect=) for Name=gpu; 0 when it is not about node's GPUs */
static int gres_line_binds(char *line, const char *node)
{
    int named = 0, applies = 1, files = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            continue;
        *eq = '\0';
        const char *v = eq + 1;
        if (!strcasecmp(t, "NodeName"))
            applies = sl_slurm_hostlist_has(v, node);
        else if (!strcasecmp(t, "Name"))
            named = !strcasecmp(v, "gpu");
        else if (!strcasecmp(t, "File") || !strcasecmp(t, "Files") ||
                 (!strcasecmp(t, "AutoDetect") && strcasecmp(v, "off")))
            files = 1;
        else if (!strcasecmp(t, "AutoDetect") && !named)
            named = -1; /* AutoDetect=off alone */
    }
    return applies && named == 1 && files;
}

/* whether gres.conf (the text) binds node's GPUs to files */
static int gres_binds(const char *text, const char *node)
{
    char *copy = sl_xstrdup(text);
    int binds = 0;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l && !binds;
         l = strtok_r(NULL, "\n", &save)) {
        char *hash = strchr(l, '#');
        if (hash)
            *hash = '\0';
        binds = gres_line_binds(l, node);
    }
    free(copy);
    return binds;
}

/* gres.conf beside slurm.conf, where slurmd reads it */
static char *gres_conf_path(const char *slurm_conf)
{
    const char *slash = strrchr(slurm_conf, '/');
    if (!slash)
        return sl_xstrdup("gres.conf");
    return sl_xasprintf("%.*s/gres.conf", (int)(slash - slurm_conf), slurm_conf);
}

void dr_check_gres(dr_ctx_t *c)
{
    sl_buf_t gpu = {0}, bad = {0};
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].gpus)
            sl_buf_printf(&gpu, "%s%s", gpu.len ? "," : "", c->nodes[i].name);
    if (!gpu.len) {
        dr_report(c, c->slurm_ok ? DR_OK : DR_WARN, "gres", NULL, "no node has GPU GRES");
        sl_buf_free(&gpu);
        return;
    }
    char *path = gres_conf_path(c->slurm_conf);
    size_t len;
    sl_error_t e = SL_ERROR_INIT;
    char *text = sl_read_file(path, &len, &e);
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].gpus && !(text && gres_binds(text, c->nodes[i].name)))
            sl_buf_printf(&bad, "%s%s", bad.len ? "," : "", c->nodes[i].name);
    if (bad.len)
        dr_report(c, DR_FAIL, "gres",
                  "give each GPU node a line NodeName=NODE Name=gpu File=/dev/nvidia[0-N] in "
                  "gres.conf, then restart its slurmd",
                  "%s: no File= for the GPUs of %s: Slurm counts them but binds no device, "
                  "so CUDA_VISIBLE_DEVICES is not set and a job sees every GPU",
                  path, bad.data);
    else
        dr_report(c, DR_OK, "gres", NULL, "%s gives File= for the GPUs of %s", path, gpu.data);
    free(text);
    free(path);
    sl_buf_free(&gpu);
    sl_buf_free(&bad);
}

/* the probes' folder in the pods root, the job user's as a pod's is */
void dr_check_pods_head(dr_ctx_t *c)
{
    const char *fix = "create the pods root on storage every node mounts at the same path, "
                      "writable by root on the head (no root_squash for it)";
    struct stat st;
    int found = stat(c->pods_root, &st) == 0;
    if (!found || !S_ISDIR(st.st_mode)) {
        dr_report(c, DR_FAIL, "pods-root", fix, "%s: %s", c->pods_root,
                  found ? "not a folder" : strerror(errno));
        return;
    }
    /* made and handed to the user on fds: never a chown through a link */
    char name[64];
    snprintf(name, sizeof(name), ".slurmlink-doctor-%s", c->nonce);
    int root = open(c->pods_root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = root < 0 ? -1 : sl_safefs_mkdir_excl(root, name, 0700, NULL);
    if (fd < 0 || fchown(fd, c->uid, c->gid) < 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        if (root >= 0 && fd >= 0)
            unlinkat(root, name, AT_REMOVEDIR);
        if (root >= 0)
            close(root);
        dr_report(c, DR_FAIL, "pods-root", fix, "%s: cannot make a folder for %s: %s", c->pods_root,
                  c->user, strerror(e));
        return;
    }
    close(root);
    c->probe_fd = fd;
    c->probe_dir = sl_xasprintf("%s/%s", c->pods_root, name);
    dr_report(c, DR_OK, "pods-root", NULL, "%s: slurmlinkd can make a pod folder for %s",
              c->pods_root, c->user);
}
