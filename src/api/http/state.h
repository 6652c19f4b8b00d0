/* state.h — the server's state, which its handlers read through their
 * request (r->api: the store, the limits, the watch windows, the caches).
 * Created and destroyed by api/http/server.c (sl_api_create). */
#ifndef SL_API_HTTP_STATE_H
#define SL_API_HTTP_STATE_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/resource.h"
#include "api/server.h"
#include "auth/authn.h"
#include "auth/policy.h"
#include "store/store.h"

struct api_hub;

struct sl_api {
    struct MHD_Daemon *mhd;
    struct MHD_Daemon *plain_mhd; /* loopback plain-HTTP listener, or NULL */
    int plain_port;
    struct api_hub *hubs[API_MAX_RESOURCES]; /* per resource, index in api_resources */
    sl_store_t *store;                       /* borrowed */
    char *pods_root;
    char *server_address; /* "127.0.0.1:6443", for APIVersions */
    char *client_ca_pem;
    struct http_tls *tls; /* the certificate and key, reloadable (http/tlscred.h); NULL: plain */
    /* NULL: development mode, nothing checked. Atomic: SIGHUP swaps it
     * (sl_api_set_policy) while requests read it */
    const sl_authz_policy_t *_Atomic policy;
    sl_authn_t *authn;       /* NULL: no credential can succeed */
    _Atomic size_t max_body; /* atomic: SIGHUP changes them (sl_api_set_limits) */
    _Atomic size_t max_object;
    int bookmark_ms;
    long long event_ttl_ns;
    int port;
    pthread_mutex_t hook_lock;       /* shim_event and its arg: set while serving */
    sl_api_shim_event_fn shim_event; /* hook_lock */
    void *shim_event_arg;            /* hook_lock */
    struct http_conns *conns;        /* connections, watches, streams per identity (http/conns.h) */
    struct api_rowcache *rows;       /* printed Table rows for reuse (api/rowcache.h) */
    struct api_facts *facts;         /* what creates read besides their object (api/facts.h) */
    atomic_int stopping;             /* streams end when set */
    pthread_t janitor;
    bool janitor_started;
    /* the pods' last usage samples (api/podmetrics.h) */
    struct api_podmetrics *podmetrics;

    /* exec (exec.c, wsexec.c): NULL paths take the defaults; the live
     * sessions (their threads) */
    char *shim_path, *slurm_conf;
    unsigned exec_idle_s, exec_max_s;
    size_t exec_max_message;   /* a client's WebSocket message at most */
    unsigned exec_max_streams; /* sessions and forwarded connections per identity */
    atomic_int exec_sessions;
};

/* The shared change window of res (api/http/watchhub.h), or NULL. */
static inline struct api_hub *api_hub_for(sl_api_t *api, const api_resource_t *res)
{
    size_t i = (size_t)(res - api_resources);
    return i < API_MAX_RESOURCES ? api->hubs[i] : NULL;
}

#endif
