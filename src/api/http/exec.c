/* exec.c — GET|POST /api/v1/namespaces/NS/pods/NAME/exec (kubectl exec, cp).
 *
 * The checks kube-apiserver and the kubelet make (the pod runs on a node,
 * the container is running, a command and a stream are asked for), then a
 * Slurm step in the pod's job — `srun --overlap --jobid J --nodelist NODE`
 * as the pod's Unix user, never root — whose program is `slurmlink-shim
 * exec` (src/shim/exec.c): it starts the command in the container as the
 * container was started. The connection is upgraded to WebSocket with the
 * channel protocol v5.channel.k8s.io or v4.channel.k8s.io (whichever the
 * client lists first) and wsexec.c carries the step's stdio over it.
 * docs/api.md ("exec") and docs/security.md say why a step.
 */
#include "api/http/exec.h"
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"

#include "common/argv.h"
#include "common/b64.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "config/config.h"
#include "events/events.h"
#include "kube/meta.h"
#include "kube/status.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>


typedef struct exec_params {
    sl_argv_t cmd;
    const char *container;
    bool in, out, err, tty;
    bool attach;    /* pods/attach: the container's own output */
    bool ctr_stdin; /* attach: the container's spec has stdin: true (the shim holds it) */
    bool ctr_tty;   /* attach: the container's spec has tty: true (the shim holds its pty) */
} exec_params_t;

static enum MHD_Result add_command(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    if (key && !strcmp(key, "command") && value)
        sl_argv_add((sl_argv_t *)cls, value);
    return MHD_YES;
}

/* 4 or 5: the first channel protocol of the client's list that is served
 * (kube's wsstream picks the same way); 0: none */
static int pick_protocol(const char *hdr)
{
    char *list = sl_xstrdup(hdr ? hdr : "");
    int v = 0;
    for (char *save = NULL, *t = strtok_r(list, ", \t", &save); t && !v;
         t = strtok_r(NULL, ", \t", &save)) {
        if (!strcmp(t, "v5.channel.k8s.io"))
            v = 5;
        else if (!strcmp(t, "v4.channel.k8s.io"))
            v = 4;
    }
    free(list);
    return v;
}

enum MHD_Result api_ws_reply_upgrade(api_req_t *r, struct MHD_Response *resp, const char *accept,
                                     int version)
{
    return api_ws_reply_upgrade_as(r, resp, accept,
                                   version == 5 ? "v5.channel.k8s.io" : "v4.channel.k8s.io");
}

enum MHD_Result api_ws_reply_upgrade_as(api_req_t *r, struct MHD_Response *resp, const char *accept,
                                        const char *protocol)
{
    MHD_add_response_header(resp, MHD_HTTP_HEADER_UPGRADE, "websocket");
    MHD_add_response_header(resp, "Sec-WebSocket-Accept", accept);
    MHD_add_response_header(resp, "Sec-WebSocket-Protocol", protocol);
    enum MHD_Result ret = MHD_queue_response(r->conn, MHD_HTTP_SWITCHING_PROTOCOLS, resp);
    MHD_destroy_response(resp);
    r->replied = true;
    r->code = MHD_HTTP_SWITCHING_PROTOCOLS;
    return ret;
}

/* the kubelet's and kube-apiserver's refusals of a pod that cannot take an
 * exec now; NULL when it can */
static char *pod_refusal(json_t *pod, const char *container, bool attach)
{
    const char *phase = sl_kube_path_str(pod, "status.phase");
    const char *node = sl_kube_path_str(pod, "spec.nodeName");
    if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
        return sl_xasprintf("cannot %s a container in a completed pod; current phase is %s",
                            attach ? "attach" : "exec into", phase);
    if (!node || !*node)
        return sl_xasprintf("pod %s does not have a host assigned", sl_kube_name(pod));
    size_t i;
    json_t *cs;
    json_array_foreach(sl_kube_path(pod, "status.containerStatuses"), i, cs)
    {
        const char *n = json_string_value(json_object_get(cs, "name"));
        if (n && !strcmp(n, container) && sl_kube_path(cs, "state.running"))
            return NULL;
    }
    return sl_xasprintf("unable to upgrade connection: container not found (\"%s\")", container);
}

/* does the pod's container NAME have FLAG (stdin, tty): true in its spec? */
static bool ctr_flag(json_t *pod, const char *name, const char *flag)
{
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(pod, "spec.containers"), i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && !strcmp(n, name))
            return json_is_true(json_object_get(c, flag));
    }
    return false;
}

static char *params_refusal(const exec_params_t *q)
{
    if (q->cmd.n == 0 && !q->attach)
        return sl_xstrdup("you must specify at least 1 command");
    if (!q->in && !q->out && !q->err)
        return sl_xstrdup("you must specify at least 1 of stdin, stdout, stderr");
    if (q->tty && q->err)
        return sl_xstrdup("stdout and stderr cannot both be requested with tty");
    return NULL;
}

/* the pod folder's owner: the pod's Unix user; -1 when it has none */
static int pod_owner(sl_api_t *api, json_t *pod, char **dir, struct stat *st)
{
    const char *uid = sl_kube_uid(pod);
    char *rel = sl_xasprintf("%s/%s-%s", sl_kube_namespace(pod), sl_kube_name(pod), uid ? uid : "");
    *dir = sl_xasprintf("%s/%s", api->pods_root, rel);
    int root = open(api->pods_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = root >= 0 ? sl_safefs_opendir(root, rel) : -1;
    free(rel);
    if (root >= 0)
        close(root);
    int r = fd >= 0 && fstat(fd, st) == 0 ? 0 : -1;
    if (fd >= 0)
        close(fd);
    return r;
}

/* srun's argv and environment (nothing of slurmlinkd's own environment) */
static void step_argv(api_exec_t *x, const exec_params_t *q, const char *job, const char *node,
                      const char *container, const struct passwd *pw)
{
    sl_argv_t a = SL_ARGV_INIT;
    sl_argv_add(&a, "srun");
    sl_argv_addf(&a, "--jobid=%s", job);
    sl_argv_add(&a, "--overlap");
    sl_argv_add(&a, "--nodes=1");
    sl_argv_add(&a, "--ntasks=1");
    sl_argv_addf(&a, "--nodelist=%s", node);
    sl_argv_add(&a, "--quiet");
    sl_argv_add(&a, "--unbuffered");
    if (q->tty && !q->attach)
        sl_argv_add(&a, "--pty");
    if (!x->in)
        sl_argv_add(&a, "--input=none");
    char *shim = x->api->shim_path ? sl_xstrdup(x->api->shim_path) : sl_config_default_shim();
    sl_argv_add(&a, shim);
    free(shim);
    sl_argv_add(&a, q->attach ? "attach" : "exec");
    sl_argv_addf(&a, "--pod-dir=%s", x->pod_dir);
    sl_argv_addf(&a, "--container=%s", container);
    sl_argv_addf(&a, "--status=%s", x->status_name);
    if (q->attach && (q->tty || q->ctr_tty))
        sl_argv_add(&a, "--merge"); /* one stream, as a terminal shows it */
    if (x->ctl)
        sl_argv_add(&a, "--tty"); /* stdin: input and resizes, framed, for the pty */
    if (q->attach && q->in)
        sl_argv_add(&a, q->ctr_stdin ? "--stdin" : "--stdin-asked");
    if (!q->attach)
        sl_argv_add(&a, "--");
    for (size_t i = 0; i < q->cmd.n && !q->attach; i++)
        sl_argv_add(&a, q->cmd.v[i]);
    x->argv = a.v;
    sl_argv_t e = SL_ARGV_INIT;
    sl_argv_add(&e, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    const char *conf = x->api->slurm_conf ? x->api->slurm_conf : getenv("SLURM_CONF");
    if (conf)
        sl_argv_addf(&e, "SLURM_CONF=%s", conf);
    sl_argv_addf(&e, "USER=%s", pw->pw_name);
    sl_argv_addf(&e, "LOGNAME=%s", pw->pw_name);
    sl_argv_addf(&e, "HOME=%s", pw->pw_dir ? pw->pw_dir : "/");
    if (q->tty)
        sl_argv_add(&e, "TERM=xterm");
    x->envp = e.v;
}

/* the Unix user: the pod folder's owner, with its groups; NULL with why */
static struct passwd *step_user(api_exec_t *x, const struct stat *st, char **why)
{
    struct passwd *pw = st->st_uid != 0 ? getpwuid(st->st_uid) : NULL;
    if (!pw) {
        *why = sl_xstrdup(st->st_uid == 0 ? "the pod runs as root: exec is refused"
                                          : "the pod's Unix user is unknown on this host");
        return NULL;
    }
    x->uid = pw->pw_uid;
    x->gid = pw->pw_gid;
    int n = 64;
    x->groups = sl_xcalloc((size_t)n, sizeof(gid_t));
    if (getgrouplist(pw->pw_name, pw->pw_gid, x->groups, &n) < 0) {
        x->groups = sl_xrealloc(x->groups, (size_t)n * sizeof(gid_t));
        if (getgrouplist(pw->pw_name, pw->pw_gid, x->groups, &n) < 0)
            n = 0;
    }
    x->ngroups = n;
    return pw;
}

static char *random_status_name(void)
{
    unsigned char b[8] = {0};
    if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
        return NULL;
    return sl_xasprintf("exec-%02x%02x%02x%02x%02x%02x%02x%02x.status", b[0], b[1], b[2], b[3],
                        b[4], b[5], b[6], b[7]);
}

void api_exec_free(api_exec_t *x)
{
    if (!x)
        return;
    sl_strv_free(x->argv);
    sl_strv_free(x->envp);
    free(x->groups);
    free(x->pod_dir);
    free(x->status_name);
    free(x->desc);
    if (x->who)
        api_streams_give(x->api, x->who, 1);
    free(x->who);
    free(x);
}

static void on_upgrade(void *cls, struct MHD_Connection *conn, void *con_cls, const char *extra_in,
                       size_t extra_in_size, MHD_socket sock, struct MHD_UpgradeResponseHandle *urh)
{
    api_exec_t *x = cls;
    x->up = http_up_open(conn, sock, urh, extra_in, extra_in_size);
    api_exec_session_run(x);
}

/* 101 Switching Protocols; the session starts in on_upgrade */
static enum MHD_Result reply_upgrade(api_req_t *r, api_exec_t *x, const char *key)
{
    char *acc = http_ws_accept(key);
    struct MHD_Response *resp = acc ? MHD_create_response_for_upgrade(on_upgrade, x) : NULL;
    if (!resp) {
        free(acc);
        api_exec_free(x);
        return api_reply_status(r, sl_kube_status_internal("cannot upgrade the connection"));
    }
    enum MHD_Result ret = api_ws_reply_upgrade(r, resp, acc, x->version);
    free(acc);
    if (ret != MHD_YES)
        api_exec_free(x);
    return ret;
}

static void exec_params(api_req_t *r, exec_params_t *q)
{
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, add_command, &q->cmd);
    q->in = api_query_bool(r, "stdin");
    q->out = api_query_bool(r, "stdout");
    q->err = api_query_bool(r, "stderr");
    q->tty = api_query_bool(r, "tty");
    if (q->tty && q->attach)
        q->err = false; /* one terminal stream */
}

/* The session runs as the pod's Unix user (its folder's owner): only a
 * requester who runs as that user too (or an admin) may open it, whatever
 * the protocol asked for. The refusal, or NULL (also for a pod without a
 * folder yet: the checks that follow refuse it). */
static char *pod_user_refusal(api_req_t *r, json_t *pod)
{
    char *dir = NULL, *why = NULL;
    struct stat st;
    if (pod_owner(r->api, pod, &dir, &st) == 0) {
        char *what = sl_xasprintf("pod \"%s\"", sl_kube_name(pod));
        api_may_act_as(r, st.st_uid, what, &why);
        free(what);
    }
    free(dir);
    return why;
}

/* the session for pod and container, or NULL with *why (a 400) */
static api_exec_t *exec_prepare(api_req_t *r, json_t *pod, const char *container,
                                const exec_params_t *q, char **why)
{
    const char *job = sl_kube_annotation(pod, "slurmlink.io/job-id");
    const char *node = sl_kube_path_str(pod, "spec.nodeName");
    api_exec_t *x = sl_xcalloc(1, sizeof(*x));
    x->api = r->api;
    struct stat st;
    struct passwd *pw = NULL;
    if (!job || !*job || pod_owner(r->api, pod, &x->pod_dir, &st) < 0)
        *why =
            sl_xasprintf("unable to upgrade connection: container not found (\"%s\")", container);
    else if ((pw = step_user(x, &st, why)) && !(x->status_name = random_status_name()))
        *why = sl_xstrdup("no random bytes for the session");
    if (*why) {
        api_exec_free(x);
        return NULL;
    }
    /* attach to a tty: true container: the client's keys and resizes go to
     * the helper, which holds the container's pty (docs/api.md, attach) */
    x->ctl = q->attach && q->ctr_tty && (q->in || q->tty);
    x->in = (q->in && (!q->attach || q->ctr_stdin)) || x->ctl; /* attach: as the spec says */
    x->out = q->out || (q->attach && q->tty);
    x->err = q->err && !(q->attach && q->tty);
    x->tty = q->tty && !q->attach;
    x->framed = q->attach;
    x->idle_s = r->api->exec_idle_s;
    x->max_s = r->api->exec_max_s;
    step_argv(x, q, job, node, container, pw);
    char *cmd = sl_argv_join(&q->cmd);
    x->desc = sl_xasprintf("user %s, pod %s/%s, container %s, job %s: %s",
                           r->user ? r->user->name : "(development mode)", sl_kube_namespace(pod),
                           sl_kube_name(pod), container, job, q->attach ? "(attach)" : cmd);
    free(cmd);
    return x;
}

/* the WebSocket handshake's headers: the key, or NULL with *why */
const char *api_ws_handshake(api_req_t *r, int *version, char **why)
{
    const char *up = api_header(r, "Upgrade");
    const char *key = api_header(r, "Sec-WebSocket-Key");
    *version = pick_protocol(api_header(r, "Sec-WebSocket-Protocol"));
    if (!up || strcasecmp(up, "websocket") || !key || !*key)
        *why = sl_xstrdup("Upgrade request required"); /* exec's SPDY/3.1 is not served */
    else if (!*version)
        *why = sl_xstrdup("unable to upgrade connection: none of the offered subprotocols "
                          "(v5.channel.k8s.io, v4.channel.k8s.io) is served");
    return *why ? NULL : key;
}

static enum MHD_Result refuse(api_req_t *r, json_t *pod, exec_params_t *q, unsigned code, char *why)
{
    json_t *st =
        code == 403 ? sl_kube_status(403, "Forbidden", why, NULL) : sl_kube_status_bad_request(why);
    free(why);
    json_decref(pod);
    sl_argv_free(&q->cmd);
    return api_reply_status(r, st);
}

enum MHD_Result api_handle_exec(api_req_t *r, const api_path_t *p)
{
    exec_params_t q = {SL_ARGV_INIT, NULL, false, false, false, false, false, false, false};
    if (r->inproc)
        return refuse(r, NULL, &q, 400, sl_xstrdup("Upgrade request required"));
    json_t *pod = sl_store_get(r->api->store, "pods", p->ns, p->name);
    if (!pod)
        return api_reply_status(r, api_store_error_status(p->res, p->name, errno, NULL));
    sl_error_t err = SL_ERROR_INIT;
    const char *container = api_pick_container(r, pod, &err);
    if (!container) {
        json_t *st = sl_kube_status_error(&err, p->res->name, p->res->group, p->res->kind, p->name);
        json_decref(pod);
        return api_reply_status(r, st);
    }
    q.attach = !strcmp(p->sub, "attach");
    q.ctr_stdin = ctr_flag(pod, container, "stdin");
    q.ctr_tty = ctr_flag(pod, container, "tty");
    exec_params(r, &q);
    char *why = pod_user_refusal(r, pod);
    if (why)
        return refuse(r, pod, &q, 403, why);
    why = params_refusal(&q);
    if (!why)
        why = pod_refusal(pod, container, q.attach);
    int version = 0;
    const char *key = why ? NULL : api_ws_handshake(r, &version, &why);
    if (why)
        return refuse(r, pod, &q, 400, why);
    api_exec_t *x = exec_prepare(r, pod, container, &q, &why);
    if (!x)
        return refuse(r, pod, &q, strstr(why, "root") ? 403 : 400, why);
    json_t *st = NULL;
    if (api_streams_take(r, 1, &x->who, &st) < 0) {
        api_exec_free(x);
        json_decref(pod);
        sl_argv_free(&q.cmd);
        return api_reply_status(r, st);
    }
    x->version = version;
    sl_info("%s: %s", q.attach ? "attach" : "exec", x->desc);
    char *cmd = sl_argv_join(&q.cmd);
    const char *who = r->user ? r->user->name : "a client";
    if (q.attach)
        sl_event_recordf(r->api->store, pod, "Normal", "Attach", "slurmlink",
                         "%s attached to container %s", who, container);
    else
        sl_event_recordf(r->api->store, pod, "Normal", "Exec", "slurmlink",
                         "%s ran %.200s in container %s", who, cmd, container);
    free(cmd);
    json_decref(pod);
    sl_argv_free(&q.cmd);
    return reply_upgrade(r, x, key);
}
