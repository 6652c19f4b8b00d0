/* lws.h — leaderworkerset.x-k8s.io/v1 LeaderWorkerSet (LWS v0.10) served
 * by slurmlinkd, each group of `size` pods run as ONE gang Slurm job
 * (ctl/gang.h): the leader pod <lws>-<g> on the job's first node, worker
 * <lws>-<g>-<w> on node w.
 *
 * lws_kind.c: the API's hooks (strict decoding and the pinned CRD's type
 * checks, the webhook's defaults and rules, each template as the pod it
 * becomes, the CRD's printer columns). lws_pod.c: a group's pods as
 * upstream's controllers label them, with LWS_* in their environment.
 * lws_ctl.c: the controller (groups created, submitted, recreated,
 * scaled, rolled, deleted; status). */
#ifndef SL_KINDS_LWS_H
#define SL_KINDS_LWS_H

#include <jansson.h>
#include <stddef.h>

#include "common/err.h"
#include "kinds/kind.h"

#define LWS_GROUP "leaderworkerset.x-k8s.io"
#define LWS_API_VERSION LWS_GROUP "/v1"
#define LWS_STORE "leaderworkersets." LWS_GROUP
#define LWS_L "leaderworkerset.sigs.k8s.io/"
#define LWS_LABEL_NAME LWS_L "name"
#define LWS_LABEL_GROUP LWS_L "group-index"
#define LWS_LABEL_WORKER LWS_L "worker-index"
#define LWS_LABEL_GROUP_KEY LWS_L "group-key"
#define LWS_LABEL_REVISION LWS_L "template-revision-hash"
#define LWS_ANN_SIZE LWS_L "size"
#define LWS_ANN_LEADER LWS_L "leader-name"
/* slurmlinkd's bookkeeping (server-owned): the group's run, unique within
 * its LWS, which the gang's Slurm job comment carries */
#define LWS_ANN_ATTEMPT "slurmlink.io/gang-attempt"
#define LWS_ANN_NEXT "slurmlink.io/lws-next-attempt" /* on the LWS: the next run's number */

extern const sl_kind_t sl_kind_lws;

/* The pinned CRD's schema of LeaderWorkerSet (borrowed). */
json_t *lws_schema(void);

/* spec.replicas and spec.leaderWorkerTemplate.size after defaults. */
long long lws_replicas(json_t *lws);
long long lws_size(json_t *lws);

/* The template's revision: a hash of spec.leaderWorkerTemplate and
 * spec.networkConfig (what a pod is made from), 10 hex digits. */
void lws_revision(json_t *lws, char out[11]);

/* The subdomain of group g's pods (Shared: the LWS's name;
 * UniquePerReplica: <lws>-<g>) into out. */
void lws_subdomain(json_t *lws, long long g, char *out, size_t len);

/* Worker w (0: the leader) of group g, run `attempt`, as the controller
 * creates it (new ref): upstream's labels and annotations, LWS_* env,
 * hostname and subdomain, restartPolicy Never (the group restarts, not the
 * container), the gang's bookkeeping. */
json_t *lws_new_pod(json_t *lws, long long g, long long w, long long attempt);

/* The controller's hooks (lws_ctl.c); what a LWS deleted while slurmlinkd
 * was down left is the garbage collector's (ctl/jobgc.c). */
void lws_reconcile(struct sl_ctl *c, json_t *lws);
void lws_gone(struct sl_ctl *c, json_t *lws);

#endif
