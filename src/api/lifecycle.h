/* lifecycle.h — the server's start and its janitor (lifecycle.c), and the
 * namespace controller the janitor runs (namespace.c). */
#ifndef SL_API_LIFECYCLE_H
#define SL_API_LIFECYCLE_H

#include <jansson.h>
#include <stdbool.h>

#include "api/server.h"
#include "common/err.h"

/* --- lifecycle.c: defaults namespaces, graceful pod deletion, janitor --- */
int api_bootstrap(sl_api_t *api, sl_error_t *err);
int api_janitor_start(sl_api_t *api, sl_error_t *err);
void api_janitor_stop(sl_api_t *api);
/* --- namespace.c: the namespace controller --- */
/* One pass over a Terminating namespace: delete its content, set its
 * conditions, drop the "kubernetes" finalizer once it is empty, remove it
 * once no finalizer is left. A no-op for a namespace not being deleted. */
void api_namespace_sweep(sl_api_t *api, const char *ns);
/* true when spec.finalizers of the Namespace ns is not empty. */
bool api_namespace_has_spec_finalizers(json_t *ns);
/* Ensure a `default` ServiceAccount in ns (idempotent). */
void api_ensure_default_sa(sl_api_t *api, const char *ns);

#endif
