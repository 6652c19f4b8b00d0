/* carry.h — a gang replica restarted in place, as Kubeflow's training
 * operator restarts a replica's containers: when a failed attempt's pods
 * are deleted before the next attempt (src/kinds/kubeflow/controller.c),
 * each one's container runs are carried over to the pod of the same name
 * that replaces it: its restartCount plus one and its last terminated
 * state (SL_ANN_RESTARTS on the new pod, which translate puts in the
 * shim's spec), and its last log, written into the new pod folder as the
 * previous run's log so that `kubectl logs --previous` reads it.
 *
 * The log is read by slurmlinkd (root) from the tenant-writable pod folder
 * through safefs only: no link followed, a regular file owned by the job's
 * user with one link, at most CTL_CARRY_LOG_MAX bytes (its tail); written
 * into the new pod folder exclusively, owned by the job's user. Kept in
 * memory between the two (a daemon restart in between loses the log, not
 * the counts). Controller thread. */
#ifndef SL_CTL_CARRY_H
#define SL_CTL_CARRY_H

#include <jansson.h>
#include <sys/types.h>

struct sl_ctl;

#define CTL_CARRY_LOG_MAX (4 << 20) /* the tail of a log carried over */
#define CTL_CARRY_MAX 1024          /* replicas carried at once */

/* pod (of owner, a failed attempt's, about to be deleted): its runs kept */
void ctl_carry_save(struct sl_ctl *c, json_t *owner, json_t *pod);

/* pod (new, of owner): SL_ANN_RESTARTS set when it replaces one carried,
 * its container statuses with it (ctl_carry_status) */
void ctl_carry_annotate(json_t *owner, json_t *pod);

/* cs, a new container status of pod: its restartCount and lastState as
 * SL_ANN_RESTARTS carries them over (nothing without it) */
void ctl_carry_status(json_t *pod, json_t *cs);

/* pod's folder written (it runs as uid:gid): the carried logs written into
 * it as the previous runs' and the carried runs forgotten */
void ctl_carry_logs(struct sl_ctl *c, json_t *owner, json_t *pod, uid_t uid, gid_t gid);

#endif
