/* server.h — slurmlinkd's HTTP front door: the Kubernetes API subset that an
 * unmodified kubectl and the official client libraries need (discovery,
 * OpenAPI v3 index, CRUD, patch, watch, Table output, logs, Status errors),
 * served with libmicrohttpd.
 *
 * The server owns its MHD daemon and its threads (one per connection, so a
 * watch or a `logs -f` may block in its content reader); sl_api_destroy()
 * wakes every stream, stops the threads and frees everything. The store is
 * borrowed: it must outlive the server.
 *
 * Objects live in the store; the server is stateless apart from a small
 * janitor thread that finishes namespace deletion and expires old events.
 *
 * With a policy every request is authenticated and authorized first, and
 * pods pass slurmlink's admission (the creator's identity, runAsUser, the
 * flags allow-list, limits): docs/security.md. api/inproc.h serves one
 * request through the same path without a socket. */
#ifndef SL_API_SERVER_H
#define SL_API_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "auth/policy.h"
#include "common/err.h"
#include "store/store.h"

typedef struct sl_api sl_api_t;

/* The in-job shim's push (docs/shim-spec.md): POST
 * /internal/v1/shim/events with `Authorization: Bearer <token>`. The server
 * does not interpret the event: it hands the bearer token (NULL when the
 * header is missing) and the parsed JSON body (borrowed) to this hook.
 * Return 0 → 204 No Content; -1 with errno EACCES → 401 Unauthorized; any
 * other -1 → 400 BadRequest with err's text. Called from connection
 * threads, concurrently. Without a hook the endpoint answers 503. */
typedef int (*sl_api_shim_event_fn)(void *arg, const char *bearer, json_t *event, sl_error_t *err);

typedef struct sl_api_opts {
    const char *listen; /* IPv4 address, e.g. "127.0.0.1" */
    int port;
    sl_store_t *store;     /* required, borrowed */
    const char *pods_root; /* <pods-root>/<ns>/<name>-<uid>/logs/... (shim CRI logs) */
    /* HTTPS when both are set: PEM files (certificate chain, private key). */
    const char *tls_cert;
    const char *tls_key;
    size_t max_body;          /* request body limit; 0: 3 MiB (kube-apiserver's) */
    unsigned max_connections; /* 0: 1024 */
    unsigned max_per_ip;      /* 0: none (local clients all come from 127.0.0.1) */
    /* Per identity (src/http/conns.c): connections of one authenticated user
     * (0: 256) and its concurrent watches (0: 128), 429 beyond; connections
     * not yet authenticated (0: 128; at most half of max_connections): when
     * full, the oldest of them is closed to make room; they have
     * handshake_timeout_s (0: 10, at most idle_timeout_s) for the TLS
     * handshake and a first request. */
    unsigned max_per_user;
    unsigned max_watches_per_user;
    unsigned max_unauthenticated;
    unsigned handshake_timeout_s;
    unsigned idle_timeout_s;   /* idle keep-alive connections; 0: 120 */
    int bookmark_interval_s;   /* watch BOOKMARK period; 0: 60 (kube-apiserver's) */
    size_t watch_window;       /* recent changes per resource shared by watches; 0: 1024 */
    size_t watch_window_bytes; /* the bytes of their texts per resource; 0: no bound */
    size_t event_ttl_s;        /* events older than this are removed; 0: 3600 */
    sl_api_shim_event_fn shim_event;
    void *shim_event_arg;
    /* Authentication and authorization (docs/security.md). With a policy,
     * every request but the shim push is authenticated — a client
     * certificate signed by client_ca, else a bearer token of token_file —
     * and authorized by the policy: 401 / 403 Status otherwise. A policy
     * needs TLS (tls_cert/tls_key). Without a policy nothing is checked
     * (development mode: every client may do everything). */
    const char *client_ca;           /* PEM file (NULL: no client certificates) */
    const char *token_file;          /* token file (NULL: no bearer tokens) */
    const sl_authz_policy_t *policy; /* borrowed; must outlive the server */
    /* A second listener, plain HTTP, only on a loopback address (127/8):
     * its requests act as the policy's anonymous: identity, or get 401 when
     * the policy has none. Needs a policy. NULL: no such listener. */
    const char *plain_listen;
    int plain_port;    /* 0 picks a free port */
    size_t max_object; /* serialised size of a stored object; 0: 1.5 MiB (etcd's) */
    bool no_listen;    /* no socket at all: requests only through sl_api_serve()
                        * (api/inproc.h), for fuzzing and tests */

    /* kubectl exec (src/api/http/exec.c): slurmlink-shim as the nodes see it
     * (NULL: beside the program), slurm.conf for srun (NULL: $SLURM_CONF),
     * the idle and total limits of a session (0: 4 h, 24 h), the largest
     * WebSocket message a client may send (0: 1 MiB), the sessions and
     * forwarded connections of one identity (0: 128) */
    const char *shim_path;
    const char *slurm_conf;
    unsigned exec_idle_s, exec_max_s;
    size_t exec_max_message;
    unsigned exec_max_streams;
} sl_api_opts_t;

/* Start listening; NULL with errno and err on failure (bad address, port
 * in use, unreadable certificate). Creates the namespaces default,
 * kube-system and kube-public and their `default` service accounts when
 * they are missing. */
sl_api_t *sl_api_create(const sl_api_opts_t *opts, sl_error_t *err);
/* slurm.create_accounts on or off: a namespace named root is then refused
 * (422 naming metadata.name: Slurm's root account is no namespace's). */
void sl_api_namespace_accounts(int on);
/* Stop: ends every watch and log stream, joins all threads. NULL: no-op.
 * Call before sl_store_close(). */
void sl_api_destroy(sl_api_t *api);

/* Set the shim push hook after creation (the controllers need the bound
 * port for the shims' report URL). Safe while the API serves: a push before
 * it gets 503 (the shim keeps the event in the pod folder). The hook's arg
 * must outlive the API (destroy the API first). */
void sl_api_set_shim_hook(sl_api_t *api, sl_api_shim_event_fn fn, void *arg);

/* Store the pods a controller makes for a workload (a Job's, a CronJob's
 * Job's, a PyTorchJob's or an MPIJob's gang) through the admission a
 * tenant's own pod create goes through: the namespace (exists, not being
 * deleted), the service account, the identity of the workload's creator
 * (the pods' slurmlink.io/user: a Unix user to run as, runAsUser and
 * runAsGroup), the object size and every ResourceQuota of the namespace.
 * pods: one namespace, one creator; admitted and stored all together or
 * none (their summed requests against each quota). A pod without a name
 * gets one from its generateName before admission (the texts name it).
 * 0, or -1 with err: SL_ERR_FORBIDDEN (quota, identity), SL_ERR_INVALID
 * (field errors), SL_ERR_NOT_FOUND (namespace), ...; its subject is the
 * pod (sl_kube_error_message gives kube's text). Thread-safe. */
int sl_api_create_pods(sl_api_t *api, json_t *pods, sl_error_t *err);

/* A reload's limits from opts (the rest of opts is ignored): the
 * per-identity connection and watch budgets, the unauthenticated cap, the
 * idle timeout, the body and object sizes, for requests from now on.
 * max_connections, max_per_ip and the handshake timeout are
 * libmicrohttpd's start options: they stay. */
void sl_api_set_limits(sl_api_t *api, const sl_api_opts_t *opts);

/* Serve with policy from now on (a reload: SIGHUP). Both the server's
 * current policy and this one are non-NULL (turning authorization on or
 * off needs a restart: its listeners differ). Requests under way may still
 * read the previous one: the caller keeps it alive until sl_api_destroy.
 * -1 with errno EINVAL when either is NULL. */
int sl_api_set_policy(sl_api_t *api, const sl_authz_policy_t *policy);

/* Serve the TLS certificate chain and key of these files from now on (a
 * reload: SIGHUP): new connections get them, open ones keep theirs. A bad
 * pair (unreadable, not PEM, a key that is not the certificate's) keeps
 * the current one: -1 with err naming the file and why. *serial: the new
 * certificate's serial number in hex, for the log. */
int sl_api_reload_tls(sl_api_t *api, const char *cert, const char *key, char serial[80],
                      sl_error_t *err);

/* The port actually bound (useful with port 0). */
int sl_api_port(const sl_api_t *api);
/* The plain-HTTP listener's port, or -1 when there is none. */
int sl_api_plain_port(const sl_api_t *api);

#endif
