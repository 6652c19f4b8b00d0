/* options.c — the sbatch options of a pod: identity, the Kubernetes
 * effective request, GPUs, time, features and the annotations; the flags
 * annotation replaces what it also sets. */
#include "translate/flags.h"
#include "translate/internal.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "gpu/gpu.h"
#include "slurmif/slurmif.h"

#include <stdlib.h>
#include <string.h>

/* ---------- resources ---------- */

typedef struct totals {
    int64_t cpu_milli, mem_bytes, gpus;
    int amd;
} totals_t;

int tr_is_sidecar(const sl_pod_container_t *k)
{
    return k->init && k->restart_policy && !strcmp(k->restart_policy, "Always");
}

static int64_t req_or_zero(int64_t v) { return v < 0 ? 0 : v; }

int tr_has_amd(const sl_pod_container_t *k)
{
    return json_object_get(k->res.limits, "amd.com/gpu") ||
           json_object_get(k->res.requests, "amd.com/gpu");
}

/* Kubernetes' effective pod request: max(sum(app + sidecars), max(init)). */
static totals_t effective(const sl_pod_t *p)
{
    totals_t app = {0, 0, 0, 0}, init = {0, 0, 0, 0};
    for (size_t i = 0; i < p->ncontainers; i++) {
        const sl_pod_container_t *k = &p->containers[i];
        app.cpu_milli += req_or_zero(k->res.cpu_req_milli);
        app.mem_bytes += req_or_zero(k->res.mem_req_bytes);
        app.gpus += k->res.gpus;
        app.amd |= tr_has_amd(k);
    }
    for (size_t i = 0; i < p->ninit; i++) {
        const sl_pod_container_t *k = &p->init_containers[i];
        if (tr_is_sidecar(k)) {
            app.cpu_milli += req_or_zero(k->res.cpu_req_milli);
            app.mem_bytes += req_or_zero(k->res.mem_req_bytes);
            app.gpus += k->res.gpus;
        } else {
            if (k->res.cpu_req_milli > init.cpu_milli)
                init.cpu_milli = k->res.cpu_req_milli;
            if (k->res.mem_req_bytes > init.mem_bytes)
                init.mem_bytes = k->res.mem_req_bytes;
            if (k->res.gpus > init.gpus)
                init.gpus = k->res.gpus;
        }
        app.amd |= tr_has_amd(k);
    }
    totals_t t = app;
    if (init.cpu_milli > t.cpu_milli)
        t.cpu_milli = init.cpu_milli;
    if (init.mem_bytes > t.mem_bytes)
        t.mem_bytes = init.mem_bytes;
    if (init.gpus > t.gpus)
        t.gpus = init.gpus;
    return t;
}

/* ---------- options ---------- */

static void opt(sl_argv_t *o, const sl_flags_t *fl, const char *const *overridden, const char *name,
                const char *value)
{
    for (size_t i = 0; overridden && overridden[i]; i++)
        if (sl_flags_has(fl, overridden[i]))
            return; /* the flags annotation says it */
    if (value)
        sl_argv_addf(o, "--%s=%s", name, value);
    else
        sl_argv_addf(o, "--%s", name);
}

#define OV(...) ((const char *const[]){__VA_ARGS__, NULL})

/* CPUs and memory (the Kubernetes effective request, else the defaults), GPUs */
static void resource_options(tr_ctx_t *c, const sl_flags_t *fl, sl_argv_t *o)
{
    char *s;
    totals_t t = effective(c->pod);
    int64_t cpu = t.cpu_milli > 0 ? t.cpu_milli : c->cfg->default_cpu_milli;
    int64_t mem = t.mem_bytes > 0 ? t.mem_bytes : c->cfg->default_mem_bytes;
    if (cpu <= 0)
        cpu = SL_TRANSLATE_DEFAULT_CPU_MILLI;
    if (mem <= 0)
        mem = SL_TRANSLATE_DEFAULT_MEM_BYTES;
    s = sl_xasprintf("%lld", (long long)((cpu + 999) / 1000));
    opt(o, fl, OV("cpus-per-task"), "cpus-per-task", s);
    free(s);
    s = sl_xasprintf("%lldM", (long long)((mem + (1 << 20) - 1) >> 20));
    opt(o, fl, OV("mem", "mem-per-cpu", "mem-per-gpu"), "mem", s);
    free(s);
    if ((s = tr_gres(c, t.gpus))) {
        opt(o, fl, OV("gres", "gpus", "gpus-per-node", "gpus-per-task", "gpus-per-socket"), "gres",
            s);
        free(s);
    }
}

/* node features: nodeSelector values and the constraint annotation, ANDed;
 * kubernetes.io/hostname is the node list */
static void feature_options(tr_ctx_t *c, const sl_flags_t *fl, sl_argv_t *o)
{
    const char *v;
    sl_buf_t cons = SL_BUF_INIT;
    if ((v = sl_pod_annotation(c->pod, SL_ANN_CONSTRAINT)))
        sl_buf_printf(&cons, strpbrk(v, "|,") ? "(%s)" : "%s", v);
    const char *nodelist = NULL;
    for (size_t i = 0; i < c->pod->nnode_selector; i++) {
        const sl_pod_kv_t *kv = &c->pod->node_selector[i];
        if (!strcmp(kv->key, "kubernetes.io/hostname")) {
            nodelist = kv->value;
            continue;
        }
        if (!strcmp(kv->key, SL_GPU_PRODUCT_LABEL))
            continue; /* the GPU type of --gres (gres.c) */
        if (!strcmp(kv->key, "kubernetes.io/os") || !strcmp(kv->key, "kubernetes.io/arch")) {
            tr_warn(c, "nodeSelector %s=%s is not a Slurm node feature: ignored", kv->key,
                    kv->value);
            continue;
        }
        if (!*kv->value) {
            tr_warn(c, "nodeSelector %s has an empty value: ignored", kv->key);
            continue;
        }
        sl_buf_printf(&cons, "%s%s", cons.len ? "&" : "", kv->value);
    }
    if (cons.len)
        opt(o, fl, OV("constraint"), "constraint", cons.data);
    sl_buf_free(&cons);
    if (nodelist)
        opt(o, fl, OV("nodelist"), "nodelist", nodelist);
}

void tr_build_options(tr_ctx_t *c, const sl_flags_t *fl, sl_argv_t *o)
{
    const sl_pod_t *p = c->pod;
    const sl_translate_config_t *cfg = c->cfg;
    const char *v;
    char *s;
    s = sl_xasprintf("%s/%s", p->namespace_, p->name);
    opt(o, fl, NULL, "job-name", s);
    free(s);
    s = sl_xasprintf("slurmlink:uid=%s", p->uid);
    opt(o, fl, NULL, "comment", s);
    free(s);
    if ((v = sl_pod_annotation(p, SL_ANN_PARTITION)) || (v = cfg->default_partition))
        opt(o, fl, OV("partition"), "partition", v);
    if ((v = sl_pod_annotation(p, SL_ANN_ACCOUNT)) || (v = cfg->default_account))
        opt(o, fl, OV("account"), "account", v);
    if ((v = sl_pod_annotation(p, SL_ANN_QOS)))
        opt(o, fl, OV("qos"), "qos", v);
    long minutes = -1;
    if (p->active_deadline_seconds > 0)
        minutes = (long)((p->active_deadline_seconds + 59) / 60);
    if ((v = sl_pod_annotation(p, SL_ANN_TIME))) {
        long m = sl_slurm_time_minutes(v);
        if (m > 0 && (minutes < 0 || m < minutes))
            minutes = m;
        else if (m == -2 && minutes < 0)
            minutes = -2;
    }
    if (minutes > 0) {
        s = sl_xasprintf("%ld", minutes);
        opt(o, fl, OV("time"), "time", s);
        free(s);
    } else if (minutes == -2) {
        opt(o, fl, OV("time"), "time", "UNLIMITED");
    }
    if ((v = sl_pod_annotation(p, SL_ANN_NODES)))
        opt(o, fl, OV("nodes"), "nodes", v);
    if ((v = sl_pod_annotation(p, SL_ANN_NTASKS)))
        opt(o, fl, OV("ntasks"), "ntasks", v);
    resource_options(c, fl, o);
    feature_options(c, fl, o);
    /* a node failure: restartPolicy Never fails the pod (NodeLost); otherwise
     * Slurm requeues the job, the way a controller would recreate the pod */
    opt(o, fl, OV("requeue", "no-requeue"),
        p->restart_policy && !strcmp(p->restart_policy, "Never") ? "no-requeue" : "requeue", NULL);
    if ((v = sl_pod_annotation(p, SL_ANN_EXCLUSIVE)) && strcmp(v, "false"))
        opt(o, fl, OV("exclusive"), "exclusive", strcmp(v, "true") ? v : NULL);
    for (size_t i = 0; i < fl->n; i++) {
        char *x = sl_flag_option(&fl->v[i]);
        sl_argv_add(o, x);
        free(x);
    }
    s = sl_xasprintf("%s/job.out", c->pod_dir);
    sl_argv_addf(o, "--output=%s", s);
    sl_argv_addf(o, "--error=%s", s);
    free(s);
    sl_argv_add(o, "--open-mode=append");
    sl_argv_addf(o, "--chdir=%s", c->pod_dir);
}

/* "--name=value" → "#SBATCH --name=<quoted>" */
char *tr_directive(const char *option)
{
    const char *eq = strchr(option, '=');
    if (!eq)
        return sl_xasprintf("#SBATCH %s", option);
    char *q = sl_shell_quote(eq + 1);
    char *s = sl_xasprintf("#SBATCH %.*s=%s", (int)(eq - option), option, q);
    free(q);
    return s;
}
