/* gpu.h — what Kubernetes calls a GPU and what Slurm's GRES calls it.
 *
 * The policy table maps the values of the node label nvidia.com/gpu.product
 * (NVIDIA's GPU feature discovery names, "NVIDIA-H100-80GB-HBM3") to Slurm
 * GRES types ("h100"): "PRODUCT=TYPE,PRODUCT=TYPE,...". A pod that selects
 * a product gets --gres=gpu:TYPE:N; a node whose GPUs are of type T is
 * labelled with the first product the table maps to T (T itself when none
 * does). A product the table does not name is taken as the type itself.
 * The site replaces the table with slurmlinkd.conf's gpus.types.
 *
 * Pure: no I/O. */
#ifndef SL_GPU_GPU_H
#define SL_GPU_GPU_H

#include <stddef.h>

#include "common/err.h"

#define SL_GPU_PRODUCT_LABEL "nvidia.com/gpu.product"
#define SL_GPU_COUNT_LABEL "nvidia.com/gpu.count"
#define SL_GPU_MIG_PREFIX "nvidia.com/mig-" /* nvidia.com/mig-1g.10gb → gpu:1g.10gb */
#define SL_GPU_DEFAULT_SHARED "nvidia.com/gpu.shared"
#define SL_GPU_DEFAULT_TYPES                                                                       \
    "NVIDIA-H100-80GB-HBM3=h100,NVIDIA-H100-NVL=h100,NVIDIA-H200=h200,"                            \
    "NVIDIA-A100-SXM4-80GB=a100,NVIDIA-A100-SXM4-40GB=a100,NVIDIA-A100-80GB-PCIe=a100,"            \
    "NVIDIA-L40S=l40s,Tesla-V100-SXM2-32GB=v100,Tesla-T4=t4"

/* table: NULL or "" means SL_GPU_DEFAULT_TYPES. 0, or -1 with err naming
 * the first bad row (each PRODUCT a label value, each TYPE a GRES type). */
int sl_gpu_types_check(const char *table, sl_error_t *err);

/* 1 when s is a GRES type name: 1..63 of letters, digits, '.', '_', '-' */
int sl_gpu_type_ok(const char *s);

/* the GRES type of a product label value (caller frees); NULL when the
 * table has no row and the value is no GRES type name */
char *sl_gpu_type_for_product(const char *table, const char *product);

/* the product label value of a GRES type (caller frees) */
char *sl_gpu_product_for_type(const char *table, const char *type);

/* DRA: the driver and device class of NVIDIA's GPUs (resource.k8s.io) */
#define SL_GPU_DRA_DRIVER "gpu.nvidia.com"

/* The CEL subset slurmlink reads in DeviceClass and ResourceClaim selectors:
 * clauses joined by &&, each
 *   device.driver == "gpu.nvidia.com"
 *   device.attributes["gpu.nvidia.com"].productName == "NAME"
 * 0 with *product the NAME (NULL when no clause names one; caller frees),
 * or -1 with *why a static text saying what is supported. */
#define SL_GPU_CEL_SUBSET                                                                          \
    "slurmlink reads only device.driver == \"gpu.nvidia.com\" and "                                \
    "device.attributes[\"gpu.nvidia.com\"].productName == \"NAME\", joined by &&"
int sl_gpu_cel(const char *expr, char **product, const char **why);

/* the GRES type of a DRA productName ("NVIDIA H100 80GB HBM3" or "H100"):
 * the table's row of it with '-' for ' ', else the name in lower case with
 * '-' for ' ' (caller frees; NULL when that is no GRES type name) */
char *sl_gpu_type_for_dra_product(const char *table, const char *product);

/* One entry of a Slurm GRES string such as "gpu:h100:2(S:0),shard:4" or a
 * job's "gpu:h100:1(IDX:0),shard:2(1/2,0/2)". */
typedef struct sl_gpu_gres {
    char name[16]; /* "gpu", "shard", ... */
    char type[64]; /* "" when untyped */
    long count;
    char index[64]; /* "0-1" from "(IDX:0-1)", "" when absent */
} sl_gpu_gres_t;

/* parse up to max entries into v; the number parsed */
size_t sl_gpu_gres_parse(const char *gres, sl_gpu_gres_t *v, size_t max);

/* A --gres value Slurm takes: counts of one (name, type) summed, and an
 * untyped count of a name that also has a typed entry given that (first)
 * type, since Slurm refuses a mix ("gpu:h100:1,gpu:1" → "gpu:h100:2").
 * Caller frees. */
char *sl_gpu_gres_merge(const char *gres);

#endif
