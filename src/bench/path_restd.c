/* path_restd.c — what a user would pick instead of slurmlink: Debian's
 * slurmrestd (22.05, OpenAPI v0.0.38), started privately on a Unix socket
 * (rest_auth/local: the caller is who connects, here root), the same script
 * POSTed to /slurm/v0.0.38/job/submit and /slurm/v0.0.38/job/{id} polled to
 * completion. Stopped again after the path's runs.
 *
 * slurmrestd does not read #SBATCH lines: the options go into the job
 * description, mapped one by one below; an option without a v0.0.38 field
 * fails the run naming it, it is never dropped. v0.0.38 has no job user
 * field: the job's user is slurmrestd's own, so it is started as the mapped
 * user (`-u`/`-g`, as the other paths' jobs run; rest_auth/local accepts
 * root's connections to it), its socket in a folder of that user's. */
#include "bench/internal.h"

#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define API "/slurm/v0.0.38"

typedef struct restd {
    pid_t pid;
    char *sockdir; /* the mapped user's: slurmrestd makes its socket after -u */
    char *sock;
    bench_http_t *http;
} restd_t;

enum kind { K_STR, K_INT, K_MEM_MB, K_TIME, K_NODES, K_TRUE, K_FALSE, K_EXCL };

static const struct {
    const char *opt;
    const char *field;
    enum kind kind;
} optmap[] = {
    {"job-name", "name", K_STR},
    {"comment", "comment", K_STR},
    {"cpus-per-task", "cpus_per_task", K_INT},
    {"mem", "memory_per_node", K_MEM_MB},
    {"mem-per-cpu", "memory_per_cpu", K_MEM_MB},
    {"mem-per-gpu", "memory_per_gpu", K_MEM_MB},
    {"gres", "gres", K_STR},
    {"gpus", "gpus", K_STR},
    {"gpus-per-node", "gpus_per_node", K_STR},
    {"gpus-per-task", "gpus_per_task", K_STR},
    {"cpus-per-gpu", "cpus_per_gpu", K_STR},
    {"output", "standard_output", K_STR},
    {"error", "standard_error", K_STR},
    {"open-mode", "open_mode", K_STR},
    {"chdir", "current_working_directory", K_STR},
    {"time", "time_limit", K_TIME},
    {"time-min", "time_minimum", K_TIME},
    {"partition", "partition", K_STR},
    {"account", "account", K_STR},
    {"qos", "qos", K_STR},
    {"reservation", "reservation", K_STR},
    {"constraint", "constraints", K_STR},
    {"prefer", "prefer", K_STR},
    {"licenses", "licenses", K_STR},
    {"nodes", "nodes", K_NODES},
    {"ntasks", "tasks", K_INT},
    {"ntasks-per-node", "tasks_per_node", K_INT},
    {"exclusive", "exclusive", K_EXCL},
    {"oversubscribe", "oversubscribe", K_TRUE},
    {"requeue", "requeue", K_TRUE},
    {"no-requeue", "requeue", K_FALSE},
    {"nice", "nice", K_INT},
    {"signal", "signal", K_STR},
    {"mail-type", "mail_type", K_STR},
    {"mail-user", "mail_user", K_STR},
};

/* sbatch --mem units (K, M default, G, T) → MB */
static long long mem_mb(const char *v)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || x < 0)
        return -1;
    switch (*end) {
    case 'K':
    case 'k':
        x /= 1024;
        end++;
        break;
    case 'M':
    case 'm':
    case '\0':
        if (*end)
            end++;
        break;
    case 'G':
    case 'g':
        x *= 1024;
        end++;
        break;
    case 'T':
    case 't':
        x *= 1024 * 1024;
        end++;
        break;
    default: return -1;
    }
    if (*end && strcmp(end, "B") && strcmp(end, "b"))
        return -1;
    return (long long)(x + 0.999);
}

static int job_field(json_t *job, const char *option, sl_error_t *err)
{
    if (strncmp(option, "--", 2))
        return sl_errprintf(err, "option %s: not a long option", option);
    const char *name = option + 2, *eq = strchr(name, '=');
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    const char *v = eq ? eq + 1 : NULL;
    for (size_t i = 0; i < sizeof(optmap) / sizeof(optmap[0]); i++) {
        if (strlen(optmap[i].opt) != nlen || strncmp(optmap[i].opt, name, nlen))
            continue;
        const char *f = optmap[i].field;
        char *end;
        switch (optmap[i].kind) {
        case K_STR:
            if (!v)
                break;
            json_object_set_new(job, f, json_string(v));
            return 0;
        case K_INT: {
            if (!v)
                break;
            long long x = strtoll(v, &end, 10);
            if (*end)
                break;
            json_object_set_new(job, f, json_integer(x));
            return 0;
        }
        case K_MEM_MB: {
            long long mb = v ? mem_mb(v) : -1;
            if (mb < 0)
                break;
            json_object_set_new(job, f, json_integer(mb));
            return 0;
        }
        case K_TIME: {
            long m = v ? sl_slurm_time_minutes(v) : -1;
            if (m == -1)
                break;
            if (m >= 0) /* unlimited: leave Slurm's default */
                json_object_set_new(job, f, json_integer(m));
            return 0;
        }
        case K_NODES: {
            if (!v)
                break;
            long a = strtol(v, &end, 10), b = a;
            if (*end == '-')
                b = strtol(end + 1, &end, 10);
            if (*end || a < 1 || b < a)
                break;
            json_object_set_new(job, f, json_pack("[i,i]", (int)a, (int)b));
            return 0;
        }
        case K_TRUE: json_object_set_new(job, f, json_true()); return 0;
        case K_FALSE: json_object_set_new(job, f, json_false()); return 0;
        case K_EXCL: json_object_set_new(job, f, json_string(v ? v : "exclusive")); return 0;
        }
        errno = EINVAL;
        return sl_errprintf(err, "option %s: value not understood for slurmrestd", option);
    }
    errno = ENOTSUP;
    return sl_errprintf(err, "option %s has no slurmrestd v0.0.38 field", option);
}

static int ping(restd_t *s, long long deadline_ms, sl_error_t *err)
{
    for (;;) {
        long status = 0;
        char *body = NULL;
        int rc = bench_http_call(s->http, "GET", API "/ping", NULL, &status, &body, NULL,
                                 sl_now_ms() + 2000, err);
        free(body);
        if (rc == 0 && status == 200)
            return 0;
        if (rc == 0)
            sl_errprintf(err, "slurmrestd ping: HTTP %ld", status);
        if (sl_now_ms() > deadline_ms || !sl_pid_alive(s->pid))
            return -1;
        sl_sleep_ms(50);
    }
}

static void teardown(bench_ctx_t *c, void *state)
{
    (void)c;
    restd_t *s = state;
    if (!s)
        return;
    bench_http_destroy(s->http);
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        int st;
        if (sl_wait_timeout(s->pid, 5000, &st) < 0) {
            kill(s->pid, SIGKILL);
            sl_wait_timeout(s->pid, 5000, &st);
        }
    }
    if (s->sock)
        unlink(s->sock);
    if (s->sockdir)
        rmdir(s->sockdir);
    free(s->sock);
    free(s->sockdir);
    free(s);
}

static int setup(bench_ctx_t *c, void **state, sl_error_t *err)
{
    restd_t *s = sl_xcalloc(1, sizeof(*s));
    *state = NULL;
    s->sockdir = sl_xasprintf("%s/run/bench-restd.%d", c->dir, (int)getpid());
    s->sock = sl_xasprintf("%s/sock", s->sockdir);
    unlink(s->sock);
    rmdir(s->sockdir);
    if (mkdir(s->sockdir, 0700) < 0 || chown(s->sockdir, c->uid, c->gid) < 0) {
        sl_errprintf(err, "%s: %s", s->sockdir, strerror(errno));
        teardown(c, s);
        return -1;
    }
    char *listen = sl_xasprintf("unix:%s", s->sock);
    char *uid = sl_xasprintf("%u", (unsigned)c->uid);
    char *gid = sl_xasprintf("%u", (unsigned)c->gid);
    char *log = sl_xasprintf("%s/slurmrestd.log", c->out_dir);
    sl_argv_t env = SL_ARGV_INIT;
    sl_argv_add(&env, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin");
    sl_argv_addf(&env, "SLURM_CONF=%s", c->slurm_conf);
    /* as root it refuses to start without this */
    sl_argv_add(&env, "SLURMRESTD_SECURITY=disable_user_check");
    /* marks it as the cluster folder's: `slurmlink down` stops it if we die */
    sl_argv_addf(&env, "SLURMLINK_DIR=%s", c->dir);
    /* only the Slurm API plugin: the slurmdbd one refuses to load without accounting */
    const char *argv[] = {"slurmrestd", "-u", uid, "-g", gid, "-a", "rest_auth/local",
                          "-s", "openapi/v0.0.38", listen, NULL};
    sl_spawn_opts_t so = {.envp = (const char *const *)env.v,
                          .stdout_path = log,
                          .stderr_path = log,
                          .stdin_null = 1,
                          .new_session = 1};
    s->pid = sl_spawn(argv, &so, err);
    sl_argv_free(&env);
    free(listen);
    free(uid);
    free(gid);
    if (s->pid < 0) {
        free(log);
        s->pid = 0;
        teardown(c, s);
        return -1;
    }
    bench_http_target_t t = {.base = "http://localhost", .unix_path = s->sock};
    s->http = bench_http_create(&t);
    if (!s->http || ping(s, sl_now_ms() + 10000, err) < 0) {
        char *tail = sl_tail_file(log, 3);
        sl_errprintf(err, "slurmrestd did not answer on %s: %s", s->sock, tail);
        free(tail);
        free(log);
        teardown(c, s);
        return -1;
    }
    free(log);
    *state = s;
    return 0;
}

static void submit_one(bench_ctx_t *c, restd_t *s, sl_bench_run_t *r, long long deadline_ms)
{
    sl_translate_result_t *res = bench_direct_prepare(c, r);
    if (!res)
        return;
    sl_error_t err = SL_ERROR_INIT;
    json_t *job = json_object();
    for (size_t i = 0; i < res->noptions; i++)
        if (job_field(job, res->options[i], &err) < 0) {
            sl_bench_run_fail(r, "%s", err.text);
            json_decref(job);
            sl_translate_result_destroy(res);
            return;
        }
    sl_argv_t env = SL_ARGV_INIT;
    bench_job_env(c, r->uid, &env);
    json_t *jenv = json_object();
    for (size_t i = 0; i < env.n; i++) {
        char *eq = strchr(env.v[i], '=');
        *eq = '\0';
        json_object_set_new(jenv, env.v[i], json_string(eq + 1));
    }
    sl_argv_free(&env);
    json_object_set_new(job, "environment", jenv);
    json_t *req = json_pack("{s:s, s:o}", "script", res->script, "job", job);
    char *body = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    sl_translate_result_destroy(res);
    long status = 0;
    char *resp = NULL;
    long long t_done = 0;
    r->t_submit = sl_wall_us();
    int rc = bench_http_call(s->http, "POST", API "/job/submit", body, &status, &resp, &t_done,
                             deadline_ms, &err);
    free(body);
    if (rc < 0) {
        sl_bench_run_fail(r, "%s", err.text);
        return;
    }
    json_t *j = json_loads(resp ? resp : "", 0, NULL);
    json_t *id = json_object_get(j, "job_id");
    json_t *errs = json_object_get(j, "errors");
    if (status != 200 || !json_is_integer(id) || json_array_size(errs)) {
        const char *e = json_string_value(json_object_get(json_array_get(errs, 0), "error"));
        sl_bench_run_fail(r, "slurmrestd job/submit: HTTP %ld: %s", status,
                          e ? e : (resp ? resp : ""));
    } else {
        r->t_ack = t_done;
        snprintf(r->job_id, sizeof(r->job_id), "%lld", (long long)json_integer_value(id));
    }
    json_decref(j);
    free(resp);
}

static void submit(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n)
{
    long long deadline = sl_now_ms() + c->timeout_ms;
    for (size_t i = 0; i < n; i++) {
        submit_one(c, state, rs[i], deadline);
        bench_progress(c, "%s: %zu/%zu submitted", rs[i]->path, i + 1, n);
    }
}

static void seen(sl_bench_run_t *r, json_t *job, long long t)
{
    const char *st = json_string_value(json_object_get(job, "job_state"));
    r->t_seen = t;
    snprintf(r->phase, sizeof(r->phase), "%s", st);
    /* v0.0.38's exit_code is the raw wait status */
    long long x = json_integer_value(json_object_get(job, "exit_code"));
    if (strcmp(st, "COMPLETED"))
        sl_bench_run_fail(r, "Slurm job %s ended %s (exit %lld, signal %lld)", r->job_id, st,
                          (x >> 8) & 0xff, x & 0x7f);
}

/* few jobs: GET job/{id} each; many: GET jobs (what a portal would do) */
static void wait_jobs(bench_ctx_t *c, void *state, sl_bench_run_t **rs, size_t n,
                      long long deadline_ms)
{
    restd_t *s = state;
    size_t left = 0;
    for (size_t i = 0; i < n; i++)
        if (!rs[i]->error[0])
            left++;
    while (left) {
        if (sl_now_ms() > deadline_ms) {
            for (size_t i = 0; i < n; i++)
                if (!rs[i]->error[0] && !rs[i]->t_seen)
                    sl_bench_run_fail(rs[i], "Slurm job %s not finished in time", rs[i]->job_id);
            return;
        }
        int many = left > 8;
        for (size_t i = 0; i < n && (!many || i == 0); i++) {
            if (!many && (rs[i]->error[0] || rs[i]->t_seen))
                continue;
            char *path =
                many ? sl_xstrdup(API "/jobs") : sl_xasprintf(API "/job/%s", rs[i]->job_id);
            long status = 0;
            char *resp = NULL;
            long long t = 0;
            sl_error_t err = SL_ERROR_INIT;
            int rc =
                bench_http_call(s->http, "GET", path, NULL, &status, &resp, &t, deadline_ms, &err);
            free(path);
            json_t *j = rc == 0 && status == 200 ? json_loads(resp, 0, NULL) : NULL;
            free(resp);
            size_t k;
            json_t *job;
            json_array_foreach(json_object_get(j, "jobs"), k, job)
            {
                const char *st = json_string_value(json_object_get(job, "job_state"));
                if (!st || !bench_slurm_terminal(st))
                    continue;
                char id[24];
                snprintf(id, sizeof(id), "%lld",
                         (long long)json_integer_value(json_object_get(job, "job_id")));
                for (size_t m = 0; m < n; m++)
                    if (!rs[m]->error[0] && !rs[m]->t_seen && !strcmp(rs[m]->job_id, id)) {
                        seen(rs[m], job, t);
                        left--;
                    }
            }
            json_decref(j);
        }
        if (n > 1)
            bench_progress(c, "%s: %zu/%zu finished", rs[0]->path, n - left, n);
        if (left)
            sl_sleep_ms(c->poll_ms);
    }
}

const bench_path_t bench_path_slurmrestd = {
    .name = "slurmrestd",
    .what = "Debian's slurmrestd on a private Unix socket: POST job/submit, GET job/{id} polled",
    .setup = setup,
    .submit = submit,
    .wait = wait_jobs,
    .teardown = teardown,
};
