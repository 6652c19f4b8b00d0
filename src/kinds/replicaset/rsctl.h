/* rsctl.h — the ReplicaSet controller's parts the Deployment controller
 * uses too (controller thread; ctl/internal.h's rules). */
#ifndef SL_KINDS_RSCTL_H
#define SL_KINDS_RSCTL_H

#include <jansson.h>
#include <stdbool.h>

#include "api/resource.h"
#include "ctl/internal.h"

/* the API hooks of the ReplicaSet (api.c) */
extern const api_kind_ops_t sl_rs_api_ops;

/* the uid of obj's controller ownerReference to an apps/v1 kind, or NULL */
const char *sl_rs_controller_of(json_t *obj, const char *kind);
/* the pods whose controller is owner, an apps/v1 kind (new ref) */
json_t *sl_rs_owned_pods(sl_ctl_t *c, json_t *owner, const char *kind);
/* neither ended (Succeeded, Failed) nor being deleted */
bool sl_rs_pod_active(json_t *pod);
/* a graceful delete of pod (now: no grace period) */
void sl_rs_delete_pod(sl_ctl_t *c, json_t *pod, bool now);
/* status st written onto obj of store when it changed (uid checked) */
void sl_rs_write_status(sl_ctl_t *c, const char *store, json_t *obj, json_t *st);
/* an object being deleted with the garbage collector's finalizer: fn
 * orphans (orphan) or deletes its dependents deps; the finalizer goes once
 * they are orphaned or gone, and the object with its last finalizer */
typedef void (*sl_rs_deps_fn)(sl_ctl_t *c, json_t *owner, json_t *deps, bool orphan);
void sl_rs_finalize(sl_ctl_t *c, json_t *obj, const char *store, json_t *deps, sl_rs_deps_fn fn);
/* an sl_rs_deps_fn for pods (ReplicaSet, StatefulSet): orphan drops each
 * pod's ownerReference to owner, else each pod not yet being deleted gets a
 * graceful delete */
void sl_rs_pods_follow(sl_ctl_t *c, json_t *owner, json_t *pods, bool orphan);
/* the objects of dep_store whose controller is an owner_kind no longer in
 * owner_store: deleted */
void sl_rs_collect_orphans(sl_ctl_t *c, const char *owner_store, const char *owner_kind,
                           const char *dep_store);

#endif
