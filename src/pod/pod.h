/* pod.h — a core/v1 Pod parsed into read-only C structures, with validation.
 *
 * sl_pod_parse() validates the Pod JSON the way kube-apiserver does (field
 * paths and texts from pkg/apis/core/validation) plus what slurmlink cannot
 * run (persistentVolumeClaim and other storage volumes: Forbidden), and on
 * success returns an sl_pod_t whose public structs describe the pod.
 *
 * Ownership: the sl_pod_t holds a reference to the json_t it was parsed
 * from; every `const char *` below points into that JSON (or to a static
 * ""), and every array is owned by the pod. All of it lives until
 * sl_pod_destroy(). Do not modify the JSON while the pod lives.
 *
 * Conventions: absent integers are -1 (SL_POD_UNSET); absent strings are
 * NULL unless documented as "" ; arrays come with a count.
 */
#ifndef SL_POD_POD_H
#define SL_POD_POD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/argv.h"
#include "common/err.h"

#define SL_POD_UNSET (-1)

/* Annotations slurmlink reads (translate validates their values). */
#define SL_ANN_RUNTIME "slurmlink.io/runtime"

/* Server-owned annotations (api/admission.c refuses them from clients).
 * Set by the API at create: the authenticated user who created the pod; the
 * controller maps it to the Unix user the job runs as. */
#define SL_ANN_USER "slurmlink.io/user"
/* Set by the controller: the pod's Slurm job. The controller signals and
 * cancels that job, after checking that its comment carries the pod's uid. */
#define SL_ANN_JOB_ID "slurmlink.io/job-id"
/* a Job's pod (src/kinds/job/controller.c): its Job's uid and its array task "ARRAY_TASK" */
#define SL_ANN_JOB_UID "slurmlink.io/job-uid"
#define SL_ANN_ARRAY_TASK "slurmlink.io/array-task"
/* Set by the controller from the shim: the GPUs Slurm bound to the job
 * (src/ctl/gpustatus.c, docs/gpus.md) */
#define SL_ANN_GPUS "slurmlink.io/gpus"
/* Set by a gang's controller on a replica that replaces a failed one of the
 * same name (src/ctl/carry.h): per container {"restartCount": N,
 * "lastTerminated": {...}}, where its runs go on (the shim's spec) */
#define SL_ANN_RESTARTS "slurmlink.io/restarts"

typedef struct sl_pod_kv {
    const char *key;
    const char *value;
} sl_pod_kv_t;

typedef enum sl_env_src {
    SL_ENV_VALUE,          /* value (possibly "") */
    SL_ENV_CONFIGMAP_KEY,  /* valueFrom.configMapKeyRef: ref, key, optional */
    SL_ENV_SECRET_KEY,     /* valueFrom.secretKeyRef: ref, key, optional */
    SL_ENV_FIELD,          /* valueFrom.fieldRef: key = fieldPath */
    SL_ENV_RESOURCE_FIELD, /* valueFrom.resourceFieldRef: key = resource, container, divisor */
} sl_env_src_t;

typedef struct sl_pod_env {
    const char *name;
    sl_env_src_t src;
    const char *value;     /* SL_ENV_VALUE: never NULL */
    const char *ref;       /* ConfigMap/Secret name */
    const char *key;       /* key, fieldPath or resource */
    const char *container; /* resourceFieldRef.containerName (NULL: this container) */
    const char *divisor;   /* resourceFieldRef.divisor text (NULL: 1) */
    int optional;
} sl_pod_env_t;

typedef struct sl_pod_envfrom {
    int secret;         /* 1: secretRef, 0: configMapRef */
    const char *ref;    /* object name */
    const char *prefix; /* "" when none */
    int optional;
} sl_pod_envfrom_t;

typedef struct sl_pod_mount {
    const char *name;
    const char *mount_path;
    const char *sub_path;      /* "" when none */
    const char *sub_path_expr; /* "" when none ($(VAR) expanded by translate) */
    int read_only;
} sl_pod_mount_t;

/* Resources in the units Slurm needs. Requests default to limits where only
 * limits are given (Kubernetes' defaulting). SL_POD_UNSET when absent. */
typedef struct sl_pod_resources {
    int64_t cpu_req_milli, cpu_lim_milli;
    int64_t mem_req_bytes, mem_lim_bytes;
    int64_t gpus; /* nvidia.com/gpu + amd.com/gpu (limit, else request); 0 when none */
    const json_t *requests, *limits; /* the raw maps (NULL when absent) */
} sl_pod_resources_t;

/* A container's probes (src/pod/probe.c), in this order. */
enum { SL_POD_PROBE_READINESS = 0, SL_POD_PROBE_LIVENESS, SL_POD_PROBE_STARTUP, SL_POD_NPROBES };
/* "readinessProbe", "livenessProbe", "startupProbe" */
extern const char *const sl_pod_probe_fields[SL_POD_NPROBES];

typedef struct sl_pod_container {
    const char *name;
    const char *image;       /* NULL when absent (only allowed with the host runtime) */
    const char *working_dir; /* NULL when absent */
    const char **command;
    size_t ncommand;
    const char **args;
    size_t nargs;
    sl_pod_env_t *env;
    size_t nenv;
    sl_pod_envfrom_t *env_from;
    size_t nenv_from;
    sl_pod_mount_t *mounts;
    size_t nmounts;
    sl_pod_resources_t res;
    int64_t run_as_user, run_as_group; /* container securityContext, else the pod's; or UNSET */
    const char *restart_policy;    /* init containers only: "Always" marks a sidecar; else NULL */
    const char *image_pull_policy; /* NULL when absent */
    int tty, stdin_open, stdin_once;
    int read_only_root;  /* securityContext.readOnlyRootFilesystem */
    int run_as_non_root; /* securityContext.runAsNonRoot, the container's else the pod's */
    int init;            /* 1 for spec.initContainers */
    int index;           /* position in its list */
    /* SL_POD_PROBE_*: the validated Probe objects, NULL when none */
    const json_t *probes[SL_POD_NPROBES];
} sl_pod_container_t;

typedef enum sl_vol_type {
    SL_VOL_EMPTYDIR,
    SL_VOL_CONFIGMAP,
    SL_VOL_SECRET,
    SL_VOL_HOSTPATH,
    SL_VOL_DOWNWARDAPI,
    SL_VOL_PROJECTED,
    SL_VOL_SATOKEN, /* only as a projected source: serviceAccountToken */
    SL_VOL_PVC,     /* persistentVolumeClaim: the bound volume's folder */
} sl_vol_type_t;

typedef struct sl_pod_keypath {
    const char *key;
    const char *path;
    int mode; /* SL_POD_UNSET: the volume's defaultMode */
} sl_pod_keypath_t;

typedef struct sl_pod_dapi_item {
    const char *path;
    const char *field_path; /* fieldRef.fieldPath, or NULL */
    const char *resource;   /* resourceFieldRef.resource, or NULL */
    const char *container;  /* resourceFieldRef.containerName */
    const char *divisor;
    int mode;
} sl_pod_dapi_item_t;

/* A configMap/secret/downwardAPI source: the volume itself or one projected source. */
typedef struct sl_pod_source {
    sl_vol_type_t type; /* CONFIGMAP, SECRET, DOWNWARDAPI or SATOKEN */
    const char *ref;    /* ConfigMap/Secret name */
    sl_pod_keypath_t *items;
    size_t nitems; /* empty: every key */
    int optional;
    sl_pod_dapi_item_t *dapi;
    size_t ndapi;
    const char *audience;
    int64_t expiration_seconds;
    const char *sa_path; /* SATOKEN */
} sl_pod_source_t;

typedef struct sl_pod_volume {
    const char *name;
    sl_vol_type_t type;
    /* EMPTYDIR */
    int memory;         /* medium: Memory */
    int64_t size_limit; /* bytes, or UNSET */
    /* HOSTPATH */
    const char *host_path;
    const char *host_type; /* "" when unset */
    /* PVC */
    const char *claim_name;
    int claim_read_only; /* persistentVolumeClaim.readOnly */
    /* CONFIGMAP, SECRET, DOWNWARDAPI: one source; PROJECTED: several */
    sl_pod_source_t *sources;
    size_t nsources;
    int default_mode; /* 0644 unless set (secret and configMap alike) */
} sl_pod_volume_t;

/* spec.hostAliases[i]: extra lines of the pod's hosts file */
typedef struct sl_pod_host_alias {
    const char *ip;
    const char **hostnames;
    size_t nhostnames;
} sl_pod_host_alias_t;

typedef struct sl_pod {
    const json_t *json;                                  /* the Pod (reference held) */
    const char *name, *generate_name, *namespace_, *uid; /* NULL when absent */
    sl_pod_kv_t *labels;
    size_t nlabels;
    sl_pod_kv_t *annotations;
    size_t nannotations;
    sl_pod_container_t *init_containers;
    size_t ninit;
    sl_pod_container_t *containers;
    size_t ncontainers;
    sl_pod_volume_t *volumes;
    size_t nvolumes;
    sl_pod_kv_t *node_selector;
    size_t nnode_selector;
    const char *restart_policy;                   /* "Always" when absent */
    int64_t active_deadline_seconds;              /* UNSET when absent */
    int64_t termination_grace_seconds;            /* 30 when absent */
    const char *service_account;                  /* "default" when absent */
    const char *node_name, *hostname, *subdomain; /* NULL when absent */
    int64_t run_as_user, run_as_group, fs_group;  /* pod securityContext or UNSET */
    sl_pod_host_alias_t *host_aliases;            /* spec.hostAliases */
    size_t nhost_aliases;
    void *priv_;
} sl_pod_t;

/* Validate pod and build the model. Returns NULL when the pod has field errors
 * (appended to errs, which may be NULL) with errno=EINVAL. */
sl_pod_t *sl_pod_parse(json_t *pod, sl_error_t *errs);
void sl_pod_destroy(sl_pod_t *pod); /* NULL is a no-op */

/* Annotation / label value, or NULL. */
const char *sl_pod_annotation(const sl_pod_t *pod, const char *key);
const char *sl_pod_label(const sl_pod_t *pod, const char *key);
/* Container by name among init and app containers, or NULL. */
const sl_pod_container_t *sl_pod_container(const sl_pod_t *pod, const char *name);
/* A volume by name, or NULL. */
const sl_pod_volume_t *sl_pod_volume(const sl_pod_t *pod, const char *name);

/* Kubernetes name rules (k8s.io/apimachinery/pkg/util/validation). Each returns
 * the number of messages appended to errs for field, with Kubernetes' texts. */
int sl_validate_dns1123_subdomain(sl_error_t *errs, const char *field, const char *value);
int sl_validate_dns1123_label(sl_error_t *errs, const char *field, const char *value);
int sl_validate_qualified_name(sl_error_t *errs, const char *field, const char *value);
int sl_validate_label_value(sl_error_t *errs, const char *field, const char *value);
int sl_validate_env_name(sl_error_t *errs, const char *field, const char *value);
/* The predicates alone: sl_kube_is_dns1123_label / _subdomain (kube/meta.h). */

/* ---- the names a pod answers to (hosts.c, docs/pods.md "Names") ---- */
#define SL_POD_CLUSTER_DOMAIN "cluster.local"
/* Is v an IPv4 or IPv6 address (spec.hostAliases[].ip)? 1 / 0. */
int sl_pod_is_ip(const char *v);
/* The pod's host name: spec.hostname, else its name cut to a label (the
 * kubelet's rule). */
void sl_pod_host_name(const char *hostname, const char *name, char out[64]);
/* The names kube's DNS gives a pod with hostname h and subdomain s in
 * namespace ns, the fully qualified one first: h.s.ns.svc.cluster.local,
 * h.s.ns.svc, h.s.ns, h.s (none without a subdomain); own: then h alone,
 * which resolves only in the pod itself (its hosts file). */
void sl_pod_dns_names(const char *hostname, const char *subdomain, const char *ns, int own,
                      sl_argv_t *out);

#endif
