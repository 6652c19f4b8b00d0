/* acct.c — accounting queries: the jobs `sacct -X` lists, one slurmdbd
 * connection per query (slurmdb_jobs_get with a job condition). */
#include "common/argv.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <pwd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "slurmif/compat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

/* every RPC is counted and timed (slurm.c) */
double sl_slurm_rpc_begin(void);
void sl_slurm_rpc_end(const char *rpc, double t0, int failed);

struct sl_slurm_acct_list {
    sl_slurm_acct_rec_t *recs;
    char **strings; /* owned copies the records point to */
    size_t n, nstrings;
};

static const char *own(sl_slurm_acct_list_t *l, const char *s)
{
    l->strings = sl_xrealloc(l->strings, (l->nstrings + 1) * sizeof(char *));
    return l->strings[l->nstrings++] = sl_xstrdup(s ? s : "");
}

static void cond_add(sl_list_t **list, const char *s)
{
    if (!*list)
        *list = slurm_list_create(free);
    slurm_list_append(*list, sl_xstrdup(s));
}

static void cond_free(slurmdb_job_cond_t *c)
{
    sl_list_t **ls[] = {&c->cluster_list, &c->step_list, &c->userid_list, &c->acct_list};
    for (size_t i = 0; i < sizeof(ls) / sizeof(ls[0]); i++)
        if (*ls[i])
            slurm_list_destroy(*ls[i]);
}

static int cond_jobs(slurmdb_job_cond_t *c, const char *jobs, sl_error_t *err)
{
    char *copy = sl_xstrdup(jobs), *save = NULL;
    c->step_list = slurm_list_create(free);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end = NULL;
        unsigned long id = strtoul(t, &end, 10);
        if (!*t || *end || !id || id > UINT32_MAX) {
            errno = EINVAL;
            sl_errprintf(err, "--jobs: %s is not a job id", t);
            free(copy);
            return -1;
        }
        slurm_selected_step_t *step = sl_xcalloc(1, sizeof(*step));
        step->array_task_id = NO_VAL;
        step->het_job_offset = NO_VAL;
        step->step_id.job_id = (uint32_t)id;
        step->step_id.step_id = NO_VAL;
        step->step_id.step_het_comp = NO_VAL;
        slurm_list_append(c->step_list, step);
    }
    free(copy);
    return 0;
}

static int cond_fill(slurmdb_job_cond_t *c, const sl_slurm_acct_query_t *q, sl_error_t *err)
{
    memset(c, 0, sizeof(*c));
    c->flags = JOBCOND_FLAG_NO_STEP;
    c->db_flags = SLURMDB_JOB_FLAG_NOTSET; /* sacct's "any flags"; 0 would match none */
    cond_add(&c->cluster_list, slurm_conf.cluster_name ? slurm_conf.cluster_name : "");
    if (q->jobs && *q->jobs && cond_jobs(c, q->jobs, err) < 0)
        return -1;
    c->usage_start = q->since;
    if (!q->since && !(q->jobs && *q->jobs)) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        c->usage_start = mktime(&tm);
    }
    if (c->usage_start)
        c->usage_end = time(NULL) + 1;
    if (q->user && *q->user) {
        struct passwd *pw = getpwnam(q->user);
        if (!pw) {
            errno = ENOENT;
            return sl_errprintf(err, "--user: no user %s", q->user);
        }
        char uid[32];
        snprintf(uid, sizeof(uid), "%u", (unsigned)pw->pw_uid);
        cond_add(&c->userid_list, uid);
    }
    if (q->account && *q->account)
        cond_add(&c->acct_list, q->account);
    return 0;
}

/* "1=4,4=2,1001=2" (TRES ids) -> "cpu=4,node=2,gres/gpu=2" by the TRES table;
 * counts as they are (mem in MB) */
static char *tres_names(const char *simple, sl_list_t *tres)
{
    sl_argv_t parts = SL_ARGV_INIT;
    char *copy = sl_xstrdup(simple ? simple : ""), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        unsigned long id = strtoul(t, NULL, 10);
        const char *eq = strchr(t, '=');
        slurmdb_tres_rec_t *rec = NULL;
        sl_list_itr_t *it = tres && eq ? slurm_list_iterator_create(tres) : NULL;
        while (it && (rec = slurm_list_next(it)) && rec->id != id)
            ;
        if (it)
            slurm_list_iterator_destroy(it);
        if (rec && rec->name && *rec->name)
            sl_argv_addf(&parts, "%s/%s=%s", rec->type, rec->name, eq + 1);
        else if (rec)
            sl_argv_addf(&parts, "%s=%s", rec->type, eq + 1);
    }
    free(copy);
    size_t len = 1;
    for (size_t i = 0; i < parts.n; i++)
        len += strlen(parts.v[i]) + 1;
    char *out = sl_xcalloc(1, len);
    for (size_t i = 0; i < parts.n; i++)
        strcat(strcat(out, i ? "," : ""), parts.v[i]);
    sl_argv_free(&parts);
    return out;
}

static void rec_fill(sl_slurm_acct_list_t *l, sl_slurm_acct_rec_t *o, slurmdb_job_rec_t *r,
                     sl_list_t *tres)
{
    o->job_id = r->jobid;
    o->name = own(l, r->jobname);
    o->user = own(l, r->user);
    if (!r->user || !*r->user) {
        struct passwd *pw = getpwuid(r->uid);
        o->user = own(l, pw ? pw->pw_name : "");
    }
    o->account = own(l, r->account);
    o->comment = own(l, r->derived_es);
    o->state = slurm_job_state_string(r->state & JOB_STATE_BASE);
    o->nodes = own(l, r->nodes && strcmp(r->nodes, "None assigned") ? r->nodes : "");
    char *t = tres_names(r->tres_alloc_str, tres);
    o->alloc_tres = own(l, t);
    free(t);
    int sig = WIFSIGNALED(r->exitcode) ? WTERMSIG(r->exitcode) : 0;
    snprintf(o->exit_code, sizeof(o->exit_code), "%d:%d", WEXITSTATUS(r->exitcode), sig);
    o->submit = r->submit;
    o->start = r->start;
    o->end = r->end;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = ((const sl_slurm_acct_rec_t *)a)->job_id;
    uint32_t y = ((const sl_slurm_acct_rec_t *)b)->job_id;
    return x < y ? -1 : x > y;
}

static sl_slurm_acct_list_t *wrap_recs(sl_list_t *jobs, sl_list_t *tres)
{
    sl_slurm_acct_list_t *l = sl_xcalloc(1, sizeof(*l));
    l->recs = sl_xcalloc(slurm_list_count(jobs) + 1, sizeof(*l->recs));
    sl_list_itr_t *it = slurm_list_iterator_create(jobs);
    slurmdb_job_rec_t *r;
    while ((r = slurm_list_next(it)))
        rec_fill(l, &l->recs[l->n++], r, tres);
    slurm_list_iterator_destroy(it);
    qsort(l->recs, l->n, sizeof(*l->recs), by_id);
    return l;
}

static int acct_query(void *db, slurmdb_job_cond_t *c, sl_slurm_acct_list_t **out, sl_error_t *err)
{
    slurmdb_tres_cond_t tc;
    memset(&tc, 0, sizeof(tc));
    tc.with_deleted = 1;
    double t0 = sl_slurm_rpc_begin();
    sl_list_t *tres = slurmdb_tres_get(db, &tc);
    sl_slurm_rpc_end("slurmdb_tres_get", t0, !tres);
    t0 = sl_slurm_rpc_begin();
    sl_list_t *jobs = slurmdb_jobs_get(db, c);
    int e = sl_compat_errno();
    sl_slurm_rpc_end("slurmdb_jobs_get", t0, !jobs);
    int rc = 0;
    if (!jobs) {
        errno = e ? e : EIO;
        rc = sl_errprintf(err, "accounting: %s", slurm_strerror(e));
    } else {
        *out = wrap_recs(jobs, tres);
        slurm_list_destroy(jobs);
    }
    if (tres)
        slurm_list_destroy(tres);
    return rc;
}

int sl_slurm_acct_jobs(const sl_slurm_acct_query_t *q, sl_slurm_acct_list_t **out, sl_error_t *err)
{
    *out = NULL;
    const char *type = slurm_conf.accounting_storage_type;
    if (!type || strcasecmp(type, "accounting_storage/slurmdbd")) {
        errno = ENOTSUP;
        return sl_errprintf(err, "accounting: this cluster keeps none (AccountingStorageType %s)",
                            type ? type : "unset");
    }
    slurmdb_job_cond_t c;
    if (cond_fill(&c, q, err) < 0) {
        cond_free(&c);
        return -1;
    }
    double t0 = sl_slurm_rpc_begin();
    void *db = slurmdb_connection_get(NULL);
    int rc;
    if (!db) {
        int e = sl_compat_errno();
        sl_slurm_rpc_end("slurmdb_connection_get", t0, 1);
        errno = e ? e : EIO;
        rc = sl_errprintf(err, "accounting: cannot reach slurmdbd: %s", slurm_strerror(e));
    } else {
        rc = acct_query(db, &c, out, err);
        slurmdb_connection_close(&db);
    }
    cond_free(&c);
    return rc;
}

size_t sl_slurm_acct_count(const sl_slurm_acct_list_t *l) { return l ? l->n : 0; }

const sl_slurm_acct_rec_t *sl_slurm_acct_at(const sl_slurm_acct_list_t *l, size_t i)
{
    return l && i < l->n ? &l->recs[i] : NULL;
}

void sl_slurm_acct_free(sl_slurm_acct_list_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->nstrings; i++)
        free(l->strings[i]);
    free(l->strings);
    free(l->recs);
    free(l);
}

char **sl_slurm_hostlist_expand(const char *list)
{
    sl_hostlist_t *h = list && *list ? slurm_hostlist_create(list) : NULL;
    if (!h)
        return NULL;
    sl_argv_t v = SL_ARGV_INIT;
    char *host;
    while ((host = slurm_hostlist_shift(h))) {
        sl_argv_add(&v, host);
        free(host);
    }
    slurm_hostlist_destroy(h);
    return v.v ? v.v : sl_xcalloc(1, sizeof(char *));
}
