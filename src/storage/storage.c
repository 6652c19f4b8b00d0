/* storage.c — the site's StorageClasses (one YAML file) and the folders of
 * their volumes (storage.h). */
#include "storage/storage.h"

#include "common/fsutil.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "kube/quantity.h"
#include "pod/yamljson.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define MODES_MAX 4

struct sl_storage_class {
    char *name, *root, *reclaim, *binding;
    int is_default;
    char *modes[MODES_MAX + 1];
    int64_t max_claim, max_ns; /* -1: unlimited */
    char *max_claim_text, *max_ns_text;
};

struct sl_storage {
    sl_storage_class_t *v;
    size_t n;
};

static const char *const all_modes[] = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany",
                                        "ReadWriteOncePod", NULL};

static int one_of(const char *s, const char *const *set)
{
    for (size_t i = 0; s && set[i]; i++)
        if (!strcmp(s, set[i]))
            return 1;
    return 0;
}

static void class_free(sl_storage_class_t *k)
{
    free(k->name);
    free(k->root);
    free(k->reclaim);
    free(k->binding);
    free(k->max_claim_text);
    free(k->max_ns_text);
    for (int i = 0; k->modes[i]; i++)
        free(k->modes[i]);
}

void sl_storage_destroy(sl_storage_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        class_free(&s->v[i]);
    free(s->v);
    free(s);
}

/* a string key of class i: its value (NULL when absent), -1 when not a string */
static int str_key(const json_t *o, const char *key, size_t i, const char **out, sl_error_t *err)
{
    json_t *v = json_object_get(o, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return sl_errprintf(err, "classes[%zu].%s: must be a string", i, key);
    *out = json_string_value(v);
    return 0;
}

static int size_key(const json_t *o, const char *key, size_t i, int64_t *bytes, char **text,
                    sl_error_t *err)
{
    json_t *v = json_object_get(o, key);
    *bytes = -1;
    if (!v || json_is_null(v))
        return 0;
    sl_quantity_t q;
    sl_error_t qe = SL_ERROR_INIT;
    if (sl_quantity_from_json(v, &q, NULL, &qe) < 0 || sl_quantity_sign(&q) <= 0 ||
        sl_quantity_ceil_div(&q, 1, bytes) < 0)
        return sl_errprintf(err, "classes[%zu].%s: must be a positive quantity such as 100Gi", i,
                            key);
    *text = sl_quantity_string(&q);
    return 0;
}

static int modes_key(const json_t *o, size_t i, sl_storage_class_t *k, sl_error_t *err)
{
    json_t *a = json_object_get(o, "accessModes");
    if (!a || json_is_null(a)) {
        for (int m = 0; all_modes[m]; m++)
            k->modes[m] = sl_xstrdup(all_modes[m]);
        return 0;
    }
    if (!json_is_array(a) || !json_array_size(a) || json_array_size(a) > MODES_MAX)
        return sl_errprintf(err, "classes[%zu].accessModes: must be a list of 1 to 4 modes", i);
    for (size_t m = 0; m < json_array_size(a); m++) {
        const char *s = json_string_value(json_array_get(a, m));
        if (!one_of(s, all_modes))
            return sl_errprintf(err,
                                "classes[%zu].accessModes[%zu]: must be ReadWriteOnce, "
                                "ReadOnlyMany, ReadWriteMany or ReadWriteOncePod",
                                i, m);
        k->modes[m] = sl_xstrdup(s);
    }
    return 0;
}

/* the root: absolute, and (checked again at every use) root's and not
 * writable by others */
static int root_key(const char *root, size_t i, sl_error_t *err)
{
    if (!root || root[0] != '/')
        return sl_errprintf(err, "classes[%zu].root: must be an absolute path", i);
    sl_error_t e = SL_ERROR_INIT;
    int fd = sl_safefs_open_trusted_dir(root, 0, &e);
    if (fd < 0)
        return sl_errprintf(err, "classes[%zu].root: %s", i, e.text);
    close(fd);
    return 0;
}

static int parse_class(const json_t *o, size_t i, sl_storage_class_t *k, sl_error_t *err)
{
    static const char *const reclaims[] = {"Delete", "Retain", NULL};
    static const char *const bindings[] = {"Immediate", "WaitForFirstConsumer", NULL};
    const char *name, *root, *reclaim, *binding;
    if (!json_is_object(o))
        return sl_errprintf(err, "classes[%zu]: must be a mapping", i);
    if (str_key(o, "name", i, &name, err) < 0 || str_key(o, "root", i, &root, err) < 0 ||
        str_key(o, "reclaimPolicy", i, &reclaim, err) < 0 ||
        str_key(o, "volumeBindingMode", i, &binding, err) < 0)
        return -1;
    if (!name || !*name || strlen(name) > 253 ||
        strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-.") != strlen(name))
        return sl_errprintf(err, "classes[%zu].name: must be a DNS subdomain (a-z, 0-9, '-', '.')",
                            i);
    if (reclaim && !one_of(reclaim, reclaims))
        return sl_errprintf(err, "classes[%zu].reclaimPolicy: must be Delete or Retain", i);
    if (binding && !one_of(binding, bindings))
        return sl_errprintf(
            err, "classes[%zu].volumeBindingMode: must be Immediate or WaitForFirstConsumer", i);
    if (root_key(root, i, err) < 0)
        return -1;
    k->name = sl_xstrdup(name);
    k->root = sl_xstrdup(root);
    k->reclaim = sl_xstrdup(reclaim ? reclaim : "Delete");
    k->binding = sl_xstrdup(binding ? binding : "Immediate");
    json_t *d = json_object_get(o, "default");
    if (d && !json_is_boolean(d))
        return sl_errprintf(err, "classes[%zu].default: must be true or false", i);
    k->is_default = json_is_true(d);
    if (modes_key(o, i, k, err) < 0 ||
        size_key(o, "maxClaimSize", i, &k->max_claim, &k->max_claim_text, err) < 0 ||
        size_key(o, "maxNamespaceSize", i, &k->max_ns, &k->max_ns_text, err) < 0)
        return -1;
    return 0;
}

static int parse_all(const json_t *doc, sl_storage_t *s, sl_error_t *err)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)doc, k, v)
    {
        if (strcmp(k, "classes"))
            return sl_errprintf(err, "%s: unknown key (only classes)", k);
    }
    json_t *a = json_object_get(doc, "classes");
    if (a && !json_is_array(a))
        return sl_errprintf(err, "classes: must be a list");
    s->v = sl_xcalloc(json_array_size(a) + 1, sizeof(*s->v));
    int defaults = 0;
    for (size_t i = 0; i < json_array_size(a); i++) {
        sl_storage_class_t *c = &s->v[s->n++];
        if (parse_class(json_array_get(a, i), i, c, err) < 0)
            return -1;
        for (size_t j = 0; j + 1 < s->n; j++)
            if (!strcmp(s->v[j].name, c->name))
                return sl_errprintf(err, "classes[%zu].name: %s is named twice", i, c->name);
        defaults += c->is_default;
    }
    if (defaults > 1)
        return sl_errprintf(err, "classes: at most one class may be the default");
    return 0;
}

sl_storage_t *sl_storage_load(const char *file, sl_error_t *err)
{
    sl_storage_t *s = sl_xcalloc(1, sizeof(*s));
    if (!file)
        return s;
    size_t len = 0;
    char *text = sl_read_file(file, &len, err);
    if (!text) {
        sl_storage_destroy(s);
        return NULL;
    }
    json_t *docs = sl_yaml_to_json(text, len, err);
    free(text);
    json_t *doc = json_array_get(docs, 0);
    int rc = !docs ? -1
             : json_array_size(docs) > 1 || (doc && !json_is_object(doc))
                 ? sl_errprintf(err, "must be one mapping with a classes: list")
                 : parse_all(doc, s, err);
    json_decref(docs);
    if (rc < 0) {
        sl_errprefix(err, "%s", file);
        sl_storage_destroy(s);
        return NULL;
    }
    return s;
}

static _Atomic(sl_storage_t *) current;

void sl_storage_set_current(sl_storage_t *s) { atomic_store(&current, s); }
const sl_storage_t *sl_storage_current(void) { return atomic_load(&current); }

size_t sl_storage_count(const sl_storage_t *s) { return s ? s->n : 0; }
const sl_storage_class_t *sl_storage_at(const sl_storage_t *s, size_t i)
{
    return s && i < s->n ? &s->v[i] : NULL;
}

const sl_storage_class_t *sl_storage_find(const sl_storage_t *s, const char *name)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (name && *name ? !strcmp(s->v[i].name, name) : s->v[i].is_default)
            return &s->v[i];
    return NULL;
}

const char *sl_storage_class_name(const sl_storage_class_t *k) { return k->name; }
const char *sl_storage_class_root(const sl_storage_class_t *k) { return k->root; }
const char *sl_storage_class_reclaim(const sl_storage_class_t *k) { return k->reclaim; }
const char *sl_storage_class_binding(const sl_storage_class_t *k) { return k->binding; }
int64_t sl_storage_class_max_claim(const sl_storage_class_t *k) { return k->max_claim; }
int64_t sl_storage_class_max_namespace(const sl_storage_class_t *k) { return k->max_ns; }

int sl_storage_class_allows(const sl_storage_class_t *k, const char *mode)
{
    return one_of(mode, (const char *const *)k->modes);
}

json_t *sl_storage_class_object(const sl_storage_class_t *k)
{
    json_t *modes = json_array();
    for (int i = 0; k->modes[i]; i++)
        json_array_append_new(modes, json_string(k->modes[i]));
    json_t *params = json_pack("{s:s,s:o}", "root", k->root, "accessModes", modes);
    if (k->max_claim_text)
        json_object_set_new(params, "maxClaimSize", json_string(k->max_claim_text));
    if (k->max_ns_text)
        json_object_set_new(params, "maxNamespaceSize", json_string(k->max_ns_text));
    json_t *o =
        json_pack("{s:s,s:s,s:{s:s},s:s,s:o,s:s,s:s,s:b}", "apiVersion", "storage.k8s.io/v1",
                  "kind", "StorageClass", "metadata", "name", k->name, "provisioner",
                  "slurmlink.io/shared-folder", "parameters", params, "reclaimPolicy", k->reclaim,
                  "volumeBindingMode", k->binding, "allowVolumeExpansion", 0);
    if (k->is_default)
        json_object_set_new(
            json_object_get(o, "metadata"), "annotations",
            json_pack("{s:s}", "storageclass.kubernetes.io/is-default-class", "true"));
    return o;
}

/* ---- folders ---- */

static int name_ok(const char *name)
{
    return name && *name && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

int sl_storage_make_dir(const char *root, const char *name, uid_t uid, gid_t gid, sl_error_t *err)
{
    if (!name_ok(name))
        return sl_errprintf(err, "%s: not a folder name", name ? name : "(null)");
    int rfd = sl_safefs_open_trusted_dir(root, 0, err);
    if (rfd < 0)
        return -1;
    int fd = sl_safefs_mkdir_excl(rfd, name, 0700, err);
    int rc = -1;
    struct stat st;
    if (fd < 0 && errno == EEXIST) {
        /* made before a crash: only a folder (not a link) of this user will do */
        sl_error_clear(err);
        if (fstatat(rfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
            st.st_uid == uid)
            rc = 0;
        else
            sl_errprintf(err, "%s/%s exists and is not a folder of uid %u", root, name,
                         (unsigned)uid);
    } else if (fd >= 0) {
        if (fchown(fd, uid, gid) < 0 || fchmod(fd, 0700) < 0)
            sl_errprintf(err, "%s/%s: %s", root, name, strerror(errno));
        else
            rc = 0;
        close(fd);
        if (rc < 0)
            unlinkat(rfd, name, AT_REMOVEDIR);
    }
    close(rfd);
    return rc;
}

typedef struct as_user {
    uid_t uid;
    gid_t gid;
} as_user_t;

/* the child's identity: the folder's owner, no supplementary groups; only
 * system calls (sl_spawn_opts_t.child_setup) */
static int drop_to(void *arg)
{
    const as_user_t *u = arg;
    if (setgroups(0, NULL) < 0 || setresgid(u->gid, u->gid, u->gid) < 0 ||
        setresuid(u->uid, u->uid, u->uid) < 0 || chdir("/") < 0)
        return 1;
    return 0;
}

/* what is inside root/name, deleted by uid:gid (find -P never follows a
 * symlink; as that user it can remove nothing the user could not) */
static int empty_as(const char *root, const char *name, uid_t uid, gid_t gid, sl_error_t *err)
{
    char *path = sl_xasprintf("%s/%s", root, name);
    const char *argv[] = {"find", "-P", path, "-xdev", "-mindepth", "1", "-delete", NULL};
    as_user_t u = {uid, gid};
    const char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    sl_spawn_opts_t o = {.envp = envp, .stdin_null = 1, .child_setup = drop_to, .child_arg = &u};
    pid_t pid = sl_spawn(argv, &o, err);
    free(path);
    if (pid < 0)
        return -1;
    int st = 0;
    if (sl_wait_timeout(pid, 600000, &st) < 0) {
        kill(pid, SIGKILL);
        sl_wait_timeout(pid, -1, &st);
        return sl_errprintf(err, "removing the contents of %s/%s took over 10 minutes", root, name);
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        return sl_errprintf(err, "removing the contents of %s/%s as uid %u failed", root, name,
                            (unsigned)uid);
    return 0;
}

int sl_storage_remove_dir(const char *root, const char *name, uid_t uid, gid_t gid, sl_error_t *err)
{
    if (!name_ok(name))
        return sl_errprintf(err, "%s: not a folder name", name ? name : "(null)");
    int rfd = sl_safefs_open_trusted_dir(root, 0, err);
    if (rfd < 0)
        return -1;
    struct stat st;
    int rc = -1;
    if (fstatat(rfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        rc = errno == ENOENT ? 0 : sl_errprintf(err, "%s/%s: %s", root, name, strerror(errno));
    } else if (!S_ISDIR(st.st_mode) || st.st_uid != uid) {
        /* not what was made for the claim: left alone */
        sl_errprintf(err, "%s/%s: not a folder of uid %u; left as it is", root, name,
                     (unsigned)uid);
    } else if (empty_as(root, name, uid, gid, err) == 0) {
        if (unlinkat(rfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
            rc = 0;
        else
            sl_errprintf(err, "%s/%s: %s", root, name, strerror(errno));
    }
    close(rfd);
    return rc;
}

int sl_storage_fs_usage(const char *root, const char *name, int64_t *used, int64_t *total)
{
    sl_error_t e = SL_ERROR_INIT;
    int rfd = sl_safefs_open_trusted_dir(root, 0, &e);
    if (rfd < 0)
        return -1;
    int fd = !name ? rfd : name_ok(name) ? sl_safefs_opendir(rfd, name) : -1;
    if (fd != rfd)
        close(rfd);
    if (fd < 0)
        return -1;
    struct statfs sf;
    int rc = fstatfs(fd, &sf);
    close(fd);
    if (rc < 0)
        return -1;
    *total = (int64_t)sf.f_blocks * (int64_t)sf.f_frsize;
    *used = (int64_t)(sf.f_blocks - sf.f_bfree) * (int64_t)sf.f_frsize;
    return 0;
}
