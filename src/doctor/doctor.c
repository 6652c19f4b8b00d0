/* doctor.c — the table of checks, the context they share and the report. */
#include "doctor/internal.h"

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"

#include <curl/curl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define CS(id) sl_config_str(c->o->cfg, SL_CFG_##id)
#define CL(id) sl_config_long(c->o->cfg, SL_CFG_##id)

typedef struct dr_check {
    const char *name;
    void (*fn)(dr_ctx_t *c);
} dr_check_t;

/* in order: later checks read what earlier ones found (slurm_ok, nodes,
 * probe_dir, the probes' answers) */
static const dr_check_t checks[] = {
    {"root", dr_check_root},
    {"slurm", dr_check_slurm},
    {"munge", dr_check_munge},
    {"accounting", dr_check_accounting},
    {"nodes", dr_check_nodes},
    {"gres", dr_check_gres},
    {"pods-root", dr_check_pods_head},
    {"probe", dr_check_probe},
    {"pods-shared", dr_check_pods_shared},
    {"shim", dr_check_shim},
    {"runtimes", dr_check_runtimes},
    {"clock", dr_check_clock},
    {"push", dr_check_push},
};

void dr_report(dr_ctx_t *c, dr_level_t lv, const char *name, const char *fix, const char *fmt, ...)
{
    static const char *lvn[] = {"ok", "warn", "FAIL"};
    FILE *f = c->o->out;
    va_list ap;
    fprintf(f, "%-4s  %-11s  ", lvn[lv], name);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    if (lv != DR_OK && fix)
        fprintf(f, "; fix: %s", fix);
    fputc('\n', f);
    fflush(f);
    if (lv == DR_FAIL)
        c->fails++;
}

/* the shims' push address: shim.report_url, else the one slurmlinkd
 * derives from its listen address and port (src/daemon/main.c) */
static void push_target(dr_ctx_t *c)
{
    const char *url = CS(REPORT_URL);
    if (!url) {
        const char *l = CS(LISTEN);
        c->push_host = sl_xstrdup(strcmp(l, "0.0.0.0") ? l : "127.0.0.1");
        c->push_port = (int)CL(PORT);
        return;
    }
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        c->push_host = sl_xstrdup(host);
        c->push_port = atoi(port);
    }
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
}

static void add_runtime(dr_ctx_t *c, const char *name)
{
    for (size_t i = 0; i < c->nrt; i++)
        if (!strcmp(c->rt[i], name))
            return;
    if (c->nrt < DR_MAX_RT) {
        const sl_runtime_ops_t *ops = sl_runtime_get(name);
        c->rt[c->nrt] = name;
        c->rt_bin[c->nrt++] = ops ? ops->default_binary : NULL;
    }
}

/* the runtimes users will get: runtimes.default, charliecloud for the
 * image store, and the ones asked for */
static void runtimes(dr_ctx_t *c)
{
    if (CS(DEFAULT_RUNTIME))
        add_runtime(c, CS(DEFAULT_RUNTIME));
    if (CS(IMAGE_STORE))
        add_runtime(c, "charliecloud");
    for (const char *const *r = c->o->runtimes; r && *r; r++)
        add_runtime(c, *r);
}

static void setup(dr_ctx_t *c)
{
    c->probe_fd = -1;
    c->slurm_conf = CS(SLURM_CONF) ? CS(SLURM_CONF) : getenv("SLURM_CONF");
    if (!c->slurm_conf)
        c->slurm_conf = "/etc/slurm/slurm.conf";
    c->pods_root =
        CS(PODS_ROOT) ? sl_xstrdup(CS(PODS_ROOT)) : sl_xasprintf("%s/pods", CS(STATE_DIR));
    c->shim = CS(SHIM) ? sl_xstrdup(CS(SHIM)) : sl_config_default_shim();
    push_target(c);
    runtimes(c);
    c->run_as = CS(RUN_AS);
    c->user = c->o->probe_user ? c->o->probe_user : c->run_as;
    struct passwd *pw = getpwnam(c->user);
    if (pw) {
        c->uid = pw->pw_uid;
        c->gid = pw->pw_gid;
        c->user_ok = 1;
    }
    unsigned char r[16] = {0};
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
        for (size_t i = 0; i < sizeof(r); i++)
            r[i] = (unsigned char)(rand() ^ getpid());
    for (size_t i = 0; i < sizeof(r); i++)
        snprintf(c->nonce + 2 * i, 3, "%02x", r[i]);
}

static void teardown(dr_ctx_t *c)
{
    if (c->probe_dir)
        sl_rm_rf(c->probe_dir); /* never follows a link, see fsutil.c */
    if (c->probe_fd >= 0)
        close(c->probe_fd);
    for (size_t i = 0; i < c->nnodes; i++)
        free(c->nodes[i].out);
    free(c->nodes);
    free(c->probe_dir);
    free(c->pods_root);
    free(c->shim);
    free(c->push_host);
}

int sl_doctor_run(const sl_doctor_opts_t *o)
{
    dr_ctx_t c = {.o = o};
    setup(&c);
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
        checks[i].fn(&c);
    teardown(&c);
    return c.fails;
}
