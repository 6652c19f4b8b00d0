/* src/kinds/kubeflow/kubeflow.h — what tells the kubeflow.org training kinds apart in the
 * controller (src/kinds/kubeflow/controller.c runs both; src/kinds/kubeflow/status.c keeps both
 * statuses): a PyTorchJob (the Training Operator's rules, src/kinds/pytorchjob/pods.c) and an
 * MPIJob (mpi-operator's, src/kinds/mpijob/pods.c). */
#ifndef SL_CTL_TRAINJOB_H
#define SL_CTL_TRAINJOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "ctl/gang.h"

typedef struct ctl_tj_kind {
    const char *res;           /* the store's name: "pytorchjobs.kubeflow.org" */
    const char *kind;          /* "PyTorchJob": the reasons' prefix, the messages' first word */
    const char *api_version;   /* "kubeflow.org/v1", the pods' ownerReference */
    const char *specs;         /* "spec.pytorchReplicaSpecs" */
    const char *types[2];      /* the replica types, the lead first: Master, Worker */
    const char *operator_name; /* training.kubeflow.org/operator-name */
    /* mpi-operator's rules: only the lead's (the Launcher's) end decides;
     * Running once it and every Worker run; messages name namespace/name */
    bool launcher_rules;
    /* the pod of replica r ({"type","index"}) at member index i (new ref) */
    json_t *(*new_pod)(json_t *job, json_t *r, size_t i, long long attempt);
    /* the gang's shape beyond its members (nodes, tasks per node, batch
     * members, an rsh agent: g->hostfile a new string the caller frees) and
     * the batch script's head (new string, or NULL) */
    char *(*shape)(json_t *job, ctl_gang_t *g);
    /* a node range (an elastic PyTorchJob's minReplicas < maxReplicas): the
     * job's least and most nodes, the lead's included; NULL or false: none */
    bool (*range)(json_t *job, size_t *lo, size_t *hi);
} ctl_tj_kind_t;

extern const ctl_tj_kind_t ctl_tj_pytorchjob; /* src/kinds/pytorchjob/pods.c */
extern const ctl_tj_kind_t ctl_tj_mpijob;     /* src/kinds/mpijob/pods.c */

/* The controller (controller.c) for a kind's row: one object reconciled
 * (its attempt's pods, the gang submitted or adopted, its status), one
 * deleted (its job cancelled, its pods deleted). Controller thread. */
void ctl_tj_reconcile(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job);
void ctl_tj_gone(const ctl_tj_kind_t *k, sl_ctl_t *c, json_t *job);

/* The replicas of job in member order: [{"type":"Master","index":0}, ...] (new ref). */
json_t *ctl_tj_replicas(const ctl_tj_kind_t *k, json_t *job);

/* The lower-case replica type ("Worker" → "worker") into out. */
void ctl_tj_lower(const char *type, char *out, size_t len);

/* What a replica pod of any kind carries (src/kinds/pytorchjob/pods.c): the labels
 * training.kubeflow.org/{operator-name,job-name,replica-type,replica-index},
 * the gang's bookkeeping annotations (node, member index, attempt, the
 * owner's uid and user), the ownerReference, the template's spec with
 * restartPolicy Never (new ref: {"apiVersion":"v1","kind":"Pod",...}). */
json_t *ctl_tj_base_pod(const ctl_tj_kind_t *k, json_t *job, json_t *r, size_t node, size_t i,
                        long long attempt);

#endif
