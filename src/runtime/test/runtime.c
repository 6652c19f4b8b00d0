/* runtime: argv of every backend, runtime choice, image store mapping. */
#include "runtime/runtime.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static char *argv_of(const char *rt, const sl_rt_container_t *c)
{
    sl_argv_t a = SL_ARGV_INIT;
    sl_error_t err = SL_ERROR_INIT;
    const sl_runtime_ops_t *ops = sl_runtime_get(rt);
    if (!ops)
        return strdup("<no such runtime>");
    if (ops->argv(c, &a, &err) < 0) {
        sl_argv_free(&a);
        char *s = malloc(strlen(err.text) + 8);
        sprintf(s, "ERROR: %s", err.text);
        return s;
    }
    char *s = sl_argv_join(&a);
    sl_argv_free(&a);
    return s;
}

#define CHECK(rt, c, want, label)                                                                  \
    do {                                                                                           \
        char *s_ = argv_of(rt, c);                                                                 \
        is_str(s_, want, label);                                                                   \
        free(s_);                                                                                  \
    } while (0)

static int no_path(void *arg, const char *path) { return 0; }

/* exec_prefix of the argv a backend builds for c: the prefix length, *root */
static int prefix_of(const char *rt, const sl_rt_container_t *c, int *root, sl_argv_t *a)
{
    sl_error_t err = SL_ERROR_INIT;
    const sl_runtime_ops_t *ops = sl_runtime_get(rt);
    if (ops->argv(c, a, &err) < 0 || !ops->exec_prefix)
        return -2;
    return ops->exec_prefix(a->v, a->n, root);
}

static void exec_prefixes(void)
{
    const char *cmd[] = {"sh", "--", "-c", "x"};
    sl_rt_mount_t m[] = {{"/data/a", "/mnt", 0}};
    sl_rt_container_t c = {.name = "main",
                           .image = "/s/busybox+latest",
                           .command = cmd,
                           .ncommand = 4,
                           .working_dir = "/etc",
                           .mounts = m,
                           .nmounts = 1};
    sl_argv_t a = SL_ARGV_INIT;
    int root = -9;
    int n = prefix_of("charliecloud", &c, &root, &a);
    ok(n == 6 && root == 4 && !strcmp(a.v[root], "/s/busybox+latest") && !strcmp(a.v[n], "sh"),
       "exec prefix, charliecloud: ch-run, --write, --bind, --cd, the image (root) and --; the "
       "command's "
       "own -- is its own");
    sl_argv_free(&a);
    sl_rt_container_t h = {.name = "main", .command = cmd, .ncommand = 4, .working_dir = "/etc"};
    n = prefix_of("host", &h, &root, &a);
    ok(n == 3 && root == -1 && !strcmp(a.v[n], "sh"),
       "exec prefix, host: env --chdir=DIR --, the node's /");
    sl_argv_free(&a);
    h.working_dir = NULL;
    n = prefix_of("host", &h, &root, &a);
    ok(n == 0 && root == -1, "exec prefix, host without workingDir: nothing");
    sl_argv_free(&a);
    char *bad[] = {"ch-run", "/img", NULL};
    ok(sl_runtime_get("charliecloud")->exec_prefix(bad, 2, &root) == -1,
       "exec prefix, charliecloud: an argv without -- is not one it built");
    ok(!sl_runtime_get("apptainer")->exec_prefix && !sl_runtime_get("podman")->exec_prefix,
       "exec is not served for apptainer and podman (no exec_prefix)");
    ok(!sl_runtime_get("enroot")->exec_prefix && !sl_runtime_get("singularity")->exec_prefix,
       "... nor for enroot and singularity");
}

/* a pulled image converted for its runtime: the file, entrypoint and cmd exec'd */
static void converted(void)
{
    const char *ep[] = {"/bin/sh", "-c"}, *cmd[] = {"echo hi"};
    sl_rt_container_t c = {.name = "main",
                           .image = "/s/sha256/ab/image.sif",
                           .entrypoint = ep,
                           .nentrypoint = 2,
                           .cmd = cmd,
                           .ncmd = 1,
                           .working_dir = "/w"};
    CHECK("apptainer", &c,
          "apptainer exec --containall --no-eval --writable-tmpfs --pwd=/w "
          "/s/sha256/ab/image.sif /bin/sh -c 'echo hi'",
          "a pulled image's SIF: apptainer exec of its entrypoint and cmd (no runscript)");
    sl_rt_image_in_t in = {"127.0.0.1:5000/team/app:v1", "/s/sha256/ab/image.sqsh", "docker://"};
    char *ref = NULL;
    sl_runtime_get("enroot")->image_ref(&in, &ref, NULL);
    is_str(ref, "/s/sha256/ab/image.sqsh", "enroot runs a pulled image's squashfs");
    free(ref);
    in.store_dir = "/s/busybox+latest";
    sl_runtime_get("enroot")->image_ref(&in, &ref, NULL);
    is_str(ref, "127.0.0.1:5000/team/app:v1", "  a folder of the store: the reference as given");
    free(ref);
    c.image = "/s/sha256/ab/image.sqsh";
    CHECK("enroot", &c, "enroot start --rw /s/sha256/ab/image.sqsh /bin/sh -c 'echo hi'",
          "enroot start of the squashfs with the entrypoint and cmd (no rc in it)");
    c.nentrypoint = c.ncmd = 0;
    sl_argv_t a = SL_ARGV_INIT;
    sl_error_t err = SL_ERROR_INIT;
    c.image = "/s/sha256/ab/image.sif";
    ok(sl_runtime_get("apptainer")->argv(&c, &a, &err) < 0, "a SIF with nothing to run: refused");
    has_str(err.text, "no entrypoint or cmd: set command", "  %s", err.text);
    sl_argv_free(&a);
    ok(sl_runtime_image_is_file("/s/sha256/ab/image.sqsh") &&
           !sl_runtime_image_is_file("/s/sha256/ab/rootfs") &&
           !sl_runtime_image_is_file("/x/my.sif"),
       "converted files are image.sif and image.sqsh of the store");
}

/* every runtime with a mount namespace binds the pod's private /tmp by one
 * argv word, before its own options (after the program and its
 * subcommand); the host runtime binds it in the shim */
static void tmp_binds(void)
{
    for (const char *const *n = sl_runtime_names(); *n; n++) {
        const sl_runtime_ops_t *o = sl_runtime_get(*n);
        ok(!o->tmp_bind == !o->can_mount, "%s: a /tmp bind word exactly when it can mount", *n);
        if (o->tmp_bind)
            ok(strstr(o->tmp_bind, "%s:/tmp") && o->tmp_bind_at >= 1 && o->tmp_bind_at <= 2,
               "%s: binds the folder at /tmp as word %zu", *n, o->tmp_bind_at);
    }
}

int main(void)
{
    tap_plan(89);
    tmp_binds();
    converted();
    char *d = sl_runtime_image_dir("/s", "busybox");
    is_str(d, "/s/busybox+latest", "image dir: default tag");
    free(d);
    d = sl_runtime_image_dir("/s/", "library/busybox:1.36");
    is_str(d, "/s/library%busybox+1.36", "image dir: slashes and tag");
    free(d);
    d = sl_runtime_image_dir("/s", "docker://localhost:5000/a/b");
    is_str(d, "/s/localhost:5000%a%b+latest", "image dir: registry port is not a tag");
    free(d);
    ok(sl_runtime_image_dir("/s", "") == NULL, "image dir: empty image");

    is_str(sl_runtime_choose("podman", "/x.sif", 1, "apptainer"), "podman", "annotation wins");
    is_str(sl_runtime_choose(NULL, NULL, 0, "apptainer"), "host", "no image: host");
    is_str(sl_runtime_choose(NULL, "/img/x.sif", 0, "podman"), "apptainer", ".sif: apptainer");
    is_str(sl_runtime_choose(NULL, "busybox", 1, "apptainer"), "charliecloud",
           "in store: charliecloud");
    is_str(sl_runtime_choose(NULL, "docker://busybox", 0, "singularity"), "singularity",
           "else the default");
    ok(sl_runtime_get("nope") == NULL, "unknown runtime");
    ok(sl_runtime_image_has_scheme("docker://x") && sl_runtime_image_has_scheme("/a") &&
           !sl_runtime_image_has_scheme("busybox:1") && !sl_runtime_image_has_scheme("a/b://c"),
       "scheme detection");

    const char *cmd[] = {"sh", "-c"}, *args[] = {"echo 'hi' $X"}, *env[] = {"A", "B"};
    const char *ep[] = {"/entry"}, *icmd[] = {"--serve"};
    sl_rt_mount_t m[] = {{"/pods/ns/p-u/volumes/cfg", "/etc/cfg", 1},
                         {"/pods/ns/p-u/volumes/scratch", "/scratch", 0}};
    sl_rt_container_t c = {.name = "main",
                           .image = "docker://busybox:1.36",
                           .command = cmd,
                           .ncommand = 2,
                           .args = args,
                           .nargs = 1,
                           .working_dir = "/w",
                           .mounts = m,
                           .nmounts = 2,
                           .env_names = env,
                           .nenv = 2,
                           .gpus = 2};
    CHECK(
        "apptainer", &c,
        "apptainer exec --containall --no-eval --nv --writable-tmpfs --pwd=/w "
        "--bind=/pods/ns/p-u/volumes/cfg:/etc/cfg:ro --bind=/pods/ns/p-u/volumes/scratch:/scratch "
        "docker://busybox:1.36 sh -c 'echo '\\''hi'\\'' $X'",
        "apptainer exec with GPUs, binds, pwd");
    CHECK(
        "singularity", &c,
        "singularity exec --containall --no-eval --nv --writable-tmpfs --pwd=/w "
        "--bind=/pods/ns/p-u/volumes/cfg:/etc/cfg:ro --bind=/pods/ns/p-u/volumes/scratch:/scratch "
        "docker://busybox:1.36 sh -c 'echo '\\''hi'\\'' $X'",
        "singularity likewise");
    CHECK("podman", &c,
          "podman run --rm --network=host --pull=missing --device=nvidia.com/gpu=all --env=A "
          "--env=B --workdir=/w --volume=/pods/ns/p-u/volumes/cfg:/etc/cfg:ro "
          "--volume=/pods/ns/p-u/volumes/scratch:/scratch '--entrypoint=[\"sh\",\"-c\"]' "
          "docker://busybox:1.36 'echo '\\''hi'\\'' $X'",
          "podman run: entrypoint as JSON, env by name only");
    CHECK("enroot", &c,
          "enroot start --rw --env=A --env=B --env=NVIDIA_VISIBLE_DEVICES "
          "--mount=/pods/ns/p-u/volumes/cfg:/etc/cfg:none:x-create=auto,rbind,ro "
          "--mount=/pods/ns/p-u/volumes/scratch:/scratch docker://busybox:1.36 sh -c "
          "'echo '\\''hi'\\'' $X'",
          "enroot start, GPUs named by NVIDIA_VISIBLE_DEVICES (its nvidia hook)");
    c.image = "/store/busybox+1.36";
    CHECK("charliecloud", &c,
          "ch-run --write --bind=/pods/ns/p-u/volumes/cfg:/etc/cfg "
          "--bind=/pods/ns/p-u/volumes/scratch:/scratch --cd=/w /store/busybox+1.36 -- sh -c "
          "'echo '\\''hi'\\'' $X'",
          "charliecloud: ch-run IMAGE -- argv");
    CHECK("host", &c, "/usr/bin/env --chdir=/w -- sh -c 'echo '\\''hi'\\'' $X'",
          "host: env --chdir then the command");

    /* the image's USER: ch-run's ids inside its user namespace (the job user outside) */
    c.user = "1000:0";
    CHECK("charliecloud", &c,
          "ch-run --write --bind=/pods/ns/p-u/volumes/cfg:/etc/cfg "
          "--bind=/pods/ns/p-u/volumes/scratch:/scratch --cd=/w --uid=1000 --gid=0 "
          "/store/busybox+1.36 -- sh -c 'echo '\\''hi'\\'' $X'",
          "image USER 1000:0: ch-run --uid=1000 --gid=0");
    c.user = "1234";
    CHECK("charliecloud", &c,
          "ch-run --write --bind=/pods/ns/p-u/volumes/cfg:/etc/cfg "
          "--bind=/pods/ns/p-u/volumes/scratch:/scratch --cd=/w --uid=1234 "
          "/store/busybox+1.36 -- sh -c 'echo '\\''hi'\\'' $X'",
          "image USER with runAsGroup: --uid only (the job's group stays)");
    c.user = NULL;
    /* readOnlyRootFilesystem: each runtime's own way (golden argv) */
    c.read_only_root = 1;
    CHECK("charliecloud", &c,
          "ch-run --bind=/pods/ns/p-u/volumes/cfg:/etc/cfg "
          "--bind=/pods/ns/p-u/volumes/scratch:/scratch --cd=/w /store/busybox+1.36 -- sh -c "
          "'echo '\\''hi'\\'' $X'",
          "read-only root: charliecloud without --write (the shim's root mounted read-only)");
    c.image = "docker://busybox:1.36";
    CHECK(
        "apptainer", &c,
        "apptainer exec --containall --no-eval --nv --pwd=/w "
        "--bind=/pods/ns/p-u/volumes/cfg:/etc/cfg:ro --bind=/pods/ns/p-u/volumes/scratch:/scratch "
        "docker://busybox:1.36 sh -c 'echo '\\''hi'\\'' $X'",
        "read-only root: apptainer without --writable-tmpfs");
    CHECK(
        "singularity", &c,
        "singularity exec --containall --no-eval --nv --pwd=/w "
        "--bind=/pods/ns/p-u/volumes/cfg:/etc/cfg:ro --bind=/pods/ns/p-u/volumes/scratch:/scratch "
        "docker://busybox:1.36 sh -c 'echo '\\''hi'\\'' $X'",
        "read-only root: singularity likewise");
    CHECK("podman", &c,
          "podman run --rm --network=host --pull=missing --read-only "
          "--device=nvidia.com/gpu=all --env=A "
          "--env=B --workdir=/w --volume=/pods/ns/p-u/volumes/cfg:/etc/cfg:ro "
          "--volume=/pods/ns/p-u/volumes/scratch:/scratch '--entrypoint=[\"sh\",\"-c\"]' "
          "docker://busybox:1.36 'echo '\\''hi'\\'' $X'",
          "read-only root: podman --read-only");
    CHECK("enroot", &c,
          "enroot start --env=A --env=B --env=NVIDIA_VISIBLE_DEVICES "
          "--mount=/pods/ns/p-u/volumes/cfg:/etc/cfg:none:x-create=auto,rbind,ro "
          "--mount=/pods/ns/p-u/volumes/scratch:/scratch docker://busybox:1.36 sh -c "
          "'echo '\\''hi'\\'' $X'",
          "read-only root: enroot without --rw");
    c.read_only_root = 0;

    /* Kubernetes command/args semantics */
    sl_rt_container_t k = {.name = "k", .image = "/img", .args = args, .nargs = 1};
    CHECK("charliecloud", &k, "ch-run --write /img -- 'echo '\\''hi'\\'' $X'",
          "charliecloud: without image metadata, command+args is the argv");
    k.nargs = 0;
    CHECK("charliecloud", &k,
          "ERROR: container k: charliecloud does not run an image entrypoint and image /img has "
          "none recorded: set command",
          "charliecloud with nothing to run is an error");
    k.nargs = 1;
    k.entrypoint = ep;
    k.nentrypoint = 1;
    k.cmd = icmd;
    k.ncmd = 1;
    CHECK("charliecloud", &k, "ch-run --write /img -- /entry 'echo '\\''hi'\\'' $X'",
          "args replace the image cmd");
    k.nargs = 0;
    CHECK("charliecloud", &k, "ch-run --write /img -- /entry --serve", "image entrypoint + cmd");
    CHECK("apptainer", &k, "apptainer run --containall --no-eval --writable-tmpfs /img",
          "apptainer run without command");
    k.args = args;
    k.nargs = 1;
    CHECK("apptainer", &k,
          "apptainer run --containall --no-eval --writable-tmpfs /img 'echo '\\''hi'\\'' $X'",
          "apptainer run passes args to the runscript");
    k.ncommand = 1;
    k.command = cmd;
    CHECK("charliecloud", &k, "ch-run --write /img -- sh 'echo '\\''hi'\\'' $X'",
          "command replaces the entrypoint");
    sl_rt_container_t h = {.name = "h", .command = cmd, .ncommand = 1};
    CHECK("host", &h, "sh", "host without workingDir");
    h.ncommand = 0;
    CHECK("host", &h, "ERROR: container h: the host runtime has no image entrypoint: set command",
          "host needs a command");
    sl_rt_mount_t bad[] = {{"/a:b", "/x", 0}};
    sl_rt_container_t b = {
        .name = "b", .image = "/img", .command = cmd, .ncommand = 1, .mounts = bad, .nmounts = 1};
    CHECK("apptainer", &b,
          "ERROR: container b: mount /a:b -> /x: the apptainer bind syntax cannot express paths "
          "containing ':,'",
          "colon in a bind path is refused");
    sl_rt_container_t noimg = {.name = "n", .command = cmd, .ncommand = 1};
    CHECK("podman", &noimg, "ERROR: container n: the podman runtime needs an image",
          "podman needs an image");
    char *key = sl_runtime_get("apptainer")->env_key("X");
    is_str(key, "APPTAINERENV_X", "apptainer env key");
    free(key);
    key = sl_runtime_get("charliecloud")->env_key("X");
    is_str(key, "X", "charliecloud env key");
    free(key);

    /* the image and mount hooks translate calls instead of naming runtimes */
    char *ref = NULL;
    sl_error_t ierr = SL_ERROR_INIT;
    sl_rt_image_in_t in1 = {"busybox", NULL, "docker://"};
    ok(sl_runtime_get("apptainer")->image_ref(&in1, &ref, &ierr) == 0 && ref &&
           !strcmp(ref, "docker://busybox"),
       "apptainer: a scheme-less reference goes under the root prefix (%s)", ref ? ref : "");
    free(ref);
    sl_rt_image_in_t in2 = {"oras://r/x", NULL, "docker://"};
    ok(sl_runtime_get("singularity")->image_ref(&in2, &ref, &ierr) == 0 && ref &&
           !strcmp(ref, "oras://r/x"),
       "singularity: a reference with a scheme is kept");
    free(ref);
    sl_rt_image_in_t in3 = {"busybox", "/store/busybox+latest", "docker://"};
    ok(sl_runtime_get("apptainer")->image_ref(&in3, &ref, &ierr) == 0 && ref &&
           !strcmp(ref, "/store/busybox+latest"),
       "apptainer: a stored image runs from the store");
    free(ref);
    ok(sl_runtime_get("charliecloud")->image_ref(&in1, &ref, &ierr) < 0 && !ref,
       "charliecloud: an image not in the store is refused");
    has_str(ierr.text, "not in the local image store", "... saying so");
    ok(sl_runtime_get("charliecloud")->image_ref(&in3, &ref, &ierr) == 0 && ref &&
           !strcmp(ref, "/store/busybox+latest"),
       "charliecloud: the store folder");
    free(ref);
    ok(sl_runtime_get("podman")->image_ref(&in1, &ref, &ierr) == 0 && ref &&
           !strcmp(ref, "busybox"),
       "podman: the reference as given");
    free(ref);
    ok(sl_runtime_get("host")->image_ref(&in1, &ref, &ierr) == 0 && !ref, "host: no image");
    const sl_runtime_ops_t *ch = sl_runtime_get("charliecloud");
    ok(ch->mount_refusal && ch->mount_refusal("/tmp/x", NULL, NULL),
       "charliecloud refuses a mount below /tmp");
    ok(!ch->mount_refusal("/tmp", NULL, NULL), "... not /tmp itself");
    ok(!ch->mount_refusal("/data", no_path, NULL),
       "... but a path the image lacks: the shim makes the mount point");
    ok(!sl_runtime_get("apptainer")->mount_refusal, "apptainer mounts anywhere");
    size_t entry = 0, sif = 0;
    for (const char *const *n = sl_runtime_names(); *n; n++) {
        entry += (size_t)sl_runtime_get(*n)->runs_entrypoint;
        sif += (size_t)sl_runtime_get(*n)->sif_annotations;
    }
    is_int((int)entry, 4, "apptainer, singularity, podman, enroot run the image's entrypoint");
    is_int((int)sif, 2, "apptainer and singularity take the singularity annotations");
    ok(sl_runtime_get("charliecloud")->shim_root && !sl_runtime_get("apptainer")->shim_root &&
           !sl_runtime_get("podman")->shim_root && !sl_runtime_get("enroot")->shim_root &&
           !sl_runtime_get("host")->shim_root,
       "only charliecloud gets the shim's private root");
    is_int(sl_runtime_get("charliecloud")->pull, SL_RT_PULL_TREE,
           "the puller unpacks a tree for charliecloud");
    ok(sl_runtime_get("apptainer")->pull == SL_RT_PULL_SIF &&
           sl_runtime_get("singularity")->pull == SL_RT_PULL_SIF,
       "... a SIF file for apptainer and singularity");
    is_int(sl_runtime_get("enroot")->pull, SL_RT_PULL_SQUASHFS, "... a squashfs file for enroot");
    ok(sl_runtime_get("podman")->pull == SL_RT_PULL_NONE &&
           sl_runtime_get("host")->pull == SL_RT_PULL_NONE,
       "... nothing for podman (it pulls itself) and host");
    size_t cdi = 0;
    for (const char *const *n = sl_runtime_names(); *n; n++)
        cdi += (size_t)sl_runtime_get(*n)->cdi_gpus;
    ok(cdi == 1 && sl_runtime_get("podman")->cdi_gpus,
       "only podman binds GPUs as CDI devices the shim narrows");

    /* installed runtimes: before a probe every one counts as installed */
    ok(sl_runtime_installed("podman") && !sl_runtime_unavailable("podman"),
       "not probed: every runtime is taken as installed");
    char *sh = sl_runtime_find_program("sh", "/nonexistent:/bin:/usr/bin");
    ok(sh && sh[0] == '/', "sh found along a path (%s)", sh ? sh : "");
    free(sh);
    ok(!sl_runtime_find_program("slurmlink-no-such-program", "/bin:/usr/bin"),
       "a missing program is not found");
    ok(!sl_runtime_find_program("/etc/passwd", NULL), "a file that is not executable is not");
    setenv("PATH", "/nonexistent", 1);
    sl_error_t perr = SL_ERROR_INIT;
    ok(sl_runtime_probe("podman", &perr) < 0, "probe: a configured default not installed fails");
    is_str(perr.text, "runtimes.default: podman is not installed: podman not found in PATH",
           "... naming the setting, the runtime and its program");
    ok(sl_runtime_probe(NULL, &perr) == 0 && !strcmp(sl_runtime_default(), "apptainer") &&
           !sl_runtime_installed("apptainer") && sl_runtime_installed("host"),
       "probe: nothing installed: apptainer stays the default (pods fail with the reason)");
    char *why = sl_runtime_unavailable("enroot");
    is_str(why, "enroot is not installed (enroot not found in PATH); installed: host",
           "why a runtime is unavailable, and what is");
    free(why);
    exec_prefixes();
    return tap_done();
}
