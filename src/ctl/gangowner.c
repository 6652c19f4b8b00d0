/* gangowner.c — what a gang's owner does with what it made (gangowner.h). */
#include "ctl/gangowner.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "kube/meta.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctl_drop_server_owned(json_t *pod)
{
    static const char *const owned[] = {SL_ANN_USER,       SL_ANN_JOB_ID, SL_ANN_JOB_UID,
                                        SL_ANN_ARRAY_TASK, SL_ANN_GPUS,   SL_ANN_RESTARTS};
    json_t *ann = sl_kube_path(pod, "metadata.annotations");
    for (size_t i = 0; json_is_object(ann) && i < sizeof(owned) / sizeof(owned[0]); i++)
        json_object_del(ann, owned[i]);
}

json_t *ctl_pod_from_template(json_t *tmpl)
{
    json_t *pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            sl_kube_object_copy(json_object_get(tmpl, "metadata")), "spec",
                            sl_kube_object_copy(json_object_get(tmpl, "spec")));
    ctl_drop_server_owned(pod); /* the template's are not the server's */
    return pod;
}

json_t *ctl_owner_pods(sl_ctl_t *c, json_t *owner)
{
    json_t *all = ctl_pods_naming(c, sl_kube_namespace(owner), sl_kube_uid(owner));
    json_t *out = json_array();
    size_t i, k;
    json_t *pod, *r;
    json_array_foreach(all, i, pod)
        json_array_foreach(sl_kube_path(pod, "metadata.ownerReferences"), k, r)
    {
        const char *uid = json_string_value(json_object_get(r, "uid"));
        if (json_is_true(json_object_get(r, "controller")) && uid &&
            !strcmp(uid, sl_kube_uid(owner)))
            json_array_append(out, pod);
    }
    json_decref(all);
    return out;
}

void ctl_owner_delete_pods(sl_ctl_t *c, json_t *owner, json_t *pods, bool all)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        if ((!all && ctl_pod_terminal(pod)) || sl_kube_meta_str(pod, "deletionTimestamp"))
            continue;
        ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod),
                       ctl_pod_mark_deleted_fn, NULL, NULL, NULL);
        if (owner)
            ctl_event(c, owner, "Normal", "SuccessfulDeletePod", "Deleted pod: %s",
                      sl_kube_name(pod));
    }
}

void ctl_owner_cancel_jobs(const char *kind, json_t *owner)
{
    const char *list = sl_kube_annotation(owner, CTL_ANN_SLURM_JOBS);
    for (const char *p = list; p && *p;) {
        char *end;
        unsigned long id = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (ctl_job_kill(sl_kube_namespace(owner), sl_kube_name(owner), sl_kube_uid(owner),
                         (uint32_t)id, SIGKILL) == 0)
            sl_info("%s %s/%s: Slurm job %lu cancelled", kind, sl_kube_namespace(owner),
                    sl_kube_name(owner), id);
        p = *end == ',' ? end + 1 : end;
    }
}

typedef struct ann_arg {
    const char *uid, *key, *value;
} ann_arg_t;

static int ann_fn(json_t *obj, void *arg)
{
    ann_arg_t *a = arg;
    if (strcmp(sl_kube_uid(obj), a->uid))
        return 0;
    const char *cur = sl_kube_annotation(obj, a->key);
    if (cur && !strcmp(cur, a->value))
        return 0;
    sl_kube_set_annotation(obj, a->key, a->value);
    return 1;
}

void ctl_owner_set_annotation(sl_ctl_t *c, const char *res, const char *kind, json_t *owner,
                              const char *key, const char *value)
{
    ann_arg_t a = {sl_kube_uid(owner), key, value};
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_mutate(c->store, res, sl_kube_namespace(owner), sl_kube_name(owner), ann_fn, &a,
                        NULL, &err) < 0)
        sl_warn("%s %s/%s: cannot record %s=%s: %s", kind, sl_kube_namespace(owner),
                sl_kube_name(owner), key, value, err.text);
    sl_kube_set_annotation(owner, key, value); /* this pass sees it too */
    sl_error_clear(&err);
}

void ctl_owner_record_job(sl_ctl_t *c, const char *res, const char *kind, json_t *owner,
                          uint32_t id)
{
    const char *old = sl_kube_annotation(owner, CTL_ANN_SLURM_JOBS);
    char buf[16];
    snprintf(buf, sizeof(buf), "%u", id);
    char *all = old && *old ? sl_xasprintf("%s,%u", old, id) : sl_xstrdup(buf);
    if (!old || !strstr(old, buf))
        ctl_owner_set_annotation(c, res, kind, owner, CTL_ANN_SLURM_JOBS, all);
    free(all);
}

typedef struct status_arg {
    const char *uid;
    json_t *status;
} status_arg_t;

static int status_fn(json_t *obj, void *arg)
{
    status_arg_t *a = arg;
    if (strcmp(sl_kube_uid(obj), a->uid) || json_equal(json_object_get(obj, "status"), a->status))
        return 0;
    json_object_set(obj, "status", a->status);
    return 1;
}

void ctl_owner_write_status(sl_ctl_t *c, const char *res, const char *kind, json_t *owner,
                            json_t *st)
{
    status_arg_t a = {sl_kube_uid(owner), st};
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_mutate(c->store, res, sl_kube_namespace(owner), sl_kube_name(owner), status_fn, &a,
                        NULL, &err) < 0)
        sl_warn("%s %s/%s: cannot write its status: %s", kind, sl_kube_namespace(owner),
                sl_kube_name(owner), err.text);
    sl_error_clear(&err);
}
