/* gpu.c — a charliecloud container's GPUs, device files and driver libraries (see gpu.h). */
#include "shim/gpu.h"

#include "common/argv.h"
#include "runtime/runtime.h"
#include "common/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define GPU_LIB_DIR "/usr/local/nvidia/lib64"
#define GPU_BIN_DIR "/usr/local/nvidia/bin"
#define GPU_MAX 256

/* the node's settings (slurmlink-gpu.json), defaults as nvidia-container-cli
 * and apptainer's nvliblist.conf list the compute libraries */
static const char *const def_dirs[] = {"/usr/local/nvidia/lib64",
                                       "/usr/local/nvidia/lib",
                                       "/usr/lib/x86_64-linux-gnu",
                                       "/usr/lib/aarch64-linux-gnu",
                                       "/usr/lib64",
                                       "/usr/lib",
                                       NULL};
static const char *const def_libs[] = {"libcuda.so",
                                       "libcudadebugger.so",
                                       "libnvidia-ml.so",
                                       "libnvidia-ptxjitcompiler.so",
                                       "libnvidia-nvvm.so",
                                       "libnvidia-gpucomp.so",
                                       "libnvidia-allocator.so",
                                       "libnvidia-cfg.so",
                                       "libnvidia-opencl.so",
                                       "libnvidia-compiler.so",
                                       "libnvidia-fatbinaryloader.so",
                                       "libnvidia-pkcs11.so",
                                       "libnvidia-pkcs11-openssl3.so",
                                       "libnvidia-nscq.so",
                                       NULL};
static const char *const def_progs[] = {"nvidia-smi", "nvidia-debugdump", NULL};
static const char *const prog_dirs[] = {"/usr/local/nvidia/bin", "/usr/bin", "/bin", NULL};

typedef struct gset {
    char *devices;
    char **dirs, **libs, **progs, **prog_dirs;
} gset_t;

enum { K_FILE, K_DIR, K_LINK };

typedef struct gent {
    char *src, *dst, *link; /* link: a symbolic link's target (K_LINK) */
    int kind;
    unsigned long ro_flags; /* remount read-only with the source's locked flags; 0: not */
} gent_t;

typedef struct glist {
    gent_t *v;
    size_t n, cap;
    char *mp; /* the tmpfs they are placed in (merged root + folder), NULL for /dev */
} glist_t;

struct shim_gpu {
    char *hostdev; /* the node's /dev, bound in the run's tmpfs */
    int dev_view;
    glist_t dev, lib, bin;
    char **envp;
};

static char **strv_json(json_t *a, const char *const *def)
{
    size_t n = json_is_array(a) ? json_array_size(a) : 0;
    const char *const *d = def;
    size_t nd = 0;
    while (!json_is_array(a) && d[nd])
        nd++;
    char **v = sl_xcalloc((n ? n : nd) + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        v[i] = sl_xstrdup(
            json_is_string(json_array_get(a, i)) ? json_string_value(json_array_get(a, i)) : "");
    for (size_t i = 0; !n && i < nd; i++)
        v[i] = sl_xstrdup(def[i]);
    return v;
}

static const char *env_get(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp && envp[i]; i++)
        if (!strncmp(envp[i], name, n) && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

/* the settings file: beside slurm.conf, else /etc/slurmlink; 0, or -1 with msg */
static int settings_load(char *const *envp, gset_t *s, char *msg, size_t len)
{
    const char *sc = env_get(envp, "SLURM_CONF");
    char *path = NULL;
    if (sc && strrchr(sc, '/')) {
        path = sl_xasprintf("%.*s/slurmlink-gpu.json", (int)(strrchr(sc, '/') - sc), sc);
        if (access(path, F_OK) != 0) {
            free(path);
            path = NULL;
        }
    }
    if (!path)
        path = sl_xstrdup("/etc/slurmlink/gpu.json");
    json_t *j = NULL;
    if (access(path, F_OK) == 0) {
        json_error_t je;
        if (!(j = json_load_file(path, 0, &je)) || !json_is_object(j)) {
            snprintf(msg, len, "GPUs: %s: %s", path, j ? "must be a JSON object" : je.text);
            json_decref(j);
            free(path);
            return -1;
        }
    }
    free(path);
    json_t *d = json_object_get(j, "devices");
    s->devices = sl_xstrdup(json_is_string(d) ? json_string_value(d) : "/dev/nvidia%d");
    s->dirs = strv_json(json_object_get(j, "driverDirs"), def_dirs);
    s->libs = strv_json(json_object_get(j, "libraries"), def_libs);
    s->progs = strv_json(json_object_get(j, "programs"), def_progs);
    s->prog_dirs = strv_json(json_object_get(j, "programDirs"), prog_dirs);
    json_decref(j);
    return 0;
}

static void settings_free(gset_t *s)
{
    free(s->devices);
    sl_strv_free(s->dirs);
    sl_strv_free(s->libs);
    sl_strv_free(s->progs);
    sl_strv_free(s->prog_dirs);
}

static gent_t *add(glist_t *l, char *src, char *dst, int kind)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = sl_xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    gent_t *e = &l->v[l->n++];
    memset(e, 0, sizeof(*e));
    e->src = src;
    e->dst = dst;
    e->kind = kind;
    return e;
}

static int has_dst_name(const glist_t *l, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < l->n; i++) {
        size_t m = strlen(l->v[i].dst);
        if (m > n && l->v[i].dst[m - n - 1] == '/' && !strcmp(l->v[i].dst + m - n, name))
            return 1;
    }
    return 0;
}

/* the bound indexes: SLURM_JOB_GPUS, else CUDA_VISIBLE_DEVICES; -1 when
 * neither is a list of indexes */
static int bound_gpus(char *const *envp, int *idx, char **list)
{
    const char *v = env_get(envp, "SLURM_JOB_GPUS");
    if (!v || !*v)
        v = env_get(envp, "CUDA_VISIBLE_DEVICES");
    if (!v || !*v)
        return -1;
    int n = 0;
    for (const char *p = v; *p && n < GPU_MAX;) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 0 || x > INT_MAX || (*end && *end != ','))
            return -1;
        idx[n++] = (int)x;
        p = *end ? end + 1 : end;
    }
    *list = sl_xstrdup(v);
    return n;
}

/* a device template's path for index i ("%d" the index, "{node}" the node) */
static char *device_path(const char *tmpl, int i, const char *node)
{
    char num[16];
    snprintf(num, sizeof(num), "%d", i);
    char *out = sl_xstrdup("");
    for (const char *p = tmpl; *p;) {
        const char *add_s = NULL;
        size_t step = 1;
        if (!strncmp(p, "%d", 2))
            add_s = num, step = 2;
        else if (!strncmp(p, "{node}", 6))
            add_s = node ? node : "", step = 6;
        char *n = add_s ? sl_xasprintf("%s%s", out, add_s) : sl_xasprintf("%s%c", out, *p);
        free(out);
        out = n;
        p += step;
    }
    return out;
}

static int is_gpu_node_name(const char *n)
{
    if (strncmp(n, "nvidia", 6) || !n[6])
        return 0;
    for (const char *p = n + 6; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* the node's /dev, entry by entry, minus NVIDIA's files the container may not see */
static int plan_dev(shim_gpu_t *g, long long gpus, char *msg, size_t len)
{
    DIR *d = opendir("/dev");
    if (!d) {
        snprintf(msg, len, "GPUs: /dev: %s", strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || is_gpu_node_name(n) ||
            (!strncmp(n, "nvidia", 6) && gpus <= 0))
            continue;
        char *src = sl_xasprintf("%s/%s", g->hostdev, n), *host = sl_xasprintf("/dev/%s", n);
        struct stat st;
        if (lstat(host, &st) == 0) {
            gent_t *x = add(&g->dev, src, sl_xasprintf("/dev/%s", n),
                            S_ISLNK(st.st_mode)   ? K_LINK
                            : S_ISDIR(st.st_mode) ? K_DIR
                                                  : K_FILE);
            char buf[PATH_MAX];
            ssize_t k = x->kind == K_LINK ? readlink(host, buf, sizeof(buf) - 1) : -1;
            if (k >= 0)
                x->link = sl_xstrndup(buf, (size_t)k);
            else if (x->kind == K_LINK)
                x->kind = K_FILE;
        } else {
            free(src);
        }
        free(host);
    }
    closedir(d);
    return 0;
}

/* the bound GPUs' device files, at /dev/nvidiaN */
static int plan_bound(shim_gpu_t *g, const gset_t *s, char *const *envp, char *msg, size_t len)
{
    int idx[GPU_MAX];
    char *list = NULL;
    int n = bound_gpus(envp, idx, &list);
    if (n <= 0) {
        snprintf(msg, len,
                 "GPUs: the container asks for nvidia.com/gpu but the job has no GPU indexes "
                 "(SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES unset or not indexes)");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char *src = device_path(s->devices, idx[i], env_get(envp, "SLURMD_NODENAME"));
        struct stat st;
        if (stat(src, &st) != 0 || !S_ISCHR(st.st_mode)) {
            snprintf(msg, len, "GPUs: GPU %d: %s: %s", idx[i], src,
                     errno && stat(src, &st) != 0 ? strerror(errno) : "not a character device");
            free(src);
            free(list);
            return -1;
        }
        if (!strncmp(src, "/dev/", 5)) { /* /dev is covered by then: the node's, bound aside */
            char *h = sl_xasprintf("%s%s", g->hostdev, src + 4);
            free(src);
            src = h;
        }
        add(&g->dev, src, sl_xasprintf("/dev/nvidia%d", idx[i]), K_FILE);
    }
    g->envp = (char **)list; /* held here until the environment is made */
    return 0;
}

static unsigned long locked_flags(const char *path)
{
    struct statvfs v;
    unsigned long f = MS_REMOUNT | MS_BIND | MS_RDONLY;
    if (statvfs(path, &v) == 0) {
        f |= v.f_flag & ST_NOSUID ? MS_NOSUID : 0;
        f |= v.f_flag & ST_NODEV ? MS_NODEV : 0;
        f |= v.f_flag & ST_NOEXEC ? MS_NOEXEC : 0;
    }
    return f;
}

/* one file of the driver's into l: a link stays a link to a name beside
 * it, anything else is bound read-only */
static void take(glist_t *l, const char *dir, const char *name)
{
    char *src = sl_xasprintf("%s/%s", dir, name);
    struct stat st;
    char buf[PATH_MAX];
    ssize_t k;
    if (lstat(src, &st) == 0 && S_ISLNK(st.st_mode) &&
        (k = readlink(src, buf, sizeof(buf) - 1)) > 0 && !memchr(buf, '/', (size_t)k)) {
        gent_t *e = add(l, src, sl_xasprintf("%s/%s", l->mp, name), K_LINK);
        e->link = sl_xstrndup(buf, (size_t)k);
    } else if (stat(src, &st) == 0 && S_ISREG(st.st_mode)) {
        gent_t *e = add(l, src, sl_xasprintf("%s/%s", l->mp, name), K_FILE);
        e->ro_flags = locked_flags(src);
    } else {
        free(src);
    }
}

static int lib_match(const char *name, char *const *libs)
{
    for (size_t i = 0; libs[i]; i++) {
        size_t n = strlen(libs[i]);
        if (n && !strncmp(name, libs[i], n) && (!name[n] || name[n] == '.'))
            return 1;
    }
    return 0;
}

/* the driver's libraries (first folder wins per name) and programs */
static void plan_driver(shim_gpu_t *g, const gset_t *s)
{
    for (size_t i = 0; s->dirs[i]; i++) {
        DIR *d = opendir(s->dirs[i]);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (lib_match(e->d_name, s->libs) && !has_dst_name(&g->lib, e->d_name))
                take(&g->lib, s->dirs[i], e->d_name);
        if (d)
            closedir(d);
    }
    for (size_t i = 0; s->progs[i]; i++)
        for (size_t k = 0; s->prog_dirs[k] && !has_dst_name(&g->bin, s->progs[i]); k++) {
            char *p = sl_xasprintf("%s/%s", s->prog_dirs[k], s->progs[i]);
            if (access(p, X_OK) == 0)
                take(&g->bin, s->prog_dirs[k], s->progs[i]);
            free(p);
        }
}

static int node_has_gpu_files(void)
{
    DIR *d = opendir("/dev");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)))
        found = !strncmp(e->d_name, "nvidia", 6);
    if (d)
        closedir(d);
    return found;
}

static char **make_envp(char *const *envp, const shim_gpu_t *g, const char *list)
{
    size_t n = 0;
    while (envp && envp[n])
        n++;
    char **e = sl_xcalloc(n + 4, sizeof(char *));
    size_t k = 0;
    const char *ld = env_get(envp, "LD_LIBRARY_PATH"), *path = env_get(envp, "PATH");
    int set_nvd = list && !env_get(envp, "NVIDIA_VISIBLE_DEVICES");
    for (size_t i = 0; i < n; i++)
        if (!(g->lib.n && !strncmp(envp[i], "LD_LIBRARY_PATH=", 16)) &&
            !(g->bin.n && !strncmp(envp[i], "PATH=", 5)))
            e[k++] = sl_xstrdup(envp[i]);
    if (set_nvd)
        e[k++] = sl_xasprintf("NVIDIA_VISIBLE_DEVICES=%s", list);
    if (g->lib.n)
        e[k++] =
            sl_xasprintf("LD_LIBRARY_PATH=%s%s%s", GPU_LIB_DIR, ld && *ld ? ":" : "", ld ? ld : "");
    if (g->bin.n)
        e[k++] = sl_xasprintf("PATH=%s%s%s", path ? path : "/usr/bin:/bin", ":", GPU_BIN_DIR);
    return e;
}

shim_gpu_t *shim_gpu_prepare(long long gpus, char *const *envp, const char *base,
                             const char *merged, char *msg, size_t len, int *failed)
{
    *failed = 0;
    if (gpus <= 0 && !node_has_gpu_files())
        return NULL;
    gset_t s = {0};
    if (settings_load(envp, &s, msg, len) < 0) {
        *failed = 1;
        return NULL;
    }
    shim_gpu_t *g = sl_xcalloc(1, sizeof(*g));
    g->hostdev = sl_xasprintf("%s/hostdev", base);
    g->dev_view = 1;
    g->lib.mp = sl_xasprintf("%s%s", merged, GPU_LIB_DIR);
    g->bin.mp = sl_xasprintf("%s%s", merged, GPU_BIN_DIR);
    int rc = plan_dev(g, gpus, msg, len);
    if (rc == 0 && gpus > 0 && (rc = plan_bound(g, &s, envp, msg, len)) == 0) {
        char *list = (char *)g->envp;
        g->envp = NULL;
        plan_driver(g, &s);
        g->envp = make_envp(envp, g, list);
        free(list);
    }
    settings_free(&s);
    if (rc < 0) {
        shim_gpu_free(g);
        *failed = 1;
        return NULL;
    }
    return g;
}

char *const *shim_gpu_envp(const shim_gpu_t *g) { return g ? g->envp : NULL; }

char *shim_gpu_visible_env(long long gpus, char *const *envp)
{
    int idx[GPU_MAX];
    char *list = NULL;
    if (gpus <= 0 || env_get(envp, "NVIDIA_VISIBLE_DEVICES") || bound_gpus(envp, idx, &list) <= 0)
        return NULL;
    char *e = sl_xasprintf("NVIDIA_VISIBLE_DEVICES=%s", list);
    free(list);
    return e;
}

/* the "GPU UUID" of the driver's information file whose "Device Minor" is
 * minor, in a folder per GPU under proc_gpus; NULL when none says so */
static char *uuid_of(const char *proc_gpus, int minor)
{
    DIR *d = opendir(proc_gpus);
    char *uuid = NULL;
    struct dirent *e;
    while (d && !uuid && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = sl_xasprintf("%s/%s/information", proc_gpus, e->d_name);
        FILE *f = fopen(p, "re");
        free(p);
        char line[256], u[128] = "";
        int m = -1;
        while (f && fgets(line, sizeof(line), f)) {
            sscanf(line, "Device Minor: %d", &m);
            sscanf(line, "GPU UUID: %127s", u);
        }
        if (f)
            fclose(f);
        if (m == minor && *u)
            uuid = sl_xstrdup(u);
    }
    if (d)
        closedir(d);
    return uuid;
}

json_t *shim_gpu_identity(char *const *envp, const char *proc_gpus)
{
    int idx[GPU_MAX];
    char *list = NULL;
    int n = bound_gpus(envp, idx, &list);
    free(list);
    if (n <= 0)
        return NULL;
    json_t *o = json_object(), *ix = json_array(), *uu = json_array();
    for (int i = 0; i < n; i++) {
        json_array_append_new(ix, json_integer(idx[i]));
        char *u = uuid_of(proc_gpus ? proc_gpus : "/proc/driver/nvidia/gpus", idx[i]);
        json_array_append_new(uu, u ? json_string(u) : json_null());
        free(u);
    }
    json_object_set_new(o, "indexes", ix);
    json_object_set_new(o, "uuids", uu);
    const char *sh = env_get(envp, "SLURM_SHARDS_ON_NODE");
    if (sh && *sh)
        json_object_set_new(o, "shards", json_integer(strtol(sh, NULL, 10)));
    return o;
}

#define CDI_ALL "--device=nvidia.com/gpu=all"

char **shim_gpu_argv(const char *runtime, long long gpus, char *const *argv, char *const *envp)
{
    int idx[GPU_MAX];
    char *list = NULL;
    size_t n = 0, at = (size_t)-1;
    for (; argv[n]; n++)
        if (at == (size_t)-1 && !strcmp(argv[n], CDI_ALL))
            at = n;
    const sl_runtime_ops_t *ops = runtime ? sl_runtime_get(runtime) : NULL;
    if (gpus <= 0 || at == (size_t)-1 || !ops || !ops->cdi_gpus)
        return NULL;
    int k = bound_gpus(envp, idx, &list);
    free(list);
    if (k <= 0)
        return NULL;
    char **v = sl_xcalloc(n + (size_t)k + 1, sizeof(char *));
    size_t o = 0;
    for (size_t i = 0; i < n; i++)
        if (i != at)
            v[o++] = sl_xstrdup(argv[i]);
        else
            for (int j = 0; j < k; j++)
                v[o++] = sl_xasprintf("--device=nvidia.com/gpu=%d", idx[j]);
    return v;
}

void shim_gpu_argv_free(char **argv) { sl_strv_free(argv); }

static void list_free(glist_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].src);
        free(l->v[i].dst);
        free(l->v[i].link);
    }
    free(l->v);
    free(l->mp);
}

void shim_gpu_free(shim_gpu_t *g)
{
    if (!g)
        return;
    free(g->hostdev);
    list_free(&g->dev);
    list_free(&g->lib);
    list_free(&g->bin);
    sl_strv_free(g->envp);
    free(g);
}

/* ---- in the child: system calls only ---- */

static int place(const gent_t *e)
{
    if (e->kind == K_LINK)
        return symlink(e->link, e->dst);
    if (e->kind == K_DIR)
        return mkdir(e->dst, 0755) < 0 ? -1 : mount(e->src, e->dst, NULL, MS_BIND | MS_REC, NULL);
    int fd = open(e->dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    close(fd);
    if (mount(e->src, e->dst, NULL, MS_BIND, NULL) < 0)
        return -1;
    return e->ro_flags ? mount(NULL, e->dst, NULL, e->ro_flags, NULL) : 0;
}

/* a read-only tmpfs at l->mp holding l's entries */
static int enter_list(const glist_t *l, const char *root,
                      int (*mkpath)(const char *root, const char *target), const char **path)
{
    if (!l->n)
        return 0;
    *path = l->mp;
    if (mkpath(root, l->mp + strlen(root)) < 0 ||
        mount("tmpfs", l->mp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
        return -1;
    for (size_t i = 0; i < l->n; i++)
        if ((*path = l->v[i].dst, place(&l->v[i])) < 0)
            return -1;
    *path = l->mp;
    return mount(NULL, l->mp, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755");
}

int shim_gpu_enter(const shim_gpu_t *g, int (*mkpath)(const char *root, const char *target),
                   int *what, const char **path)
{
    *what = 0;
    *path = "/dev";
    if (g->dev_view) {
        if ((*path = g->hostdev, mkdir(g->hostdev, 0700)) < 0 ||
            mount("/dev", g->hostdev, NULL, MS_BIND | MS_REC, NULL) < 0 ||
            (*path = "/dev", mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755")) <
                0)
            return -1;
        for (size_t i = 0; i < g->dev.n; i++)
            if ((*path = g->dev.v[i].dst, place(&g->dev.v[i])) < 0)
                return -1;
    }
    *what = 1;
    size_t rl = strlen(g->lib.mp) - strlen(GPU_LIB_DIR);
    char root[PATH_MAX];
    if (rl >= sizeof(root)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(root, g->lib.mp, rl);
    root[rl] = '\0';
    if (enter_list(&g->lib, root, mkpath, path) < 0 || enter_list(&g->bin, root, mkpath, path) < 0)
        return -1;
    return 0;
}
