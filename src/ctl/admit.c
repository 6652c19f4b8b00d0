/* admit.c — the pods the controllers make for a workload (a Job, a
 * CronJob's Job, a PyTorchJob, an MPIJob) go through the API's admission
 * of a pod create, as a tenant's own pods do (sl_ctl_opts_t.create_pods,
 * sl_api_create_pods): the creator's identity, the namespace's
 * ResourceQuotas. A refused creation is retried with a back-off per
 * workload (kube's controllers do the same after FailedCreate), so a Job
 * under its quota tries again as its pods finish, without writing an
 * Event on every pass. */
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kube/meta.h"
#include "kube/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BACKOFF_FIRST_MS 1000LL
#define BACKOFF_MAX_MS 30000LL

int ctl_pods_create(sl_ctl_t *c, json_t *pods, bool *forbidden, sl_error_t *err)
{
    *forbidden = false;
    if (!c->o.create_pods) { /* no pod is stored past admission */
        errno = EINVAL;
        return sl_errprintf(err, "no admission path for the controllers' pods (create_pods)");
    }
    sl_error_t e = SL_ERROR_INIT;
    int rc = c->o.create_pods(c->o.create_pods_arg, pods, &e);
    if (rc < 0) {
        int saved = errno;
        /* refused by admission (a quota, the creator's identity, a field,
         * the namespace), not a store failure */
        *forbidden = e.kind != SL_ERR_GENERIC && e.kind != SL_ERR_INTERNAL;
        char *m =
            sl_kube_error_message(&e, "pods", "", "Pod", sl_kube_name(json_array_get(pods, 0)));
        sl_errprintf(err, "%s", m);
        free(m);
        errno = saved;
    }
    sl_error_clear(&e);
    return rc;
}

bool ctl_create_waits(sl_ctl_t *c, const char *uid)
{
    json_t *b = json_object_get(ctl_workloads_backoff(c, 0), uid);
    return b && sl_now_ms() < json_integer_value(json_array_get(b, 0));
}

void ctl_create_refused(sl_ctl_t *c, const char *uid)
{
    json_t *backoff = ctl_workloads_backoff(c, 1);
    json_t *b = json_object_get(backoff, uid);
    long long d = b ? json_integer_value(json_array_get(b, 1)) * 2 : BACKOFF_FIRST_MS;
    if (d > BACKOFF_MAX_MS)
        d = BACKOFF_MAX_MS;
    json_object_set_new(backoff, uid,
                        json_pack("[I, I]", (json_int_t)(sl_now_ms() + d), (json_int_t)d));
}

void ctl_create_admitted(sl_ctl_t *c, const char *uid)
{
    if (ctl_workloads_backoff(c, 0))
        json_object_del(ctl_workloads_backoff(c, 0), uid);
}
