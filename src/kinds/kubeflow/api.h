/* src/kinds/kubeflow/kubeflow.h — what the kubeflow.org training kinds (PyTorchJob:
 * ptj_*.c; MPIJob: mpijob_*.c) share in src/api/: a map of replica specs
 * (type → {replicas, restartPolicy, template}) whose templates become
 * pods, the status subresource's strategy, the CRD's default columns. */
#ifndef SL_API_TRAINJOB_H
#define SL_API_TRAINJOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* o[k], made an empty object when it is not one (borrowed) */
json_t *api_tj_obj_child(json_t *o, const char *k);

/* o[k] = v unless o has a non-null k (v is stolen either way) */
void api_tj_default(json_t *o, const char *k, json_t *v);

/* The replica specs' ignored pod fields (specs: "spec.mpiReplicaSpecs"),
 * as a Job's template's, appended to warnings. */
void api_tj_template_warnings(json_t *job, const char *specs, json_t *warnings);

/* The status subresource's strategy: status dropped on create (generation
 * 1), kept from old on update (generation + 1 when the spec changed). */
void api_tj_prepare_create(json_t *job);
void api_tj_prepare_update(json_t *job, json_t *old);

/* The replica's pod as the controller will create it (restartPolicy
 * Never for the pod: the gang restarts, not the container), validated by
 * the pod module and the translator; its field errors under
 * SPECS[TYPE].template. */
void api_tj_validate_template(const char *specs, const char *type, json_t *rs, sl_error_t *err);

/* apimachinery's IsDNS1035Label: its error texts joined by sep into why
 * (empty when s is one); false when s is not one. */
bool api_tj_dns1035(const char *s, const char *sep, char *why, size_t len);

/* The Table's Name column as kube-apiserver's table convertor gives it (new ref). */
json_t *api_tj_name_column(void);

/* The Table of a CRD without additionalPrinterColumns: NAME, AGE. */
json_t *api_tj_columns_name_age(void);
json_t *api_tj_cells_name_age(json_t *job, long long now);

#endif
