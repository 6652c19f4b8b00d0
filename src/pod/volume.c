/* volume.c — spec.volumes: the kinds slurmlink can provide in a Slurm job
 * (emptyDir, configMap, secret, hostPath, downwardAPI, projected,
 * persistentVolumeClaim: a folder on a shared filesystem) and a clear
 * Forbidden for storage that needs a cluster (csi, nfs...). */
#include "kube/quantity.h"
#include "pod/internal.h"

#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Every VolumeSource member of core/v1 (Kubernetes 1.32), in its field order. */
static const char *const volume_kinds[] = {"hostPath",
                                           "emptyDir",
                                           "gcePersistentDisk",
                                           "awsElasticBlockStore",
                                           "gitRepo",
                                           "secret",
                                           "nfs",
                                           "iscsi",
                                           "glusterfs",
                                           "persistentVolumeClaim",
                                           "rbd",
                                           "flexVolume",
                                           "cinder",
                                           "cephfs",
                                           "flocker",
                                           "downwardAPI",
                                           "fc",
                                           "azureFile",
                                           "configMap",
                                           "vsphereVolume",
                                           "quobyte",
                                           "azureDisk",
                                           "photonPersistentDisk",
                                           "projected",
                                           "portworxVolume",
                                           "scaleIO",
                                           "storageos",
                                           "csi",
                                           "ephemeral",
                                           "image",
                                           NULL};

static int supported_kind(const char *k)
{
    return !strcmp(k, "hostPath") || !strcmp(k, "emptyDir") || !strcmp(k, "secret") ||
           !strcmp(k, "configMap") || !strcmp(k, "downwardAPI") || !strcmp(k, "projected") ||
           !strcmp(k, "persistentVolumeClaim");
}

/* Is b inside a (a is a file, b a path beneath it)? */
static int inside(const char *a, const char *b)
{
    size_t n = strlen(a);
    return n && !strncmp(a, b, n) && b[n] == '/';
}

/* A path that is also the folder of an earlier path, or inside an earlier
 * file: the pod folder could not hold both (refused at admission rather
 * than at every submission). */
static void check_clash(pod_ctx_t *c, const char *v, const char *const *earlier, size_t n,
                        const char *ipath, const char *field)
{
    for (size_t k = 0; k < n; k++) {
        if (!*earlier[k] || (!inside(earlier[k], v) && !inside(v, earlier[k])))
            continue;
        char *d = sl_xasprintf(inside(earlier[k], v)
                                   ? "must not be inside the file of %s[%zu].path \"%s\""
                                   : "must not be the folder of %s[%zu].path \"%s\"",
                               strrchr(ipath, '.') + 1, k, earlier[k]);
        sl_err_invalid(c->errs, v, d, "%s", field);
        free(d);
        return;
    }
}

static void parse_items(pod_ctx_t *c, const json_t *o, const char *path, sl_pod_source_t *s)
{
    char *ipath = sl_xasprintf("%s.items", path);
    const json_t *a = pod_arr(c, o, "items", path);
    s->items = pod_alloc(c->pod, a ? json_array_size(a) : 0, sizeof(sl_pod_keypath_t));
    for (size_t i = 0; a && i < json_array_size(a); i++) {
        const json_t *it = json_array_get(a, i);
        char *p = sl_xasprintf("%s[%zu]", ipath, i);
        sl_pod_keypath_t *kp = &s->items[s->nitems++];
        kp->key = pod_str(c, it, "key", p);
        kp->path = pod_str(c, it, "path", p);
        kp->mode = (int)pod_int(c, it, "mode", p, SL_POD_UNSET);
        if (!kp->key || !*kp->key) {
            sl_err_required(c->errs, NULL, "%s.key", p);
            kp->key = "";
        }
        if (!kp->path || !*kp->path) {
            sl_err_required(c->errs, NULL, "%s.path", p);
            kp->path = "";
        } else {
            char *pp = sl_xasprintf("%s.path", p);
            pod_check_relpath(c, kp->path, pp);
            const char **earlier = sl_xcalloc(i + 1, sizeof(*earlier));
            for (size_t k = 0; k < i; k++)
                earlier[k] = s->items[k].path;
            check_clash(c, kp->path, earlier, i, ipath, pp);
            free(earlier);
            free(pp);
        }
        char *mp = sl_xasprintf("%s.mode", p);
        pod_check_mode(c, kp->mode, mp);
        free(mp);
        free(p);
    }
    free(ipath);
}

static int dapi_field_ok(const char *fp)
{
    static const char *const ok[] = {"metadata.annotations", "metadata.labels", "metadata.name",
                                     "metadata.namespace",   "metadata.uid",    NULL};
    for (int i = 0; ok[i]; i++)
        if (!strcmp(fp, ok[i]))
            return 1;
    const char *pre[] = {"metadata.labels['", "metadata.annotations['"};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(pre[i]), l = strlen(fp);
        if (l > n + 2 && !strncmp(fp, pre[i], n) && !strcmp(fp + l - 2, "']"))
            return 1;
    }
    return 0;
}

static void parse_dapi(pod_ctx_t *c, const json_t *o, const char *path, sl_pod_source_t *s)
{
    char *ipath = sl_xasprintf("%s.items", path);
    const json_t *a = pod_arr(c, o, "items", path);
    s->type = SL_VOL_DOWNWARDAPI;
    s->dapi = pod_alloc(c->pod, a ? json_array_size(a) : 0, sizeof(sl_pod_dapi_item_t));
    for (size_t i = 0; a && i < json_array_size(a); i++) {
        const json_t *it = json_array_get(a, i);
        char *p = sl_xasprintf("%s[%zu]", ipath, i);
        sl_pod_dapi_item_t *d = &s->dapi[s->ndapi++];
        d->path = pod_str(c, it, "path", p);
        d->mode = (int)pod_int(c, it, "mode", p, SL_POD_UNSET);
        if (!d->path || !*d->path) {
            sl_err_required(c->errs, NULL, "%s.path", p);
            d->path = "";
        } else {
            char *pp = sl_xasprintf("%s.path", p);
            pod_check_relpath(c, d->path, pp);
            const char **earlier = sl_xcalloc(i + 1, sizeof(*earlier));
            for (size_t k = 0; k < i; k++)
                earlier[k] = s->dapi[k].path;
            check_clash(c, d->path, earlier, i, ipath, pp);
            free(earlier);
            free(pp);
        }
        char *mp = sl_xasprintf("%s.mode", p);
        pod_check_mode(c, d->mode, mp);
        free(mp);
        char *fp = sl_xasprintf("%s.fieldRef", p), *rp = sl_xasprintf("%s.resourceFieldRef", p);
        const json_t *f = pod_obj(c, it, "fieldRef", p), *r = pod_obj(c, it, "resourceFieldRef", p);
        if (f && r) {
            sl_err_invalid(c->errs, "",
                           "fieldRef and resourceFieldRef can not be specified simultaneously",
                           "%s", p);
        } else if (f) {
            d->field_path = pod_str(c, f, "fieldPath", fp);
            if (!d->field_path || !*d->field_path)
                sl_err_required(c->errs, NULL, "%s.fieldPath", fp);
            else if (!dapi_field_ok(d->field_path))
                sl_err_not_supported(c->errs, d->field_path,
                                     (const char *const[]){
                                         "metadata.annotations", "metadata.labels", "metadata.name",
                                         "metadata.namespace", "metadata.uid", NULL},
                                     "%s.fieldPath", fp);
        } else if (r) {
            d->resource = pod_str(c, r, "resource", rp);
            d->container = pod_str(c, r, "containerName", rp);
            const json_t *dv = json_object_get(r, "divisor");
            d->divisor = json_is_string(dv) ? json_string_value(dv) : NULL;
            if (!d->resource || !*d->resource)
                sl_err_required(c->errs, NULL, "%s.resource", rp);
            if (!d->container || !*d->container)
                sl_err_required(c->errs, NULL, "%s.containerName", rp);
        } else {
            sl_err_required(c->errs, "one of fieldRef and resourceFieldRef is required", "%s", p);
        }
        free(fp);
        free(rp);
        free(p);
    }
    free(ipath);
}

/* configMap / secret as a volume or projected source */
static void parse_keyed(pod_ctx_t *c, const json_t *o, const char *path, int secret, int projected,
                        sl_pod_source_t *s)
{
    const char *namekey = secret && !projected ? "secretName" : "name";
    s->type = secret ? SL_VOL_SECRET : SL_VOL_CONFIGMAP;
    s->ref = pod_str(c, o, namekey, path);
    s->optional = pod_bool(c, o, "optional", path, 0);
    if (!s->ref || !*s->ref) {
        sl_err_required(c->errs, NULL, "%s.%s", path, namekey);
        s->ref = "";
    } else {
        char *np = sl_xasprintf("%s.%s", path, namekey);
        sl_validate_dns1123_subdomain(c->errs, np, s->ref);
        free(np);
    }
    parse_items(c, o, path, s);
}

static void parse_projected(pod_ctx_t *c, const json_t *o, const char *path, sl_pod_volume_t *v)
{
    char *spath = sl_xasprintf("%s.sources", path);
    const json_t *a = pod_arr(c, o, "sources", path);
    v->sources = pod_alloc(c->pod, a ? json_array_size(a) : 0, sizeof(sl_pod_source_t));
    for (size_t i = 0; a && i < json_array_size(a); i++) {
        const json_t *src = json_array_get(a, i);
        char *p = sl_xasprintf("%s[%zu]", spath, i);
        sl_pod_source_t *s = &v->sources[v->nsources];
        int n = 0;
        const json_t *x;
        char *xp;
        if ((x = pod_obj(c, src, "secret", p))) {
            xp = sl_xasprintf("%s.secret", p);
            if (!n++)
                parse_keyed(c, x, xp, 1, 1, s);
            free(xp);
        }
        if ((x = pod_obj(c, src, "configMap", p))) {
            xp = sl_xasprintf("%s.configMap", p);
            if (!n++)
                parse_keyed(c, x, xp, 0, 1, s);
            else
                sl_err_forbidden(c->errs, "may not specify more than 1 volume type", "%s", xp);
            free(xp);
        }
        if ((x = pod_obj(c, src, "downwardAPI", p))) {
            xp = sl_xasprintf("%s.downwardAPI", p);
            if (!n++)
                parse_dapi(c, x, xp, s);
            else
                sl_err_forbidden(c->errs, "may not specify more than 1 volume type", "%s", xp);
            free(xp);
        }
        if ((x = pod_obj(c, src, "serviceAccountToken", p))) {
            xp = sl_xasprintf("%s.serviceAccountToken", p);
            if (!n++) {
                s->type = SL_VOL_SATOKEN;
                s->audience = pod_str(c, x, "audience", xp);
                s->expiration_seconds = pod_int(c, x, "expirationSeconds", xp, 3607);
                s->sa_path = pod_str(c, x, "path", xp);
                if (!s->sa_path || !*s->sa_path) {
                    sl_err_required(c->errs, NULL, "%s.path", xp);
                    s->sa_path = "";
                } else {
                    char *pp = sl_xasprintf("%s.path", xp);
                    pod_check_relpath(c, s->sa_path, pp);
                    free(pp);
                }
                if (s->expiration_seconds < 600)
                    sl_err_invalid(c->errs, "", "may not specify a duration less than 10 minutes",
                                   "%s.expirationSeconds", xp);
                else if (s->expiration_seconds > 4294967296LL)
                    sl_err_invalid(c->errs, "",
                                   "may not specify a duration larger than 2^32 seconds",
                                   "%s.expirationSeconds", xp);
            } else {
                sl_err_forbidden(c->errs, "may not specify more than 1 volume type", "%s", xp);
            }
            free(xp);
        }
        if (json_object_get(src, "clusterTrustBundle")) {
            if (!n++)
                sl_err_forbidden(c->errs,
                                 "clusterTrustBundle projections are not supported by slurmlink",
                                 "%s.clusterTrustBundle", p);
        }
        if (n == 0)
            sl_err_required(c->errs,
                            "must specify exactly 1 of: `secret`, `configMap`, "
                            "`downwardAPI`, `serviceAccountToken`, `clusterTrustBundle`",
                            "%s", p);
        else
            v->nsources++;
        free(p);
    }
    free(spath);
}

/* the volume's name: required, a DNS-1123 label, unique in the pod (v is
 * the last of pod->volumes). */
static void volume_name(pod_ctx_t *c, const json_t *vj, const char *p, sl_pod_volume_t *v)
{
    sl_pod_t *pod = c->pod;
    v->name = pod_str(c, vj, "name", p);
    if (!v->name || !*v->name) {
        sl_err_required(c->errs, NULL, "%s.name", p);
        v->name = "";
        return;
    }
    char *np = sl_xasprintf("%s.name", p);
    sl_validate_dns1123_label(c->errs, np, v->name);
    for (size_t j = 0; j + 1 < pod->nvolumes; j++)
        if (!strcmp(pod->volumes[j].name, v->name)) {
            sl_err_duplicate(c->errs, v->name, "%s", np);
            break;
        }
    free(np);
}

/* the one volume type key the volume has (the first of volume_kinds), each
 * further one refused; NULL when it has none. */
static const char *volume_kind(pod_ctx_t *c, const json_t *vj, const char *p)
{
    const char *kind = NULL;
    for (int k = 0; volume_kinds[k]; k++) {
        const json_t *x = json_object_get(vj, volume_kinds[k]);
        if (!x || json_is_null(x))
            continue;
        if (kind) {
            sl_err_forbidden(c->errs, "may not specify more than 1 volume type", "%s.%s", p,
                             volume_kinds[k]);
            continue;
        }
        kind = volume_kinds[k];
    }
    return kind;
}

static void parse_emptydir(pod_ctx_t *c, const json_t *src, const char *kp, sl_pod_volume_t *v)
{
    v->type = SL_VOL_EMPTYDIR;
    const char *medium = pod_str(c, src, "medium", kp);
    if (medium && !strcmp(medium, "Memory"))
        v->memory = 1;
    else if (medium && *medium)
        sl_err_not_supported(c->errs, medium, (const char *const[]){"", "Memory", NULL},
                             "%s.medium", kp);
    const json_t *sz = src ? json_object_get(src, "sizeLimit") : NULL;
    if (!sz || json_is_null(sz))
        return;
    sl_quantity_t q;
    sl_error_t qerr;
    int64_t b;
    if (sl_quantity_from_json(sz, &q, NULL, &qerr) < 0) {
        char *raw = json_dumps(sz, JSON_ENCODE_ANY);
        sl_err_invalid(c->errs, json_is_string(sz) ? json_string_value(sz) : raw, qerr.text,
                       "%s.sizeLimit", kp);
        free(raw);
    } else if (sl_quantity_sign(&q) < 0) {
        sl_err_forbidden(c->errs, "SizeLimit field must be a valid resource quantity",
                         "%s.sizeLimit", kp);
    } else if (sl_quantity_ceil_div(&q, 1, &b) == 0) {
        v->size_limit = b;
    }
}

static void parse_hostpath(pod_ctx_t *c, const json_t *src, const char *kp, sl_pod_volume_t *v)
{
    v->type = SL_VOL_HOSTPATH;
    v->host_path = pod_str(c, src, "path", kp);
    v->host_type = pod_str(c, src, "type", kp);
    if (!v->host_type)
        v->host_type = "";
    if (!v->host_path || !*v->host_path) {
        sl_err_required(c->errs, NULL, "%s.path", kp);
        v->host_path = "";
    }
    static const char *const types[] = {
        "",     "BlockDevice",  "CharDevice", "Directory", "DirectoryOrCreate",
        "File", "FileOrCreate", "Socket",     NULL};
    int okt = 0;
    for (int t = 0; types[t]; t++)
        okt |= !strcmp(types[t], v->host_type);
    if (!okt)
        sl_err_not_supported(c->errs, v->host_type, types, "%s.type", kp);
}

/* a volume of files: projected, downwardAPI, secret or configMap. */
static void parse_files(pod_ctx_t *c, const json_t *src, const char *kind, const char *kp,
                        sl_pod_volume_t *v)
{
    int64_t dm = pod_int(c, src, "defaultMode", kp, 0644);
    char *mp = sl_xasprintf("%s.defaultMode", kp);
    pod_check_mode(c, dm, mp);
    free(mp);
    v->default_mode = (int)dm;
    if (!strcmp(kind, "projected")) {
        v->type = SL_VOL_PROJECTED;
        parse_projected(c, src, kp, v);
        return;
    }
    v->sources = pod_alloc(c->pod, 1, sizeof(sl_pod_source_t));
    v->nsources = 1;
    if (!strcmp(kind, "downwardAPI")) {
        v->type = SL_VOL_DOWNWARDAPI;
        parse_dapi(c, src, kp, v->sources);
    } else {
        int secret = !strcmp(kind, "secret");
        v->type = secret ? SL_VOL_SECRET : SL_VOL_CONFIGMAP;
        parse_keyed(c, src, kp, secret, 0, v->sources);
    }
}

/* a claim of the pod's namespace; the controller finds its volume's folder */
static void parse_claim(pod_ctx_t *c, const json_t *src, const char *kp, sl_pod_volume_t *v)
{
    v->type = SL_VOL_PVC;
    v->claim_name = pod_str(c, src, "claimName", kp);
    v->claim_read_only = pod_bool(c, src, "readOnly", kp, 0);
    if (!v->claim_name || !*v->claim_name) {
        sl_err_required(c->errs, NULL, "%s.claimName", kp);
        v->claim_name = "";
    }
}

/* the volume's source, under key kind of the volume at path p. */
static void parse_source(pod_ctx_t *c, const json_t *vj, const char *kind, const char *p,
                         sl_pod_volume_t *v)
{
    char *kp = sl_xasprintf("%s.%s", p, kind);
    const json_t *src = pod_obj(c, vj, kind, p);
    if (!strcmp(kind, "persistentVolumeClaim")) {
        parse_claim(c, src, kp, v);
    } else if (!supported_kind(kind)) {
        char *d = sl_xasprintf("%s volumes are not supported by slurmlink; use a hostPath on "
                               "the shared filesystem",
                               kind);
        sl_err_forbidden(c->errs, d, "%s", kp);
        free(d);
    } else if (!strcmp(kind, "emptyDir")) {
        parse_emptydir(c, src, kp, v);
    } else if (!strcmp(kind, "hostPath")) {
        parse_hostpath(c, src, kp, v);
    } else {
        parse_files(c, src, kind, kp, v);
    }
    free(kp);
}

void pod_parse_volumes(pod_ctx_t *c, const json_t *spec)
{
    sl_pod_t *pod = c->pod;
    const json_t *a = pod_arr(c, spec, "volumes", "spec");
    pod->volumes = pod_alloc(pod, a ? json_array_size(a) : 0, sizeof(sl_pod_volume_t));
    for (size_t i = 0; a && i < json_array_size(a); i++) {
        const json_t *vj = json_array_get(a, i);
        char *p = sl_xasprintf("spec.volumes[%zu]", i);
        sl_pod_volume_t *v = &pod->volumes[pod->nvolumes++];
        v->size_limit = SL_POD_UNSET;
        v->default_mode = 0644;
        volume_name(c, vj, p, v);
        const char *kind = volume_kind(c, vj, p);
        if (kind)
            parse_source(c, vj, kind, p, v);
        else
            sl_err_required(c->errs, "must specify a volume type", "%s", p);
        free(p);
    }
}
