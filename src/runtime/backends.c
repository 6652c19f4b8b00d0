/* backends.c — the six runtime backends. Each builds argv only; none runs anything. */
#include "runtime/runtime.h"

#include "common/xalloc.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *key_plain(const char *name) { return sl_xstrdup(name); }

static char *key_apptainer(const char *name) { return sl_xasprintf("APPTAINERENV_%s", name); }

static char *key_singularity(const char *name) { return sl_xasprintf("SINGULARITYENV_%s", name); }

static void add_list(sl_argv_t *a, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sl_argv_add(a, v[i]);
}

static const char *bin(const sl_rt_container_t *c, const char *def)
{
    return c->binary && *c->binary ? c->binary : def;
}

/* Bind syntaxes split on ':' (and apptainer on ','): paths holding them cannot be expressed. */
static int check_paths(const sl_rt_container_t *c, const char *rt, const char *bad, sl_error_t *err)
{
    for (size_t i = 0; i < c->nmounts; i++) {
        const sl_rt_mount_t *m = &c->mounts[i];
        if (strpbrk(m->src, bad) || strpbrk(m->dst, bad)) {
            errno = EINVAL;
            return sl_errprintf(err,
                                "container %s: mount %s -> %s: the %s bind syntax cannot "
                                "express paths containing '%s'",
                                c->name, m->src, m->dst, rt, bad);
        }
    }
    return 0;
}

static int need_image(const sl_rt_container_t *c, const char *rt, sl_error_t *err)
{
    if (c->image && *c->image)
        return 0;
    errno = EINVAL;
    return sl_errprintf(err, "container %s: the %s runtime needs an image", c->name, rt);
}

/* The process argv by Kubernetes rules from command/args and image metadata
 * (without metadata, command+args is the argv);
 * 0 entries when neither the pod nor the image says what to run. */
static void k8s_argv(const sl_rt_container_t *c, sl_argv_t *a)
{
    if (c->ncommand) {
        add_list(a, c->command, c->ncommand);
        add_list(a, c->args, c->nargs);
        return;
    }
    add_list(a, c->entrypoint, c->nentrypoint);
    if (c->nargs)
        add_list(a, c->args, c->nargs);
    else
        add_list(a, c->cmd, c->ncmd);
}

/* apptainer and singularity share a command line. */
static int argv_sif(const sl_rt_container_t *c, sl_argv_t *a, const char *rt, sl_error_t *err)
{
    if (need_image(c, rt, err) < 0 || check_paths(c, rt, ":,", err) < 0)
        return -1;
    /* a pulled image's SIF (built from its tree) has no runscript: its
     * entrypoint and cmd are exec'd by Kubernetes' rules */
    sl_argv_t proc = SL_ARGV_INIT;
    if (sl_runtime_image_is_file(c->image)) {
        k8s_argv(c, &proc);
        if (proc.n == 0) {
            errno = EINVAL;
            return sl_errprintf(err, "container %s: image %s has no entrypoint or cmd: set command",
                                c->name, c->image);
        }
    }
    sl_argv_add(a, bin(c, rt));
    /* exec replaces the entrypoint (Kubernetes command); run keeps it and
     * passes args in place of the image cmd */
    sl_argv_add(a, c->ncommand || proc.n ? "exec" : "run");
    sl_argv_add(a, "--containall");
    sl_argv_add(a, "--no-eval");
    if (c->gpus > 0)
        sl_argv_add(a, c->amd_gpus ? "--rocm" : "--nv");
    if (!c->read_only_root)
        sl_argv_add(a, "--writable-tmpfs"); /* a writable root, gone when the run ends */
    if (c->working_dir)
        sl_argv_addf(a, "--pwd=%s", c->working_dir);
    for (size_t i = 0; i < c->nmounts; i++)
        sl_argv_addf(a, "--bind=%s:%s%s", c->mounts[i].src, c->mounts[i].dst,
                     c->mounts[i].read_only ? ":ro" : "");
    add_list(a, c->extra, c->nextra);
    sl_argv_add(a, c->image);
    if (proc.n) {
        add_list(a, (const char *const *)proc.v, proc.n);
        sl_argv_free(&proc);
        return 0;
    }
    if (c->ncommand)
        add_list(a, c->command, c->ncommand);
    add_list(a, c->args, c->nargs);
    return 0;
}

static int argv_apptainer(const sl_rt_container_t *c, sl_argv_t *a, sl_error_t *err)
{
    return argv_sif(c, a, "apptainer", err);
}

static int argv_singularity(const sl_rt_container_t *c, sl_argv_t *a, sl_error_t *err)
{
    return argv_sif(c, a, "singularity", err);
}

/* the image's USER inside ch-run's user namespace, mapped to the job user */
static void add_user_charliecloud(const sl_rt_container_t *c, sl_argv_t *a)
{
    if (!c->user)
        return;
    const char *colon = strchr(c->user, ':');
    sl_argv_addf(a, "--uid=%.*s", colon ? (int)(colon - c->user) : (int)strlen(c->user), c->user);
    if (colon)
        sl_argv_addf(a, "--gid=%s", colon + 1);
}

static int argv_charliecloud(const sl_rt_container_t *c, sl_argv_t *a, sl_error_t *err)
{
    if (need_image(c, "charliecloud", err) < 0 || check_paths(c, "charliecloud", ":", err) < 0)
        return -1;
    sl_argv_t proc = SL_ARGV_INIT;
    k8s_argv(c, &proc);
    if (proc.n == 0) {
        sl_argv_free(&proc);
        errno = EINVAL;
        return sl_errprintf(err,
                            "container %s: charliecloud does not run an image entrypoint and "
                            "image %s has none recorded: set command",
                            c->name, c->image);
    }
    sl_argv_add(a, bin(c, "ch-run"));
    if (!c->read_only_root)
        sl_argv_add(a, "--write"); /* the shim's private root (shim_root), never the image */
    for (size_t i = 0; i < c->nmounts; i++)
        sl_argv_addf(a, "--bind=%s:%s", c->mounts[i].src, c->mounts[i].dst);
    if (c->working_dir)
        sl_argv_addf(a, "--cd=%s", c->working_dir);
    add_user_charliecloud(c, a);
    add_list(a, c->extra, c->nextra);
    sl_argv_add(a, c->image);
    sl_argv_add(a, "--");
    add_list(a, (const char *const *)proc.v, proc.n);
    sl_argv_free(&proc);
    return 0;
}

static int argv_podman(const sl_rt_container_t *c, sl_argv_t *a, sl_error_t *err)
{
    if (need_image(c, "podman", err) < 0 || check_paths(c, "podman", ":", err) < 0)
        return -1;
    sl_argv_add(a, bin(c, "podman"));
    sl_argv_add(a, "run");
    sl_argv_add(a, "--rm");
    sl_argv_add(a, "--network=host");
    sl_argv_add(a, "--pull=missing");
    if (c->read_only_root)
        sl_argv_add(a, "--read-only"); /* else podman's own writable layer, removed by --rm */
    if (c->gpus > 0) {
        if (c->amd_gpus) {
            sl_argv_add(a, "--device=/dev/kfd");
            sl_argv_add(a, "--device=/dev/dri");
        } else {
            /* CDI: slurmlink-shim replaces it by the GRES-bound GPUs' names,
             * --device=nvidia.com/gpu=N each (src/shim/gpu.h) */
            sl_argv_add(a, "--device=nvidia.com/gpu=all");
        }
    }
    for (size_t i = 0; i < c->nenv; i++)
        sl_argv_addf(a, "--env=%s", c->env_names[i]); /* no value: copied from our env */
    if (c->working_dir)
        sl_argv_addf(a, "--workdir=%s", c->working_dir);
    for (size_t i = 0; i < c->nmounts; i++)
        sl_argv_addf(a, "--volume=%s:%s%s", c->mounts[i].src, c->mounts[i].dst,
                     c->mounts[i].read_only ? ":ro" : "");
    if (c->ncommand) {
        /* --entrypoint takes a JSON array: exact words, no shell */
        json_t *arr = json_array();
        for (size_t i = 0; i < c->ncommand; i++)
            json_array_append_new(arr, json_string(c->command[i]));
        char *s = json_dumps(arr, JSON_COMPACT);
        sl_argv_addf(a, "--entrypoint=%s", s);
        free(s);
        json_decref(arr);
    }
    add_list(a, c->extra, c->nextra);
    sl_argv_add(a, c->image);
    add_list(a, c->args, c->nargs);
    return 0;
}

static int argv_enroot(const sl_rt_container_t *c, sl_argv_t *a, sl_error_t *err)
{
    if (need_image(c, "enroot", err) < 0 || check_paths(c, "enroot", ":", err) < 0)
        return -1;
    sl_argv_add(a, bin(c, "enroot"));
    sl_argv_add(a, "start");
    if (!c->read_only_root)
        sl_argv_add(a, "--rw"); /* without it enroot mounts the root read-only */
    for (size_t i = 0; i < c->nenv; i++)
        sl_argv_addf(a, "--env=%s", c->env_names[i]);
    if (c->gpus > 0 && !c->amd_gpus) /* enroot's nvidia hook binds these; the shim sets it */
        sl_argv_add(a, "--env=NVIDIA_VISIBLE_DEVICES");
    for (size_t i = 0; i < c->nmounts; i++)
        sl_argv_addf(a, "--mount=%s:%s%s", c->mounts[i].src, c->mounts[i].dst,
                     c->mounts[i].read_only ? ":none:x-create=auto,rbind,ro" : "");
    add_list(a, c->extra, c->nextra);
    sl_argv_add(a, c->image);
    /* enroot's rc runs the given words, or the image entrypoint without them;
     * a pulled image's squashfs has no rc: its entrypoint and cmd are given */
    if (c->ncommand || c->nargs || sl_runtime_image_is_file(c->image)) {
        sl_argv_t proc = SL_ARGV_INIT;
        k8s_argv(c, &proc);
        if (proc.n == 0 || (!c->ncommand && !c->nentrypoint)) {
            /* args alone with an unknown entrypoint: enroot would run them as
             * the command, which is not what Kubernetes means */
            sl_argv_free(&proc);
            errno = EINVAL;
            return sl_errprintf(err,
                                "container %s: args without command need the image entrypoint, "
                                "which is not recorded for %s: set command",
                                c->name, c->image);
        }
        add_list(a, (const char *const *)proc.v, proc.n);
        sl_argv_free(&proc);
    }
    return 0;
}

static int argv_host(const sl_rt_container_t *c, sl_argv_t *a, sl_error_t *err)
{
    if (c->ncommand == 0) {
        errno = EINVAL;
        return sl_errprintf(err,
                            "container %s: the host runtime has no image entrypoint: "
                            "set command",
                            c->name);
    }
    if (c->working_dir) {
        /* env(1) changes directory and execs: no shell involved */
        sl_argv_add(a, "/usr/bin/env");
        sl_argv_addf(a, "--chdir=%s", c->working_dir);
        sl_argv_add(a, "--");
    }
    add_list(a, c->command, c->ncommand);
    add_list(a, c->args, c->nargs);
    return 0;
}

/* ---- images and mounts ---- */

/* apptainer, singularity: a store folder, a reference with a scheme, or the
 * name under the root prefix */
static int image_sif(const sl_rt_image_in_t *in, char **out, sl_error_t *err)
{
    *out = NULL;
    if (in->store_dir)
        *out = sl_xstrdup(in->store_dir);
    else if (in->image && sl_runtime_image_has_scheme(in->image))
        *out = sl_xstrdup(in->image);
    else if (in->image)
        *out = sl_xasprintf("%s%s", in->root ? in->root : "docker://", in->image);
    return 0;
}

/* charliecloud runs unpacked folders only: the store's or an absolute path */
static int image_folder(const sl_rt_image_in_t *in, char **out, sl_error_t *err)
{
    *out = NULL;
    if (in->store_dir)
        *out = sl_xstrdup(in->store_dir);
    else if (in->image && in->image[0] == '/')
        *out = sl_xstrdup(in->image);
    else {
        errno = ENOENT;
        return sl_errprintf(err, "not in the local image store (slurmlink image import NAME "
                                 "DIR|TAR)");
    }
    return 0;
}

/* enroot: a pulled image's squashfs (its store entry), else the reference as given */
static int image_enroot(const sl_rt_image_in_t *in, char **out, sl_error_t *err)
{
    *out = in->store_dir && sl_runtime_image_is_file(in->store_dir) ? sl_xstrdup(in->store_dir)
           : in->image                                              ? sl_xstrdup(in->image)
                                                                    : NULL;
    return 0;
}

/* podman: the reference as given */
static int image_as_is(const sl_rt_image_in_t *in, char **out, sl_error_t *err)
{
    *out = in->image ? sl_xstrdup(in->image) : NULL;
    return 0;
}

static int image_none(const sl_rt_image_in_t *in, char **out, sl_error_t *err)
{
    *out = NULL;
    return 0;
}

/* ch-run binds the node's /tmp at /tmp; mount points the image lacks are
 * made in the shim's private root */
static const char *mount_charliecloud(const char *mp, sl_rt_in_image_fn in_image, void *arg)
{
    if (!strncmp(mp, "/tmp/", 5) && mp[5])
        return "charliecloud binds the node's /tmp there, so nothing can be mounted below it; "
               "use another folder";
    return NULL;
}

/* ---- exec ---- */

/* ch-run OPTIONS IMAGE -- CMD: everything up to "--"; the image before it
 * (a container with the shim's private root is joined instead) */
static int exec_charliecloud(char *const *argv, size_t n, int *root)
{
    for (size_t i = 2; i < n; i++)
        if (!strcmp(argv[i], "--")) {
            *root = (int)i - 1;
            return (int)i + 1;
        }
    return -1;
}

/* [/usr/bin/env --chdir=DIR --] CMD: the working directory, if any */
static int exec_host(char *const *argv, size_t n, int *root)
{
    *root = -1;
    if (n >= 3 && !strcmp(argv[0], "/usr/bin/env") && !strncmp(argv[1], "--chdir=", 8) &&
        !strcmp(argv[2], "--"))
        return 3;
    return 0;
}

const sl_runtime_ops_t sl_rt_apptainer = {
    .name = "apptainer",
    .default_binary = "apptainer",
    .needs_image = 1,
    .can_mount = 1,
    .env_key = key_apptainer,
    .argv = argv_apptainer,
    .image_ref = image_sif,
    .runs_entrypoint = 1,
    .sif_annotations = 1,
    .pull = SL_RT_PULL_SIF,
    .tmp_bind = "--bind=%s:/tmp",
    .tmp_bind_at = 2,
};
const sl_runtime_ops_t sl_rt_singularity = {
    .name = "singularity",
    .default_binary = "singularity",
    .needs_image = 1,
    .can_mount = 1,
    .env_key = key_singularity,
    .argv = argv_singularity,
    .image_ref = image_sif,
    .runs_entrypoint = 1,
    .sif_annotations = 1,
    .pull = SL_RT_PULL_SIF,
    .tmp_bind = "--bind=%s:/tmp",
    .tmp_bind_at = 2,
};
const sl_runtime_ops_t sl_rt_charliecloud = {
    .name = "charliecloud",
    .default_binary = "ch-run",
    .needs_image = 1,
    .can_mount = 1,
    .env_key = key_plain,
    .argv = argv_charliecloud,
    .image_ref = image_folder,
    .mount_refusal = mount_charliecloud,
    .shim_root = 1,
    .exec_prefix = exec_charliecloud,
    .pull = SL_RT_PULL_TREE,
    .tmp_bind = "--bind=%s:/tmp",
    .tmp_bind_at = 1,
    .maps_user = 1,
};
const sl_runtime_ops_t sl_rt_podman = {
    .name = "podman",
    .default_binary = "podman",
    .needs_image = 1,
    .can_mount = 1,
    .env_key = key_plain,
    .argv = argv_podman,
    .image_ref = image_as_is,
    .runs_entrypoint = 1,
    .cdi_gpus = 1,
    .tmp_bind = "--volume=%s:/tmp",
    .tmp_bind_at = 2,
};
const sl_runtime_ops_t sl_rt_enroot = {
    .name = "enroot",
    .default_binary = "enroot",
    .needs_image = 1,
    .can_mount = 1,
    .env_key = key_plain,
    .argv = argv_enroot,
    .image_ref = image_enroot,
    .runs_entrypoint = 1,
    .pull = SL_RT_PULL_SQUASHFS,
    .tmp_bind = "--mount=%s:/tmp",
    .tmp_bind_at = 2,
};
const sl_runtime_ops_t sl_rt_host = {
    .name = "host",
    .env_key = key_plain,
    .argv = argv_host,
    .image_ref = image_none,
    .exec_prefix = exec_host,
};
