/* internal.h — shared by translate's files (not an interface). */
#ifndef SL_TRANSLATE_INTERNAL_H
#define SL_TRANSLATE_INTERNAL_H

#include "common/argv.h"
#include "runtime/runtime.h"
#include "translate/translate.h"

typedef struct tr_ctx {
    const sl_pod_t *pod;
    const sl_translate_config_t *cfg;
    const json_t *configmaps, *secrets;
    sl_error_t *errs;
    size_t errs_before; /* errors already in errs when translate began */
    sl_error_t *err;
    int missing; /* a referenced object/key is missing: ENOENT */
    char *pod_dir;
    sl_translate_file_t *files;
    size_t nfiles;
    sl_argv_t warnings;
    sl_argv_t prep;    /* script lines run before the shim (already quoted) */
    sl_argv_t cleanup; /* absolute paths the shim removes at the end */
} tr_ctx_t;

/* a claim's volume mounted read-only (the claim's readOnly, or the
 * volume's: the caller's claims object) */
int tr_claim_read_only(tr_ctx_t *c, const sl_pod_volume_t *v);
void tr_add_file(tr_ctx_t *c, const char *path, const char *data, size_t len, int mode);
void tr_add_dir(tr_ctx_t *c, const char *path);
void tr_warn(tr_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A referenced object or key is missing (not optional): sets c->missing. */
void tr_missing(tr_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An object of arr whose metadata.name is name, or NULL. */
const json_t *tr_find(const json_t *arr, const char *name);
/* Value of key in a ConfigMap (data, binaryData) or Secret (data base64,
 * stringData); new bytes in *data, length in *len (caller frees). 1 found, 0 not. */
int tr_obj_value(const json_t *obj, int secret, const char *key, char **data, size_t *len);
/* All keys of a ConfigMap/Secret (data + binaryData/stringData), NULL-terminated, caller frees
 * the array only. */
const char **tr_obj_keys(const json_t *obj, int secret, size_t *n);

int tr_utf8_valid(const char *s, size_t len);

/* probes.c: the container's probes for the shim spec (NULL: none); ctr is
 * its JSON (named ports) */
json_t *tr_probes_json(const sl_pod_container_t *k, const json_t *ctr);

/* options.c */
int tr_is_sidecar(const sl_pod_container_t *k); /* init container with restartPolicy Always */
int tr_has_amd(const sl_pod_container_t *k);    /* asks for amd.com/gpu */
struct sl_flags;
/* every option, in script order ("--name=value", raw) */
void tr_build_options(tr_ctx_t *c, const struct sl_flags *fl, sl_argv_t *out);
/* "--name=value" -> "#SBATCH --name=<quoted>" (caller frees) */
char *tr_directive(const char *option);

/* gres.c: the GRES of a pod asking for gpus whole GPUs (caller frees; NULL:
 * none); the nvidia.com/gpu.product it selects (NULL: none); its field errors */
char *tr_gres(tr_ctx_t *c, int64_t gpus);
const char *tr_gpu_product(const sl_pod_t *p);
/* what a container asks of GPUs, whole, MIG and shares alike (> 0: it sees
 * the ones Slurm bound to the job) */
int64_t tr_ctr_gpus(const tr_ctx_t *c, const sl_pod_container_t *k);
void tr_gpu_validate(const sl_pod_t *p, const sl_translate_config_t *cfg, sl_error_t *e);

/* volumes.c: files and prep lines for every volume; -1 on error */
int tr_volumes(tr_ctx_t *c);
/* host path of a volume (caller frees) */
char *tr_volume_src(tr_ctx_t *c, const sl_pod_volume_t *v);
/* the memory root for this pod: <memory_root>/slurmlink-<uid> (caller frees) */
char *tr_memory_dir(tr_ctx_t *c);
int tr_check_paths(tr_ctx_t *c);

/* env.c: a container's environment in Kubernetes order */
typedef struct tr_env {
    char **names;
    char **values; /* NULL for runtime-filled ones */
    size_t *lens;
    const char **runtime; /* fieldPath the shim fills at run time, or NULL */
    size_t n;
} tr_env_t;
int tr_container_env(tr_ctx_t *c, const sl_pod_container_t *k, const char *path, tr_env_t *env);
void tr_env_free(tr_env_t *env);
/* the image's ENV ("NAME=value") for the names env does not set */
void tr_env_add_image(tr_env_t *env, const char *const *kv, size_t n);
const char *tr_env_get(const tr_env_t *env, const char *name); /* NULL if unset/runtime */

/* downward API field value (metadata.name, labels['x'] ...), caller frees; NULL if runtime-only */
char *tr_field_value(const sl_pod_t *pod, const char *field_path);
/* resourceFieldRef value for a container, caller frees */
char *tr_resource_value(tr_ctx_t *c, const char *container, const char *resource,
                        const char *divisor);

/* hosts.c: the pod's hosts file (docs/pods.md "Names") */
char *tr_hosts_path(const tr_ctx_t *c); /* PODDIR/hosts, caller frees */
/* spec.hostname, spec.subdomain or spec.hostAliases set: 1 / 0 */
int tr_hosts_asked(const tr_ctx_t *c);
/* the container mounts a volume at /etc/hosts itself (the kubelet then
 * leaves it alone): 1 / 0 */
int tr_hosts_mounted(const sl_pod_container_t *k);
/* shim.json's "hosts" (docs/shim-spec.md) */
json_t *tr_hosts_json(const tr_ctx_t *c);

#endif
