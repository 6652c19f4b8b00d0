/* translate.c — a Pod becomes #SBATCH options, a readable batch script and
 * shim.json. Pure: everything comes from the arguments. */
#include "translate/flags.h"
#include "translate/internal.h"

#include "common/b64.h"
#include "common/buf.h"
#include "common/quote.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void tr_add_file(tr_ctx_t *c, const char *path, const char *data, size_t len, int mode)
{
    for (size_t i = 0; i < c->nfiles; i++)
        if (!strcmp(c->files[i].path, path)) { /* a later projection wins, as in Kubernetes */
            free(c->files[i].data);
            c->files[i].data = data ? sl_xmalloc(len + 1) : NULL;
            if (data) {
                memcpy(c->files[i].data, data, len);
                c->files[i].data[len] = 0;
            }
            c->files[i].len = len;
            c->files[i].mode = mode;
            return;
        }
    c->files = sl_xrealloc(c->files, (c->nfiles + 1) * sizeof(*c->files));
    sl_translate_file_t *f = &c->files[c->nfiles++];
    f->path = sl_xstrdup(path);
    f->data = NULL;
    if (data) {
        f->data = sl_xmalloc(len + 1);
        memcpy(f->data, data, len);
        f->data[len] = 0;
    }
    f->len = len;
    f->mode = mode;
}

void tr_add_dir(tr_ctx_t *c, const char *path)
{
    for (size_t i = 0; i < c->nfiles; i++)
        if (!strcmp(c->files[i].path, path))
            return;
    tr_add_file(c, path, NULL, 0, 0755);
}

void tr_warn(tr_ctx_t *c, const char *fmt, ...)
{
    va_list ap;
    sl_buf_t b = SL_BUF_INIT;
    va_start(ap, fmt);
    sl_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    sl_argv_add(&c->warnings, b.data);
    sl_buf_free(&b);
}

void tr_missing(tr_ctx_t *c, const char *fmt, ...)
{
    va_list ap;
    sl_buf_t b = SL_BUF_INIT;
    va_start(ap, fmt);
    sl_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (!c->missing++)
        sl_errprintf(c->err, "%s", b.data);
    sl_buf_free(&b);
}

/* ---------- containers ---------- */

static json_t *bytes_json(const char *v, size_t len)
{
    if (tr_utf8_valid(v, len))
        return json_stringn(v, len);
    char *b = sl_b64_encode(v, len);
    json_t *o = json_pack("{s:s}", "base64", b);
    free(b);
    return o;
}

static const char *binary_for(const sl_translate_config_t *cfg, const char *rt)
{
    for (size_t i = 0;
         cfg->runtime_binaries && cfg->runtime_binaries[i] && cfg->runtime_binaries[i + 1]; i += 2)
        if (!strcmp(cfg->runtime_binaries[i], rt))
            return cfg->runtime_binaries[i + 1];
    return NULL;
}

static const char *lookup_tr_env(void *arg, const char *name) { return tr_env_get(arg, name); }

/* kubelet creates a subPath's folder in the volume: so does the pod folder
 * (emptyDir on disk) or the job's preparation (emptyDir in memory); src is
 * the folder on the node */
static void tr_subpath_dirs(tr_ctx_t *c, const sl_pod_volume_t *v, const char *sub, const char *src)
{
    if (v->type != SL_VOL_EMPTYDIR)
        return;
    if (v->memory) {
        char *q = sl_shell_quote(src);
        sl_argv_addf(&c->prep, "mkdir -p -m 0700 -- %s", q);
        free(q);
        return;
    }
    char *rel = sl_xasprintf("volumes/%s/%s", v->name, sub);
    size_t base = strlen("volumes/") + strlen(v->name);
    for (char *s = strchr(rel + base + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        tr_add_dir(c, rel);
        *s = '/';
    }
    size_t n = strlen(rel);
    while (n > base + 1 && rel[n - 1] == '/')
        rel[--n] = '\0';
    tr_add_dir(c, rel);
    free(rel);
}

/* kubelet's checks of a subPathExpr after expansion (makeMounts): the value
 * must stay inside the volume. -1 after a field error. */
static int tr_check_subpath(tr_ctx_t *c, const char *sub, const char *expr, const char *path,
                            size_t i)
{
    char *detail = NULL;
    if (sub[0] == '/') {
        detail = sl_xasprintf("error SubPath `%s` must not be an absolute path", sub);
    } else {
        for (const char *p = sub; *p;) {
            size_t n = strcspn(p, "/");
            if (n == 2 && p[0] == '.' && p[1] == '.') {
                detail =
                    sl_xasprintf("unable to provision SubPath `%s`: must not contain '..'", sub);
                break;
            }
            p += n;
            p += *p == '/';
        }
    }
    if (!detail)
        return 0;
    sl_err_invalid(c->errs, expr, detail, "%s.volumeMounts[%zu].subPathExpr", path, i);
    free(detail);
    return -1;
}
/* the stored image's paths, as the runtime's mount hook asks for them */
typedef struct in_image {
    const sl_translate_config_t *cfg;
    const char *dir;
} in_image_t;

static int in_image(void *arg, const char *path)
{
    const in_image_t *ii = arg;
    return !ii->cfg->image_has_path ||
           ii->cfg->image_has_path(ii->cfg->image_lookup_arg, ii->dir, path);
}

/* one container on its way to the shim spec */
typedef struct ctr {
    char *path; /* spec.containers[i] */
    tr_env_t env;
    char *dir; /* its folder in the image store (NULL: no store) */
    sl_image_meta_t meta;
    int in_store;
    const char *rtname;
    const sl_runtime_ops_t *ops;
    char *image; /* the reference the runtime runs */
    sl_rt_mount_t *mounts;
    char **srcs; /* owned mount sources */
    size_t nm;
} ctr_t;

/* the runtime and the image it runs */
static void ctr_image(tr_ctx_t *c, const sl_pod_container_t *k, ctr_t *x)
{
    const sl_pod_t *p = c->pod;
    const sl_translate_config_t *cfg = c->cfg;
    const char *resolved =
        k->image && cfg->image_dir ? cfg->image_dir(cfg->image_lookup_arg, k->image) : NULL;
    if (resolved)
        x->dir = sl_xstrdup(resolved);
    else
        x->dir =
            k->image && cfg->image_store ? sl_runtime_image_dir(cfg->image_store, k->image) : NULL;
    x->in_store =
        x->dir && cfg->image_lookup && cfg->image_lookup(cfg->image_lookup_arg, x->dir, &x->meta);
    /* a pulled image converted for its runtime (a SIF, a squashfs) is no
     * tree charliecloud runs: the runtime is the one it was made for */
    int file = x->in_store && sl_runtime_image_is_file(x->dir);
    x->rtname = sl_runtime_choose(sl_pod_annotation(p, SL_ANN_RUNTIME), k->image,
                                  x->in_store && !file, cfg->default_runtime);
    x->ops = sl_runtime_get(x->rtname);
    char *why = sl_runtime_unavailable(x->rtname);
    if (why) {
        char *d = sl_xasprintf("runs with %s, which %s", x->rtname, why + strlen(x->rtname) + 1);
        sl_err_invalid(c->errs, k->image ? k->image : "", d, "%s.image", x->path);
        free(d);
        free(why);
        return;
    }
    const char *root = sl_pod_annotation(p, SL_ANN_IL_IMAGE_ROOT);
    if (!root)
        root = cfg->image_root && *cfg->image_root ? cfg->image_root : "docker://";
    sl_rt_image_in_t img = {k->image, x->in_store ? x->dir : NULL, root};
    sl_error_t ierr = SL_ERROR_INIT;
    if (x->ops->image_ref(&img, &x->image, &ierr) < 0)
        sl_err_invalid(c->errs, k->image ? k->image : "", ierr.text, "%s.image", x->path);
    if (!x->ops->needs_image && k->image)
        tr_warn(c, "%s: image %s is not used by the host runtime", x->path, k->image);
    if (!x->ops->needs_image && k->read_only_root)
        tr_warn(c,
                "%s.securityContext.readOnlyRootFilesystem: the host runtime has no image root: "
                "ignored",
                x->path);
}

/* volumeMounts[i]: added to x->mounts, or a field error */
static void ctr_mount(tr_ctx_t *c, const sl_pod_container_t *k, ctr_t *x, size_t i)
{
    const sl_pod_mount_t *m = &k->mounts[i];
    const sl_pod_volume_t *v = sl_pod_volume(c->pod, m->name);
    if (!v)
        return;
    char *src = tr_volume_src(c, v);
    const char *sub = m->sub_path;
    char *expanded = NULL;
    if (*m->sub_path_expr) {
        sub = expanded = sl_k8s_expand(m->sub_path_expr, lookup_tr_env, &x->env);
        if (tr_check_subpath(c, expanded, m->sub_path_expr, x->path, i) < 0) {
            free(expanded);
            free(src);
            return;
        }
    }
    if (*sub) {
        char *s2 = sl_xasprintf("%s/%s", src, sub);
        free(src);
        src = s2;
        tr_subpath_dirs(c, v, sub, src);
    }
    free(expanded);
    if (!x->ops->can_mount) {
        if (strcmp(src, m->mount_path))
            sl_err_forbidden(c->errs,
                             "the host runtime runs without a container and cannot mount "
                             "volumes; use a hostPath whose path is the mountPath, or a "
                             "container runtime",
                             "%s.volumeMounts[%zu]", x->path, i);
        free(src);
        return;
    }
    in_image_t ii = {c->cfg, x->dir};
    const char *why = x->ops->mount_refusal
                          ? x->ops->mount_refusal(m->mount_path, x->in_store ? in_image : NULL, &ii)
                          : NULL;
    if (why)
        sl_err_invalid(c->errs, m->mount_path, why, "%s.volumeMounts[%zu].mountPath", x->path, i);
    x->srcs[x->nm] = src;
    x->mounts[x->nm].src = src;
    x->mounts[x->nm].dst = m->mount_path;
    x->mounts[x->nm].read_only = m->read_only || v->type == SL_VOL_CONFIGMAP ||
                                 v->type == SL_VOL_SECRET || v->type == SL_VOL_DOWNWARDAPI ||
                                 v->type == SL_VOL_PROJECTED || tr_claim_read_only(c, v);
    x->nm++;
}

/* $(VAR) in each word */
static void expand_words(const char *const *w, size_t n, tr_env_t *env, sl_argv_t *out)
{
    for (size_t i = 0; i < n; i++) {
        char *e = sl_k8s_expand(w[i], lookup_tr_env, env);
        sl_argv_add(out, e);
        free(e);
    }
}

/* a mountPath as the shim's rootfs wants it: absolute, no empty or "."
 * component, no trailing '/'; NULL for "/" or a path with ".." (left to
 * the runtime, which resolves it itself) */
static char *mount_target(const char *mp)
{
    sl_buf_t b = SL_BUF_INIT;
    for (const char *c = mp; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            sl_buf_free(&b);
            return NULL;
        }
        if (n && !(n == 1 && c[0] == '.')) {
            sl_buf_putc(&b, '/');
            sl_buf_append(&b, c, n);
        }
        c += n;
        c += *c == '/';
    }
    if (mp[0] != '/' || !b.len) {
        sl_buf_free(&b);
        return NULL;
    }
    return sl_buf_steal(&b);
}

/* a volume is mounted at /tmp itself: it is the container's /tmp, not the
 * shim's private one */
static int mounts_tmp(const ctr_t *x)
{
    for (size_t i = 0; i < x->nm; i++) {
        char *t = mount_target(x->mounts[i].dst);
        int is = t && !strcmp(t, "/tmp");
        free(t);
        if (is)
            return 1;
    }
    return 0;
}

/* rootfs: the image under a writable layer of each run, made by the shim
 * (runtimes with shim_root); argvIndex is the word that is the image */
static void rootfs_json(json_t *j, const sl_pod_container_t *k, const ctr_t *x,
                        const sl_argv_t *argv)
{
    if (!x->ops->shim_root || !x->image)
        return;
    size_t ix = 1;
    while (ix < argv->n && strcmp(argv->v[ix], x->image))
        ix++;
    if (ix >= argv->n)
        return;
    json_t *ms = json_array();
    for (size_t i = 0; i < x->nm; i++) {
        char *t = mount_target(x->mounts[i].dst);
        if (t)
            json_array_append_new(ms,
                                  json_pack("{s:s, s:s}", "source", x->mounts[i].src, "target", t));
        free(t);
    }
    json_object_set_new(j, "rootfs",
                        json_pack("{s:s, s:I, s:b, s:o}", "lower", x->image, "argvIndex",
                                  (json_int_t)ix, "readOnly", k->read_only_root, "mounts", ms));
}

/* the container's entry in the shim spec, and its line in the summary */
/* a gang's replica that replaces a failed one (SL_ANN_RESTARTS): where the
 * container's runs go on, its restartCount and the failed run */
static void restarts_json(tr_ctx_t *c, const sl_pod_container_t *k, json_t *j)
{
    const char *v = sl_pod_annotation(c->pod, SL_ANN_RESTARTS);
    json_t *all = v ? json_loads(v, 0, NULL) : NULL;
    json_t *o = json_object_get(all, k->name);
    json_t *n = json_object_get(o, "restartCount"), *l = json_object_get(o, "lastTerminated");
    if (json_is_integer(n) && json_integer_value(n) > 0 && json_integer_value(n) <= 1000000)
        json_object_set(j, "restartCount", n);
    if (json_is_object(l) && json_is_integer(json_object_get(l, "exitCode")))
        json_object_set(j, "lastTerminated", l);
    json_decref(all);
}

static json_t *ctr_json(tr_ctx_t *c, const sl_pod_container_t *k, const ctr_t *x,
                        const sl_argv_t *argv, sl_buf_t *summary)
{
    const tr_env_t *env = &x->env;
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(k->name));
    json_t *av = json_array();
    for (size_t i = 0; i < argv->n; i++)
        json_array_append_new(av, bytes_json(argv->v[i], strlen(argv->v[i])));
    json_object_set_new(j, "argv", av);
    json_t *ej = json_object(), *rj = json_object();
    for (size_t i = 0; i < env->n; i++) {
        char *key = x->ops->env_key(env->names[i]);
        if (env->runtime[i])
            json_object_set_new(rj, key, json_string(env->runtime[i]));
        else
            json_object_set_new(ej, key, bytes_json(env->values[i], env->lens[i]));
        free(key);
    }
    json_object_set_new(j, "env", ej);
    if (json_object_size(rj)) {
        json_object_set_new(j, "envRuntime", rj);
        tr_warn(c,
                "%s: %zu environment variable(s) from spec.nodeName/status.* are filled "
                "in by slurmlink-shim on the node",
                x->path, json_object_size(rj));
    } else {
        json_decref(rj);
    }
    const char *wd = k->working_dir ? k->working_dir : x->meta.working_dir;
    if (wd)
        json_object_set_new(j, "workingDir", json_string(wd));
    json_object_set_new(j, "runtime", json_string(x->rtname));
    if (x->image)
        json_object_set_new(j, "image", json_string(x->image));
    if (tr_is_sidecar(k))
        json_object_set_new(j, "sidecar", json_true());
    if (k->stdin_open) /* the shim keeps it open for kubectl attach -i */
        json_object_set_new(j, "stdin", json_true());
    if (k->stdin_open && k->stdin_once)
        json_object_set_new(j, "stdinOnce", json_true());
    if (k->tty) /* the shim gives it a pty (kubectl attach -t, kubectl run -it) */
        json_object_set_new(j, "tty", json_true());
    if (tr_ctr_gpus(c, k) > 0 && !tr_has_amd(k)) /* the shim binds the ones Slurm gave (gpu.h) */
        json_object_set_new(j, "gpus", json_integer(tr_ctr_gpus(c, k)));
    if (!x->ops->can_mount && tr_hosts_asked(c)) /* the shim binds it in a namespace */
        json_object_set_new(j, "bindHosts", json_true());
    /* an empty /tmp per run (podtmp.h): the default of the container
     * runtimes; the host runtime (no tmp_bind: no container) keeps the
     * node's unless the pod asks for a private one */
    const char *tmp = sl_pod_annotation(c->pod, SL_ANN_TMP);
    bool private_tmp = tmp ? !strcmp(tmp, "private") : x->ops->tmp_bind != NULL;
    if (!mounts_tmp(x) && private_tmp)
        json_object_set_new(j, "privateTmp", json_true());
    if (!k->init)
        restarts_json(c, k, j);
    rootfs_json(j, k, x, argv);
    const json_t *kj = json_array_get(json_object_get(json_object_get(c->pod->json, "spec"),
                                                      k->init ? "initContainers" : "containers"),
                                      (size_t)k->index);
    json_t *probes = tr_probes_json(k, kj);
    if (probes)
        json_object_set_new(j, "probes", probes);
    char *qi = sl_go_quote(k->image ? k->image : "");
    sl_buf_printf(summary, "#   %-7s %s: %s %s\n",
                  tr_is_sidecar(k) ? "sidecar"
                  : k->init        ? "init"
                                   : "app",
                  k->name, x->rtname, k->image ? qi : "(no image)");
    free(qi);
    return j;
}

static void ctr_free(ctr_t *x)
{
    for (size_t i = 0; i < x->nm; i++)
        free(x->srcs[i]);
    free(x->srcs);
    free(x->mounts);
    free(x->image);
    free(x->dir);
    tr_env_free(&x->env);
    free(x->path);
}

/* Who the process is inside the container, into buf: runAsUser (with
 * runAsGroup, "UID:GID") where the runtime maps ids inside its user
 * namespace to the job user (maps_user); else the image's USER ("UID:GID",
 * or "UID" when runAsGroup names the group) unless runAsUser says who the
 * process is (Kubernetes' rule): NULL then (runAsUser is the job user's
 * own uid: admission), and when the image has none */
static const char *image_user(tr_ctx_t *c, const sl_pod_container_t *k, const ctr_t *x,
                              char buf[48])
{
    if (k->run_as_user != SL_POD_UNSET && x->ops && x->ops->maps_user) {
        if (k->run_as_group != SL_POD_UNSET)
            snprintf(buf, 48, "%lld:%lld", (long long)k->run_as_user, (long long)k->run_as_group);
        else
            snprintf(buf, 48, "%lld", (long long)k->run_as_user);
        return buf;
    }
    if (k->run_as_user != SL_POD_UNSET)
        return NULL;
    if (x->meta.user_error) {
        sl_err_invalid(c->errs, k->image ? k->image : "", x->meta.user_error, "%s.image", x->path);
        return NULL;
    }
    if (!x->meta.user)
        return NULL;
    snprintf(buf, 48, "%s", x->meta.user);
    if (k->run_as_group != SL_POD_UNSET)
        buf[strcspn(buf, ":")] = '\0';
    return buf;
}

/* runAsNonRoot where the runtime maps ids: the kubelet's refusal when the
 * process would be uid 0 inside (runAsUser 0, else the image's USER root or
 * none) */
static void non_root(tr_ctx_t *c, const sl_pod_container_t *k, const ctr_t *x, const char *user)
{
    if (!k->run_as_non_root || !x->ops || !x->ops->maps_user)
        return;
    if (user && strtoll(user, NULL, 10) != 0)
        return;
    char *d = sl_xasprintf("container has runAsNonRoot and image will run as root (container: %s)",
                           k->name);
    sl_err_invalid(c->errs, k->image ? k->image : "", d, "%s.image", x->path);
    free(d);
}

static json_t *container(tr_ctx_t *c, const sl_pod_container_t *k, sl_buf_t *summary)
{
    ctr_t x = {.path = NULL}; /* designated: every other field zero */
    x.path = sl_xasprintf("spec.%s[%d]", k->init ? "initContainers" : "containers", k->index);
    tr_container_env(c, k, x.path, &x.env);
    ctr_image(c, k, &x);
    char ubuf[48];
    const char *user = image_user(c, k, &x, ubuf);
    non_root(c, k, &x, user);
    tr_env_add_image(&x.env, x.meta.env, x.meta.nenv);
    x.mounts = sl_xcalloc(k->nmounts + 1, sizeof(*x.mounts));
    x.srcs = sl_xcalloc(k->nmounts + 1, sizeof(char *));
    for (size_t i = 0; i < k->nmounts; i++)
        ctr_mount(c, k, &x, i);
    if (x.ops && x.ops->can_mount && !tr_hosts_mounted(k)) {
        /* the pod's hosts file, which the shim writes (hosts.c) */
        x.srcs[x.nm] = tr_hosts_path(c);
        x.mounts[x.nm] = (sl_rt_mount_t){x.srcs[x.nm], "/etc/hosts", 1};
        x.nm++;
    }

    sl_argv_t cmd = SL_ARGV_INIT, args = SL_ARGV_INIT, names = SL_ARGV_INIT, extra = SL_ARGV_INIT;
    expand_words(k->command, k->ncommand, &x.env, &cmd);
    expand_words(k->args, k->nargs, &x.env, &args);
    for (size_t i = 0; i < x.env.n; i++)
        sl_argv_add(&names, x.env.names[i]);
    if (x.ops->sif_annotations) {
        const char *v;
        if ((v = sl_pod_annotation(c->pod, SL_ANN_IL_SING_OPTS)))
            sl_flags_split(v, &extra, NULL);
        if ((v = sl_pod_annotation(c->pod, SL_ANN_IL_SING_MOUNTS)))
            sl_flags_split(v, &extra, NULL);
    }
    sl_rt_container_t rc = {
        .name = k->name,
        .image = x.image,
        .command = (const char *const *)cmd.v,
        .ncommand = cmd.n,
        .args = (const char *const *)args.v,
        .nargs = args.n,
        .entrypoint = x.meta.entrypoint,
        .nentrypoint = x.meta.nentrypoint,
        .cmd = x.meta.cmd,
        .ncmd = x.meta.ncmd,
        .working_dir = k->working_dir ? k->working_dir : x.meta.working_dir,
        .mounts = x.mounts,
        .nmounts = x.nm,
        .env_names = (const char *const *)names.v,
        .nenv = names.n,
        .gpus = tr_ctr_gpus(c, k),
        .amd_gpus = tr_has_amd(k),
        .extra = (const char *const *)extra.v,
        .nextra = extra.n,
        .binary = binary_for(c->cfg, x.rtname),
        .read_only_root = k->read_only_root,
        .user = user,
    };
    sl_argv_t argv = SL_ARGV_INIT;
    sl_error_t rerr = SL_ERROR_INIT;
    json_t *j = NULL;
    if ((x.ops->needs_image && !x.image) || sl_err_nfields(c->errs) > c->errs_before) {
        /* reported above */
    } else if (x.ops->argv(&rc, &argv, &rerr) < 0) {
        if (cmd.n == 0 && !x.ops->runs_entrypoint)
            sl_err_required(c->errs, rerr.text, "%s.command", x.path);
        else
            sl_err_invalid(c->errs, k->image ? k->image : "", rerr.text, "%s", x.path);
    } else {
        j = ctr_json(c, k, &x, &argv, summary);
    }
    sl_argv_free(&argv);
    sl_argv_free(&cmd);
    sl_argv_free(&args);
    sl_argv_free(&names);
    sl_argv_free(&extra);
    ctr_free(&x);
    return j;
}

/* ---------- the whole pod ---------- */

static int uid_ok(const char *u)
{
    return u && *u && strlen(u) <= 128 &&
           strspn(u, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") ==
               strlen(u);
}

static void result_from(tr_ctx_t *c, sl_translate_result_t *r)
{
    r->files = c->files;
    r->nfiles = c->nfiles;
    r->warnings = c->warnings.v ? c->warnings.v : sl_xcalloc(1, sizeof(char *));
    r->nwarnings = c->warnings.n;
    c->files = NULL;
    c->nfiles = 0;
    c->warnings.v = NULL;
    c->warnings.n = c->warnings.cap = 0;
}

/* the shim spec's pod part: identity, restart policy, grace period, report */
static json_t *spec_header(const tr_ctx_t *c)
{
    const sl_pod_t *pod = c->pod;
    const sl_translate_config_t *cfg = c->cfg;
    json_t *spec = json_object();
    json_object_set_new(spec, "apiVersion", json_string("slurmlink.io/v1"));
    json_object_set_new(spec, "kind", json_string("ShimSpec"));
    json_object_set_new(spec, "pod",
                        json_pack("{s:s, s:s, s:s}", "namespace", pod->namespace_, "name",
                                  pod->name, "uid", pod->uid));
    json_object_set_new(spec, "restartPolicy", json_string(pod->restart_policy));
    json_object_set_new(spec, "terminationGracePeriodSeconds",
                        json_integer(pod->termination_grace_seconds));
    if (cfg->report_url) {
        json_t *rep = json_pack("{s:s}", "url", cfg->report_url);
        if (cfg->report_token)
            json_object_set_new(rep, "token", json_string(cfg->report_token));
        if (cfg->report_ca_file)
            json_object_set_new(rep, "caFile", json_string(cfg->report_ca_file));
        if (cfg->report_pinned_key)
            json_object_set_new(rep, "pinnedPublicKey", json_string(cfg->report_pinned_key));
        json_object_set_new(spec, "report", rep);
    }
    return spec;
}

/* init containers (sidecars run with the apps) and app containers */
static void spec_containers(tr_ctx_t *c, json_t *spec, sl_buf_t *summary)
{
    const sl_pod_t *pod = c->pod;
    json_t *inits = json_array(), *apps = json_array();
    for (size_t i = 0; i < pod->ninit; i++) {
        const sl_pod_container_t *k = &pod->init_containers[i];
        json_t *j = container(c, k, summary);
        if (j)
            json_array_append_new(tr_is_sidecar(k) ? apps : inits, j);
        if (tr_is_sidecar(k))
            tr_warn(c,
                    "sidecar %s starts with the app containers and is stopped when they "
                    "have finished",
                    k->name);
    }
    for (size_t i = 0; i < pod->ncontainers; i++) {
        json_t *j = container(c, &pod->containers[i], summary);
        if (j)
            json_array_append_new(apps, j);
    }
    json_object_set_new(spec, "initContainers", inits);
    json_object_set_new(spec, "containers", apps);
}

/* the names of the volumes that hold secrets, and the cleanup list */
static void spec_volumes(const tr_ctx_t *c, json_t *spec)
{
    const sl_pod_t *pod = c->pod;
    json_t *sv = json_array();
    for (size_t i = 0; i < pod->nvolumes; i++) {
        const sl_pod_volume_t *v = &pod->volumes[i];
        for (size_t k = 0; k < v->nsources; k++)
            if (v->sources[k].type == SL_VOL_SECRET || v->sources[k].type == SL_VOL_SATOKEN) {
                json_array_append_new(sv, json_string(v->name));
                break;
            }
    }
    if (json_array_size(sv))
        json_object_set_new(spec, "secretVolumes", sv);
    else
        json_decref(sv);
    if (c->cleanup.n) {
        json_t *cl = json_array();
        for (size_t i = 0; i < c->cleanup.n; i++)
            json_array_append_new(cl, json_string(c->cleanup.v[i]));
        json_object_set_new(spec, "cleanup", cl);
    }
}

/* job.sh: #SBATCH lines, the summary, the preparation, pre-exec, exec the shim */
static void write_script(const tr_ctx_t *c, const sl_argv_t *opts, const sl_buf_t *summary,
                         sl_buf_t *script)
{
    const sl_pod_t *pod = c->pod;
    const sl_translate_config_t *cfg = c->cfg;
    sl_buf_puts(script, "#!/bin/bash\n");
    for (size_t i = 0; i < opts->n; i++) {
        char *d = tr_directive(opts->v[i]);
        sl_buf_printf(script, "%s\n", d);
        free(d);
    }
    sl_buf_printf(script,
                  "#\n# Pod %s/%s (uid %s)\n# generated by slurmlink %s; the job runs as uid %u "
                  "gid %u\n# Containers:\n%s"
                  "# slurmlinkd rewrites this file for every submission; edits are lost.\n\n",
                  pod->namespace_, pod->name, pod->uid, SLURMLINK_VERSION, (unsigned)cfg->uid,
                  (unsigned)cfg->gid, summary->data ? summary->data : "");
    for (size_t i = 0; i < c->prep.n; i++)
        sl_buf_printf(script, "%s\n", c->prep.v[i]);
    const char *pre = sl_pod_annotation(pod, SL_ANN_IL_PRE_EXEC);
    if (pre && cfg->allow_pre_exec) {
        sl_buf_puts(script, "# ---- begin slurm-job.vk.io/pre-exec (verbatim from the pod; "
                            "allowed by the site) ----\n");
        sl_buf_printf(script, "%s\n", pre);
        sl_buf_puts(script, "# ---- end slurm-job.vk.io/pre-exec ----\n");
    }
    if (c->prep.n || (pre && cfg->allow_pre_exec))
        sl_buf_putc(script, '\n');
    char *qs = sl_shell_quote(cfg->shim_path), *qd = sl_shell_quote(c->pod_dir);
    char *sp = sl_xasprintf("%s/shim.json", c->pod_dir), *qsp = sl_shell_quote(sp);
    sl_buf_printf(script, "exec %s --pod-dir %s --spec %s\n", qs, qd, qsp);
    free(qs);
    free(qd);
    free(sp);
    free(qsp);
}

int sl_translate(const sl_pod_t *pod, const json_t *configmaps, const json_t *secrets,
                 const sl_translate_config_t *cfg, sl_translate_result_t **out, sl_error_t *errs,
                 sl_error_t *err)
{
    *out = NULL;
    if (!pod->name || !pod->namespace_ || !uid_ok(pod->uid) || !cfg->pods_root || !cfg->shim_path) {
        errno = EINVAL;
        return sl_errprintf(err, "translate needs a pod name, namespace and uid ([A-Za-z0-9-]), "
                                 "and the pods root and shim path");
    }
    sl_error_t *own = errs ? NULL : sl_error_new_invalid();
    tr_ctx_t c = {.pod = pod,
                  .cfg = cfg,
                  .configmaps = configmaps,
                  .secrets = secrets,
                  .errs = errs ? errs : own,
                  .err = err};
    size_t before = sl_err_nfields(c.errs);
    c.errs_before = before;
    sl_translate_validate(pod, cfg, c.errs);
    int rc = -1;
    sl_flags_t fl = SL_FLAGS_INIT;
    sl_argv_t opts = SL_ARGV_INIT;
    sl_buf_t summary = SL_BUF_INIT, script = SL_BUF_INIT;
    json_t *spec = NULL;
    if (sl_err_nfields(c.errs) > before) {
        errno = EINVAL;
        sl_errprintf(err, "the pod's annotations are invalid");
        goto out;
    }
    const char *fv = sl_pod_annotation(pod, SL_ANN_IL_FLAGS);
    if (fv)
        sl_flags_parse(fv, &fl, NULL);
    c.pod_dir = sl_xasprintf("%s/%s/%s-%s", cfg->pods_root, pod->namespace_, pod->name, pod->uid);
    tr_volumes(&c);
    if (tr_check_paths(&c) > 0) {
        errno = EINVAL;
        sl_errprintf(err, "the pod's volume files collide");
        goto out;
    }

    spec = spec_header(&c);
    spec_containers(&c, spec, &summary);
    spec_volumes(&c, spec);
    json_object_set_new(spec, "hosts", tr_hosts_json(&c));
    if (sl_err_nfields(c.errs) > before) {
        errno = EINVAL;
        sl_errprintf(err, "the pod cannot run as specified");
        goto out;
    }
    if (c.missing) {
        errno = ENOENT;
        goto out;
    }

    tr_build_options(&c, &fl, &opts);
    write_script(&c, &opts, &summary, &script);

    sl_translate_result_t *r = sl_xcalloc(1, sizeof(*r));
    r->pod_dir = c.pod_dir;
    c.pod_dir = NULL;
    r->script = sl_buf_steal(&script);
    r->shim_json = json_dumps(spec, JSON_INDENT(2));
    r->shim_json = sl_xrealloc(r->shim_json, strlen(r->shim_json) + 2);
    strcat(r->shim_json, "\n");
    r->options = opts.v;
    r->noptions = opts.n;
    opts.v = NULL;
    opts.n = opts.cap = 0;
    tr_add_file(&c, "job.sh", r->script, strlen(r->script), 0700);
    tr_add_file(&c, "shim.json", r->shim_json, strlen(r->shim_json), 0600);
    result_from(&c, r);
    *out = r;
    rc = 0;
out:
    json_decref(spec);
    sl_flags_free(&fl);
    sl_argv_free(&opts);
    sl_buf_free(&summary);
    sl_buf_free(&script);
    sl_argv_free(&c.prep);
    sl_argv_free(&c.cleanup);
    sl_argv_free(&c.warnings);
    for (size_t i = 0; i < c.nfiles; i++) {
        free(c.files[i].path);
        free(c.files[i].data);
    }
    free(c.files);
    free(c.pod_dir);
    sl_error_free(own);
    return rc;
}

void sl_translate_result_destroy(sl_translate_result_t *r)
{
    if (!r)
        return;
    free(r->pod_dir);
    free(r->script);
    free(r->shim_json);
    for (size_t i = 0; i < r->noptions; i++)
        free(r->options[i]);
    free(r->options);
    for (size_t i = 0; i < r->nfiles; i++) {
        free(r->files[i].path);
        free(r->files[i].data);
    }
    free(r->files);
    for (size_t i = 0; i < r->nwarnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    free(r);
}
