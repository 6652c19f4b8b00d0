/* volumes.c — what each volume becomes: files and folders in the pod folder
 * (written by the caller), or lines the batch script runs on the node before
 * the shim (node-local paths: memory emptyDirs, hostPath checks). */
#include "translate/internal.h"

#include "common/buf.h"
#include "common/quote.h"
#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

char *tr_memory_dir(tr_ctx_t *c)
{
    const char *root =
        c->cfg->memory_root && *c->cfg->memory_root ? c->cfg->memory_root : "/dev/shm";
    return sl_xasprintf("%s/slurmlink-%s", root, c->pod->uid);
}

/* the folder of the volume bound to a claim (the caller resolved it) */
static char *claim_src(tr_ctx_t *c, const sl_pod_volume_t *v)
{
    if (!c->cfg->claims)
        return sl_xasprintf("/persistentvolumeclaims/%s", v->claim_name);
    const char *path =
        json_string_value(json_object_get(json_object_get(c->cfg->claims, v->claim_name), "path"));
    if (path)
        return sl_xstrdup(path);
    tr_missing(c, "persistentvolumeclaim \"%s\" is not bound", v->claim_name);
    return sl_xasprintf("/persistentvolumeclaims/%s", v->claim_name);
}

int tr_claim_read_only(tr_ctx_t *c, const sl_pod_volume_t *v)
{
    return v->type == SL_VOL_PVC &&
           (v->claim_read_only || json_is_true(json_object_get(
                                      json_object_get(c->cfg->claims, v->claim_name), "readOnly")));
}

char *tr_volume_src(tr_ctx_t *c, const sl_pod_volume_t *v)
{
    if (v->type == SL_VOL_HOSTPATH)
        return sl_xstrdup(v->host_path);
    if (v->type == SL_VOL_PVC)
        return claim_src(c, v);
    if (v->type == SL_VOL_EMPTYDIR && v->memory) {
        char *m = tr_memory_dir(c);
        char *s = sl_xasprintf("%s/%s", m, v->name);
        free(m);
        return s;
    }
    return sl_xasprintf("%s/volumes/%s", c->pod_dir, v->name);
}

/* A key becomes a file name: Kubernetes keys are [-._a-zA-Z0-9]+; refuse the rest. */
static int key_ok(const char *k)
{
    return *k && strcmp(k, ".") && strcmp(k, "..") &&
           strspn(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") ==
               strlen(k);
}

/* file at volumes/<vol>/<rel>, with the folders above it */
static void put(tr_ctx_t *c, const char *vol, const char *rel, const char *data, size_t len,
                int mode)
{
    char *path = sl_xasprintf("volumes/%s/%s", vol, rel);
    for (char *s = strchr(path + 9 + strlen(vol), '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        tr_add_dir(c, path);
        *s = '/';
    }
    tr_add_file(c, path, data, len, mode);
    free(path);
}

static void keyed(tr_ctx_t *c, const sl_pod_volume_t *v, const sl_pod_source_t *s)
{
    int secret = s->type == SL_VOL_SECRET;
    const char *what = secret ? "secret" : "configmap";
    const json_t *obj = tr_find(secret ? c->secrets : c->configmaps, s->ref);
    /* secret files are for the job's user alone */
    int mask = secret ? 0700 : 0777;
    if (!obj) {
        if (!s->optional)
            tr_missing(c, "%s %s/%s for volume %s not found", what, c->pod->namespace_, s->ref,
                       v->name);
        return;
    }
    if (s->nitems) {
        for (size_t i = 0; i < s->nitems; i++) {
            char *data;
            size_t len;
            if (!tr_obj_value(obj, secret, s->items[i].key, &data, &len)) {
                if (!s->optional)
                    tr_missing(c, "%s %s/%s has no key %s (volume %s)", what, c->pod->namespace_,
                               s->ref, s->items[i].key, v->name);
                continue;
            }
            int mode = s->items[i].mode >= 0 ? s->items[i].mode : v->default_mode;
            put(c, v->name, s->items[i].path, data, len, mode & mask);
            free(data);
        }
        return;
    }
    size_t nk;
    const char **keys = tr_obj_keys(obj, secret, &nk);
    for (size_t i = 0; i < nk; i++) {
        char *data;
        size_t len;
        if (!key_ok(keys[i])) {
            tr_warn(c, "volume %s: key %s of %s %s is not a valid file name: skipped", v->name,
                    keys[i], what, s->ref);
            continue;
        }
        if (tr_obj_value(obj, secret, keys[i], &data, &len)) {
            put(c, v->name, keys[i], data, len, v->default_mode & mask);
            free(data);
        }
    }
    free(keys);
}

static void dapi(tr_ctx_t *c, const sl_pod_volume_t *v, const sl_pod_source_t *s)
{
    for (size_t i = 0; i < s->ndapi; i++) {
        const sl_pod_dapi_item_t *d = &s->dapi[i];
        char *val = d->field_path ? tr_field_value(c->pod, d->field_path)
                                  : tr_resource_value(c, d->container, d->resource, d->divisor);
        if (!val)
            val = sl_xstrdup("");
        put(c, v->name, d->path, val, strlen(val), d->mode >= 0 ? d->mode : v->default_mode);
        free(val);
    }
}

static void hostpath_prep(tr_ctx_t *c, const sl_pod_volume_t *v)
{
    const char *t = v->host_type;
    char *q = sl_shell_quote(v->host_path);
    if (!strcmp(t, "DirectoryOrCreate")) {
        sl_argv_addf(&c->prep, "mkdir -p -- %s", q);
    } else if (!strcmp(t, "FileOrCreate")) {
        char *dir = sl_xstrdup(v->host_path);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = 0;
            char *qd = sl_shell_quote(dir);
            sl_argv_addf(&c->prep, "mkdir -p -- %s", qd);
            free(qd);
        }
        free(dir);
        sl_argv_addf(&c->prep, "touch -a -- %s", q);
    } else if (*t) {
        static const struct {
            const char *type, *test, *what;
        } checks[] = {{"Directory", "-d", "a directory"},
                      {"File", "-f", "a file"},
                      {"Socket", "-S", "a socket"},
                      {"CharDevice", "-c", "a character device"},
                      {"BlockDevice", "-b", "a block device"}};
        for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
            if (strcmp(t, checks[i].type))
                continue;
            char *msg = sl_xasprintf("slurmlink: hostPath volume %s: %s is not %s on this node",
                                     v->name, v->host_path, checks[i].what);
            char *qm = sl_shell_quote(msg);
            sl_argv_addf(&c->prep, "test %s %s || { echo %s >&2; exit 1; }", checks[i].test, q, qm);
            free(qm);
            free(msg);
        }
    }
    free(q);
}

/* A file that another entry is inside of: the folder could not hold both
 * (a later projection, or item paths of different sources). Field errors;
 * their number. */
int tr_check_paths(tr_ctx_t *c)
{
    int n = 0;
    for (size_t i = 0; i < c->nfiles; i++) {
        const char *f = c->files[i].path;
        size_t len = strlen(f);
        for (size_t j = 0; c->files[i].data && j < c->nfiles; j++) {
            const char *g = c->files[j].path;
            if (strncmp(f, g, len) || g[len] != '/')
                continue;
            char *d = sl_xasprintf("is inside the file %s: a path cannot be both a file and a "
                                   "folder",
                                   f);
            sl_err_invalid(c->errs, g, d, "spec.volumes");
            free(d);
            n++;
            break;
        }
    }
    return n;
}

int tr_volumes(tr_ctx_t *c)
{
    const sl_pod_t *p = c->pod;
    int memory = 0;
    if (p->nvolumes)
        tr_add_dir(c, "volumes");
    for (size_t i = 0; i < p->nvolumes; i++) {
        const sl_pod_volume_t *v = &p->volumes[i];
        char *rel = sl_xasprintf("volumes/%s", v->name);
        switch (v->type) {
        case SL_VOL_EMPTYDIR:
            if (v->memory) {
                char *src = tr_volume_src(c, v), *q = sl_shell_quote(src);
                if (!memory++) {
                    /* pod uids are public: a folder that exists was made by
                     * someone else (or an earlier run), so refuse it; made
                     * here, atomically 0700, by the job's user */
                    char *m = tr_memory_dir(c), *qm = sl_shell_quote(m);
                    char *msg = sl_xasprintf("slurmlink: cannot create %s for the pod's memory "
                                             "emptyDirs (it must not exist already)",
                                             m);
                    char *qmsg = sl_shell_quote(msg);
                    sl_argv_add(&c->cleanup, m);
                    sl_argv_addf(&c->prep, "mkdir -m 0700 -- %s || { echo %s >&2; exit 1; }", qm,
                                 qmsg);
                    free(qmsg);
                    free(msg);
                    free(qm);
                    free(m);
                }
                sl_argv_addf(&c->prep, "mkdir -m 0700 -- %s || exit 1", q);
                free(q);
                free(src);
                if (v->size_limit >= 0)
                    tr_warn(c,
                            "volume %s: emptyDir sizeLimit is not enforced (memory counts "
                            "against the job's --mem)",
                            v->name);
            } else {
                tr_add_dir(c, rel);
                if (v->size_limit >= 0)
                    tr_warn(c, "volume %s: emptyDir sizeLimit is not enforced", v->name);
            }
            break;
        case SL_VOL_HOSTPATH: hostpath_prep(c, v); break;
        case SL_VOL_PVC:
            if (!c->cfg->claims)
                tr_warn(c, "volume %s: slurmlinkd mounts the folder of claim %s's volume here",
                        v->name, v->claim_name);
            break;
        default:
            tr_add_dir(c, rel);
            for (size_t s = 0; s < v->nsources; s++) {
                const sl_pod_source_t *src = &v->sources[s];
                if (src->type == SL_VOL_CONFIGMAP || src->type == SL_VOL_SECRET) {
                    keyed(c, v, src);
                } else if (src->type == SL_VOL_DOWNWARDAPI) {
                    dapi(c, v, src);
                } else if (src->type == SL_VOL_SATOKEN) {
                    const char *tok = c->cfg->service_account_token;
                    if (!tok) {
                        tok = "";
                        tr_warn(c,
                                "volume %s: no service account token is issued for this pod; "
                                "%s is empty",
                                v->name, src->sa_path);
                    }
                    put(c, v->name, src->sa_path, tok, strlen(tok), v->default_mode & 0700);
                }
            }
            break;
        }
        free(rel);
    }
    return 0;
}
