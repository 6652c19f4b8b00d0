/* quota.h — ResourceQuota admission and the recount of status.used
 * (quota.c), and which namespaces the recount looks at (quotawatch.c). */
#ifndef SL_API_QUOTA_H
#define SL_API_QUOTA_H

#include <jansson.h>
#include <stdbool.h>

#include "api/http/request.h"
#include "common/argv.h"
#include "common/err.h"
#include "store/store.h"

/* --- resource quotas (quota.c) --- */
/* Pod create in a namespace with quotas (or the policy's default quota):
 * takes the store's write lock (a transaction) and checks the pod against
 * them (creating the policy's default one when it has none). 0: admitted,
 * the lock is held until api_quota_end (r->quota_txn); -1: err is a
 * Forbidden (or a 500), the lock is released. A namespace without: 0, no
 * lock taken. */
int api_quota_begin(api_req_t *r, json_t *pod, sl_error_t *err);
/* Whether a create of resource (plural) is held against quotas as a pod's
 * is: pods and persistentvolumeclaims. */
bool api_quota_counts(const char *resource);
/* After the store create (created: it succeeded): update the quotas'
 * status and commit, or roll back (nothing when begin took no lock). -1
 * when the commit failed. */
int api_quota_end(api_req_t *r, json_t *pod, bool created, sl_error_t *err);
/* The same for several pods of namespace ns admitted together, all or
 * none (a gang's): their summed usage against each quota; txn: a
 * transaction even without quotas, so that they are stored all or none. */
int api_quota_begin_pods(api_req_t *r, const char *ns, json_t *pods, bool txn, sl_error_t *err);
int api_quota_end_pods(api_req_t *r, const char *ns, json_t *pods, bool created, sl_error_t *err);
/* The janitor's pass: default quotas from the policy, status.used of the
 * quotas recomputed from the pods, in the namespaces w says may need it. */
typedef struct api_quota_watch api_quota_watch_t;
void api_quota_sync(sl_api_t *api, api_quota_watch_t *w);

/* --- which namespaces the quota recount looks at (quotawatch.c) --- */
/* A watch that looks at every namespace on its first pass. */
api_quota_watch_t *api_quota_watch_new(void);
void api_quota_watch_free(api_quota_watch_t *w);
/* Read the change logs since the last pass and mark the namespaces to look at. */
void api_quota_watch_collect(api_quota_watch_t *w, sl_store_t *store);
bool api_quota_watch_wants(const api_quota_watch_t *w, const char *ns);
/* The pass is over: next time, the namespaces marked by the next collect and
 * those in *again (taken; emptied). */
void api_quota_watch_done(api_quota_watch_t *w, sl_argv_t *again);

#endif
