/* src/kinds/cronjob/printers.c — the CronJob's Table (printCronJob of
 * kubernetes/pkg/printers/internalversion/printers.go, 1.32): NAME SCHEDULE
 * TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide CONTAINERS IMAGES
 * SELECTOR (of the Job template: "<none>", as kube prints it). */
#include "common/buf.h"
#include "common/xalloc.h"
#include "kinds/job/job.h"
#include "kube/meta.h"
#include "kube/selector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *col(const char *name, const char *type, const char *format, const char *desc,
                   int priority)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", type, "format", format,
                     "description", desc, "priority", priority);
}

json_t *api_cronjob_columns(void)
{
    return json_pack(
        "[o, o, o, o, o, o, o, o, o, o]",
        col("Name", "string", "name",
            "Name must be unique within a namespace. Is required when creating resources, "
            "although some resources may allow a client to request the generation of an "
            "appropriate name automatically. Name is primarily intended for creation idempotence "
            "and configuration definition. Cannot be updated. More info: "
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
            0),
        col("Schedule", "string", "",
            "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0),
        col("Timezone", "string", "",
            "The time zone name for the given schedule, see "
            "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, "
            "this will default to the time zone of the kube-controller-manager process.",
            0),
        col("Suspend", "boolean", "",
            "This flag tells the controller to suspend subsequent executions, it does not apply "
            "to already started executions.  Defaults to false.",
            0),
        col("Active", "integer", "", "A list of pointers to currently running jobs.", 0),
        col("Last Schedule", "string", "",
            "Information when was the last time the job was successfully scheduled.", 0),
        col("Age", "string", "",
            "CreationTimestamp is a timestamp representing the server time when this object was "
            "created. It is not guaranteed to be set in happens-before order across separate "
            "operations. Clients may not set this value. It is represented in RFC3339 form and "
            "is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
            "https://git.k8s.io/community/contributors/devel/sig-architecture/"
            "api-conventions.md#metadata",
            0),
        col("Containers", "string", "", "Names of each container in the template.", 1),
        col("Images", "string", "", "Images referenced by each container in the template.", 1),
        col("Selector", "string", "",
            "A label query over pods that should match the pod count. Normally, the system sets "
            "this field for you. More info: "
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
            "labels/#label-selectors",
            1));
}

/* layoutContainerCells of the Job template's pod template */
static void containers(json_t *cj, char **names, char **images)
{
    sl_buf_t n = SL_BUF_INIT, im = SL_BUF_INIT;
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(cj, "spec.jobTemplate.spec.template.spec.containers"), i, c)
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

static char *selector_text(json_t *cj)
{
    json_t *sel = sl_kube_path(cj, "spec.jobTemplate.spec.selector");
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

json_t *api_cronjob_cells(json_t *cj, long long now)
{
    char last[32] = "<none>", age[32];
    const char *ls = sl_kube_path_str(cj, "status.lastScheduleTime");
    if (ls)
        sl_kube_age(ls, now, last, sizeof(last));
    sl_kube_age(sl_kube_meta_str(cj, "creationTimestamp"), now, age, sizeof(age));
    json_t *susp = sl_kube_path(cj, "spec.suspend");
    const char *tz = sl_kube_path_str(cj, "spec.timeZone");
    const char *sched = sl_kube_path_str(cj, "spec.schedule");
    char *names, *images, *sel = selector_text(cj);
    containers(cj, &names, &images);
    const char *name = sl_kube_name(cj);
    json_t *cells = json_pack(
        "[s, s, s, s, I, s, s, s, s, s]", name ? name : "", sched ? sched : "", tz ? tz : "<none>",
        json_is_boolean(susp) ? (json_is_true(susp) ? "True" : "False") : "<unset>",
        (json_int_t)json_array_size(sl_kube_path(cj, "status.active")), last, age, names, images,
        sel);
    free(names);
    free(images);
    free(sel);
    return cells;
}
