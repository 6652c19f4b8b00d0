/* schema.c — walks JSON against the generated field table; pod warnings,
 * defaults and update rules. */
#include "pod/schema.h"
#include "pod/schema_internal.h"

#include "common/buf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int type_index(const char *name)
{
    for (size_t i = 0; i < sl_schema_ntypes; i++)
        if (!strcmp(sl_schema_types[i].name, name))
            return (int)i;
    return -1;
}

int sl_schema_known_kind(const char *kind)
{
    static const char *const kinds[] = {"Pod",
                                        "ConfigMap",
                                        "Secret",
                                        "Namespace",
                                        "ServiceAccount",
                                        "Event",
                                        "ResourceQuota",
                                        "Job",
                                        "CronJob",
                                        "Service",
                                        "Endpoints",
                                        "EndpointSlice",
                                        "Deployment",
                                        "ReplicaSet",
                                        "Scale",
                                        "StatefulSet",
                                        NULL};
    for (int i = 0; kind && kinds[i]; i++)
        if (!strcmp(kinds[i], kind))
            return 1;
    return 0;
}

static const sl_sfield_t *field(const sl_stype_t *t, const char *name)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(t->fields[mid].name, name);
        if (!c)
            return &t->fields[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

typedef struct strv {
    char **v;
    size_t n;
} strv_t;

static void push(strv_t *s, char *str)
{
    s->v = sl_xrealloc(s->v, (s->n + 2) * sizeof(char *));
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
}

static void walk(const sl_stype_t *t, const json_t *obj, const char *path, strv_t *out, int depth)
{
    const char *k;
    json_t *v;
    if (!json_is_object(obj) || depth > 64)
        return;
    json_object_foreach((json_t *)obj, k, v)
    {
        const sl_sfield_t *f = field(t, k);
        char *p = *path ? sl_xasprintf("%s.%s", path, k) : sl_xstrdup(k);
        if (!f) {
            push(out, sl_xasprintf("unknown field \"%s\"", p));
        } else if (f->kind == SL_SF_STRUCT) {
            walk(&sl_schema_types[f->type], v, p, out, depth + 1);
        } else if (f->kind == SL_SF_ARRAY && json_is_array(v)) {
            for (size_t i = 0; i < json_array_size(v); i++) {
                char *pi = sl_xasprintf("%s[%zu]", p, i);
                walk(&sl_schema_types[f->type], json_array_get(v, i), pi, out, depth + 1);
                free(pi);
            }
        } else if (f->kind == SL_SF_MAP && json_is_object(v)) {
            const char *mk;
            json_t *mv;
            json_object_foreach(v, mk, mv)
            {
                char *pk = sl_xasprintf("%s[%s]", p, mk);
                walk(&sl_schema_types[f->type], mv, pk, out, depth + 1);
                free(pk);
            }
        }
        free(p);
    }
}

char **sl_schema_unknown_fields(const char *kind, const json_t *obj, size_t *n)
{
    int ti = sl_schema_known_kind(kind) ? type_index(kind) : -1;
    strv_t out = {NULL, 0};
    if (ti < 0) {
        errno = ENOENT;
        return NULL;
    }
    push(&out, NULL);
    out.n = 0;
    walk(&sl_schema_types[ti], obj, "", &out, 0);
    if (n)
        *n = out.n;
    return out.v;
}

/* ---------- warnings ---------- */

static int present(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    if (!v || json_is_null(v) || json_is_false(v))
        return 0;
    if ((json_is_array(v) && !json_array_size(v)) || (json_is_object(v) && !json_object_size(v)))
        return 0;
    return 1;
}

static const struct {
    const char *field, *why;
} pod_ignored[] = {
    {"affinity", "Slurm places the job; use nodeSelector (→ --constraint) or the "
                 "slurmlink.io/partition annotation; only a required nodeAffinity term on "
                 "nvidia.com/gpu.product is read (the GPU type)"},
    {"tolerations", "there are no taints; Slurm partitions and QOS decide where a job may run"},
    {"topologySpreadConstraints", "Slurm places the job; use slurm-job.vk.io/flags with "
                                  "--spread-job or --distribution"},
    {"hostNetwork", "jobs always use the node's network"},
    {"hostPID", "containers run in the job's process namespace as their runtime sets it up"},
    {"hostIPC", "containers run in the job's IPC namespace as their runtime sets it up"},
    {"priorityClassName", "Slurm's priority decides; use the slurmlink.io/qos annotation"},
    {"nodeName", "Slurm chooses the node; use nodeSelector kubernetes.io/hostname (→ --nodelist)"},
    {"dnsConfig", "containers use the node's resolver"},
    {"runtimeClassName", "use the slurmlink.io/runtime annotation"},
    {"readinessGates", "the pod's Ready condition is its containers' readiness (their probes)"},
    {"overhead", "the job's resources are the effective request"},
    {"schedulingGates", "the job is submitted at once"},
    {"shareProcessNamespace", "containers run in the job's process namespace as their runtime "
                              "sets it up"},
    {"ephemeralContainers", "kubectl debug is not supported"},
};

static const struct {
    const char *field, *why;
} ctr_ignored[] = {
    {"lifecycle", "postStart/preStop hooks are not run; the shim forwards SIGTERM and waits "
                  "terminationGracePeriodSeconds"},
    {"resizePolicy", "a Slurm job's resources are fixed once it runs"},
    {"volumeDevices", "raw block devices need a persistentVolumeClaim, which is not supported"},
};

char **sl_schema_pod_warnings(const json_t *pod, size_t *n)
{
    strv_t out = {NULL, 0};
    const json_t *spec = json_object_get(pod, "spec");
    push(&out, NULL);
    out.n = 0;
    for (size_t i = 0; i < sizeof(pod_ignored) / sizeof(pod_ignored[0]); i++)
        if (present(spec, pod_ignored[i].field))
            push(&out,
                 sl_xasprintf("spec.%s is ignored: %s", pod_ignored[i].field, pod_ignored[i].why));
    const char *dns = json_string_value(json_object_get(spec, "dnsPolicy"));
    if (dns && strcmp(dns, "ClusterFirst") && strcmp(dns, "Default"))
        push(&out,
             sl_xasprintf("spec.dnsPolicy %s is ignored: containers use the node's resolver", dns));
    const char *sched = json_string_value(json_object_get(spec, "schedulerName"));
    if (sched && strcmp(sched, "default-scheduler"))
        push(&out,
             sl_xasprintf("spec.schedulerName %s is ignored: Slurm schedules every pod", sched));
    const json_t *psc = json_object_get(spec, "securityContext");
    const char *psc_fields[] = {"seLinuxOptions", "seccompProfile", "appArmorProfile",
                                "sysctls",        "windowsOptions", NULL};
    for (int i = 0; psc_fields[i]; i++)
        if (present(psc, psc_fields[i]))
            push(&out, sl_xasprintf("spec.securityContext.%s is ignored: the job runs as the "
                                    "pod's user with the node's defaults",
                                    psc_fields[i]));
    /* the job has its user's groups only (one may be chosen by runAsGroup) */
    if (present(psc, "fsGroup"))
        push(&out, sl_xasprintf("spec.securityContext.fsGroup is ignored: the pod's files and "
                                "volumes belong to the pod's user and the job's group "
                                "(runAsGroup, else the user's primary group)"));
    if (present(psc, "supplementalGroups"))
        push(&out, sl_xasprintf("spec.securityContext.supplementalGroups is ignored: the job's "
                                "processes have the groups of the pod's user, no others"));
    const char *lists[2] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        const json_t *a = json_object_get(spec, lists[l]);
        for (size_t i = 0; i < json_array_size(a); i++) {
            const json_t *c = json_array_get(a, i);
            for (size_t j = 0; j < sizeof(ctr_ignored) / sizeof(ctr_ignored[0]); j++)
                if (present(c, ctr_ignored[j].field))
                    push(&out, sl_xasprintf("spec.%s[%zu].%s is ignored: %s", lists[l], i,
                                            ctr_ignored[j].field, ctr_ignored[j].why));
            const json_t *ports = json_object_get(c, "ports");
            for (size_t j = 0; j < json_array_size(ports); j++)
                if (present(json_array_get(ports, j), "hostPort"))
                    push(&out, sl_xasprintf("spec.%s[%zu].ports[%zu].hostPort is ignored: "
                                            "containers share the node's network; the port is "
                                            "the one the process binds",
                                            lists[l], i, j));
            const json_t *sc = json_object_get(c, "securityContext");
            const char *sc_fields[] = {
                "privileged",      "capabilities", "seLinuxOptions",           "seccompProfile",
                "appArmorProfile", "procMount",    "allowPrivilegeEscalation", NULL};
            for (int k = 0; sc_fields[k]; k++)
                if (present(sc, sc_fields[k]))
                    push(&out, sl_xasprintf("spec.%s[%zu].securityContext.%s is ignored: the "
                                            "job runs as the pod's user without extra "
                                            "privileges",
                                            lists[l], i, sc_fields[k]));
        }
    }
    if (n)
        *n = out.n;
    return out.v;
}

/* ---------- defaults ---------- */

static void def(json_t *o, const char *k, json_t *v)
{
    if (!json_object_get(o, k))
        json_object_set_new(o, k, v);
    else
        json_decref(v);
}

static const char *pull_policy(const char *image)
{
    if (!image)
        return "IfNotPresent";
    const char *slash = strrchr(image, '/');
    const char *last = slash ? slash + 1 : image;
    if (strchr(last, '@'))
        return "IfNotPresent";
    const char *colon = strrchr(last, ':');
    if (!colon || !strcmp(colon + 1, "latest"))
        return "Always";
    return "IfNotPresent";
}

static void default_container(json_t *c)
{
    if (!json_is_object(c))
        return;
    def(c, "imagePullPolicy",
        json_string(pull_policy(json_string_value(json_object_get(c, "image")))));
    def(c, "terminationMessagePath", json_string("/dev/termination-log"));
    def(c, "terminationMessagePolicy", json_string("File"));
    def(c, "resources", json_object());
    json_t *res = json_object_get(c, "resources");
    json_t *lim = json_object_get(res, "limits");
    if (json_is_object(res) && json_is_object(lim) && json_object_size(lim)) {
        def(res, "requests", json_object());
        json_t *req = json_object_get(res, "requests");
        const char *k;
        json_t *v;
        if (json_is_object(req))
            json_object_foreach(lim, k, v) def(req, k, json_incref(v));
    }
    json_t *ports = json_object_get(c, "ports");
    for (size_t i = 0; i < json_array_size(ports); i++)
        if (json_is_object(json_array_get(ports, i)))
            def(json_array_get(ports, i), "protocol", json_string("TCP"));
    json_t *env = json_object_get(c, "env");
    for (size_t i = 0; i < json_array_size(env); i++) {
        json_t *fr =
            json_object_get(json_object_get(json_array_get(env, i), "valueFrom"), "fieldRef");
        if (json_is_object(fr))
            def(fr, "apiVersion", json_string("v1"));
    }
}

void sl_pod_apply_defaults(json_t *pod)
{
    json_t *spec = json_object_get(pod, "spec");
    if (!json_is_object(spec))
        return;
    def(spec, "restartPolicy", json_string("Always"));
    def(spec, "terminationGracePeriodSeconds", json_integer(30));
    def(spec, "dnsPolicy", json_string("ClusterFirst"));
    def(spec, "schedulerName", json_string("default-scheduler"));
    def(spec, "securityContext", json_object());
    def(spec, "enableServiceLinks", json_true());
    def(spec, "serviceAccountName", json_string("default"));
    def(spec, "serviceAccount", json_incref(json_object_get(spec, "serviceAccountName")));
    def(spec, "priority", json_integer(0));
    def(spec, "preemptionPolicy", json_string("PreemptLowerPriority"));
    const char *lists[2] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        json_t *a = json_object_get(spec, lists[l]);
        for (size_t i = 0; i < json_array_size(a); i++)
            default_container(json_array_get(a, i));
    }
    json_t *vols = json_object_get(spec, "volumes");
    for (size_t i = 0; i < json_array_size(vols); i++) {
        json_t *v = json_array_get(vols, i);
        const char *kinds[] = {"configMap", "secret", "downwardAPI", "projected", NULL};
        for (int k = 0; kinds[k]; k++)
            if (json_is_object(json_object_get(v, kinds[k])))
                def(json_object_get(v, kinds[k]), "defaultMode", json_integer(420));
        json_t *hp = json_object_get(v, "hostPath");
        if (json_is_object(hp))
            def(hp, "type", json_string(""));
    }
}

/* ---------- updates ---------- */

#define UPDATABLE                                                                                  \
    "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,"      \
    "`spec.tolerations` (only additions to existing tolerations),"                                 \
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "          \
    "negative)"

int sl_pod_spec_update_errors(const json_t *old_pod, const json_t *new_pod, sl_error_t *errs)
{
    size_t before = sl_err_nfields(errs);
    const json_t *os = json_object_get(old_pod, "spec"), *ns = json_object_get(new_pod, "spec");
    const json_t *oad = json_object_get(os, "activeDeadlineSeconds");
    const json_t *nad = json_object_get(ns, "activeDeadlineSeconds");
    if (nad && !json_is_null(nad)) {
        long long nv = json_integer_value(nad);
        if (nv < 0 || nv > 2147483647) {
            sl_err_field_int(errs, SL_FE_INVALID, "spec.activeDeadlineSeconds", nv,
                             "must be between 0 and 2147483647, inclusive");
            return (int)(sl_err_nfields(errs) - before);
        }
        if (oad && !json_is_null(oad) && json_integer_value(oad) < nv) {
            sl_err_field_int(errs, SL_FE_INVALID, "spec.activeDeadlineSeconds", nv,
                             "must be less than or equal to previous value");
            return (int)(sl_err_nfields(errs) - before);
        }
    } else if (oad && !json_is_null(oad)) {
        sl_err_field(errs, SL_FE_INVALID, "spec.activeDeadlineSeconds", "null",
                     "must not update from a positive integer to nil value");
    }
    /* the munged spec: the new spec with every updatable field put back to
     * its old value; anything else that differs is forbidden */
    json_t *empty = json_object();
    json_t *m = json_deep_copy(ns ? ns : empty);
    const char *lists[2] = {"initContainers", "containers"};
    for (int l = 0; l < 2; l++) {
        json_t *na = json_object_get(m, lists[l]);
        const json_t *oa = json_object_get(os, lists[l]);
        if (json_array_size(na) != json_array_size(oa))
            continue; /* a different container list: reported below */
        for (size_t i = 0; i < json_array_size(na); i++) {
            json_t *nc = json_array_get(na, i);
            const json_t *img = json_object_get(nc, "image");
            if (!json_is_string(img) || !*json_string_value(img))
                sl_err_required(errs, NULL, "spec.%s[%zu].image", lists[l], i);
            const json_t *oimg = json_object_get(json_array_get(oa, i), "image");
            if (oimg)
                json_object_set(nc, "image", (json_t *)oimg);
            else
                json_object_del(nc, "image");
        }
    }
    if (oad)
        json_object_set(m, "activeDeadlineSeconds", (json_t *)oad);
    else
        json_object_del(m, "activeDeadlineSeconds");
    /* tolerations: every old one must still be there */
    const json_t *ot = json_object_get(os, "tolerations"), *nt = json_object_get(m, "tolerations");
    int kept = 1;
    for (size_t i = 0; i < json_array_size(ot) && kept; i++) {
        int found = 0;
        for (size_t j = 0; j < json_array_size(nt) && !found; j++)
            found = json_equal(json_array_get(ot, i), json_array_get(nt, j));
        kept = found;
    }
    if (kept) {
        if (ot)
            json_object_set(m, "tolerations", (json_t *)ot);
        else
            json_object_del(m, "tolerations");
    }
    const json_t *og = json_object_get(os, "terminationGracePeriodSeconds");
    const json_t *ng = json_object_get(m, "terminationGracePeriodSeconds");
    if (json_is_integer(og) && json_integer_value(og) < 0 && json_is_integer(ng) &&
        json_integer_value(ng) == 1)
        json_object_set(m, "terminationGracePeriodSeconds", (json_t *)og);
    if (!json_equal(m, os ? os : empty)) {
        sl_buf_t d = SL_BUF_INIT;
        sl_buf_puts(&d, "pod updates may not change fields other than " UPDATABLE);
        /* name the first top-level spec fields that differ (Kubernetes prints a diff) */
        const char *k;
        json_t *v;
        int first = 1;
        json_object_foreach(m, k, v)
        {
            if (!json_equal(v, json_object_get(os, k))) {
                sl_buf_printf(&d, "%sspec.%s", first ? "\nchanged: " : ", ", k);
                first = 0;
            }
        }
        json_object_foreach((json_t *)os, k, v)
        {
            if (!json_object_get(m, k)) {
                sl_buf_printf(&d, "%sspec.%s", first ? "\nchanged: " : ", ", k);
                first = 0;
            }
        }
        sl_err_forbidden(errs, d.data, "spec");
        sl_buf_free(&d);
    }
    json_decref(m);
    json_decref(empty);
    return (int)(sl_err_nfields(errs) - before);
}
