/* pods.c — the workload pod, one instance per run, and for the direct paths
 * (sbatch, slurmrestd) the pod folder and script exactly as slurmlinkd
 * makes them (same translate call and configuration as src/ctl/submit.c). */
#include "bench/internal.h"
#include "podfs/podfs.h"

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "pod/pod.h"
#include "pod/yamljson.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define LABEL_BENCH "slurmlink.io/bench"
#define LABEL_PATH "slurmlink.io/bench-path"
#define LABEL_BATCH "slurmlink.io/bench-batch"

static int looks_like_file(const char *w)
{
    struct stat st;
    if (stat(w, &st) == 0 && S_ISREG(st.st_mode))
        return 1;
    size_t n = strlen(w);
    static const char *ext[] = {".yaml", ".yml", ".json"};
    for (int i = 0; i < 3; i++) {
        size_t k = strlen(ext[i]);
        if (n > k && !strcmp(w + n - k, ext[i]) && !strchr(w, ' '))
            return 1;
    }
    return 0;
}

static json_t *busybox_pod(const char *cmd)
{
    json_t *command = cmd ? json_pack("[s,s,s]", "sh", "-c", cmd) : json_pack("[s]", "true");
    return json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:i, s:[{s:s, s:s, s:o, s:{s:{s:s, s:s}, "
                     "s:{s:s, s:s}}}]}}",
                     "apiVersion", "v1", "kind", "Pod", "metadata", "namespace", "default", "spec",
                     "restartPolicy", "Never", "terminationGracePeriodSeconds", 5, "containers",
                     "name", "main", "image", "busybox", "command", command, "resources",
                     "requests", "cpu", "1", "memory", "64Mi", "limits", "cpu", "1", "memory",
                     "64Mi");
}

/* fields an API server sets: a template must not carry them into new pods */
static void strip_server_fields(json_t *pod)
{
    json_t *md = json_object_get(pod, "metadata");
    static const char *drop[] = {"uid",
                                 "resourceVersion",
                                 "creationTimestamp",
                                 "generation",
                                 "managedFields",
                                 "selfLink",
                                 "deletionTimestamp",
                                 "name",
                                 "generateName",
                                 NULL};
    for (int i = 0; drop[i]; i++)
        json_object_del(md, drop[i]);
    json_object_del(pod, "status");
}

json_t *bench_workload(const char *workload, char **desc, sl_error_t *err)
{
    if (!workload) {
        *desc = sl_xstrdup("no-op container (busybox `true`, 1 CPU, 64Mi)");
        return busybox_pod(NULL);
    }
    if (!looks_like_file(workload)) {
        *desc = sl_xasprintf("busybox `sh -c %s` (1 CPU, 64Mi)", workload);
        return busybox_pod(workload);
    }
    size_t len = 0;
    char *text = sl_read_file(workload, &len, err);
    if (!text)
        return NULL;
    json_t *docs = sl_yaml_to_json(text, len, err);
    free(text);
    if (!docs)
        return NULL;
    json_t *pod = NULL;
    size_t i;
    json_t *d;
    json_array_foreach(docs, i, d)
    {
        const char *kind = json_string_value(json_object_get(d, "kind"));
        if (!kind || strcmp(kind, "Pod") || pod) {
            json_decref(pod);
            json_decref(docs);
            errno = EINVAL;
            sl_errprintf(err,
                         "%s: the workload file must hold exactly one Pod (document %zu is %s)",
                         workload, i + 1,
                         kind && !strcmp(kind, "Pod") ? "a second Pod"
                         : kind                       ? kind
                                                      : "not a Kubernetes object");
            return NULL;
        }
        pod = json_incref(d);
    }
    json_decref(docs);
    if (!pod) {
        errno = EINVAL;
        sl_errprintf(err, "%s: no Pod in the file", workload);
        return NULL;
    }
    if (!json_is_object(json_object_get(pod, "metadata")))
        json_object_set_new(pod, "metadata", json_object());
    strip_server_fields(pod);
    json_t *spec = json_object_get(pod, "spec");
    const char *rp = json_string_value(json_object_get(spec, "restartPolicy"));
    if (json_is_object(spec) && !rp) {
        json_object_set_new(spec, "restartPolicy", json_string("Never"));
    } else if (rp && !strcmp(rp, "Always")) {
        json_decref(pod);
        errno = EINVAL;
        sl_errprintf(err, "%s: restartPolicy Always never finishes: use Never or OnFailure",
                     workload);
        return NULL;
    }
    /* validate now, under a placeholder name, so a bad file fails before any run */
    json_t *probe = json_deep_copy(pod);
    json_object_set_new(json_object_get(probe, "metadata"), "name", json_string("bench-probe"));
    if (!json_object_get(json_object_get(probe, "metadata"), "namespace"))
        json_object_set_new(json_object_get(probe, "metadata"), "namespace",
                            json_string("default"));
    sl_error_t *errs = sl_error_new_invalid();
    sl_pod_t *model = sl_pod_parse(probe, errs);
    if (!model) {
        char *agg = sl_err_fields_aggregate(errs);
        errno = EINVAL;
        sl_errprintf(err, "%s: invalid pod: %s", workload, agg);
        free(agg);
        json_decref(pod);
        pod = NULL;
    }
    sl_pod_destroy(model);
    sl_error_free(errs);
    json_decref(probe);
    if (pod)
        *desc = sl_xasprintf("pod file %s", workload);
    return pod;
}

static void random_uid(char out[40])
{
    unsigned char b[16];
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
        for (int i = 0; i < 16; i++)
            b[i] = (unsigned char)rand();
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

json_t *bench_pod_instance(bench_ctx_t *c, sl_bench_run_t *r, int with_uid)
{
    json_t *pod = json_deep_copy(c->pod);
    json_t *md = json_object_get(pod, "metadata");
    if (r->batch)
        snprintf(r->pod, sizeof(r->pod), "bench-%s-%s-b%d-%d", r->path, c->stamp, r->batch,
                 r->index);
    else
        snprintf(r->pod, sizeof(r->pod), "bench-%s-%s-%d", r->path, c->stamp, r->index);
    json_object_set_new(md, "name", json_string(r->pod));
    if (!json_string_value(json_object_get(md, "namespace")))
        json_object_set_new(md, "namespace", json_string("default"));
    json_t *labels = json_object_get(md, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(md, "labels", labels);
    }
    json_object_set_new(labels, LABEL_BENCH, json_string(c->stamp));
    json_object_set_new(labels, LABEL_PATH, json_string(r->path));
    char batch[32];
    snprintf(batch, sizeof(batch), "%d", r->batch);
    json_object_set_new(labels, LABEL_BATCH, json_string(batch));
    if (with_uid) {
        random_uid(r->uid);
        json_object_set_new(md, "uid", json_string(r->uid));
        json_object_set_new(md, "creationTimestamp", json_string("1970-01-01T00:00:00Z"));
    }
    return pod;
}

void bench_pod_dir(bench_ctx_t *c, sl_bench_run_t *r, const char *ns)
{
    snprintf(r->pod_dir, sizeof(r->pod_dir), "%s/%s/%s-%s", c->pods_root, ns ? ns : "default",
             r->pod, r->uid);
}

/* slurmlinkd cancels a job marked slurmlink:uid=X when it has no pod X:
 * the direct paths mark theirs slurmlink-bench:uid=X instead. */
static char *remark(const char *s)
{
    const char *from = "--comment=slurmlink:uid=", *to = "--comment=slurmlink-bench:uid=";
    const char *p = strstr(s, from);
    if (!p)
        return sl_xstrdup(s);
    return sl_xasprintf("%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
}

sl_translate_result_t *bench_direct_prepare(bench_ctx_t *c, sl_bench_run_t *r)
{
    json_t *pod = bench_pod_instance(c, r, 1);
    sl_error_t *errs = sl_error_new_invalid();
    sl_translate_result_t *res = NULL;
    sl_pod_t *model = sl_pod_parse(pod, errs);
    sl_error_t err = SL_ERROR_INIT;
    if (!model) {
        char *agg = sl_err_fields_aggregate(errs);
        sl_bench_run_fail(r, "invalid pod: %s", agg);
        free(agg);
        goto out;
    }
    sl_translate_config_t cfg = {
        .pods_root = c->pods_root,
        .shim_path = c->shim_path,
        .report_url = NULL, /* no daemon knows these pods: nothing to push to */
        .default_cpu_milli = SL_TRANSLATE_DEFAULT_CPU_MILLI,
        .default_mem_bytes = SL_TRANSLATE_DEFAULT_MEM_BYTES,
        .default_runtime = c->runtime,
        .image_store = c->image_store,
        .uid = c->uid,
        .gid = c->gid,
        .image_lookup = sl_podfs_image_exists,
    };
    if (sl_translate(model, NULL, NULL, &cfg, &res, errs, &err) < 0) {
        char *agg = sl_err_fields_aggregate(errs);
        sl_bench_run_fail(r, "translate: %s", *agg ? agg : err.text);
        free(agg);
        res = NULL;
        goto out;
    }
    char *s = remark(res->script);
    free(res->script);
    res->script = s;
    for (size_t i = 0; i < res->noptions; i++) {
        s = remark(res->options[i]);
        free(res->options[i]);
        res->options[i] = s;
    }
    for (size_t i = 0; i < res->nfiles; i++)
        if (!strcmp(res->files[i].path, "job.sh") && res->files[i].data) {
            s = remark(res->files[i].data);
            free(res->files[i].data);
            res->files[i].data = s;
            res->files[i].len = strlen(s);
        }
    if (sl_podfs_write(res, 1, c->uid, c->gid, &err) < 0) {
        sl_bench_run_fail(r, "pod folder: %s", err.text);
        sl_translate_result_destroy(res);
        res = NULL;
        goto out;
    }
    snprintf(r->pod_dir, sizeof(r->pod_dir), "%s", res->pod_dir);
out:
    sl_pod_destroy(model);
    sl_error_free(errs);
    json_decref(pod);
    return res;
}

void bench_job_env(bench_ctx_t *c, const char *uid, sl_argv_t *env)
{
    sl_argv_add(env, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin");
    sl_argv_addf(env, "HOME=%s", c->home);
    sl_argv_addf(env, "USER=%s", c->run_as);
    sl_argv_addf(env, "LOGNAME=%s", c->run_as);
    sl_argv_addf(env, "SLURMLINK_POD_UID=%s", uid);
    sl_argv_addf(env, "SLURM_CONF=%s", c->slurm_conf);
}

int bench_slurm_terminal(const char *s)
{
    static const char *t[] = {"COMPLETED", "FAILED",    "CANCELLED", "TIMEOUT",  "OUT_OF_MEMORY",
                              "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE", NULL};
    for (int i = 0; s && t[i]; i++)
        if (!strcmp(s, t[i]))
            return 1;
    return 0;
}
