/* patch.h — the three PATCH flavours of kube-apiserver as pure functions.
 *
 *  - JSON merge patch (RFC 7386): application/merge-patch+json
 *  - strategic merge patch: application/strategic-merge-patch+json, for the
 *    built-in kinds; lists merge by key where k8s.io/api marks them with
 *    patchStrategy/patchMergeKey (containers by name, env by name,
 *    volumeMounts by mountPath, ports by containerPort, conditions by type,
 *    ownerReferences by uid, finalizers as a set, ...), other lists are
 *    replaced, `null` deletes, and the directives `$patch` (replace, delete,
 *    merge), `$setElementOrder/<list>`, `$retainKeys` and
 *    `$deleteFromPrimitiveList/<list>` are honoured.
 *  - server-side apply: application/apply-patch+yaml (kubectl sends JSON).
 *
 * List order follows apimachinery: with $setElementOrder (kubectl apply
 * always sends it) the list takes that order; without it, items named by
 * the patch come before the server's other items (a plain
 * `kubectl patch` adding an env var puts it first, as on a real server).
 * Deliberate differences (patch.c): values the patch adds are cleaned of
 * directives and nulls before they are stored, and
 * $deleteFromPrimitiveList on an absent list is a no-op.
 *
 * Nothing here modifies its inputs; results are new references.
 * Kinds are identified by apiVersion + kind ("v1" "Pod", "batch/v1" "Job").
 */
#ifndef SL_KUBE_PATCH_H
#define SL_KUBE_PATCH_H

#include <jansson.h>
#include <stdbool.h>

#include "common/err.h"

/* RFC 7386. A non-object patch replaces the target. target may be NULL. */
json_t *sl_kube_merge_patch(json_t *target, json_t *patch);

/* Strategic merge patch of original (a full object of kind api_version/kind;
 * unknown kinds get the metadata rules only, lists replaced). NULL with
 * errno EINVAL and err filled for a malformed patch (unknown $patch value,
 * $setElementOrder that is not a list, patch not an object, ...); the HTTP
 * layer answers 400 BadRequest with that text. */
json_t *sl_kube_strategic_merge(const char *api_version, const char *kind, json_t *original,
                                json_t *patch, sl_error_t *err);

/* Server-side apply (simplified; see apply.c for the exact rules).
 * live: the stored object or NULL (then the applied object is the result:
 * apply creates). applied: the configuration from the request. manager: the
 * fieldManager query parameter (kubectl: "kubectl").
 *
 * The result is live with applied merged in by the strategic rules (maps
 * merge, keyed lists merge by key, other lists replace), and with the fields
 * this manager applied last time but no longer applies removed. The set of
 * applied fields is recorded per manager in metadata.managedFields
 * (operation "Apply", fieldsType "FieldsV1", fieldsV1 in the real format:
 * {"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":
 * {"k:{\"name\":\"c\"}":{".":{},"f:image":{}}}}}).
 *
 * A field another apply manager owns, set here to a value other than the
 * live one, is a conflict: NULL with EBUSY and a 409 in err (message
 * "Apply failed with 1 conflict: conflict with \"alice\": .metadata.labels.x",
 * one FieldManagerConflict cause per field), unless force, which takes the
 * field from the other manager.
 * Limits (documented for users): fields owned by Update managers are not
 * tracked (no conflict with them); a
 * field dropped by one apply manager is removed even if another apply
 * manager also set it. NULL with EINVAL for a malformed configuration
 * (not an object, apiVersion/kind mismatch with live). */
json_t *sl_kube_apply(json_t *live, json_t *applied, const char *manager, bool force,
                      sl_error_t *err);

/* The FieldsV1 set of an applied configuration (as recorded above). New ref. */
json_t *sl_kube_fields_v1(const char *api_version, const char *kind, json_t *obj);

#endif
