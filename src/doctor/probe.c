/* probe.c — one srun per usable node, as the probe user, all at once; each
 * answers with key=value lines on its stdout, which srun brings back to
 * the head (so the answer arrives even when the pods root is not shared).
 * Every value reaches the script as an argument ("$1"...), none is pasted
 * into its text. */
#include "doctor/internal.h"

#include "common/argv.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* $1 probe folder, $2 nonce, $3 node, $4 shim, $5 push host, $6 port, then runtime binaries */
static const char probe_script[] =
    "d=$1 nonce=$2 node=$3 shim=$4 host=$5 port=$6; shift 6\n"
    "echo \"time=$(date +%s.%N)\"\n"
    "if [ -z \"$d\" ]; then echo pods=skipped\n"
    "elif [ ! -d \"$d\" ]; then echo pods=absent\n"
    "elif e=$( { printf '%s\\n' \"$nonce\" >\"$d/$node\"; } 2>&1 ); then echo pods=ok\n"
    "else echo \"pods=$d: ${e##*: }\"; fi\n"
    "if [ ! -e \"$shim\" ]; then echo \"shim=$shim: not found\"\n"
    "elif v=$(\"$shim\" --version 2>&1); then echo \"shim=ok $v\"\n"
    "else echo \"shim=$shim --version: ${v##*: }\"; fi\n"
    "for b in \"$@\"; do\n"
    "  if p=$(command -v \"$b\"); then echo \"rt.$b=ok $p\"; else echo \"rt.$b=missing\"; fi\n"
    "done\n"
    "if timeout 5 bash -c 'exec 3<>\"/dev/tcp/$0/$1\"' \"$host\" \"$port\" 2>/dev/null; then\n"
    "  echo push=ok; else echo push=fail; fi\n";

typedef struct probe_run {
    pid_t pid;
    char *out, *err; /* head-local files for srun's stdout, stderr */
} probe_run_t;

static sl_argv_t probe_argv(const dr_ctx_t *c, const dr_node_t *n)
{
    sl_argv_t a = SL_ARGV_INIT;
    sl_argv_add(&a, "setpriv");
    sl_argv_addf(&a, "--reuid=%u", (unsigned)c->uid);
    sl_argv_addf(&a, "--regid=%u", (unsigned)c->gid);
    sl_argv_add(&a, "--init-groups");
    sl_argv_add(&a, "srun");
    sl_argv_add(&a, "--quiet");
    sl_argv_add(&a, "--nodes=1");
    sl_argv_add(&a, "--ntasks=1");
    sl_argv_add(&a, "--time=2");
    sl_argv_add(&a, "--chdir=/");
    sl_argv_add(&a, "--job-name=slurmlink-doctor");
    sl_argv_addf(&a, "--nodelist=%s", n->name);
    if (n->partition[0])
        sl_argv_addf(&a, "--partition=%s", n->partition);
    const char *fixed[] = {"/bin/bash",
                           "-c",
                           probe_script,
                           "slurmlink-doctor-probe",
                           c->probe_dir ? c->probe_dir : "",
                           c->nonce,
                           n->name,
                           c->shim ? c->shim : "",
                           c->push_host ? c->push_host : "",
                           NULL};
    for (const char **f = fixed; *f; f++)
        sl_argv_add(&a, *f);
    sl_argv_addf(&a, "%d", c->push_port);
    for (size_t i = 0; i < c->nrt; i++)
        sl_argv_add(&a, c->rt_bin[i] ? c->rt_bin[i] : c->rt[i]);
    return a;
}

static void start(dr_ctx_t *c, dr_node_t *n, probe_run_t *r, const char *tmp)
{
    sl_error_t e = SL_ERROR_INIT;
    r->out = sl_xasprintf("%s/%s.out", tmp, n->name);
    r->err = sl_xasprintf("%s/%s.err", tmp, n->name);
    sl_argv_t a = probe_argv(c, n);
    sl_spawn_opts_t so = {.stdout_path = r->out, .stderr_path = r->err, .stdin_null = 1};
    n->t0 = (double)sl_wall_us() / 1e6;
    r->pid = sl_spawn((const char *const *)a.v, &so, &e);
    if (r->pid < 0)
        snprintf(n->why, sizeof(n->why), "%.200s", e.text);
    sl_argv_free(&a);
}

/* the last line srun wrote on stderr */
static void last_error(const char *path, char *why, size_t len, int status)
{
    char *t = sl_tail_file(path, 1);
    size_t l = t ? strcspn(t, "\n") : 0;
    if (l)
        snprintf(why, len, "srun exit %d: %.*s", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 (int)l, t);
    else
        snprintf(why, len, "srun exit %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    free(t);
}

static void finish(const dr_ctx_t *c, dr_node_t *n, probe_run_t *r, long long deadline)
{
    int status = 0;
    long long left = deadline - sl_now_ms();
    if (sl_wait_timeout(r->pid, left > 0 ? (int)left : 0, &status) < 0) {
        kill(r->pid, SIGTERM); /* srun cancels its job */
        if (sl_wait_timeout(r->pid, 5000, &status) < 0) {
            kill(r->pid, SIGKILL);
            sl_wait_timeout(r->pid, -1, &status);
        }
        snprintf(n->why, sizeof(n->why), "no answer in %d s (node busy? srun as %s waits)",
                 c->o->timeout_s, c->user);
        return;
    }
    n->t1 = (double)sl_wall_us() / 1e6;
    size_t len;
    n->out = sl_read_file(r->out, &len, NULL);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && n->out && strstr(n->out, "push="))
        n->probed = 1;
    else
        last_error(r->err, n->why, sizeof(n->why), status);
}

/* the probes of every usable node, at once */
static void run_all(dr_ctx_t *c, const char *tmp)
{
    probe_run_t *r = sl_xcalloc(c->nnodes ? c->nnodes : 1, sizeof(*r));
    for (size_t i = 0; i < c->nnodes; i++)
        if (c->nodes[i].usable)
            start(c, &c->nodes[i], &r[i], tmp);
    long long deadline = sl_now_ms() + 1000LL * c->o->timeout_s;
    for (size_t i = 0; i < c->nnodes; i++) {
        if (r[i].pid > 0)
            finish(c, &c->nodes[i], &r[i], deadline);
        free(r[i].out);
        free(r[i].err);
    }
    free(r);
}

void dr_check_probe(dr_ctx_t *c)
{
    if (!c->slurm_ok || !c->user_ok || !c->nnodes) {
        dr_report(c, DR_FAIL, "probe", NULL, "skipped: %s",
                  !c->slurm_ok  ? "slurmctld does not answer"
                  : !c->user_ok ? "no probe user"
                                : "no node");
        return;
    }
    char tmp[] = "/tmp/slurmlink-doctor.XXXXXX";
    if (!mkdtemp(tmp)) {
        dr_report(c, DR_FAIL, "probe", NULL, "mkdtemp: %s", strerror(errno));
        return;
    }
    run_all(c, tmp);
    sl_rm_rf(tmp);
    char bad[1024] = "", good[512] = "";
    for (size_t i = 0; i < c->nnodes; i++) {
        dr_node_t *n = &c->nodes[i];
        char *b = n->probed ? good : bad;
        size_t bl = n->probed ? sizeof(good) : sizeof(bad);
        if (n->usable && n->probed)
            snprintf(b + strlen(b), bl - strlen(b), "%s%s", *b ? "," : "", n->name);
        else if (n->usable)
            snprintf(b + strlen(b), bl - strlen(b), "%s%s: %s", *b ? "; " : "", n->name, n->why);
    }
    if (*bad)
        dr_report(
            c, DR_FAIL, "probe",
            "check that the probe user may submit (sbatch as the user) and the node runs jobs",
            "srun as %s: %s", c->user, bad);
    else
        dr_report(c, DR_OK, "probe", NULL, "srun as %s ran on %s", c->user, good);
}

int dr_probe_get(const dr_node_t *n, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    buf[0] = '\0';
    for (const char *l = n->out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
        if (!strncmp(l, key, kl) && l[kl] == '=') {
            snprintf(buf, len, "%.*s", (int)strcspn(l + kl + 1, "\n"), l + kl + 1);
            return 1;
        }
    }
    return 0;
}
