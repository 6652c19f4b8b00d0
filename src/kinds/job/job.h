/* src/kinds/job/job.h — what src/kinds/job/api.c shares with the kinds that hold a Job
 * template (src/kinds/cronjob/api.c): the template's defaults and validateJobSpec. */
#ifndef SL_API_JOBKIND_H
#define SL_API_JOBKIND_H

#include <jansson.h>

#include "common/err.h"
#include "kube/selector.h"

/* SetDefaults_PodSpec and the containers' defaults on spec.template of a
 * Job's spec (as the Job kind applies them). */
void api_job_template_defaults(json_t *spec);
/* validateJobSpec on job's "spec" (counts, modes, the pod template, the
 * restart policy), without the selector checks of ValidateJob: field
 * errors named "spec...." in err. */
void api_job_validate_spec(json_t *job, sl_error_t *err);
/* ValidatePodTemplateSpec of obj's spec.template (a Job's, a Deployment's,
 * a ReplicaSet's): the template as a pod, its field errors named
 * "spec.template...." in err. */
void api_job_validate_template(json_t *obj, sl_error_t *err);
/* A workload's selector for the pods of its template (ValidateJob's and
 * ValidateReplicaSetSpec's checks): the selector at path ("spec.selector")
 * required and a valid LabelSelector, and matching the labels at
 * labels_path ("spec.template.metadata.labels": Invalid "`selector` does
 * not match template `labels`"). An empty selector is Invalid on path
 * with empty_detail, or, empty_detail NULL, one that matches no labels.
 * Returns the parsed selector (sl_kube_selector_destroy), NULL when it is
 * missing or not valid. */
sl_kube_selector_t *api_job_template_selector(json_t *obj, const char *path,
                                              const char *labels_path, const char *empty_detail,
                                              sl_error_t *err);
/* Go's %#v of a map[string]string, as field.Invalid prints a template's
 * labels (new string) */
char *api_job_go_map(json_t *m);

/* CronJob (src/kinds/cronjob/api.c): Table columns and cells (printCronJob). */
json_t *api_cronjob_columns(void);
json_t *api_cronjob_cells(json_t *cj, long long now);

#endif
