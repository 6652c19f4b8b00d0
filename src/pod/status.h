/* status.h — validation of a Pod's status, as a write of the status
 * subresource gives it (kube-apiserver's ValidatePodStatusUpdate, plus the
 * shape its typed decoding enforces). Every reader of a stored status (the
 * controller, the printers) may then rely on its shape; they stay NULL-safe
 * for what was stored before.
 *
 *   phase                         one of Pending Running Succeeded Failed Unknown
 *   conditions[i].type            required; .status required, True False Unknown
 *   hostIP, podIP, *IPs[i].ip     valid IPv4 or IPv6 addresses ("" allowed)
 *   qosClass                      Guaranteed Burstable BestEffort
 *   *containerStatuses[i]         objects; name required and one of the spec's
 *                                 containers of that list; restartCount >= 0;
 *                                 state and lastState at most one of waiting,
 *                                 running, terminated
 *   strings are strings, booleans booleans, times strings (or null)
 *
 * Texts are kube-apiserver's where it has them (field.Required, NotSupported,
 * Invalid "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
 * "must be greater than or equal to 0"). */
#ifndef SL_POD_STATUS_H
#define SL_POD_STATUS_H

#include <jansson.h>

#include "common/err.h"

/* Append to errs every error of pod's status (absent or null is valid). */
void sl_pod_status_errors(json_t *pod, sl_error_t *errs);

/* A write of the status of old: a pod in a terminal phase (Succeeded,
 * Failed) keeps it (Kubernetes never moves a pod out of a terminal phase):
 * status.phase Forbidden "a pod in a terminal phase (Succeeded) may not
 * change phase" otherwise, a phase left out included. */
void sl_pod_status_update_errors(json_t *pod, json_t *old, sl_error_t *errs);

#endif
