/* kind.h — a workload kind is one folder below src/kinds/ and one row of
 * the registry (src/kinds/registry.c).
 *
 * A kind's folder holds everything of it: the API's hooks (decode check,
 * defaults, validation, Table columns: api_kind_ops_t of api/resource.h),
 * its schema for strict decoding and explain, and its controller (what one
 * pass does with one stored object, what its deletion takes with it). Its
 * row (an sl_kind_t, defined in the folder, listed in registry.c) is all the
 * rest of slurmlink knows of it:
 *
 *   - the API serves it from the row's api (discovery, routing, watch,
 *     OpenAPI, the generic create/update/patch/delete handlers);
 *   - admission runs the pod templates the row names like a pod's spec
 *     (identity, policy, quota), stamps the creator's identity when the
 *     kind runs as its creator, and keeps the server-owned bookkeeping of
 *     the pods it owns out of tenants' hands;
 *   - the controller thread follows the kind's change log for it (one
 *     follower for every kind, src/ctl/follow.c): each pass calls gone()
 *     for every object deleted since the last, then reconcile() for every
 *     stored object; collect_gone() when deletions went unread (the log
 *     fell behind, or slurmlinkd was down).
 *
 * The controller hooks run on the controller thread only (ctl/internal.h
 * says what they may touch). Adding a kind: docs/development.md ("Adding a
 * workload kind"). */
#ifndef SL_KINDS_KIND_H
#define SL_KINDS_KIND_H

#include <jansson.h>
#include <stdbool.h>

#include "api/resource.h"

struct sl_ctl;

typedef struct sl_kind_ctl {
    /* the pass runs only once Slurm's jobs were read (no submission can
     * duplicate one a crash left) and while Slurm answers */
    bool needs_slurm;
    /* one stored object, every pass (the current version; borrowed) */
    void (*reconcile)(struct sl_ctl *c, json_t *obj);
    /* instead of reconcile: every stored object at once (an array, never
     * empty; borrowed), for a kind whose pass reads something once for all
     * of them (a CronJob's: the Jobs) */
    void (*reconcile_all)(struct sl_ctl *c, json_t *objs);
    /* an object the change log says was deleted (its last version;
     * borrowed): what it made goes with it */
    void (*gone)(struct sl_ctl *c, json_t *obj);
    /* deletions that went unread (the log fell behind, or they happened
     * while slurmlinkd was down): what objects no longer stored left behind
     * is found and collected */
    void (*collect_gone)(struct sl_ctl *c);
} sl_kind_ctl_t;

typedef struct sl_kind {
    api_resource_t api; /* the API's row: group, version, plural, kind, verbs, hooks */
    /* the pod templates an object holds, admitted like a pod create:
     * dotted paths, '*' for every key of a map or index of an array
     * ("spec.template.spec", "spec.pytorchReplicaSpecs.*.template.spec",
     * "spec.replicatedJobs.*.template.spec.template.spec"); NULL-terminated */
    const char *pod_templates[4];
    /* what it makes runs as its creator: admission stamps the creator's
     * identity on it (api_admit_pod_identity) */
    bool runs_as_creator;
    /* the pods it makes carry its controller ownerReference: pods left by a
     * deleted one are collected, tenants may not rewrite that reference */
    bool owns_pods;
    /* a Foreground or Orphan deletion adds kube's garbage-collector
     * finalizer ("foregroundDeletion", "orphan"); its controller honours it */
    bool delete_finalizers;
    sl_kind_ctl_t ctl;
} sl_kind_t;

/* Every workload kind, NULL-terminated (registry.c): the API lists them
 * after the core resources, in this order. */
extern const sl_kind_t *const sl_kinds[];

/* The kind whose store name (api.store_name) or plural with group is
 * given, or NULL. */
const sl_kind_t *sl_kind_by_store(const char *store_name);
const sl_kind_t *sl_kind_by_resource(const api_resource_t *res);

#endif
