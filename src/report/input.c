/* input.c — a report's inputs: a sacct table, gpu-record lines, a PodList. */
#include "report/internal.h"

#include "common/xalloc.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char *const fields[] = {"JobID",    "JobName",   "User",   "Account",
                                     "NodeList", "AllocTRES", "Submit", "Start",
                                     "End",      "ExitCode",  "State",  "Comment"};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* split line at '|' into at most max fields (the last keeps the rest) */
static size_t split(char *line, char **v, size_t max)
{
    size_t n = 0;
    v[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '|') {
            *p = '\0';
            v[n++] = p + 1;
        }
    return n;
}

static int header(char *line, int *col, size_t *ncols, const char *what, sl_error_t *err)
{
    char *v[64];
    *ncols = split(line, v, 64);
    for (size_t f = 0; f < NFIELDS; f++) {
        col[f] = -1;
        for (size_t i = 0; i < *ncols; i++)
            if (!strcmp(v[i], fields[f]))
                col[f] = (int)i;
        if (col[f] < 0) {
            errno = EINVAL;
            return sl_errprintf(err, "%s: no field %s in the header line", what, fields[f]);
        }
    }
    return 0;
}

static int row(sl_rpt_t *r, char *line, const int *col, size_t ncols, const char *what,
               sl_error_t *err)
{
    char *v[64], *copy = sl_xstrdup(line);
    size_t n = split(line, v, ncols);
    if (n != ncols) {
        errno = EINVAL;
        sl_errprintf(err, "%s: a line with %zu fields, the header has %zu: %s", what, n, ncols,
                     copy);
        free(copy);
        return -1;
    }
    free(copy);
    if (strchr(v[col[0]], '.'))
        return 0; /* a step (sacct without -X) */
    sl_rpt_job_t j = {v[col[0]], v[col[1]],  v[col[2]],  v[col[3]], v[col[4]], v[col[5]],
                      v[col[9]], v[col[10]], v[col[11]], 0,         0,         0};
    time_t *t[] = {&j.submit, &j.start, &j.end};
    for (int i = 0; i < 3; i++)
        if (sl_rpt_parse_time(v[col[6 + i]], t[i]) < 0) {
            errno = EINVAL;
            return sl_errprintf(err, "%s: job %s: %s %s is no time", what, j.id, fields[6 + i],
                                v[col[6 + i]]);
        }
    sl_rpt_add_job(r, &j);
    return 0;
}

int sl_rpt_add_sacct(sl_rpt_t *r, const char *text, const char *what, sl_error_t *err)
{
    char *copy = sl_xstrdup(text ? text : ""), *save = NULL;
    int col[NFIELDS], rc = 0, seen = 0;
    size_t ncols = 0;
    for (char *l = strtok_r(copy, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
        l[strcspn(l, "\r")] = '\0';
        if (!l[strspn(l, " \t")])
            continue;
        rc = seen++ ? row(r, l, col, ncols, what, err) : header(l, col, &ncols, what, err);
    }
    free(copy);
    if (!rc && !seen) {
        errno = EINVAL;
        rc = sl_errprintf(err, "%s: empty", what);
    }
    return rc;
}

static void add_record(sl_rpt_t *r, const char *job, const char *node, int gpu, int shards)
{
    for (size_t i = 0; i < r->nrecs; i++)
        if (r->recs[i].gpu == gpu && !strcmp(r->recs[i].job, job) && !strcmp(r->recs[i].node, node))
            return;
    if (r->nrecs == r->caprecs) {
        r->caprecs = r->caprecs ? 2 * r->caprecs : 16;
        r->recs = sl_xrealloc(r->recs, r->caprecs * sizeof(*r->recs));
    }
    r->recs[r->nrecs++] = (rpt_record_t){sl_xstrdup(job), sl_xstrdup(node), gpu, shards};
}

void sl_rpt_add_records(sl_rpt_t *r, const char *text)
{
    regex_t re;
    if (regcomp(&re,
                "gpu-record job=([0-9]+) node=([A-Za-z0-9_.-]+) gpu=([0-9]+)( shards=([0-9]+))?"
                "([^0-9A-Za-z_]|$)",
                REG_EXTENDED | REG_NEWLINE))
        abort();
    regmatch_t m[7];
    for (const char *p = text ? text : ""; !regexec(&re, p, 7, m, p == text ? 0 : REG_NOTBOL);
         p += m[0].rm_eo ? m[3].rm_eo : 1) {
        char *job = sl_xstrndup(p + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
        char *node = sl_xstrndup(p + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));
        int shards = m[5].rm_so >= 0 ? atoi(p + m[5].rm_so) : 0;
        add_record(r, job, node, atoi(p + m[3].rm_so), shards);
        free(job);
        free(node);
    }
    regfree(&re);
}

/* a pod's slurmlink.io/gpus annotation (what Slurm bound, as its shim saw it
 * on the node) as records of its job, as if it had printed gpu-record lines */
static void pod_gpus(sl_rpt_t *r, json_t *p)
{
    json_t *ann = json_object_get(json_object_get(p, "metadata"), "annotations");
    const char *job = json_string_value(json_object_get(ann, "slurmlink.io/job-id"));
    const char *text = json_string_value(json_object_get(ann, "slurmlink.io/gpus"));
    json_t *g = text && job ? json_loads(text, 0, NULL) : NULL;
    const char *node = json_string_value(json_object_get(g, "node"));
    json_t *ix = json_object_get(g, "indexes");
    int shards = (int)json_integer_value(json_object_get(g, "shards"));
    size_t i;
    json_t *v;
    json_array_foreach(ix, i, v)
    {
        if (node && json_is_integer(v))
            add_record(r, job, node, (int)json_integer_value(v),
                       shards > 0 && json_array_size(ix) == 1 ? shards : shards > 0);
    }
    json_decref(g);
}

int sl_rpt_add_pods(sl_rpt_t *r, json_t *list, const char *what, sl_error_t *err)
{
    json_t *items = json_object_get(list, "items");
    if (!json_is_array(items)) {
        errno = EINVAL;
        return sl_errprintf(err, "%s: not a pod list: no items", what);
    }
    size_t i;
    json_t *p;
    json_array_foreach(items, i, p)
    {
        const char *uid = json_string_value(json_object_get(json_object_get(p, "metadata"), "uid"));
        if (!uid) {
            errno = EINVAL;
            return sl_errprintf(err, "%s: not a pod list: item %zu has no metadata.uid", what, i);
        }
        json_object_set(r->pods, uid, p);
        pod_gpus(r, p);
    }
    return 0;
}
