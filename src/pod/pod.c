/* pod.c — Pod JSON → sl_pod_t, validating as kube-apiserver does
 * (ValidatePodCreate: object meta, containers, init containers, volumes). */
#include "pod/internal.h"

#include "common/xalloc.h"
#include "image/image.h"
#include "kube/meta.h"
#include "runtime/runtime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct pod_priv {
    void **allocs;
    size_t n, cap;
    json_t *ref;
} pod_priv_t;

void *pod_alloc(sl_pod_t *pod, size_t n, size_t size)
{
    pod_priv_t *p = pod->priv_;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 32;
        p->allocs = sl_xrealloc(p->allocs, p->cap * sizeof(void *));
    }
    return p->allocs[p->n++] = sl_xcalloc(n ? n : 1, size);
}

/* ---------- metadata ---------- */

static void parse_meta(pod_ctx_t *c, const json_t *meta)
{
    sl_pod_t *p = c->pod;
    p->name = pod_str(c, meta, "name", "metadata");
    p->generate_name = pod_str(c, meta, "generateName", "metadata");
    p->namespace_ = pod_str(c, meta, "namespace", "metadata");
    p->uid = pod_str(c, meta, "uid", "metadata");
    if (!p->name || !*p->name) {
        if (!p->generate_name || !*p->generate_name)
            sl_err_required(c->errs, "name or generateName is required", "metadata.name");
    } else {
        sl_validate_dns1123_subdomain(c->errs, "metadata.name", p->name);
    }
    if (p->namespace_ && *p->namespace_)
        sl_validate_dns1123_label(c->errs, "metadata.namespace", p->namespace_);
    p->labels = pod_strmap(c, meta, "labels", "metadata", &p->nlabels);
    for (size_t i = 0; i < p->nlabels; i++) {
        sl_validate_qualified_name(c->errs, "metadata.labels", p->labels[i].key);
        sl_validate_label_value(c->errs, "metadata.labels", p->labels[i].value);
    }
    p->annotations = pod_strmap(c, meta, "annotations", "metadata", &p->nannotations);
    size_t total = 0;
    for (size_t i = 0; i < p->nannotations; i++) {
        char *lower = sl_xstrdup(p->annotations[i].key);
        for (char *q = lower; *q; q++)
            if (*q >= 'A' && *q <= 'Z')
                *q = (char)(*q - 'A' + 'a');
        /* Kubernetes checks the lower-cased key but reports the original */
        sl_error_t *tmp = sl_error_new_invalid();
        if (sl_validate_qualified_name(tmp, "metadata.annotations", lower))
            for (size_t j = 0; j < sl_err_nfields(tmp); j++)
                sl_err_invalid(c->errs, p->annotations[i].key, sl_err_fieldat(tmp, j)->detail,
                               "metadata.annotations");
        sl_error_free(tmp);
        free(lower);
        total += strlen(p->annotations[i].key) + strlen(p->annotations[i].value);
    }
    if (total > 256 * 1024)
        sl_err_field(c->errs, SL_FE_TOO_LONG, "metadata.annotations", "",
                     "may not be more than 262144 bytes");
}

/* ---------- containers ---------- */

static const char *const *str_list(pod_ctx_t *c, const json_t *o, const char *key, const char *path,
                                   size_t *n)
{
    const json_t *a = pod_arr(c, o, key, path);
    *n = 0;
    if (!a)
        return NULL;
    const char **v = pod_alloc(c->pod, json_array_size(a) + 1, sizeof(char *));
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *s = json_array_get(a, i);
        if (!json_is_string(s)) {
            char *k = sl_xasprintf("%s[%zu]", key, i);
            pod_type_error(c, s, path, k, "string");
            free(k);
            continue;
        }
        v[(*n)++] = json_string_value(s);
    }
    return v;
}

static const char *const field_paths[] = {"metadata.name",
                                          "metadata.namespace",
                                          "metadata.uid",
                                          "metadata.labels",
                                          "metadata.annotations",
                                          "spec.nodeName",
                                          "spec.serviceAccountName",
                                          "status.hostIP",
                                          "status.hostIPs",
                                          "status.podIP",
                                          "status.podIPs",
                                          NULL};

/* metadata.labels['k'] / metadata.annotations['k'] and the plain paths. */
static int valid_field_path(const char *fp, int env)
{
    for (int i = 0; field_paths[i]; i++)
        if (!strcmp(fp, field_paths[i]))
            return !env || (strcmp(fp, "metadata.labels") && strcmp(fp, "metadata.annotations"));
    const char *pre[] = {"metadata.labels['", "metadata.annotations['"};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(pre[i]), l = strlen(fp);
        if (l > n + 2 && !strncmp(fp, pre[i], n) && !strcmp(fp + l - 2, "']"))
            return 1;
    }
    return 0;
}

/* env[i].valueFrom: exactly one source, and no value beside it */
static void env_value_from(pod_ctx_t *c, const json_t *from, const char *vf, const char *value,
                           sl_pod_env_t *ev)
{
    int nsrc = 0;
    const json_t *r;
    if ((r = pod_obj(c, from, "fieldRef", vf))) {
        char *fp = sl_xasprintf("%s.fieldRef", vf);
        nsrc++;
        ev->src = SL_ENV_FIELD;
        ev->key = pod_str(c, r, "fieldPath", fp);
        if (!ev->key || !*ev->key) {
            sl_err_required(c->errs, NULL, "%s.fieldPath", fp);
        } else if (!valid_field_path(ev->key, 1)) {
            sl_err_not_supported(
                c->errs, ev->key,
                (const char *const[]){"metadata.name", "metadata.namespace", "metadata.uid",
                                      "spec.nodeName", "spec.serviceAccountName", "status.hostIP",
                                      "status.hostIPs", "status.podIP", "status.podIPs", NULL},
                "%s.fieldPath", fp);
        }
        free(fp);
    }
    if ((r = pod_obj(c, from, "resourceFieldRef", vf))) {
        char *fp = sl_xasprintf("%s.resourceFieldRef", vf);
        nsrc++;
        ev->src = SL_ENV_RESOURCE_FIELD;
        ev->key = pod_str(c, r, "resource", fp);
        ev->container = pod_str(c, r, "containerName", fp);
        const json_t *d = json_object_get(r, "divisor");
        ev->divisor = d && json_is_string(d) ? json_string_value(d) : NULL;
        if (!ev->key || !*ev->key)
            sl_err_required(c->errs, NULL, "%s.resource", fp);
        free(fp);
    }
    const char *kinds[2] = {"configMapKeyRef", "secretKeyRef"};
    for (int j = 0; j < 2; j++) {
        if (!(r = pod_obj(c, from, kinds[j], vf)))
            continue;
        char *fp = sl_xasprintf("%s.%s", vf, kinds[j]);
        nsrc++;
        ev->src = j ? SL_ENV_SECRET_KEY : SL_ENV_CONFIGMAP_KEY;
        ev->ref = pod_str(c, r, "name", fp);
        ev->key = pod_str(c, r, "key", fp);
        ev->optional = pod_bool(c, r, "optional", fp, 0);
        if (!ev->key || !*ev->key)
            sl_err_required(c->errs, NULL, "%s.key", fp);
        else if (!sl_kube_is_dns1123_subdomain(ev->key) && ev->key[0] != '.' &&
                 strspn(ev->key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789-._") != strlen(ev->key))
            sl_err_invalid(c->errs, ev->key,
                           "a valid config key must consist of alphanumeric characters, "
                           "'-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
                           "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
                           "%s.key", fp);
        if (!ev->ref || !*ev->ref)
            sl_err_required(c->errs, NULL, "%s.name", fp);
        free(fp);
    }
    if (nsrc == 0)
        sl_err_invalid(c->errs, "",
                       "must specify one of: `fieldRef`, `resourceFieldRef`, "
                       "`configMapKeyRef` or `secretKeyRef`",
                       "%s", vf);
    else if (nsrc > 1)
        sl_err_invalid(c->errs, "", "may not have more than one field specified at a time", "%s",
                       vf);
    if (value && *value)
        sl_err_invalid(c->errs, "", "may not be specified when `value` is not empty", "%s", vf);
}

/* env[i] at path p */
static void env_var(pod_ctx_t *c, const json_t *e, const char *p, sl_pod_env_t *ev)
{
    char *vf = sl_xasprintf("%s.valueFrom", p);
    ev->name = pod_str(c, e, "name", p);
    if (!ev->name || !*ev->name) {
        sl_err_required(c->errs, NULL, "%s.name", p);
        ev->name = "";
    } else {
        char *np = sl_xasprintf("%s.name", p);
        sl_validate_env_name(c->errs, np, ev->name);
        free(np);
    }
    const char *value = pod_str(c, e, "value", p);
    const json_t *from = pod_obj(c, e, "valueFrom", p);
    ev->src = SL_ENV_VALUE;
    ev->value = value ? value : "";
    if (from)
        env_value_from(c, from, vf, value, ev);
    free(vf);
}

/* envFrom: whole ConfigMaps or Secrets, with an optional prefix */
static void parse_env_from(pod_ctx_t *c, const json_t *ctr, const char *cpath,
                           sl_pod_container_t *k)
{
    char *fpath = sl_xasprintf("%s.envFrom", cpath);
    const json_t *a = pod_arr(c, ctr, "envFrom", cpath);
    k->env_from = pod_alloc(c->pod, a ? json_array_size(a) : 0, sizeof(sl_pod_envfrom_t));
    for (size_t i = 0; a && i < json_array_size(a); i++) {
        const json_t *e = json_array_get(a, i);
        char *p = sl_xasprintf("%s[%zu]", fpath, i);
        sl_pod_envfrom_t *ef = &k->env_from[k->nenv_from++];
        const json_t *cm = pod_obj(c, e, "configMapRef", p), *sec = pod_obj(c, e, "secretRef", p);
        ef->prefix = pod_str(c, e, "prefix", p);
        if (!ef->prefix)
            ef->prefix = "";
        if (*ef->prefix) {
            char *pp = sl_xasprintf("%s.prefix", p);
            sl_validate_env_name(c->errs, pp, ef->prefix);
            free(pp);
        }
        if (cm && sec) {
            sl_err_invalid(c->errs, "", "may not have more than one field specified at a time",
                           "%s", p);
        } else if (!cm && !sec) {
            sl_err_invalid(c->errs, "", "must specify one of: `configMapRef` or `secretRef`", "%s",
                           p);
        }
        const json_t *r = cm ? cm : sec;
        if (r) {
            char *rp = sl_xasprintf("%s.%s", p, cm ? "configMapRef" : "secretRef");
            ef->secret = !cm;
            ef->ref = pod_str(c, r, "name", rp);
            ef->optional = pod_bool(c, r, "optional", rp, 0);
            if (!ef->ref || !*ef->ref)
                sl_err_required(c->errs, NULL, "%s.name", rp);
            else
                sl_validate_dns1123_subdomain(c->errs, rp, ef->ref);
            free(rp);
        }
        free(p);
    }
    free(fpath);
}

static void parse_env(pod_ctx_t *c, const json_t *ctr, const char *cpath, sl_pod_container_t *k)
{
    char *epath = sl_xasprintf("%s.env", cpath);
    const json_t *a = pod_arr(c, ctr, "env", cpath);
    k->env = pod_alloc(c->pod, a ? json_array_size(a) : 0, sizeof(sl_pod_env_t));
    for (size_t i = 0; a && i < json_array_size(a); i++) {
        char *p = sl_xasprintf("%s[%zu]", epath, i);
        env_var(c, json_array_get(a, i), p, &k->env[k->nenv++]);
        free(p);
    }
    free(epath);
    parse_env_from(c, ctr, cpath, k);
}

static void parse_mounts(pod_ctx_t *c, const json_t *ctr, const char *cpath, sl_pod_container_t *k,
                         const json_t *volumes)
{
    char *mpath = sl_xasprintf("%s.volumeMounts", cpath);
    const json_t *a = pod_arr(c, ctr, "volumeMounts", cpath);
    k->mounts = pod_alloc(c->pod, a ? json_array_size(a) : 0, sizeof(sl_pod_mount_t));
    for (size_t i = 0; a && i < json_array_size(a); i++) {
        const json_t *m = json_array_get(a, i);
        char *p = sl_xasprintf("%s[%zu]", mpath, i);
        sl_pod_mount_t *mt = &k->mounts[k->nmounts++];
        mt->name = pod_str(c, m, "name", p);
        mt->mount_path = pod_str(c, m, "mountPath", p);
        mt->sub_path = pod_str(c, m, "subPath", p);
        mt->sub_path_expr = pod_str(c, m, "subPathExpr", p);
        mt->read_only = pod_bool(c, m, "readOnly", p, 0);
        if (!mt->sub_path)
            mt->sub_path = "";
        if (!mt->sub_path_expr)
            mt->sub_path_expr = "";
        if (!mt->name || !*mt->name) {
            sl_err_required(c->errs, NULL, "%s.name", p);
            mt->name = "";
        } else {
            int found = 0;
            for (size_t j = 0; volumes && j < json_array_size(volumes) && !found; j++) {
                const json_t *n = json_object_get(json_array_get(volumes, j), "name");
                found = json_is_string(n) && !strcmp(json_string_value(n), mt->name);
            }
            if (!found)
                sl_err_not_found(c->errs, mt->name, "%s.name", p);
        }
        if (!mt->mount_path || !*mt->mount_path) {
            sl_err_required(c->errs, NULL, "%s.mountPath", p);
            mt->mount_path = "";
        } else {
            for (size_t j = 0; j + 1 < k->nmounts; j++)
                if (!strcmp(k->mounts[j].mount_path, mt->mount_path)) {
                    sl_err_invalid(c->errs, mt->mount_path, "must be unique", "%s.mountPath", p);
                    break;
                }
        }
        if (*mt->sub_path) {
            char *sp = sl_xasprintf("%s.subPath", p);
            pod_check_relpath(c, mt->sub_path, sp);
            free(sp);
        }
        if (*mt->sub_path_expr) {
            char *sp = sl_xasprintf("%s.subPathExpr", p);
            if (*mt->sub_path)
                sl_err_invalid(c->errs, mt->sub_path_expr,
                               "subPathExpr and subPath are mutually exclusive", "%s", sp);
            pod_check_relpath(c, mt->sub_path_expr, sp);
            free(sp);
        }
        free(p);
    }
    free(mpath);
}

static int host_runtime(const sl_pod_t *p)
{
    const char *rt = sl_pod_annotation(p, SL_ANN_RUNTIME);
    return rt && !strcmp(rt, "host");
}

static void parse_container(pod_ctx_t *c, const json_t *ctr, const char *listname, size_t idx,
                            sl_pod_container_t *k, const json_t *volumes, const json_t *psc)
{
    char *path = sl_xasprintf("spec.%s[%zu]", listname, idx);
    k->init = !strcmp(listname, "initContainers");
    k->index = (int)idx;
    if (!json_is_object(ctr)) {
        pod_type_error(c, ctr, "spec", path + 5, "object");
        free(path);
        k->name = "";
        return;
    }
    k->name = pod_str(c, ctr, "name", path);
    if (!k->name || !*k->name) {
        sl_err_required(c->errs, NULL, "%s.name", path);
        k->name = "";
    } else {
        char *np = sl_xasprintf("%s.name", path);
        sl_validate_dns1123_label(c->errs, np, k->name);
        free(np);
    }
    k->image = pod_str(c, ctr, "image", path);
    if (k->image && !*k->image)
        k->image = NULL;
    if (!k->image && !host_runtime(c->pod))
        sl_err_required(c->errs, NULL, "%s.image", path);
    const char *why = k->image && !sl_runtime_image_has_scheme(k->image)
                          ? sl_image_ref_reason(k->image)
                          : NULL; /* docker://, oras://, a .sif path: the runtime's */
    if (why)
        sl_err_invalid(c->errs, k->image, why, "%s.image", path);
    k->working_dir = pod_str(c, ctr, "workingDir", path);
    k->command = (const char **)str_list(c, ctr, "command", path, &k->ncommand);
    k->args = (const char **)str_list(c, ctr, "args", path, &k->nargs);
    k->image_pull_policy = pod_str(c, ctr, "imagePullPolicy", path);
    if (k->image_pull_policy && strcmp(k->image_pull_policy, "Always") &&
        strcmp(k->image_pull_policy, "IfNotPresent") && strcmp(k->image_pull_policy, "Never"))
        sl_err_not_supported(c->errs, k->image_pull_policy,
                             (const char *const[]){"Always", "IfNotPresent", "Never", NULL},
                             "%s.imagePullPolicy", path);
    k->tty = pod_bool(c, ctr, "tty", path, 0);
    k->stdin_open = pod_bool(c, ctr, "stdin", path, 0);
    k->stdin_once = pod_bool(c, ctr, "stdinOnce", path, 0);
    k->restart_policy = pod_str(c, ctr, "restartPolicy", path);
    if (k->restart_policy) {
        if (!k->init)
            sl_err_forbidden(c->errs, "may not be set for non-init containers", "%s.restartPolicy",
                             path);
        else if (strcmp(k->restart_policy, "Always"))
            sl_err_not_supported(c->errs, k->restart_policy, (const char *const[]){"Always", NULL},
                                 "%s.restartPolicy", path);
    }
    parse_env(c, ctr, path, k);
    parse_mounts(c, ctr, path, k, volumes);
    pod_parse_probes(c, ctr, path, k);
    pod_parse_resources(c, ctr, path, &k->res);
    char *scp = sl_xasprintf("%s.securityContext", path);
    const json_t *sc = pod_obj(c, ctr, "securityContext", path);
    k->run_as_user = pod_int(c, sc, "runAsUser", scp,
                             pod_int(c, psc, "runAsUser", "spec.securityContext", SL_POD_UNSET));
    k->read_only_root = pod_bool(c, sc, "readOnlyRootFilesystem", scp, 0);
    k->run_as_non_root = pod_bool(c, sc, "runAsNonRoot", scp,
                                  pod_bool(c, psc, "runAsNonRoot", "spec.securityContext", 0));
    k->run_as_group = pod_int(c, sc, "runAsGroup", scp,
                              pod_int(c, psc, "runAsGroup", "spec.securityContext", SL_POD_UNSET));
    const char *ids[2] = {"runAsUser", "runAsGroup"};
    for (int i = 0; i < 2; i++) {
        const json_t *x = sc ? json_object_get(sc, ids[i]) : NULL;
        int64_t v = json_is_integer(x) ? (int64_t)json_integer_value(x) : 0;
        if (v < 0 || v > 2147483647) {
            char *fp = sl_xasprintf("%s.%s", scp, ids[i]);
            sl_err_field_int(c->errs, SL_FE_INVALID, fp, v,
                             "must be between 0 and 2147483647, inclusive");
            free(fp);
        }
    }
    free(scp);
    free(path);
}

/* ---------- the pod ---------- */

static const char *const restart_policies[] = {"Always", "OnFailure", "Never", NULL};

sl_pod_t *sl_pod_parse(json_t *json, sl_error_t *errs)
{
    sl_pod_t *p = sl_xcalloc(1, sizeof(*p));
    pod_priv_t *priv = sl_xcalloc(1, sizeof(*priv));
    sl_error_t *own = errs ? NULL : sl_error_new_invalid();
    pod_ctx_t c = {p, errs ? errs : own};
    size_t before = sl_err_nfields(c.errs);
    p->priv_ = priv;
    priv->ref = json_incref(json);
    p->json = json;
    if (!json_is_object(json)) {
        sl_err_invalid(c.errs, "", "must be a JSON object", "<root>");
        goto done;
    }
    parse_meta(&c, pod_obj(&c, json, "metadata", ""));
    const json_t *spec = pod_obj(&c, json, "spec", "");
    const json_t *volumes = pod_arr(&c, spec, "volumes", "spec");
    const json_t *psc = pod_obj(&c, spec, "securityContext", "spec");
    p->run_as_user = pod_int(&c, psc, "runAsUser", "spec.securityContext", SL_POD_UNSET);
    p->run_as_group = pod_int(&c, psc, "runAsGroup", "spec.securityContext", SL_POD_UNSET);
    p->fs_group = pod_int(&c, psc, "fsGroup", "spec.securityContext", SL_POD_UNSET);
    const char *lists[2] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        const json_t *a = pod_arr(&c, spec, lists[l], "spec");
        size_t n = a ? json_array_size(a) : 0;
        sl_pod_container_t *v = pod_alloc(p, n, sizeof(*v));
        for (size_t i = 0; i < n; i++)
            parse_container(&c, json_array_get(a, i), lists[l], i, &v[i], volumes, psc);
        if (l == 0) {
            p->init_containers = v;
            p->ninit = n;
        } else {
            p->containers = v;
            p->ncontainers = n;
            if (n == 0)
                sl_err_required(c.errs, NULL, "spec.containers");
        }
    }
    /* names are unique across app, init (and ephemeral) containers; Kubernetes
     * validates app containers first, so a clash is reported on the init one */
    for (size_t i = 0; i < p->ncontainers; i++)
        for (size_t j = 0; j < i; j++)
            if (*p->containers[i].name && !strcmp(p->containers[i].name, p->containers[j].name)) {
                sl_err_duplicate(c.errs, p->containers[i].name, "spec.containers[%zu].name", i);
                break;
            }
    for (size_t i = 0; i < p->ninit; i++) {
        const char *n = p->init_containers[i].name;
        int dup = 0;
        for (size_t j = 0; j < p->ncontainers && !dup; j++)
            dup = *n && !strcmp(n, p->containers[j].name);
        for (size_t j = 0; j < i && !dup; j++)
            dup = *n && !strcmp(n, p->init_containers[j].name);
        if (dup)
            sl_err_duplicate(c.errs, n, "spec.initContainers[%zu].name", i);
    }
    pod_parse_volumes(&c, spec);
    p->restart_policy = pod_str(&c, spec, "restartPolicy", "spec");
    if (!p->restart_policy || !*p->restart_policy)
        p->restart_policy = "Always";
    else if (strcmp(p->restart_policy, "Always") && strcmp(p->restart_policy, "OnFailure") &&
             strcmp(p->restart_policy, "Never"))
        sl_err_not_supported(c.errs, p->restart_policy, restart_policies, "spec.restartPolicy");
    p->active_deadline_seconds = pod_int(&c, spec, "activeDeadlineSeconds", "spec", SL_POD_UNSET);
    if (json_is_integer(json_object_get(spec, "activeDeadlineSeconds")) &&
        (p->active_deadline_seconds < 1 || p->active_deadline_seconds > 2147483647))
        sl_err_field_int(c.errs, SL_FE_INVALID, "spec.activeDeadlineSeconds",
                         p->active_deadline_seconds, "must be between 1 and 2147483647, inclusive");
    p->termination_grace_seconds = pod_int(&c, spec, "terminationGracePeriodSeconds", "spec", 30);
    if (p->termination_grace_seconds < 0)
        sl_err_field_int(c.errs, SL_FE_INVALID, "spec.terminationGracePeriodSeconds",
                         p->termination_grace_seconds, "must be greater than or equal to 0");
    p->node_selector = pod_strmap(&c, spec, "nodeSelector", "spec", &p->nnode_selector);
    for (size_t i = 0; i < p->nnode_selector; i++) {
        sl_validate_qualified_name(c.errs, "spec.nodeSelector", p->node_selector[i].key);
        sl_validate_label_value(c.errs, "spec.nodeSelector", p->node_selector[i].value);
    }
    p->service_account = pod_str(&c, spec, "serviceAccountName", "spec");
    if (p->service_account && *p->service_account)
        sl_validate_dns1123_subdomain(c.errs, "spec.serviceAccountName", p->service_account);
    else
        p->service_account = "default";
    p->node_name = pod_str(&c, spec, "nodeName", "spec");
    p->hostname = pod_str(&c, spec, "hostname", "spec");
    if (p->hostname && *p->hostname)
        sl_validate_dns1123_label(c.errs, "spec.hostname", p->hostname);
    p->subdomain = pod_str(&c, spec, "subdomain", "spec");
    if (p->subdomain && *p->subdomain)
        sl_validate_dns1123_label(c.errs, "spec.subdomain", p->subdomain);
    pod_parse_host_aliases(&c, spec);
done:
    if (sl_err_nfields(c.errs) > before) {
        sl_error_free(own);
        sl_pod_destroy(p);
        errno = EINVAL;
        return NULL;
    }
    sl_error_free(own);
    return p;
}

void sl_pod_destroy(sl_pod_t *p)
{
    if (!p)
        return;
    pod_priv_t *priv = p->priv_;
    for (size_t i = 0; i < priv->n; i++)
        free(priv->allocs[i]);
    free(priv->allocs);
    json_decref(priv->ref);
    free(priv);
    free(p);
}

static const char *kv_get(const sl_pod_kv_t *kv, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(kv[i].key, key))
            return kv[i].value;
    return NULL;
}

const char *sl_pod_annotation(const sl_pod_t *p, const char *key)
{
    return kv_get(p->annotations, p->nannotations, key);
}

const char *sl_pod_label(const sl_pod_t *p, const char *key)
{
    return kv_get(p->labels, p->nlabels, key);
}

const sl_pod_container_t *sl_pod_container(const sl_pod_t *p, const char *name)
{
    for (size_t i = 0; i < p->ninit; i++)
        if (!strcmp(p->init_containers[i].name, name))
            return &p->init_containers[i];
    for (size_t i = 0; i < p->ncontainers; i++)
        if (!strcmp(p->containers[i].name, name))
            return &p->containers[i];
    return NULL;
}

const sl_pod_volume_t *sl_pod_volume(const sl_pod_t *p, const char *name)
{
    for (size_t i = 0; i < p->nvolumes; i++)
        if (!strcmp(p->volumes[i].name, name))
            return &p->volumes[i];
    return NULL;
}
