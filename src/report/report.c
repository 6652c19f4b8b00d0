/* report.c — the jobs, records and pods of a report, and its checks. */
#include "report/internal.h"

#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

sl_rpt_t *sl_rpt_create(void)
{
    sl_rpt_t *r = sl_xcalloc(1, sizeof(*r));
    r->pods = json_object();
    return r;
}

static void job_free(rpt_job_t *j)
{
    char *s[] = {j->id,        j->name,  j->user,    j->account, j->nodes, j->tres,
                 j->exit_code, j->state, j->comment, j->origin,  j->held};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        free(s[i]);
}

void sl_rpt_free(sl_rpt_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->njobs; i++)
        job_free(&r->jobs[i]);
    for (size_t i = 0; i < r->nrecs; i++) {
        free(r->recs[i].job);
        free(r->recs[i].node);
    }
    free(r->jobs);
    free(r->recs);
    json_decref(r->pods);
    sl_argv_free(&r->problems);
    free(r);
}

static char *dup0(const char *s) { return sl_xstrdup(s ? s : ""); }

void sl_rpt_add_job(sl_rpt_t *r, const sl_rpt_job_t *j)
{
    if (r->njobs == r->capjobs) {
        r->capjobs = r->capjobs ? 2 * r->capjobs : 16;
        r->jobs = sl_xrealloc(r->jobs, r->capjobs * sizeof(*r->jobs));
    }
    rpt_job_t *o = &r->jobs[r->njobs++];
    memset(o, 0, sizeof(*o));
    o->id = dup0(j->id);
    o->name = dup0(j->name);
    o->user = dup0(j->user);
    o->account = dup0(j->account);
    o->nodes = dup0(j->nodes);
    o->tres = dup0(j->alloc_tres);
    o->exit_code = dup0(j->exit_code);
    o->state = dup0(j->state);
    o->comment = dup0(j->comment);
    o->submit = j->submit;
    o->start = j->start;
    o->end = j->end;
    const char *g = strstr(o->tres, "gres/gpu=");
    o->gpus = g ? (unsigned)strtoul(g + 9, NULL, 10) : 0;
    const char *s = strstr(o->tres, "gres/shard=");
    o->shards = s ? (unsigned)strtoul(s + 11, NULL, 10) : 0;
}

static int rec_cmp(const void *a, const void *b)
{
    const rpt_record_t *x = a, *y = b;
    int c = strcmp(x->job, y->job);
    if (!c)
        c = strcmp(x->node, y->node);
    return c ? c : (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

size_t rpt_records_of(const sl_rpt_t *r, const char *id, size_t *first)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nrecs; i++)
        if (!strcmp(r->recs[i].job, id) && !n++ && first)
            *first = i;
    return n;
}

/* problem text, kept in order */
static void problem(sl_rpt_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(sl_rpt_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        abort();
    va_end(ap);
    sl_argv_add(&r->problems, s);
    free(s);
}

static void check_records(sl_rpt_t *r, rpt_job_t *j, size_t first, size_t n)
{
    size_t whole = 0, shards = 0;
    for (size_t i = first; i < first + n; i++) {
        whole += !r->recs[i].shards;
        shards += (size_t)r->recs[i].shards;
    }
    if (whole != j->gpus)
        problem(r, "job %s: AllocTRES gres/gpu=%u but it recorded %zu GPU(s)", j->id, j->gpus,
                whole);
    if (shards != j->shards)
        problem(r, "job %s: AllocTRES gres/shard=%u but it recorded %zu shard(s)", j->id, j->shards,
                shards);
    char **nodes = sl_slurm_hostlist_expand(j->nodes);
    for (size_t i = first; i < first + n; i++) {
        int mine = 0;
        for (size_t k = 0; nodes && nodes[k]; k++)
            mine |= !strcmp(nodes[k], r->recs[i].node);
        if (!mine)
            problem(r, "job %s: recorded a GPU on %s, not one of its nodes %s", j->id,
                    r->recs[i].node, j->nodes);
    }
    sl_strv_free(nodes);
    char a[32], b[32];
    if (n && !(j->start && j->end))
        problem(r, "job %s: holds GPUs but has not ended (Start %s, End %s)", j->id,
                sl_rpt_fmt_time(j->start, a, sizeof(a)), sl_rpt_fmt_time(j->end, b, sizeof(b)));
}

static void held_list(sl_rpt_t *r, rpt_job_t *j, size_t first, size_t n)
{
    sl_argv_t v = SL_ARGV_INIT;
    for (size_t i = first; i < first + n; i++)
        if (r->recs[i].shards)
            sl_argv_addf(&v, "%s:%d/shard:%d", r->recs[i].node, r->recs[i].gpu, r->recs[i].shards);
        else
            sl_argv_addf(&v, "%s:%d", r->recs[i].node, r->recs[i].gpu);
    char *s = sl_xcalloc(1, 2 + n * 96);
    for (size_t i = 0; i < v.n; i++)
        strcat(strcat(s, i ? "," : ""), v.v[i]);
    j->held = *s ? s : (free(s), sl_xstrdup("-"));
    sl_argv_free(&v);
}

static int pod_exit(json_t *pod, long long *code)
{
    size_t i;
    json_t *cs;
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "containerStatuses"), i, cs)
    {
        json_t *t = json_object_get(json_object_get(cs, "state"), "terminated");
        if (t && json_is_integer(json_object_get(t, "exitCode"))) {
            *code = json_integer_value(json_object_get(t, "exitCode"));
            return 1;
        }
    }
    return 0;
}

static void check_pod(sl_rpt_t *r, rpt_job_t *j, json_t *p)
{
    json_t *md = json_object_get(p, "metadata");
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    const char *nm = json_string_value(json_object_get(md, "name"));
    if (asprintf(&j->origin, "%s/%s", ns ? ns : "", nm ? nm : "") < 0)
        abort();
    if (strcmp(j->name, j->origin))
        problem(r, "job %s: JobName %s but the pod is %s", j->id, j->name, j->origin);
    const char *node = json_string_value(json_object_get(json_object_get(p, "spec"), "nodeName"));
    if (!node || strcmp(node, j->nodes))
        problem(r, "job %s: sacct NodeList %s, pod %s spec.nodeName %s", j->id, j->nodes, j->origin,
                node ? node : "None");
    long long code = 0;
    char want[32] = "None";
    int has = pod_exit(p, &code);
    if (has)
        snprintf(want, sizeof(want), "%lld:0", code);
    if (!has || strcmp(want, j->exit_code)) {
        if (has)
            snprintf(want, sizeof(want), "%lld", code);
        problem(r, "job %s: sacct ExitCode %s, pod %s exitCode %s", j->id, j->exit_code, j->origin,
                want);
    }
}

static const char *ann_of(json_t *p, const char *key)
{
    json_t *ann = json_object_get(json_object_get(p, "metadata"), "annotations");
    return json_string_value(json_object_get(ann, key));
}

/* one pod of a workload's job (a gang: a PyTorchJob's or an MPIJob's
 * replicas, ...): its node one of the job's, its exit code 0 when the job's is */
static void check_member(sl_rpt_t *r, rpt_job_t *j, json_t *p, char **nodes)
{
    json_t *md = json_object_get(p, "metadata");
    const char *nm = json_string_value(json_object_get(md, "name"));
    const char *node = json_string_value(json_object_get(json_object_get(p, "spec"), "nodeName"));
    int mine = 0;
    for (size_t k = 0; node && nodes && nodes[k]; k++)
        mine |= !strcmp(nodes[k], node);
    if (!mine)
        problem(r, "job %s: sacct NodeList %s, its pod %s spec.nodeName %s", j->id, j->nodes,
                nm ? nm : "", node ? node : "None");
    long long code = 0;
    if (!strcmp(j->exit_code, "0:0") && (!pod_exit(p, &code) || code))
        problem(r, "job %s: sacct ExitCode 0:0, its pod %s did not exit 0", j->id, nm ? nm : "");
}

/* a job whose comment names a workload, not a pod: its pods are those whose
 * job-uid annotation is that uid and whose job-id is the job; the origin is
 * their owner, "namespace/name (Kind)", and JobName must be namespace/name */
static void check_workload(sl_rpt_t *r, rpt_job_t *j, const char *uid)
{
    char **nodes = sl_slurm_hostlist_expand(j->nodes);
    const char *key, *ns = NULL, *kind = NULL, *owner = NULL;
    json_t *p;
    json_object_foreach(r->pods, key, p)
    {
        const char *ju = ann_of(p, "slurmlink.io/job-uid"), *id = ann_of(p, "slurmlink.io/job-id");
        if (!ju || !id || strcmp(ju, uid) || strcmp(id, j->id))
            continue;
        json_t *md = json_object_get(p, "metadata");
        json_t *ref = json_array_get(json_object_get(md, "ownerReferences"), 0);
        ns = json_string_value(json_object_get(md, "namespace"));
        kind = json_string_value(json_object_get(ref, "kind"));
        owner = json_string_value(json_object_get(ref, "name"));
        check_member(r, j, p, nodes);
    }
    sl_strv_free(nodes);
    if (!kind || !owner || !ns) {
        if (asprintf(&j->origin, "%s (pod)", j->name) < 0)
            abort();
        return;
    }
    if (asprintf(&j->origin, "%s/%s (%s)", ns, owner, kind) < 0)
        abort();
    if (strncmp(j->name, j->origin, strlen(ns) + 1 + strlen(owner)) ||
        j->name[strlen(ns) + 1 + strlen(owner)])
        problem(r, "job %s: JobName %s but its pods' %s is %s/%s", j->id, j->name, kind, ns, owner);
}

static void check_origin(sl_rpt_t *r, rpt_job_t *j)
{
    const char *m = strstr(j->comment, "slurmlink:uid=");
    if (!m) {
        j->origin = sl_xstrdup("sbatch");
        return;
    }
    char *uid = sl_xstrndup(m + 14, strcspn(m + 14, " ,;"));
    json_t *p = json_object_get(r->pods, uid);
    if (p)
        check_pod(r, j, p);
    else
        check_workload(r, j, uid);
    free(uid);
}

/* the jobs that held (node, gpu) with a known [Start, End), by Start;
 * shared[k]: out[k] held shards of it, not the whole GPU */
static size_t holders(const sl_rpt_t *r, const char *node, int gpu, rpt_job_t **out, int *shared)
{
    size_t n = 0;
    for (size_t i = 0; i < r->njobs; i++) {
        rpt_job_t *j = &r->jobs[i];
        size_t first = 0, k = rpt_records_of(r, j->id, &first);
        for (size_t x = first; x < first + k && j->start && j->end; x++)
            if (!strcmp(r->recs[x].node, node) && r->recs[x].gpu == gpu) {
                size_t at = n++;
                while (at && out[at - 1]->start > j->start) {
                    out[at] = out[at - 1];
                    shared[at] = shared[at - 1];
                    at--;
                }
                out[at] = j;
                shared[at] = r->recs[x].shards > 0;
                break;
            }
    }
    return n;
}

static void overlap(sl_rpt_t *r, const char *node, int gpu, const rpt_job_t *a, const rpt_job_t *b,
                    int shard)
{
    char t[4][32];
    problem(r, "OVERLAP: %s GPU %d held by job %s (%s..%s) and job %s (%s..%s)%s", node, gpu, a->id,
            sl_rpt_fmt_time(a->start, t[0], 32), sl_rpt_fmt_time(a->end, t[1], 32), b->id,
            sl_rpt_fmt_time(b->start, t[2], 32), sl_rpt_fmt_time(b->end, t[3], 32),
            shard ? " (whole by one, shards by the other)" : "");
}

static int listed(const sl_rpt_t *r, const char *id)
{
    for (size_t i = 0; i < r->njobs; i++)
        if (!strcmp(r->jobs[i].id, id))
            return 1;
    return 0;
}

/* (node, gpu) pairs of the listed jobs in sorted order, each once; for each pair every two
 * holders whose intervals intersect (End == next Start is no overlap),
 * unless both held shards of it: a GPU held whole is held by one job only */
static void check_overlaps(sl_rpt_t *r)
{
    rpt_record_t *pairs = sl_xcalloc(r->nrecs + 1, sizeof(*pairs));
    size_t np = 0;
    for (size_t i = 0; i < r->nrecs; i++) {
        if (!listed(r, r->recs[i].job))
            continue; /* a pod's job outside the report's jobs */
        size_t k = 0;
        while (k < np &&
               !(pairs[k].gpu == r->recs[i].gpu && !strcmp(pairs[k].node, r->recs[i].node)))
            k++;
        if (k == np)
            pairs[np++] = (rpt_record_t){"", r->recs[i].node, r->recs[i].gpu, 0};
    }
    qsort(pairs, np, sizeof(*pairs), rec_cmp);
    r->n_pairs = np;
    rpt_job_t **js = sl_xcalloc(r->njobs + 1, sizeof(*js));
    int *sh = sl_xcalloc(r->njobs + 1, sizeof(*sh));
    for (size_t p = 0; p < np; p++) {
        size_t n = holders(r, pairs[p].node, pairs[p].gpu, js, sh);
        for (size_t a = 0; a < n; a++)
            for (size_t b = a + 1; b < n; b++) {
                if (!(js[b]->start < js[a]->end && js[a]->start < js[b]->end))
                    continue;
                if (sh[a] && sh[b])
                    r->n_shared++;
                else
                    overlap(r, pairs[p].node, pairs[p].gpu, js[a], js[b], sh[a] || sh[b]);
            }
    }
    free(sh);
    free(js);
    free(pairs);
}

size_t sl_rpt_check(sl_rpt_t *r)
{
    if (r->nrecs)
        qsort(r->recs, r->nrecs, sizeof(*r->recs), rec_cmp);
    for (size_t i = 0; i < r->njobs; i++) {
        rpt_job_t *j = &r->jobs[i];
        size_t first = 0, n = rpt_records_of(r, j->id, &first);
        if (j->gpus || j->shards || n)
            check_records(r, j, first, n);
        held_list(r, j, first, n);
        check_origin(r, j);
        r->n_held += n;
        r->n_gpu_jobs += j->gpus > 0 || j->shards > 0;
    }
    check_overlaps(r);
    return r->problems.n;
}
