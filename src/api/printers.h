/* printers.h — Table columns and cells per kind (printers.go of 1.32).
 * Columns: a new JSON array of column definitions. Cells: a new JSON array
 * of cells, or for pods possibly {"cells":[...],"conditions":[...]}.
 * now is the wall clock in ns (ages are computed against it). */
#ifndef SL_API_PRINTERS_H
#define SL_API_PRINTERS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

json_t *api_pod_columns(void);
json_t *api_pod_cells(json_t *pod, long long now);
/* READY ("1/2"), STATUS ("Running", "Init:0/1", "CrashLoopBackOff", ...)
 * and RESTARTS ("3 (5m ago)") of a pod, as kubectl prints them. */
void api_pod_status_cells(json_t *pod, long long now, char *ready, size_t rlen, char *reason,
                          size_t reasonlen, char *restarts, size_t restlen);
json_t *api_node_columns(void);
json_t *api_node_cells(json_t *node, long long now);
json_t *api_event_columns(void);
json_t *api_event_cells(json_t *ev, long long now);
json_t *api_namespace_columns(void);
json_t *api_namespace_cells(json_t *o, long long now);
json_t *api_configmap_columns(void);
json_t *api_configmap_cells(json_t *o, long long now);
json_t *api_secret_columns(void);
json_t *api_secret_cells(json_t *o, long long now);
json_t *api_serviceaccount_columns(void);
json_t *api_serviceaccount_cells(json_t *o, long long now);
json_t *api_resourcequota_columns(void);
json_t *api_resourcequota_cells(json_t *o, long long now);
/* Jobs (src/kinds/job/printers.c); api_job_condition: the condition type is there
 * with status True (printers.go's hasJobCondition). */
json_t *api_job_columns(void);
json_t *api_job_cells(json_t *job, long long now);
bool api_job_condition(json_t *job, const char *type);

#endif
