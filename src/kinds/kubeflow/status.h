/* src/kinds/kubeflow/status.h — a PyTorchJob's status as the Training Operator v1.8 keeps
 * it (pytorchjob_controller.go UpdateJobStatus, common/job.go,
 * pkg/util/status.go), from its replica pods: conditions with the
 * operator's reasons and messages and its setCondition rules (Running and
 * Restarting replace each other, Succeeded/Failed set Running False,
 * nothing changes once Failed), replicaStatuses (active, succeeded,
 * failed, selector), startTime, completionTime; and what the controller
 * must do next. Pure functions on jansson objects. */
#ifndef SL_CTL_PTJSTATUS_H
#define SL_CTL_PTJSTATUS_H

#include <jansson.h>
#include <stdbool.h>

typedef enum {
    PTJ_GO_ON,   /* create, submit or wait */
    PTJ_RESTART, /* a replica failed, the policy restarts the gang */
    PTJ_STOP,    /* finished (Succeeded or Failed): the gang's job ends */
} ptj_next_t;

/* The new status (new ref) of job given the pods of its current attempt
 * (attempt restarts so far) and the time; *next what to do. */
json_t *ctl_ptj_status(json_t *job, json_t *pods, long long attempt, long long now_ns,
                       ptj_next_t *next);

/* replicaStatuses from the pods, into st (also once finished: a Worker
 * that ends after the Master is counted) */
void ctl_ptj_replica_statuses(json_t *job, json_t *pods, json_t *st);

/* Set a condition by the operator's setCondition rules (status is changed). */
void ctl_ptj_set_condition(json_t *status, const char *type, bool value, const char *reason,
                           const char *message, const char *now);

/* The same for a kind of ctl/trainjob.h (its reasons, messages and rules). */
struct ctl_tj_kind;
json_t *ctl_tj_status(const struct ctl_tj_kind *k, json_t *job, json_t *pods, long long attempt,
                      long long now_ns, ptj_next_t *next);
void ctl_tj_replica_statuses(const struct ctl_tj_kind *k, json_t *job, json_t *pods, json_t *st);
/* "<Kind> <name><rest>" (mpi-operator's: "<Kind> <namespace>/<name><rest>"), new string */
char *ctl_tj_say(const struct ctl_tj_kind *k, json_t *job, const char *rest);

/* the status has a condition of type with status True */
bool ctl_ptj_condition(json_t *status, const char *type);

#endif
