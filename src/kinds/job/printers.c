/* src/kinds/job/printers.c — the Job's Table (printJob of kubernetes/pkg/printers/
 * internalversion/printers.go, 1.32): NAME STATUS COMPLETIONS DURATION AGE,
 * wide CONTAINERS IMAGES SELECTOR. */
#include "api/printers.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/selector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *col(const char *name, const char *format, const char *desc, int priority)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", "string", "format", format,
                     "description", desc, "priority", priority);
}

json_t *api_job_columns(void)
{
    return json_pack(
        "[o, o, o, o, o, o, o, o]",
        col("Name", "name",
            "Name must be unique within a namespace. Is required when creating resources, "
            "although some resources may allow a client to request the generation of an "
            "appropriate name automatically. Name is primarily intended for creation idempotence "
            "and configuration definition. Cannot be updated. More info: "
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
            0),
        col("Status", "", "Status of the job.", 0),
        col("Completions", "",
            "The number of pods which reached phase Succeeded. The value increases monotonically "
            "for a given spec. However, it may decrease in reaction to scale down of elastic "
            "indexed jobs.",
            0),
        col("Duration", "", "Time required to complete the job.", 0),
        col("Age", "",
            "CreationTimestamp is a timestamp representing the server time when this object was "
            "created. It is not guaranteed to be set in happens-before order across separate "
            "operations. Clients may not set this value. It is represented in RFC3339 form and "
            "is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
            "https://git.k8s.io/community/contributors/devel/sig-architecture/"
            "api-conventions.md#metadata",
            0),
        col("Containers", "", "Names of each container in the template.", 1),
        col("Images", "", "Images referenced by each container in the template.", 1),
        col("Selector", "",
            "A label query over pods that should match the pod count. Normally, the system sets "
            "this field for you. More info: "
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
            "labels/#label-selectors",
            1));
}

/* hasJobCondition: the condition is there with status True */
bool api_job_condition(json_t *job, const char *type)
{
    return sl_kube_condition_true(sl_kube_path(job, "status.conditions"), type);
}

static const char *job_status(json_t *job)
{
    if (api_job_condition(job, "Complete"))
        return "Complete";
    if (api_job_condition(job, "Failed"))
        return "Failed";
    if (sl_kube_meta_str(job, "deletionTimestamp"))
        return "Terminating";
    if (api_job_condition(job, "Suspended"))
        return "Suspended";
    if (api_job_condition(job, "FailureTarget"))
        return "FailureTarget";
    if (api_job_condition(job, "SuccessCriteriaMet"))
        return "SuccessCriteriaMet";
    return "Running";
}

static void completions(json_t *job, char *buf, size_t len)
{
    long long ok = json_integer_value(sl_kube_path(job, "status.succeeded"));
    json_t *c = sl_kube_path(job, "spec.completions");
    long long par = json_integer_value(sl_kube_path(job, "spec.parallelism"));
    if (json_is_integer(c))
        snprintf(buf, len, "%lld/%lld", ok, (long long)json_integer_value(c));
    else if (par > 1)
        snprintf(buf, len, "%lld/1 of %lld", ok, par);
    else
        snprintf(buf, len, "%lld/1", ok);
}

static long long ts(json_t *job, const char *path)
{
    int64_t ns = 0;
    const char *s = sl_kube_path_str(job, path);
    return s && sl_kube_parse_rfc3339(s, &ns) == 0 ? ns : -1;
}

/* layoutContainerCells: names and images joined with "," */
static void containers(json_t *job, char **names, char **images)
{
    sl_buf_t n = SL_BUF_INIT, im = SL_BUF_INIT;
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(job, "spec.template.spec.containers"), i, c)
    {
        const char *cn = json_string_value(json_object_get(c, "name"));
        const char *ci = json_string_value(json_object_get(c, "image"));
        sl_buf_printf(&n, "%s%s", i ? "," : "", cn ? cn : "");
        sl_buf_printf(&im, "%s%s", i ? "," : "", ci ? ci : "");
    }
    sl_buf_puts(&n, "");
    sl_buf_puts(&im, "");
    *names = sl_buf_steal(&n);
    *images = sl_buf_steal(&im);
}

/* metav1.FormatLabelSelector: "<none>" for none, "<none>" too for an empty one */
static char *selector_text(json_t *job)
{
    json_t *sel = sl_kube_path(job, "spec.selector");
    sl_kube_selector_t *s =
        json_is_object(sel) ? sl_kube_label_selector_from_json(sel, NULL) : NULL;
    char *t = s ? sl_kube_selector_string(s) : NULL;
    sl_kube_selector_destroy(s);
    if (!t || !*t) {
        free(t);
        t = sl_xstrdup("<none>");
    }
    return t;
}

json_t *api_job_cells(json_t *job, long long now)
{
    char comp[64], dur[32] = "", age[32];
    completions(job, comp, sizeof(comp));
    long long start = ts(job, "status.startTime"), end = ts(job, "status.completionTime");
    if (start >= 0)
        sl_kube_human_duration((end >= 0 ? end : now) - start, dur, sizeof(dur));
    sl_kube_age(sl_kube_meta_str(job, "creationTimestamp"), now, age, sizeof(age));
    char *names, *images, *sel = selector_text(job);
    containers(job, &names, &images);
    const char *name = sl_kube_name(job);
    json_t *cells = json_pack("[s, s, s, s, s, s, s, s]", name ? name : "", job_status(job), comp,
                              dur, age, names, images, sel);
    free(names);
    free(images);
    free(sel);
    return cells;
}
