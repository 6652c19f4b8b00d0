/* crd.h — the custom resources slurmlinkd serves itself (kubeflow.org's
 * PyTorchJob): their published CRD schemas (crd_schemas.c, generated from
 * the pinned CRDs by src/api/gen/crd-gen.py), walked as kube-apiserver's
 * CRD handler walks a structural schema:
 *
 *   pruning:  unknown field "spec.pytorchReplicaSpecs.Worker.replicaz"
 *             (map keys and properties joined by '.', indexes as [i])
 *   types:    spec.runPolicy.backoffLimit: Invalid value: "string":
 *             spec.runPolicy.backoffLimit in body must be of type integer: "string"
 *   required: spec.pytorchReplicaSpecs.Worker.template.spec.containers.0.name: Required value
 *             (kube-openapi's validator names paths with '.' throughout)
 *
 * and the OpenAPI v3 document of such a group: the CRD's schemas with the
 * apimachinery definitions they refer to (ObjectMeta, ListMeta ...). */
#ifndef SL_API_CRD_H
#define SL_API_CRD_H

#include <jansson.h>
#include <stddef.h>

#include "common/err.h"

/* The component schema of kind in group/version (borrowed, kept for the
 * process), or NULL when it is not a served custom resource. */
json_t *api_crd_schema(const char *group, const char *version, const char *kind);

/* The text of the group-version's OpenAPI component schemas
 * ({"org.kubeflow.v1.PyTorchJob":...,"io.k8s.apimachinery...":...}),
 * built once; NULL when the group-version has no CRD schemas. */
const char *api_crd_gv_schemas(const char *group, const char *version, size_t *len);

/* Unknown fields of obj under schema (metadata is not walked: the API
 * layer checks it as ObjectMeta), appended to unknown as
 * `unknown field "PATH"` strings. */
void api_crd_unknown(json_t *schema, json_t *obj, json_t *unknown);

/* The schema's type and required-property checks of obj (metadata not
 * walked), appended to err as kube-apiserver's field errors. */
void api_crd_validate(json_t *schema, json_t *obj, sl_error_t *err);

#endif
