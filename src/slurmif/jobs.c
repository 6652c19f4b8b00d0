/* jobs.c — snapshots of slurmctld's jobs and nodes (one RPC per load). */
#include "slurmif/slurmif.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurmdb.h>

#include "slurmif/compat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

struct sl_slurm_jobs {
    job_info_msg_t *msg;
    sl_slurm_job_t *jobs;
    size_t n;
};

struct sl_slurm_nodes {
    node_info_msg_t *msg;
    partition_info_msg_t *parts;
    sl_slurm_node_t *nodes;
    size_t n;
    unsigned long updates; /* sl_slurm_node_updates() before the read */
};

/* every RPC is counted and timed (slurm.c) */
double sl_slurm_rpc_begin(void);
void sl_slurm_rpc_end(const char *rpc, double t0, int failed);
unsigned long sl_slurm_node_updates(void); /* info.c */

static const char *nz(const char *s)
{
    return s ? s : "";
}

static sl_slurm_jobs_t *wrap_jobs(job_info_msg_t *msg)
{
    sl_slurm_jobs_t *j = sl_xcalloc(1, sizeof(*j));
    j->msg = msg;
    j->n = msg->record_count;
    j->jobs = sl_xcalloc(j->n ? j->n : 1, sizeof(sl_slurm_job_t));
    for (size_t i = 0; i < j->n; i++) {
        slurm_job_info_t *s = &msg->job_array[i];
        sl_slurm_job_t *o = &j->jobs[i];
        o->job_id = s->job_id;
        o->user_id = s->user_id;
        o->name = nz(s->name);
        o->comment = nz(s->comment);
        o->state = slurm_job_state_string(s->job_state & JOB_STATE_BASE);
        o->completing = (s->job_state & JOB_COMPLETING) != 0;
        o->requeued = (s->job_state & JOB_REQUEUE) != 0;
        o->restart_cnt = s->restart_cnt;
        o->reason = sl_compat_reason_string(s->state_reason);
        o->reason_text = nz(s->state_desc);
        o->nodes = nz(s->nodes);
        o->batch_host = nz(s->batch_host);
        o->submit_time = s->submit_time;
        o->start_time = s->start_time;
        o->end_time = s->end_time;
        o->array_job_id = s->array_job_id;
        o->array_task_id =
            s->array_job_id && s->array_task_id != NO_VAL ? s->array_task_id : SL_SLURM_NO_TASK;
        if (WIFSIGNALED(s->exit_code)) {
            o->exit_signal = WTERMSIG(s->exit_code);
            o->exit_code = 128 + o->exit_signal;
        } else {
            o->exit_code = WEXITSTATUS(s->exit_code);
        }
    }
    return j;
}

int sl_slurm_jobs_load(time_t *since, sl_slurm_jobs_t **out, sl_error_t *err)
{
    job_info_msg_t *msg = NULL;
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_load_jobs(since ? *since : 0, &msg, SHOW_ALL | SHOW_LOCAL);
    int e = rc != SLURM_SUCCESS ? sl_compat_errno() : 0;
    sl_slurm_rpc_end("load_jobs", t0, rc != SLURM_SUCCESS && e != SLURM_NO_CHANGE_IN_DATA);
    if (rc != SLURM_SUCCESS) {
        if (e == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        errno = e;
        return sl_errprintf(err, "load jobs: %s", slurm_strerror(e));
    }
    if (since)
        *since = msg->last_update;
    *out = wrap_jobs(msg);
    return 1;
}

int sl_slurm_job_load(uint32_t job_id, sl_slurm_jobs_t **out, sl_error_t *err)
{
    job_info_msg_t *msg = NULL;
    double t0 = sl_slurm_rpc_begin();
    int rc = sl_compat_load_job(&msg, job_id, SHOW_ALL | SHOW_LOCAL);
    int e = rc != SLURM_SUCCESS ? sl_compat_errno() : 0;
    /* a job Slurm has forgotten is an answer, not an error */
    sl_slurm_rpc_end("load_job", t0, rc != SLURM_SUCCESS && e != ESLURM_INVALID_JOB_ID);
    if (rc != SLURM_SUCCESS) {
        errno = e == ESLURM_INVALID_JOB_ID ? ENOENT : e;
        return sl_errprintf(err, "load job %u: %s", job_id, slurm_strerror(e));
    }
    *out = wrap_jobs(msg);
    return 0;
}

/* ---- accounting: the outcome of a job slurmctld has purged ---------------- */

static void acct_fill(const slurmdb_job_rec_t *r, sl_slurm_acct_job_t *out)
{
    sl_slurm_job_t *o = &out->job;
    o->job_id = r->jobid;
    o->user_id = r->uid;
    o->name = o->comment = o->reason = o->reason_text = o->batch_host = "";
    o->state = slurm_job_state_string(r->state & JOB_STATE_BASE);
    o->submit_time = r->submit;
    o->start_time = r->start;
    o->end_time = r->end;
    snprintf(out->nodes, sizeof(out->nodes), "%s", r->nodes ? r->nodes : "");
    if (!strcmp(out->nodes, "None assigned"))
        out->nodes[0] = '\0';
    o->nodes = out->nodes;
    if (WIFSIGNALED(r->exitcode)) {
        o->exit_signal = WTERMSIG(r->exitcode);
        o->exit_code = 128 + o->exit_signal;
    } else {
        o->exit_code = WEXITSTATUS(r->exitcode);
    }
}

/* the last finished record of the job in l (a requeued job has several) */
static const slurmdb_job_rec_t *acct_last(sl_list_t *l, uint32_t job_id)
{
    const slurmdb_job_rec_t *best = NULL;
    sl_list_itr_t *it = slurm_list_iterator_create(l);
    slurmdb_job_rec_t *r;
    while ((r = slurm_list_next(it))) {
        uint32_t base = r->state & JOB_STATE_BASE;
        if (r->jobid != job_id || base == JOB_PENDING || base == JOB_RUNNING ||
            base == JOB_SUSPENDED)
            continue;
        if (!best || r->submit >= best->submit)
            best = r;
    }
    slurm_list_iterator_destroy(it);
    return best;
}

int sl_slurm_job_accounting(uint32_t job_id, sl_slurm_acct_job_t *out, sl_error_t *err)
{
    memset(out, 0, sizeof(*out));
    const char *type = slurm_conf.accounting_storage_type;
    if (!type || strcasecmp(type, "accounting_storage/slurmdbd"))
        return 0;
    double t0 = sl_slurm_rpc_begin();
    void *db = slurmdb_connection_get(NULL);
    if (!db) {
        int e = sl_compat_errno();
        sl_slurm_rpc_end("slurmdb_jobs_get", t0, 1);
        errno = e ? e : EIO;
        return sl_errprintf(err, "accounting: cannot reach slurmdbd: %s", slurm_strerror(e));
    }
    slurmdb_job_cond_t cond;
    memset(&cond, 0, sizeof(cond));
    cond.flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_DUP;
    cond.db_flags = SLURMDB_JOB_FLAG_NOTSET; /* sacct's "any flags"; 0 would match none */
    cond.cluster_list = slurm_list_create(free);
    slurm_list_append(cond.cluster_list,
                      strdup(slurm_conf.cluster_name ? slurm_conf.cluster_name : ""));
    cond.step_list = slurm_list_create(free);
    slurm_selected_step_t *step = sl_xcalloc(1, sizeof(*step));
    step->array_task_id = NO_VAL;
    step->het_job_offset = NO_VAL;
    step->step_id.job_id = job_id;
    step->step_id.step_id = NO_VAL;
    step->step_id.step_het_comp = NO_VAL;
    slurm_list_append(cond.step_list, step);
    sl_list_t *l = slurmdb_jobs_get(db, &cond);
    int e = sl_compat_errno();
    sl_slurm_rpc_end("slurmdb_jobs_get", t0, !l);
    slurm_list_destroy(cond.cluster_list);
    slurm_list_destroy(cond.step_list);
    int r = 0;
    if (!l) {
        errno = e ? e : EIO;
        r = sl_errprintf(err, "accounting: job %u: %s", job_id, slurm_strerror(e));
    } else {
        const slurmdb_job_rec_t *rec = acct_last(l, job_id);
        if (rec) {
            acct_fill(rec, out);
            r = 1;
        }
        slurm_list_destroy(l);
    }
    slurmdb_connection_close(&db);
    return r;
}

size_t sl_slurm_jobs_count(const sl_slurm_jobs_t *j)
{
    return j ? j->n : 0;
}

const sl_slurm_job_t *sl_slurm_jobs_at(const sl_slurm_jobs_t *j, size_t i)
{
    return j && i < j->n ? &j->jobs[i] : NULL;
}

void sl_slurm_jobs_free(sl_slurm_jobs_t *j)
{
    if (!j)
        return;
    slurm_free_job_info_msg(j->msg);
    free(j->jobs);
    free(j);
}

/* "3-9%2", "0,4-7": the tasks of array_task_str (when no bitmap came) */
static size_t parse_tasks(const char *s, unsigned char *set, size_t n)
{
    size_t k = 0;
    while (s && *s && *s != '%') {
        char *end;
        unsigned long a = strtoul(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtoul(end + 1, &end, 10);
        for (unsigned long t = a; t <= b && t < n; t++) {
            k += !set[t];
            set[t] = 1;
        }
        s = *end == ',' ? end + 1 : end;
    }
    return k;
}

size_t sl_slurm_jobs_pending_tasks(const sl_slurm_jobs_t *j, size_t i, unsigned char *set,
                                   size_t n)
{
    memset(set, 0, n);
    if (!j || i >= j->n || j->jobs[i].array_task_id != SL_SLURM_NO_TASK ||
        !j->jobs[i].array_job_id)
        return 0;
    slurm_job_info_t *s = &j->msg->job_array[i];
    /* only a pending record holds tasks still to start: a cancelled
     * array's record keeps its bitmap from Slurm 25.11 (22.05 cleared it) */
    if ((s->job_state & JOB_STATE_BASE) != JOB_PENDING)
        return 0;
    if (!s->array_bitmap)
        return parse_tasks(s->array_task_str, set, n);
    size_t k = 0;
    bitoff_t size = slurm_bit_size(s->array_bitmap);
    for (bitoff_t t = 0; t < size && (size_t)t < n; t++) {
        if (sl_compat_bit_test(s->array_bitmap, t)) {
            set[t] = 1;
            k++;
        }
    }
    return k;
}

/* "gpu:2", "gpu:tesla:2(S:0)", "gpu:1(IDX:0),foo:3" → count of gpu */
static unsigned gres_gpus(const char *g)
{
    unsigned total = 0;
    if (!g)
        return 0;
    const char *p = g;
    while ((p = strstr(p, "gpu"))) {
        if (p != g && p[-1] != ',' && p[-1] != ':' && p[-1] != '/') {
            p += 3;
            continue;
        }
        const char *q = p + 3;
        /* skip an optional ":type" */
        const char *count = NULL;
        while (*q == ':') {
            q++;
            if (*q >= '0' && *q <= '9') {
                count = q;
                break;
            }
            while (*q && *q != ':' && *q != ',' && *q != '(')
                q++;
        }
        total += count ? (unsigned)strtoul(count, NULL, 10) : 0;
        p = q;
    }
    return total;
}

int sl_slurm_nodes_load(time_t *since, sl_slurm_nodes_t **out, sl_error_t *err)
{
    node_info_msg_t *msg = NULL;
    unsigned long updates = sl_slurm_node_updates();
    double t0 = sl_slurm_rpc_begin();
    int rc = slurm_load_node(since ? *since : 0, &msg, SHOW_ALL);
    int e = rc != SLURM_SUCCESS ? sl_compat_errno() : 0;
    sl_slurm_rpc_end("load_node", t0, rc != SLURM_SUCCESS && e != SLURM_NO_CHANGE_IN_DATA);
    if (rc != SLURM_SUCCESS) {
        if (e == SLURM_NO_CHANGE_IN_DATA)
            return 0;
        errno = e;
        return sl_errprintf(err, "load nodes: %s", slurm_strerror(e));
    }
    partition_info_msg_t *parts = NULL;
    t0 = sl_slurm_rpc_begin();
    rc = slurm_load_partitions(0, &parts, SHOW_ALL);
    sl_slurm_rpc_end("load_partitions", t0, rc != SLURM_SUCCESS);
    if (rc == SLURM_SUCCESS)
        slurm_populate_node_partitions(msg, parts);
    if (since)
        *since = msg->last_update;
    sl_slurm_nodes_t *n = sl_xcalloc(1, sizeof(*n));
    n->msg = msg;
    n->parts = parts;
    n->updates = updates;
    n->n = msg->record_count;
    n->nodes = sl_xcalloc(n->n ? n->n : 1, sizeof(sl_slurm_node_t));
    for (size_t i = 0; i < n->n; i++) {
        node_info_t *s = &msg->node_array[i];
        sl_slurm_node_t *o = &n->nodes[i];
        if (!s->name)
            continue;
        o->name = s->name;
        o->addr = nz(s->node_addr);
        o->hostname = nz(s->node_hostname);
        o->state = slurm_node_state_string(s->node_state);
        uint32_t base = s->node_state & NODE_STATE_BASE;
        o->down = base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE ||
                  base == NODE_STATE_UNKNOWN;
        o->drain = (s->node_state & NODE_STATE_DRAIN) != 0;
        o->not_responding = (s->node_state & NODE_STATE_NO_RESPOND) != 0;
        o->reason = nz(s->reason);
        o->cpus = s->cpus;
        sl_compat_node_alloc(s, &o->alloc_cpus, &o->alloc_memory_mb);
        o->real_memory_mb = s->real_memory;
        o->cpu_load = s->cpu_load == NO_VAL ? 0 : s->cpu_load;
        o->gpus = gres_gpus(s->gres);
        o->alloc_gpus = gres_gpus(s->gres_used);
        o->gres = nz(s->gres);
        o->gres_used = nz(s->gres_used);
        o->features = nz(s->features_act ? s->features_act : s->features);
        o->partitions = nz(s->partitions);
        o->version = nz(s->version);
        o->boot_time = s->boot_time;
        o->slurmd_start_time = s->slurmd_start_time;
    }
    *out = n;
    return 1;
}

size_t sl_slurm_nodes_count(const sl_slurm_nodes_t *n)
{
    return n ? n->n : 0;
}

const sl_slurm_node_t *sl_slurm_nodes_at(const sl_slurm_nodes_t *n, size_t i)
{
    return n && i < n->n && n->nodes[i].name ? &n->nodes[i] : NULL;
}

void sl_slurm_nodes_free(sl_slurm_nodes_t *n)
{
    if (!n)
        return;
    slurm_free_node_info_msg(n->msg);
    if (n->parts)
        slurm_free_partition_info_msg(n->parts);
    free(n->nodes);
    free(n);
}

bool sl_slurm_nodes_outdated(const sl_slurm_nodes_t *n)
{
    return n && sl_slurm_node_updates() != n->updates;
}
