/* probespec.h — a container's probes in shim.json (docs/shim-spec.md,
 * "probes"): kube's Probe with defaults filled in and ports as numbers, as
 * translate writes it (src/translate/probes.c). The shim runs them
 * (src/shim/probe.c). */
#ifndef SL_SHIMLIB_PROBESPEC_H
#define SL_SHIMLIB_PROBESPEC_H

#include <stddef.h>

#include "common/err.h"

typedef struct json_t json_t;

typedef enum {
    SL_PROBE_READINESS = 0,
    SL_PROBE_LIVENESS,
    SL_PROBE_STARTUP,
    SL_PROBE_NTYPES
} sl_probe_type_t;

typedef enum { SL_PROBE_EXEC = 1, SL_PROBE_HTTP, SL_PROBE_TCP } sl_probe_kind_t;

typedef struct sl_shim_probe {
    sl_probe_kind_t kind;
    char **command; /* exec: NULL-terminated, at least one word */
    size_t ncommand;
    char *host;     /* httpGet, tcpSocket: NULL for the pod's address */
    int https;      /* httpGet scheme HTTPS (the certificate is not verified, as the kubelet) */
    char *path;     /* httpGet path, "/" by default */
    int port;       /* 1..65535 */
    char **headers; /* httpGet httpHeaders as "Name: value", NULL-terminated */
    size_t nheaders;
    int initial_delay, period, timeout, success_threshold, failure_threshold; /* seconds, counts */
    int grace; /* terminationGracePeriodSeconds of the probe, -1: the pod's */
} sl_shim_probe_t;

/* "Readiness", "Liveness", "Startup" (the kubelet's words in its Events) */
const char *sl_probe_type_name(sl_probe_type_t t);

/* o is a container's "probes" object (NULL: none); out[SL_PROBE_NTYPES]
 * gets a new probe for each type present. 0, or -1 with err naming the
 * field below path. */
int sl_shim_probes_parse(json_t *o, const char *path, sl_shim_probe_t **out, sl_error_t *err);
void sl_shim_probe_free(sl_shim_probe_t *p); /* NULL is a no-op */

#endif
