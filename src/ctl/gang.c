/* gang.c — a replica set of pods in one Slurm job (gang.h). */
#include "ctl/gang.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "ctl/carry.h"
#include "ctl/gangowner.h"
#include "ctl/jobtask.h"
#include "ctl/podstatus.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "translate/translate.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned ctl_gang_rank(json_t *pod)
{
    const char *v = sl_kube_annotation(pod, CTL_ANN_GANG_RANK);
    char *end;
    unsigned long r = v && *v ? strtoul(v, &end, 10) : 0;
    return v && *v && !*end && r < CTL_GANG_MAX ? (unsigned)r : 0;
}

int ctl_gang_member(json_t *pod) { return sl_kube_annotation(pod, CTL_ANN_GANG_RANK) != NULL; }

void ctl_gang_node(const char *nodes, unsigned rank, char *out, size_t len)
{
    char **v = sl_slurm_hostlist_expand(nodes);
    size_t n = 0;
    while (v && v[n])
        n++;
    if (n) /* several members on a node: member i on node i mod n (gang.h per_node) */
        snprintf(out, len, "%s", v[rank % n]);
    sl_strv_free(v);
}

void ctl_gang_comment(const ctl_gang_t *g, char *out, size_t len)
{
    snprintf(out, len, "slurmlink:uid=%s slurmlink:gang=%lld", sl_kube_uid(g->owner), g->attempt);
}

/* the gang's job already in Slurm (submitted before a crash, not recorded):
 * its id, 0, or UINT32_MAX when Slurm cannot tell now */
static uint32_t find_submitted(sl_ctl_t *c, json_t *owner, const char *comment)
{
    sl_slurm_jobs_t *jobs = NULL;
    uint32_t id = 0;
    uid_t user;
    bool known = ctl_run_uid(c, owner, &user);
    if (sl_slurm_jobs_load(NULL, &jobs, NULL) < 0)
        return UINT32_MAX;
    for (size_t i = 0; i < sl_slurm_jobs_count(jobs) && !id; i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jobs, i);
        /* (a job carrying the comment under another user: someone else's) */
        if (!strcmp(j->comment, comment) && ctl_job_adoptable(j, sl_kube_uid(owner), known, user))
            id = j->job_id;
    }
    sl_slurm_jobs_free(jobs);
    return id;
}

static void exports(sl_buf_t *s, const ctl_gang_member_t *m)
{
    for (size_t i = 0; m->env && m->env[i]; i++) {
        const char *eq = strchr(m->env[i], '=');
        if (!eq)
            continue;
        char *q = sl_shell_quote(eq + 1);
        sl_buf_printf(s, "%.*s=%s ", (int)(eq - m->env[i]), m->env[i], q);
        free(q);
    }
}

/* one member's step: its exports, srun on its node, its pod's job.sh */
static void step_line(sl_buf_t *s, const ctl_gang_t *g, const ctl_gang_member_t *m, const char *dir)
{
    exports(s, m);
    char *qd = sl_shell_quote(dir), *out = sl_xasprintf("--output=%s/job.out", dir);
    char *sh = sl_xasprintf("%s/job.sh", dir), *qo = sl_shell_quote(out), *qs = sl_shell_quote(sh);
    unsigned rank = ctl_gang_rank(m->pod);
    sl_buf_printf(s,
                  "srun --nodes=1 --ntasks=1 --relative=%u%s --chdir=%s %s --open-mode=append "
                  "/bin/bash %s &\npids+=($!)\n",
                  g->per_node > 1 ? rank % (unsigned)g->nodes : rank,
                  g->per_node > 1 ? " --overlap" : "", qd, qo, qs);
    free(qd);
    free(out);
    free(sh);
    free(qo);
    free(qs);
}

/* the batch member, after the steps: its job.sh in the batch step (its
 * exit status the job's), then the steps ended: SIGTERM to their tasks
 * (scancel signals the steps, not the batch shell; a SIGTERM to srun
 * would kill its step), so each shim stops its pod gracefully */
static void batch_line(sl_buf_t *s, const ctl_gang_member_t *m, const char *dir)
{
    char *qd = sl_shell_quote(dir), *out = sl_xasprintf("%s/job.out", dir);
    char *sh = sl_xasprintf("%s/job.sh", dir), *qo = sl_shell_quote(out), *qs = sl_shell_quote(sh);
    sl_buf_printf(s, "(cd %s && ", qd);
    exports(s, m);
    sl_buf_printf(s,
                  "exec /bin/bash %s) >>%s 2>&1\nrc=$?\n"
                  "[ -n \"${rshd:-}\" ] && kill \"$rshd\" 2>/dev/null\n"
                  "[ ${#pids[@]} -gt 0 ] && scancel --signal=TERM \"$SLURM_JOB_ID\"\n"
                  "wait\nexit $rc\n",
                  qs, qo);
    free(qd);
    free(out);
    free(sh);
    free(qo);
    free(qs);
}

/* a node range, before any step: the pods of the nodes Slurm allocated
 * beyond the members awaited, all of them together (each linked by
 * ctl_gang_join once made), so that every replica starts at once and none
 * is left behind by members that end early; at most CTL_JOBTASK_WAIT_S */
static void late_wait(sl_buf_t *s, const ctl_gang_t *g, const char *links)
{
    char *q = sl_shell_quote(links);
    sl_buf_printf(s,
                  "late=%s; end=$((SECONDS + %d))\n"
                  "for ((r = %zu; r < ${SLURM_JOB_NUM_NODES:-%zu}; r++)); do\n"
                  "  while [ ! -d \"$late/$r\" ] && [ $SECONDS -lt $end ]; do sleep 1; done\n"
                  "done\n",
                  q, CTL_JOBTASK_WAIT_S, g->n, g->n);
    free(q);
}

/* ... then a step for each of them whose pod is there */
static void late_steps(sl_buf_t *s, const ctl_gang_t *g)
{
    sl_buf_printf(s,
                  "for ((r = %zu; r < ${SLURM_JOB_NUM_NODES:-%zu}; r++)); do\n"
                  "  [ -d \"$late/$r\" ] || { echo \"slurmlink: no pod for node $r\" >&2; "
                  "continue; }\n"
                  "  d=$(cd -P \"$late/$r\" && pwd) || continue\n"
                  "  srun --nodes=1 --ntasks=1 --relative=$r --chdir=\"$d\" "
                  "--output=\"$d/job.out\" --open-mode=append /bin/bash \"$d/job.sh\" &\n"
                  "  pids+=($!)\n"
                  "done\n",
                  g->n, g->n);
}

/* before the step of a member with `after`: the batch script waits until
 * each of members [from, to) has started an app container (its init
 * containers done) or ended, as its shim's events.jsonl in its pod folder
 * (on the shared pods root) says */
static void started_wait(sl_buf_t *s, char **dirs, size_t from, size_t to)
{
    if (from >= to)
        return;
    sl_buf_puts(s, "for d in");
    for (size_t i = from; i < to; i++) {
        char *q = sl_shell_quote(dirs[i]);
        sl_buf_printf(s, " %s", q);
        free(q);
    }
    sl_buf_puts(s, "; do\n  until grep -s '\"event\":\"started\"' \"$d/events.jsonl\" | "
                   "grep -q '\"init\":false' || grep -qs '\"event\":\"pod-finished\"' "
                   "\"$d/events.jsonl\"; do sleep 1; done\ndone\n");
}

/* an MPI launcher in a container (gang.h rsh_dir), after the steps: its
 * /etc/mpi folder filled (the hostfile, the agent beside the shim), the
 * agent's server started, then the steps' containers awaited */
static void rsh_lines(sl_buf_t *s, const ctl_gang_t *g, char **dirs, size_t batch, const char *shim)
{
    char *mpi = sl_xasprintf("%s/%s", dirs[batch], g->rsh_dir), *qm = sl_shell_quote(mpi);
    char *agent = sl_xasprintf("%.*s/slurmlink-mpi-rsh", (int)(strrchr(shim, '/') - shim), shim);
    char *qa = sl_shell_quote(agent), *qh = sl_shell_quote(g->hostfile ? g->hostfile : "");
    char *qs = sl_shell_quote(shim);
    sl_buf_printf(s,
                  "mpi=%s\nprintf '%%s' %s >\"$mpi/hostfile\" && cp %s \"$mpi/rsh\" || exit 1\n"
                  "rm -f \"$mpi/rsh.sock\"\n%s mpi-serve --socket=\"$mpi/rsh.sock\"",
                  qm, qh, qa, qs);
    size_t nodes = g->nodes ? g->nodes : g->n;
    for (size_t i = 0; i < g->n; i++) {
        json_t *c0 = json_array_get(sl_kube_path(g->m[i].pod, "spec.containers"), 0);
        const char *c = json_string_value(json_object_get(c0, "name"));
        if (i == batch || !c)
            continue;
        unsigned rank = ctl_gang_rank(g->m[i].pod);
        char *w = sl_xasprintf("%s:%u:%s:%s", sl_kube_name(g->m[i].pod),
                               g->per_node > 1 ? rank % (unsigned)nodes : rank, c, dirs[i]);
        char *qw = sl_shell_quote(w);
        sl_buf_printf(s, " --worker=%s", qw);
        free(qw);
        free(w);
    }
    char *log = sl_xasprintf("%s/job.out", dirs[batch]), *ql = sl_shell_quote(log);
    sl_buf_printf(s, " 2>>%s &\nrshd=$!\n", ql);
    free(ql);
    free(log);
    started_wait(s, dirs, 0, batch);
    started_wait(s, dirs, batch + 1, g->n);
    free(mpi);
    free(qm);
    free(agent);
    free(qa);
    free(qh);
    free(qs);
}

/* the agent in each other member's /etc/mpi, before their steps start:
 * mpirun's daemons look it up there too, and a Worker that waits for the
 * Launcher instead of running sshd runs it (src/kinds/mpijob/pods.c) */
static void rsh_agents(sl_buf_t *s, const ctl_gang_t *g, char **dirs, size_t batch,
                       const char *shim)
{
    char *agent = sl_xasprintf("%.*s/slurmlink-mpi-rsh", (int)(strrchr(shim, '/') - shim), shim);
    char *qa = sl_shell_quote(agent);
    for (size_t i = 0; i < g->n; i++) {
        char *d = sl_xasprintf("%s/%s/rsh", dirs[i], g->rsh_dir), *qd = sl_shell_quote(d);
        if (i != batch)
            sl_buf_printf(s, "cp %s %s || exit 1\n", qa, qd);
        free(qd);
        free(d);
    }
    free(qa);
    free(agent);
}

/* the batch script: the head's lines, then one step per member (a node
 * range: and per node beyond them, once linked); its exit status the
 * first failed step's */
static char *gang_script(const ctl_gang_t *g, char **dirs, const char *links, const char *shim)
{
    sl_buf_t s = SL_BUF_INIT;
    sl_buf_printf(&s,
                  "#!/bin/bash\n# %s %s/%s (uid %s), attempt %lld: one srun step per replica,\n"
                  "# each running its pod's job.sh; generated by slurmlinkd.\npids=()\n",
                  g->kind, sl_kube_namespace(g->owner), sl_kube_name(g->owner),
                  sl_kube_uid(g->owner), g->attempt);
    if (g->head)
        sl_buf_printf(&s, "%s\n", g->head);
    bool late = g->nodes_min && links;
    if (late)
        late_wait(&s, g, links);
    size_t batch = g->n, waited = 0;
    for (size_t i = 0; i < g->n && batch == g->n; i++)
        if (g->m[i].batch)
            batch = i;
    bool rsh = batch < g->n && g->rsh_dir && shim && strchr(shim, '/');
    if (rsh)
        rsh_agents(&s, g, dirs, batch, shim);
    for (size_t i = 0; i < g->n; i++) {
        if (i == batch)
            continue;
        size_t after = g->m[i].after < i ? g->m[i].after : i;
        started_wait(&s, dirs, waited, after);
        waited = after > waited ? after : waited;
        step_line(&s, g, &g->m[i], dirs[i]);
    }
    if (late)
        late_steps(&s, g);
    if (rsh)
        rsh_lines(&s, g, dirs, batch, shim);
    if (batch < g->n)
        batch_line(&s, &g->m[batch], dirs[batch]);
    else
        sl_buf_puts(&s, "rc=0\nfor p in \"${pids[@]}\"; do wait \"$p\" || { r=$?; [ $rc = 0 ] "
                        "&& rc=$r; }; done\nexit $rc\n");
    return sl_buf_steal(&s);
}

/* opt ("--mem=512M", "--gres=gpu:1" or "gpu:TYPE:1") for k members on a
 * node: its amount k times; any other option as it is */
static char *per_node_opt(const char *opt, unsigned k)
{
    bool mem = !strncmp(opt, "--mem=", 6), gres = !strncmp(opt, "--gres=", 7);
    const char *num = mem ? opt + 6 : gres ? strrchr(opt, ':') : NULL;
    if (num && gres)
        num++;
    char *end = NULL;
    unsigned long long v = num ? strtoull(num, &end, 10) : 0;
    if (k < 2 || !num || end == num || (gres && *end))
        return sl_xstrdup(opt);
    return sl_xasprintf("%.*s%llu%s", (int)(num - opt), opt, v * k, end);
}

/* the options of a step member's translation (the first's: src/kinds/pytorchjob/validate.c
 * makes a PyTorchJob's alike; an MPIJob's Worker's, not its Launcher's),
 * less what names one pod, with the gang's shape */
static char **gang_options(const sl_translate_result_t *r, const ctl_gang_t *g, const char *cmt)
{
    static const char *const drop[] = {"--job-name=", "--comment=",   "--output=", "--error=",
                                       "--chdir=",    "--open-mode=", "--nodes=",  "--ntasks"};
    char **v = sl_xcalloc(r->noptions + 6, sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < r->noptions; i++) {
        bool skip = false;
        for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]); d++)
            skip |= !strncmp(r->options[i], drop[d], strlen(drop[d]));
        if (!skip)
            v[n++] = per_node_opt(r->options[i], g->per_node);
    }
    /* a range without --ntasks-per-node: with it slurmctld counts the job's
     * tasks from the least nodes (min x per node) and allocates only those;
     * without it a task per node, as many nodes as are free up to the most */
    if (g->nodes_min)
        v[n++] = sl_xasprintf("--nodes=%zu-%zu", g->nodes_min, g->nodes);
    else {
        v[n++] = sl_xasprintf("--nodes=%zu", g->nodes ? g->nodes : g->n);
        v[n++] =
            sl_xasprintf("--ntasks-per-node=%u", (g->per_node ? g->per_node : 1) *
                                                     (g->tasks_per_node ? g->tasks_per_node : 1));
    }
    v[n++] = sl_xasprintf("--job-name=%s/%s", sl_kube_namespace(g->owner), sl_kube_name(g->owner));
    v[n++] = sl_xasprintf("--comment=%s", cmt);
    v[n++] = sl_xstrdup("--output=/dev/null");
    return v;
}

static char **gang_env(sl_ctl_t *c, const ctl_gang_t *g, uid_t uid)
{
    struct passwd *pw = getpwuid(uid);
    char **env = sl_xcalloc(8, sizeof(*env));
    int n = 0;
    env[n++] = sl_slurm_job_path(c->o.slurm_bin_dir);
    env[n++] = sl_xasprintf("HOME=%s", pw && pw->pw_dir ? pw->pw_dir : "/");
    env[n++] = sl_xasprintf("USER=%s", pw ? pw->pw_name : "nobody");
    env[n++] = sl_xasprintf("LOGNAME=%s", pw ? pw->pw_name : "nobody");
    env[n++] = sl_xasprintf("SLURMLINK_JOB_UID=%s", sl_kube_uid(g->owner));
    if (c->o.slurm_conf)
        env[n++] = sl_xasprintf("SLURM_CONF=%s", c->o.slurm_conf);
    return env;
}

static int submitted_fn(json_t *pod, void *arg)
{
    return ctl_status_submitted(pod, *(uint32_t *)arg, sl_kube_now_ns());
}

/* the job id on every member (the table first: the poll follows it) */
static void record(sl_ctl_t *c, const ctl_gang_t *g, ctl_pod_t **ps, uint32_t id)
{
    for (size_t i = 0; i < g->n; i++) {
        pthread_mutex_lock(&c->lock);
        ctl_pod_set_job(c, ps[i], id);
        pthread_mutex_unlock(&c->lock);
        json_t *pod = g->m[i].pod;
        ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod), submitted_fn,
                       &id, NULL, NULL);
    }
}

/* every member known to the pod controller as the owner's, none submitted */
static int members(sl_ctl_t *c, const ctl_gang_t *g, ctl_pod_t **ps)
{
    int ok = 1;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < g->n && ok; i++) {
        ps[i] = ctl_pod_find(c, sl_kube_uid(g->m[i].pod));
        ok = ps[i] && ps[i]->owner_uid && !strcmp(ps[i]->owner_uid, sl_kube_uid(g->owner)) &&
             ps[i]->gang_rank == ctl_gang_rank(g->m[i].pod) && !ps[i]->job_id;
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
}

/* every member's registry images pulled (pull.c: its pull secrets, the
 * pull pool, the private store, as a single pod's and a Job's pods'): 1
 * when all are; 0 while one is pulled or backs off, a failure said on its
 * pod (ErrImagePull, then ImagePullBackOff) and on the owner (an event) */
static int pulled(sl_ctl_t *c, const ctl_gang_t *g, ctl_pod_t **ps)
{
    int all = 1;
    for (size_t i = 0; i < g->n; i++) {
        json_t *pod = g->m[i].pod;
        const char *why = ctl_pull_error(ps[i]->pull);
        char *msg = why ? sl_xstrdup(why) : NULL; /* ctl_pull_ready releases the pull */
        sl_pod_t *model = sl_pod_parse(pod, NULL);
        all &= !model || ctl_pull_ready(c, ps[i], pod, model); /* !model: prepare fails it */
        sl_pod_destroy(model);
        if (msg)
            ctl_event(c, g->owner, "Warning", "ErrImagePull", "Pod %s: %s", sl_kube_name(pod), msg);
        free(msg);
    }
    return all;
}

/* the members' pulls used: their folders hold the images; a retry pulls anew */
static void pulls_used(ctl_pod_t **ps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ctl_pull_release(ps[i]->pull);
        ps[i]->pull = NULL;
    }
}

static int refused_fn(json_t *pod, void *arg)
{
    return ctl_status_submit_failed(pod, arg, 1, sl_kube_now_ns());
}

static void refuse(sl_ctl_t *c, const ctl_gang_t *g, const char *why)
{
    char *msg = sl_xasprintf("Slurm refused the gang's job: %s", why);
    for (size_t i = 0; i < g->n; i++) {
        json_t *pod = g->m[i].pod;
        ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod), refused_fn,
                       msg, NULL, NULL);
    }
    free(msg);
}

/* the gang as translate's gang_members: each member's rank, name,
 * spec.hostname and spec.subdomain (its names in every member's hosts file) */
static json_t *members_json(const ctl_gang_t *g)
{
    json_t *a = json_array();
    for (size_t i = 0; i < g->n; i++) {
        json_t *pod = g->m[i].pod,
               *o = json_pack("{s:I, s:s}", "rank", (json_int_t)ctl_gang_rank(pod), "name",
                              sl_kube_name(pod));
        const char *h = sl_kube_path_str(pod, "spec.hostname"),
                   *sd = sl_kube_path_str(pod, "spec.subdomain");
        if (h)
            json_object_set_new(o, "hostname", json_string(h));
        if (sd)
            json_object_set_new(o, "subdomain", json_string(sd));
        json_array_append_new(a, o);
    }
    return a;
}

/* every member's folder written; the first's options, or NULL (a member
 * that cannot be prepared is failed by ctl_pod_prepare: the gang waits) */
static char **prepare(sl_ctl_t *c, const ctl_gang_t *g, ctl_pod_t **ps, char **dirs,
                      const char *cmt, uid_t *uid, gid_t *gid)
{
    char **opts = NULL;
    json_t *all = members_json(g);
    for (size_t i = 0; i < g->n; i++) {
        sl_translate_result_t *r = NULL;
        uid_t u;
        gid_t gg;
        if (ctl_pod_prepare_member(c, ps[i], g->m[i].pod, all, &r, &u, &gg) < 0) {
            json_decref(all);
            sl_strv_free(opts);
            return NULL;
        }
        ctl_carry_logs(c, g->owner, g->m[i].pod, u, gg); /* the failed replica's, if any */
        dirs[i] = sl_xstrdup(r->pod_dir);
        if (!opts && (!g->m[i].batch || g->n == 1)) {
            *uid = u;
            *gid = gg;
            opts = gang_options(r, g, cmt);
        }
        sl_translate_result_destroy(r);
    }
    json_decref(all);
    return opts;
}

static int submit_new(sl_ctl_t *c, const ctl_gang_t *g, ctl_pod_t **ps, const char *cmt,
                      uint32_t *id)
{
    char **dirs = sl_xcalloc(g->n + 1, sizeof(*dirs));
    uid_t uid = 0;
    gid_t gid = 0;
    char **opts = prepare(c, g, ps, dirs, cmt, &uid, &gid);
    int rc = -1;
    if (opts) {
        char *links = ctl_jobtask_dir(c->o.pods_root, sl_kube_uid(g->owner), g->attempt, 0);
        char *script = gang_script(g, dirs, links, c->o.shim_path);
        free(links);
        char **env = gang_env(c, g, uid);
        sl_slurm_submit_t req = {.script = script,
                                 .env = (const char *const *)env,
                                 .options = (const char *const *)opts,
                                 .uid = uid,
                                 .gid = gid,
                                 .work_dir = "/"};
        sl_error_t err = SL_ERROR_INIT;
        int retry = 0;
        if (sl_slurm_submit(&req, id, &retry, &err) < 0) {
            sl_warn("%s %s/%s: Slurm refused the gang's job: %s", g->kind,
                    sl_kube_namespace(g->owner), sl_kube_name(g->owner), err.text);
            rc = retry ? 1 : -1;
            if (retry)
                ctl_slurm_set(c, 0);
            else
                refuse(c, g, err.text);
            sl_error_clear(&err);
        } else {
            SL_FAULT("after-gang-submit"); /* the test build's crash between submit and record */
            rc = 0;
        }
        free(script);
        sl_strv_free(env);
    }
    sl_strv_free(opts);
    sl_strv_free(dirs);
    return rc;
}

/* more members than Slurm has nodes, without nodes given or a range (a
 * PyTorchJob's 4 replicas on 2 nodes, as Kubeflow's sendrecv example):
 * members per node, *nodes all of them, as `srun -n 4 -N 2` places tasks;
 * 0: each member its own node */
static unsigned packing(const ctl_gang_t *g, size_t *nodes)
{
    size_t want = g->pack && g->nodes ? g->nodes : g->n;
    if (g->nodes_min || want < 2 || (!g->pack && (g->nodes || g->tasks_per_node)))
        return 0;
    sl_slurm_nodes_t *all = NULL;
    if (sl_slurm_nodes_load(NULL, &all, NULL) < 0)
        return 0;
    size_t have = sl_slurm_nodes_count(all);
    sl_slurm_nodes_free(all);
    if (!have || have >= want)
        return 0;
    *nodes = have;
    return (unsigned)((want + have - 1) / have);
}

int ctl_gang_submit(sl_ctl_t *c, const ctl_gang_t *g, uint32_t *id)
{
    if (!g->n || g->n > CTL_GANG_MAX)
        return -1;
    ctl_pod_t *ps[CTL_GANG_MAX];
    if (!members(c, g, ps) || !pulled(c, g, ps))
        return 1;
    char cmt[160];
    ctl_gang_comment(g, cmt, sizeof(cmt));
    uint32_t found = find_submitted(c, g->owner, cmt);
    if (found == UINT32_MAX) {
        pulls_used(ps, g->n);
        return 1;
    }
    if (found) {
        sl_info("%s %s/%s: adopted Slurm job %u (attempt %lld) found by its uid", g->kind,
                sl_kube_namespace(g->owner), sl_kube_name(g->owner), found, g->attempt);
        *id = found;
        /* the poll read it before its members knew it: read it again for
         * them (a job that keeps running, a server's, changes no more) */
        ctl_poll_reread_jobs(c);
    } else {
        ctl_gang_t shaped = *g;
        shaped.per_node = packing(g, &shaped.nodes);
        int rc = submit_new(c, &shaped, ps, cmt, id);
        pulls_used(ps, g->n);
        if (rc)
            return rc;
        if (g->nodes_min)
            sl_info("%s %s/%s: Slurm job %u, %zu to %zu nodes, one step per replica", g->kind,
                    sl_kube_namespace(g->owner), sl_kube_name(g->owner), *id, g->nodes_min,
                    g->nodes);
        else
            sl_info("%s %s/%s: Slurm job %u, %zu nodes, one step per replica", g->kind,
                    sl_kube_namespace(g->owner), sl_kube_name(g->owner), *id,
                    shaped.nodes ? shaped.nodes : g->n);
    }
    pulls_used(ps, g->n);
    record(c, g, ps, *id);
    return 0;
}

static int link_failed_fn(json_t *pod, void *arg)
{
    return ctl_status_submit_failed(pod, arg, 1, sl_kube_now_ns());
}

/* one late member: its folder written, the job id recorded, then the link
 * the batch script waits for (so its shim's first push finds the job) */
static int join_one(sl_ctl_t *c, const ctl_gang_t *g, ctl_pod_t *p, json_t *pod, uint32_t id)
{
    sl_translate_result_t *r = NULL;
    uid_t u;
    gid_t gg;
    if (ctl_pod_prepare(c, p, pod, &r, &u, &gg) < 0)
        return -1;
    ctl_carry_logs(c, g->owner, pod, u, gg);
    ctl_gang_member_t m = {.pod = pod};
    ctl_gang_t one = *g;
    one.m = &m;
    one.n = 1;
    record(c, &one, &p, id);
    sl_error_t err = SL_ERROR_INIT;
    int rc = ctl_jobtask_link(c->o.pods_root, sl_kube_uid(g->owner), g->attempt, 0,
                              ctl_gang_rank(pod), r->pod_dir, &err);
    if (rc < 0) {
        sl_warn("pod %s/%s: %s", p->ns, p->name, err.text);
        char *msg =
            sl_xasprintf("cannot link the pod folder for its node of the job: %s", err.text);
        ctl_pod_mutate(c, p->ns, p->name, p->uid, link_failed_fn, msg, NULL, NULL);
        free(msg);
    }
    sl_error_clear(&err);
    sl_translate_result_destroy(r);
    return rc;
}

int ctl_gang_join(sl_ctl_t *c, const ctl_gang_t *g, uint32_t id)
{
    if (!g->n || g->n > CTL_GANG_MAX)
        return -1;
    ctl_pod_t *ps[CTL_GANG_MAX];
    if (!members(c, g, ps) || !pulled(c, g, ps))
        return 1;
    int rc = 0;
    for (size_t i = 0; i < g->n; i++)
        if (join_one(c, g, ps[i], g->m[i].pod, id) < 0)
            rc = -1;
    pulls_used(ps, g->n);
    sl_info("%s %s/%s: %zu replica(s) joined Slurm job %u on the nodes allocated beyond %zu",
            g->kind, sl_kube_namespace(g->owner), sl_kube_name(g->owner), g->n, id, g->nodes_min);
    return rc;
}

long ctl_gang_nodes_now(uint32_t id)
{
    sl_slurm_jobs_t *jobs = NULL;
    if (sl_slurm_job_load(id, &jobs, NULL) < 0)
        return errno == ENOENT ? -1 : 0;
    long n = -1;
    for (size_t i = 0; i < sl_slurm_jobs_count(jobs); i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jobs, i);
        if (j->job_id != id)
            continue;
        if (!strcmp(j->state, "PENDING"))
            n = 0;
        else if (!strcmp(j->state, "RUNNING") && j->nodes && *j->nodes) {
            char **v = sl_slurm_hostlist_expand(j->nodes);
            n = 0;
            while (v && v[n])
                n++;
            sl_strv_free(v);
        }
    }
    sl_slurm_jobs_free(jobs);
    return n;
}

char *ctl_gang_mpi_head(const char *impl, long long slots, size_t workers)
{
    bool ompi = !impl || !strcmp(impl, "OpenMPI");
    const char *vars =
        ompi ? "export OMPI_MCA_orte_default_hostfile=\"$hostfile\" "
               "OMPI_MCA_plm_slurm_args=--overlap"
        : !strcmp(impl, "Intel")
            ? "export I_MPI_HYDRA_HOST_FILE=\"$hostfile\" I_MPI_HYDRA_BOOTSTRAP=slurm "
              "I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS=--overlap"
            : "export HYDRA_HOST_FILE=\"$hostfile\" HYDRA_LAUNCHER=slurm "
              "HYDRA_LAUNCH_EXTRA_ARGS=--overlap";
    /* a line per node (OpenMPI refuses a node's slots given twice) */
    return sl_xasprintf("hostfile=$(mktemp \"${TMPDIR:-/tmp}/slurmlink-mpi.XXXXXX\") || exit 1\n"
                        "trap 'rm -f \"$hostfile\"' EXIT\n"
                        "mapfile -t nodes < <(scontrol show hostnames \"$SLURM_JOB_NODELIST\")\n"
                        "for ((j = 0; j < ${#nodes[@]} && j < %zu; j++)); do\n"
                        "  echo \"${nodes[j]}%s$(((%zu - j + ${#nodes[@]} - 1) / ${#nodes[@]} * "
                        "%lld))\"\n"
                        "done >\"$hostfile\"\n%s",
                        workers, ompi ? " slots=" : ":", workers, slots, vars);
}

void ctl_gang_pod_bookkeeping(json_t *pod, json_t *owner, size_t node, size_t i, long long attempt)
{
    char buf[24];
    ctl_drop_server_owned(pod); /* the template's are not the server's */
    snprintf(buf, sizeof(buf), "%zu", i);
    sl_kube_set_annotation(pod, SL_ANN_JOB_UID, sl_kube_uid(owner));
    sl_kube_set_annotation(pod, CTL_ANN_POD_INDEX, buf);
    snprintf(buf, sizeof(buf), "%zu", node);
    sl_kube_set_annotation(pod, CTL_ANN_GANG_RANK, buf);
    snprintf(buf, sizeof(buf), "%lld", attempt);
    sl_kube_set_annotation(pod, CTL_ANN_GANG_ATTEMPT, buf);
    const char *user = sl_kube_annotation(owner, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(pod, SL_ANN_USER, user);
}
