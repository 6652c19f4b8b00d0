/* gpu.h — a charliecloud container's GPUs: the ones Slurm bound to the job,
 * and nothing of the node's other GPUs (slurmlink-shim, in the private root).
 *
 * ch-run binds the node's /dev into every container, so the shim first
 * gives the run's mount namespace a /dev of its own: a tmpfs holding the
 * node's /dev entries bound one by one, minus every NVIDIA device file
 * (/dev/nvidia*) when the container has no nvidia.com/gpu, and minus the
 * /dev/nvidiaN of GPUs the job was not given when it has. The bound GPUs are
 * SLURM_JOB_GPUS (else CUDA_VISIBLE_DEVICES), the indexes Slurm's gres/gpu
 * plugin set; the file of index N is the node's `devices` template, placed
 * at /dev/nvidiaN. The node driver's user-space libraries (libcuda.so*,
 * libnvidia-ml.so*, ... found in the driver folders) are bound read-only
 * into a private tmpfs at /usr/local/nvidia/lib64 (LD_LIBRARY_PATH), its
 * programs (nvidia-smi) at /usr/local/nvidia/bin (PATH): the image is never
 * written and needs no driver of its own, as with apptainer --nv, enroot's
 * hooks or charliecloud's ch-fromhost --nvidia.
 *
 * The node's settings: slurmlink-gpu.json beside the job's slurm.conf
 * (SLURM_CONF), else /etc/slurmlink/gpu.json, else the defaults (docs/pods.md):
 *   {"devices": "/dev/nvidia%d", "driverDirs": [...], "libraries": [...],
 *    "programs": ["nvidia-smi"], "programDirs": [...]}
 * "{node}" in devices is the node's name (SLURMD_NODENAME).
 */
#ifndef SL_SHIM_GPU_H
#define SL_SHIM_GPU_H

#include <jansson.h>
#include <stddef.h>

typedef struct shim_gpu shim_gpu_t;

/* The plan for one run: base is the run's tmpfs folder, merged its root.
 * NULL when there is nothing to do (no GPUs asked for and none on the node);
 * *failed with msg when the settings or the bound devices are wrong. */
shim_gpu_t *shim_gpu_prepare(long long gpus, char *const *envp, const char *base,
                             const char *merged, char *msg, size_t len, int *failed);
/* The environment the run gets (envp with NVIDIA_VISIBLE_DEVICES,
 * LD_LIBRARY_PATH and PATH), NULL: envp unchanged. */
char *const *shim_gpu_envp(const shim_gpu_t *g);
void shim_gpu_free(shim_gpu_t *g);

/* Every runtime: NVIDIA_VISIBLE_DEVICES=LIST for a container with GPUs (the
 * bound indexes; enroot's and nvidia-container-toolkit's hooks read it),
 * NULL when none are bound or there is nothing to add. Caller frees. */
char *shim_gpu_visible_env(long long gpus, char *const *envp);

/* The GPUs Slurm bound to the job, as the node knows them, for the
 * pod-started event: {"indexes": [1], "uuids": ["GPU-..."], "shards": 1}
 * (uuids from the NVIDIA driver's /proc/driver/nvidia/gpus/ where it is
 * loaded, by device minor = index; shards from SLURM_SHARDS_ON_NODE); NULL
 * when the job has no GPU. */
json_t *shim_gpu_identity(char *const *envp, const char *proc_gpus);
/* podman (runtime "podman"): argv with its word --device=nvidia.com/gpu=all replaced by
 * --device=nvidia.com/gpu=N for each bound GPU (CDI names); NULL when argv
 * stays as it is. Free with shim_gpu_argv_free. */
char **shim_gpu_argv(const char *runtime, long long gpus, char *const *argv, char *const *envp);
void shim_gpu_argv_free(char **argv);

/* In the child, after the overlay root is mounted: system calls only.
 * 0, or -1 with errno and *what: 0 the /dev view, 1 the driver's files;
 * *path the path concerned. mkpath makes a folder in the merged root. */
int shim_gpu_enter(const shim_gpu_t *g, int (*mkpath)(const char *root, const char *target),
                   int *what, const char **path);

#endif
