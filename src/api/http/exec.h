/* exec.h — one kubectl exec session, between exec.c (the request: checks,
 * the srun step, the upgrade) and wsexec.c (the WebSocket session that
 * carries the step's stdio). Internal to src/api. */
#ifndef SL_API_HTTP_EXEC_H
#define SL_API_HTTP_EXEC_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "api/http/request.h"
#include "http/upconn.h"

typedef struct api_exec {
    sl_api_t *api;
    int version;            /* channel protocol: 4 or 5 */
    bool in, out, err, tty; /* the streams asked for */
    bool framed;            /* attach: the helper frames both streams on stdout */
    bool ctl;               /* attach to a tty: stdin (channel 0) and resizes framed to it */
    char **argv, **envp;    /* srun's, NULL-terminated */
    uid_t uid;              /* the pod's Unix user (never 0) */
    gid_t gid;
    gid_t *groups; /* its supplementary groups */
    int ngroups;
    char *pod_dir;          /* absolute: srun's working directory */
    char *status_name;      /* the helper's status file, in pod_dir */
    char *desc;             /* "USER NS/POD/CONTAINER: CMD" for the log */
    unsigned idle_s, max_s; /* the session's limits */
    http_up_t *up;           /* the upgraded connection */
    char *who;              /* the identity its stream counts against (identity.c), or NULL */
} api_exec_t;

/* Runs the session to its end in the calling thread (the connection's, in
 * its upgrade handler), then closes x->up and frees x. */
void api_exec_session_run(api_exec_t *x);
void api_exec_free(api_exec_t *x);

/* The WebSocket handshake of r: its Sec-WebSocket-Key, and in *version the
 * channel protocol (5 or 4) of the client's list; NULL with *why (a 400's
 * text). Sec-WebSocket-Accept for a key: http_ws_accept (http/upconn.h). */
const char *api_ws_handshake(api_req_t *r, int *version, char **why);

/* Queue resp (made by MHD_create_response_for_upgrade) as r's 101 Switching
 * Protocols with the handshake's headers (accept: http_ws_accept's value,
 * version: the channel protocol) and mark r replied; resp is destroyed.
 * libmicrohttpd's result: not MHD_YES when it did not take the reply. */
enum MHD_Result api_ws_reply_upgrade(api_req_t *r, struct MHD_Response *resp, const char *accept,
                                     int version);

/* The same with the subprotocol's name as it is (kubectl port-forward's
 * SPDY/3.1+portforward.k8s.io). */
enum MHD_Result api_ws_reply_upgrade_as(api_req_t *r, struct MHD_Response *resp, const char *accept,
                                        const char *protocol);

/* Who listens on TCP port in the network namespace of pid (portfwd.c): 1
 * uid (too), 2 only others, 0 no one, -1 cannot tell. */
int api_pf_port_owner(pid_t pid, uid_t uid, int port);

/* Does the pod's own Unix user listen on TCP port in the network namespace
 * of the pod's shim (the check port-forward makes, for the service proxy)?
 * As api_pf_port_owner: 1 it does, 2 only others, 0 no one; -1 cannot tell
 * (the shim is not on this host, or the pod folder is not its user's). */
int api_pod_port_listened(api_req_t *r, json_t *pod, int port);

/* kubectl port-forward's SPDY/3.1 session (spdypf.c) for a pod at addr
 * ("NS/NAME", its uid, its shim's pid and Unix user; desc for the log).
 * api_spf_run serves it on up (tunnel: in WebSocket binary messages) to
 * its end, in the connection's thread, then closes up and frees s. */
typedef struct api_spf api_spf_t;
api_spf_t *api_spf_new(sl_api_t *api, const char *addr, const char *pod, const char *pod_uid,
                       pid_t shim, uid_t uid, const char *desc, const char *who);
void api_spf_run(api_spf_t *s, http_up_t *up, bool tunnel);
void api_spf_free(api_spf_t *s);

#endif
