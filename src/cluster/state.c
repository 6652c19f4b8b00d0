/* state.c — D/cluster.json: the ports and options a folder was started with. */
#include "common/fsutil.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <string.h>
#include <unistd.h>

static const char *port_keys[SL_D_COUNT] = {
    NULL, "mysqld_port", "slurmdbd_port", "slurmctld_port", "slurmd_port", "api_port",
};

char *cl_path(const cl_state_t *st, const char *rel) { return sl_xasprintf("%s/%s", st->dir, rel); }

char *cl_read_small(const char *dir, const char *rel, size_t max)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return NULL;
    char *s = sl_safefs_read(dfd, rel, max, NULL, NULL);
    int e = errno;
    close(dfd);
    errno = e;
    return s;
}

void cl_state_clear(cl_state_t *st)
{
    free(st->dir);
    free(st->gpu_files);
    free(st->db_pass);
    free(st->net_tag);
    free(st->gpu_types);
    memset(st, 0, sizeof(*st));
}

int cl_state_save(const cl_state_t *st, sl_error_t *err)
{
    json_t *o =
        json_pack("{s:s, s:i, s:i, s:b, s:s?, s:s?, s:b}", "dir", st->dir, "gpus", st->gpus, "cpus",
                  st->cpus, "accounting", st->accounting, "gpu_files", st->gpu_files, "db_pass",
                  st->db_pass, "no_slurmlinkd", st->no_slurmlinkd);
    for (int i = 0; i < SL_D_COUNT; i++)
        if (port_keys[i])
            json_object_set_new(o, port_keys[i], json_integer(st->port[i]));
    if (st->gpu_types && *st->gpu_types)
        json_object_set_new(o, "gpu_types", json_string(st->gpu_types));
    if (st->shards > 0)
        json_object_set_new(o, "shards", json_integer(st->shards));
    if (cl_multi(st)) /* what `down` and recovery remove (netns.c) */
        json_object_set_new(o, "network",
                            json_pack("{s:i, s:s, s:i}", "nodes", st->nodes, "tag", st->net_tag,
                                      "subnet", st->subnet));
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(o);
    char *path = cl_path(st, "cluster.json");
    int r = sl_write_file(path, s, strlen(s), 0600, err);
    free(path);
    free(s);
    return r;
}

int cl_state_load(const char *dir, cl_state_t *st, sl_error_t *err)
{
    memset(st, 0, sizeof(*st));
    st->dir = sl_abspath(dir);
    char *path = cl_path(st, "cluster.json");
    json_error_t je;
    char *text = cl_read_small(st->dir, "cluster.json", 65536);
    json_t *o = text ? json_loads(text, 0, &je) : NULL;
    free(text);
    if (!o) {
        errno = ENOENT;
        sl_errprintf(err, "%s is not a slurmlink cluster folder (no readable cluster.json)",
                     st->dir);
        free(path);
        cl_state_clear(st);
        return -1;
    }
    free(path);
    int acct = 0, nod = 0;
    const char *gf = NULL, *pw = NULL;
    json_unpack(o, "{s?:i, s?:i, s?:b, s?:s, s?:s, s?:b}", "gpus", &st->gpus, "cpus", &st->cpus,
                "accounting", &acct, "gpu_files", &gf, "db_pass", &pw, "no_slurmlinkd", &nod);
    st->accounting = acct;
    st->no_slurmlinkd = nod;
    st->gpu_files = gf ? sl_xstrdup(gf) : NULL;
    const char *gt = json_string_value(json_object_get(o, "gpu_types"));
    st->gpu_types = gt ? sl_xstrdup(gt) : NULL;
    st->shards = (int)json_integer_value(json_object_get(o, "shards"));
    st->db_pass = pw ? sl_xstrdup(pw) : NULL;
    for (int i = 0; i < SL_D_COUNT; i++)
        if (port_keys[i])
            st->port[i] = (int)json_integer_value(json_object_get(o, port_keys[i]));
    const char *tag = NULL;
    st->nodes = 1;
    json_unpack(json_object_get(o, "network"), "{s:i, s:s, s:i}", "nodes", &st->nodes, "tag", &tag,
                "subnet", &st->subnet);
    /* the tag names links and namespaces: only what `up` writes is taken */
    if (st->nodes < 1 || st->nodes > CL_MAX_NODES || !tag || strlen(tag) != 6 ||
        strspn(tag, "0123456789abcdef") != 6 || st->subnet < 0 || st->subnet > 511)
        st->nodes = 1;
    st->net_tag = tag && st->nodes > 1 ? sl_xstrdup(tag) : NULL;
    json_decref(o);
    return 0;
}
