/* slurmlinkd — the daemon: Kubernetes API in front, Slurm behind.
 * main() reads as a lifecycle script of init/fini pairs:
 *   options → state dir → store → API server → (controllers) → wait for a
 *   signal → stop in reverse order. */
#include "api/server.h"
#include "auth/policy.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/memtrim.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "config/config.h"
#include "ctl/ctl.h"
#include "image/image.h"
#include "kinds/trainjob/trainjob.h"
#include "kube/meta.h"
#include "runtime/runtime.h"
#include "slurmif/slurmif.h"
#include "storage/storage.h"
#include "store/store.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define CS(id) sl_config_str(cfg, SL_CFG_##id)
#define CL(id) sl_config_long(cfg, SL_CFG_##id)

/* the API server's options from the daemon's */
static sl_api_opts_t api_opts(const sl_config_t *cfg, sl_store_t *store, const char *pods_root,
                              sl_authz_policy_t *policy)
{
    sl_api_opts_t ao = {
        .listen = CS(LISTEN),
        .port = (int)CL(PORT),
        .store = store,
        .pods_root = pods_root,
        .tls_cert = CS(TLS_CERT),
        .tls_key = CS(TLS_KEY),
        .max_connections = (unsigned)CL(MAX_CONNECTIONS),
        .max_per_ip = (unsigned)CL(MAX_PER_IP),
        .max_per_user = (unsigned)CL(MAX_PER_USER),
        .max_watches_per_user = (unsigned)CL(MAX_WATCHES),
        .max_unauthenticated = (unsigned)CL(MAX_UNAUTH),
        .handshake_timeout_s = (unsigned)CL(HANDSHAKE),
        .bookmark_interval_s = (int)CL(BOOKMARK),
        .watch_window = (size_t)CL(WATCH_WINDOW),
        .watch_window_bytes = (size_t)CL(WATCH_WINDOW_BYTES),
        .event_ttl_s = (size_t)CL(EVENT_TTL),
        .idle_timeout_s = (unsigned)CL(IDLE),
        .max_body = (size_t)CL(MAX_BODY),
        .max_object = (size_t)CL(MAX_OBJECT),
        .client_ca = CS(CLIENT_CA),
        .token_file = CS(TOKEN_FILE),
        .policy = policy,
        .plain_listen =
            CL(PLAIN_PORT) >= 0 ? (CS(PLAIN_ADDRESS) ? CS(PLAIN_ADDRESS) : "127.0.0.1") : NULL,
        .plain_port = CL(PLAIN_PORT) >= 0 ? (int)CL(PLAIN_PORT) : 0,
        .shim_path = CS(SHIM),
        .slurm_conf = CS(SLURM_CONF),
        .exec_idle_s = (unsigned)CL(EXEC_IDLE),
        .exec_max_s = (unsigned)CL(EXEC_MAX),
        .exec_max_message = (size_t)CL(EXEC_MAX_MESSAGE),
        .exec_max_streams = (unsigned)CL(EXEC_MAX_STREAMS),
    };
    return ao;
}

/* The controllers, once the API has its port (the shims' report URL names
 * it): NULL with err. *shim and *report are the daemon's to free. */
/* the controllers' pods through the API's admission (sl_ctl_opts_t) */
static int create_pods(void *api, json_t *pods, sl_error_t *err)
{
    return sl_api_create_pods(api, pods, err);
}

static sl_ctl_t *start_controllers(const sl_config_t *cfg, sl_store_t *store, sl_api_t *api,
                                   sl_authz_policy_t *policy, const char *pods_root, char **shim,
                                   char **report, sl_error_t *err)
{
    *shim = CS(SHIM) ? strdup(CS(SHIM)) : sl_config_default_shim();
    const char *listen = CS(LISTEN);
    if (CS(REPORT_URL))
        *report = strdup(CS(REPORT_URL));
    else if (asprintf(report, "%s://%s:%d/internal/v1/shim/events", CS(TLS_CERT) ? "https" : "http",
                      strcmp(listen, "0.0.0.0") ? listen : "127.0.0.1", sl_api_port(api)) < 0)
        *report = NULL;
    sl_ctl_opts_t co = {
        .state_dir = CS(STATE_DIR),
        .pods_root = pods_root,
        .shim_path = *shim,
        .report_url = *report,
        .report_ca_file = CS(REPORT_CA),
        .run_as = CS(RUN_AS),
        .policy = policy,
        .image_store = CS(IMAGE_STORE),
        .image_credentials = CS(IMAGE_CREDENTIALS),
        .image_ca_dir = CS(IMAGE_CA_DIR),
        .image_store_limit = (unsigned long long)CL(IMAGE_STORE_LIMIT),
        .image_max_size = (unsigned long long)CL(IMAGE_MAX_SIZE),
        .image_unpack_user = CS(IMAGE_UNPACK_USER),
        .image_max_pulls = (int)CL(IMAGE_MAX_PULLS),
        .image_max_pulls_per_ns = (int)CL(IMAGE_MAX_PULLS_PER_NS),
        .image_manifest_timeout = (int)CL(IMAGE_MANIFEST_TIMEOUT),
        .default_runtime = sl_runtime_default(), /* probed: installed */
        .gpu_types = CS(GPU_TYPES),
        .gpu_shared = CS(GPU_SHARED),
        .slurm_conf = CS(SLURM_CONF),
        .slurm_bin_dir = CS(SLURM_BIN_DIR),
        .create_accounts = (int)CL(CREATE_ACCOUNTS),
        .poll_ms = (int)CL(POLL_MS),
        .submit_workers = (int)CL(SUBMIT_WORKERS),
        .create_pods = create_pods,
        .create_pods_arg = api,
    };
    sl_ctl_t *ctl = sl_ctl_create(store, &co, err);
    if (ctl)
        sl_api_set_shim_hook(api, sl_ctl_shim_event, ctl);
    return ctl;
}

/* the policies a reload replaced: requests under way may still read one,
 * so they live until the API is gone */
typedef struct retired {
    sl_authz_policy_t **v;
    size_t n;
} retired_t;

/* SIGHUP with authorization on: the policy file read again and swapped in;
 * an invalid one keeps the policy in use */
static void reload_policy(sl_api_t *api, sl_ctl_t *ctl, const char *path,
                          sl_authz_policy_t **policy, retired_t *old)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_authz_policy_t *p = sl_authz_policy_load(path, &err);
    if (!p) {
        sl_warn("SIGHUP: %s: keeping the policy in use", err.text);
        return;
    }
    if (sl_api_set_policy(api, p) < 0) {
        sl_authz_policy_destroy(p);
        return;
    }
    if (ctl)
        sl_ctl_set_policy(ctl, p);
    sl_authz_policy_t **v = realloc(old->v, (old->n + 1) * sizeof(*v));
    if (v) {
        old->v = v;
        old->v[old->n++] = *policy;
    } /* else the old one leaks: it must not be freed under a request */
    *policy = p;
    sl_info("SIGHUP: policy %s reloaded: authentication, authorization, admission and the "
            "job users and accounts of new submissions use it now",
            path);
}

/* SIGHUP: the limits of n, those that changed since the configuration
 * in force (*live) named in the log */
static void reload_limits(const sl_config_t *start, const sl_config_t *live, const sl_config_t *n,
                          sl_api_t *api, sl_store_t *store)
{
    int changed = 0;
    for (int i = 0; i < SL_CFG_COUNT; i++)
        if (sl_config_reloadable(i) && i != SL_CFG_POLICY && i != SL_CFG_TLS_CERT &&
            i != SL_CFG_TLS_KEY && !sl_config_same(live, n, i)) {
            sl_info("SIGHUP: %s: %ld -> %ld", sl_config_key(i), sl_config_long(live, i),
                    sl_config_long(n, i));
            changed = 1;
        }
    if (!changed)
        return;
    sl_api_opts_t ao = api_opts(n, store, NULL, NULL);
    ao.max_connections = (unsigned)sl_config_long(start, SL_CFG_MAX_CONNECTIONS);
    sl_api_set_limits(api, &ao);
}

/* SIGHUP with TLS on: the certificate and key files read again (their
 * paths may have changed too); a bad pair keeps the one in use */
static void reload_tls(const sl_config_t *cfg, const sl_config_t *n, sl_api_t *api)
{
    const char *cert = sl_config_str(n, SL_CFG_TLS_CERT), *key = sl_config_str(n, SL_CFG_TLS_KEY);
    if (!cert != !CS(TLS_CERT)) {
        sl_warn("SIGHUP: tls.cert %s: restart needed (it turns HTTPS %s)", cert ? "set" : "removed",
                cert ? "on" : "off");
        return;
    }
    if (!cert)
        return;
    char serial[80];
    sl_error_t err = SL_ERROR_INIT;
    if (sl_api_reload_tls(api, cert, key, serial, &err) < 0)
        sl_warn("SIGHUP: %s: keeping the TLS certificate in use", err.text);
    else
        sl_info("SIGHUP: TLS certificate %s (serial %s) and key %s reloaded: new connections "
                "use them",
                cert, serial, key);
}

/* SIGHUP: the configuration read again (the same file and command line).
 * The policy and the limits marked reloadable in the option table are
 * applied; each other setting that differs from the start's is named (the
 * API borrows the start's strings, which therefore stay: a change not
 * applied is named again at the next SIGHUP). An invalid configuration
 * changes nothing. *live: the configuration whose limits are in force. */
static void reload(int argc, char **argv, const sl_config_t *cfg, sl_config_t **live, sl_api_t *api,
                   sl_ctl_t *ctl, sl_store_t *store, sl_authz_policy_t **policy, retired_t *old)
{
    sl_cfg_action_t action;
    sl_error_t err = SL_ERROR_INIT;
    sl_config_t *n = sl_config_load(argc, argv, &action, &err);
    if (!n) {
        sl_warn("SIGHUP: %s: keeping the configuration in use", err.text);
        return;
    }
    for (int i = 0; i < SL_CFG_COUNT; i++)
        if (!sl_config_reloadable(i) && !sl_config_same(cfg, n, i))
            sl_warn("SIGHUP: %s changed: restart needed", sl_config_key(i));
    reload_limits(cfg, *live, n, api, store);
    if (!sl_config_same(*live, n, SL_CFG_GROUP_COMMIT)) {
        sl_info("SIGHUP: state.group_commit: %ld -> %ld",
                sl_config_long(*live, SL_CFG_GROUP_COMMIT), sl_config_long(n, SL_CFG_GROUP_COMMIT));
        sl_store_set_group_max(store, (int)sl_config_long(n, SL_CFG_GROUP_COMMIT));
    }
    if (ctl && !sl_config_same(*live, n, SL_CFG_SUBMIT_WORKERS))
        sl_ctl_set_workers(ctl, (int)sl_config_long(n, SL_CFG_SUBMIT_WORKERS));
    if (ctl && !sl_config_same(*live, n, SL_CFG_CREATE_ACCOUNTS)) {
        sl_info("SIGHUP: slurm.create_accounts: %s",
                sl_config_long(n, SL_CFG_CREATE_ACCOUNTS) ? "true" : "false");
        sl_ctl_set_create_accounts(ctl, (int)sl_config_long(n, SL_CFG_CREATE_ACCOUNTS));
    }
    sl_api_namespace_accounts((int)sl_config_long(n, SL_CFG_CREATE_ACCOUNTS));
    reload_tls(cfg, n, api);
    const char *np = sl_config_str(n, SL_CFG_POLICY);
    if (!np != !CS(POLICY))
        sl_warn("SIGHUP: auth.policy %s: restart needed (it turns authentication %s)",
                np ? "set" : "removed", np ? "on" : "off");
    else if (np)
        reload_policy(api, ctl, np, policy, old);
    else
        sl_info("SIGHUP: no policy to reload");
    if (*live != cfg)
        sl_config_destroy(*live);
    *live = n;
}

/* what the daemon holds from its start to its end */
typedef struct daemon_state {
    sl_config_t *cfg;
    sl_config_t *live; /* the configuration whose limits are in force */
    char *pods_root, *db, *shim, *report;
    sl_store_t *store;
    sl_api_t *api;
    sl_ctl_t *ctl;
    sl_authz_policy_t *policy;
    sl_storage_t *storage; /* the StorageClasses (storage.classes) */
    retired_t old;
    int lock_fd;       /* the state folder's lock (-1: not held) */
    int nofile_raised; /* raise_nofile's answer, logged once the start is under way */
    rlim_t nofile_was;
} daemon_state_t;

/* How often the main thread, idle between signals, looks at the heaps, and
 * how much freed memory calls for a trim (common/memtrim.h) */
#define TRIM_EVERY_S 10
#define TRIM_SLACK (8u << 20)

/* The next of the blocked signals; meanwhile, every TRIM_EVERY_S, freed
 * heap memory is given back: a burst of pods and watch events leaves the
 * threads' arenas mostly free but resident (docs/benchmarks.md, the soak) */
static int wait_signal(const sigset_t *set, sl_memtrim_t *trim)
{
    struct timespec every = {.tv_sec = TRIM_EVERY_S};
    for (;;) {
        int sig = sigtimedwait(set, NULL, &every);
        if (sig > 0)
            return sig;
        if (errno == EAGAIN)
            sl_memtrim_tick(trim);
        else if (errno != EINTR)
            return -1;
    }
}

/* signals are taken synchronously by main; threads inherit the mask */
static void block_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    sigprocmask(SIG_BLOCK, set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* the state folder, the pods root and the object store */
static int open_state(daemon_state_t *d, sl_error_t *err)
{
    const sl_config_t *cfg = d->cfg;
    if (sl_mkdir_p(CS(STATE_DIR), 0700, err) < 0) {
        sl_err("%s", err->text);
        return -1;
    }
    /* one daemon per state folder: a second one's controllers would submit
     * every pod again and write its folder from another process */
    char *lock = sl_xasprintf("%s/slurmlinkd.lock", CS(STATE_DIR));
    pid_t holder;
    d->lock_fd = sl_lock_pidfile(lock, &holder, err);
    int held = d->lock_fd < 0 && errno == EWOULDBLOCK;
    free(lock);
    if (held)
        sl_err("state folder %s is in use by another slurmlinkd (pid %ld): one slurmlinkd "
               "per state folder",
               CS(STATE_DIR), (long)holder);
    else if (d->lock_fd < 0)
        sl_err("state folder %s: %s", CS(STATE_DIR), err->text);
    if (d->lock_fd < 0)
        return -1;
    d->pods_root = CS(PODS_ROOT) ? strdup(CS(PODS_ROOT)) : NULL;
    if (!d->pods_root && asprintf(&d->pods_root, "%s/pods", CS(STATE_DIR)) < 0)
        return -1;
    if (sl_mkdir_p(d->pods_root, 0711, err) < 0) {
        sl_err("%s", err->text);
        return -1;
    }
    if (asprintf(&d->db, "%s/objects.db", CS(STATE_DIR)) < 0)
        return -1;
    if (!(d->store = sl_store_open(d->db, err))) {
        sl_err("store %s: %s", d->db, err->text);
        return -1;
    }
    if (CL(WATCH_LOG))
        sl_store_set_log_limit(d->store, (size_t)CL(WATCH_LOG));
    sl_store_set_group_max(d->store, (int)CL(GROUP_COMMIT));
    /* a new store (its first start): Kubeflow Trainer's default runtimes, as
     * its manifests install them; an admin may delete or replace them */
    if (sl_store_revision(d->store) == 0 && sl_trainjob_install_runtimes(d->store, err) < 0)
        sl_warn("the default ClusterTrainingRuntimes: %s", err->text);
    return 0;
}

/* one policy for the API's decisions; an invalid one stops the start with
 * its file, line and field */
static int load_policy(daemon_state_t *d, sl_error_t *err)
{
    const sl_config_t *cfg = d->cfg;
    if (CS(POLICY) && !(d->policy = sl_authz_policy_load(CS(POLICY), err))) {
        sl_err("%s", err->text);
        return -1;
    }
    if (!d->policy)
        sl_warn("no --policy: development mode, nothing is authenticated or authorized; every "
                "client that reaches %s:%d may do everything",
                CS(LISTEN), (int)CL(PORT));
    else if (!CS(CLIENT_CA) && !CS(TOKEN_FILE))
        sl_warn("--policy without --client-ca or --token-file: no credential can succeed "
                "on the TLS listener");
    return 0;
}

/* the StorageClasses of storage.classes, served as storage.k8s.io/v1
 * objects: each stored as configured, those no longer configured removed */
static void publish_classes(sl_store_t *store, const sl_storage_t *s)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *old = sl_store_list(store, "storageclasses.storage.k8s.io", NULL, NULL);
    size_t i;
    json_t *o;
    json_array_foreach(old, i, o)
    {
        const char *name = sl_kube_name(o);
        if (name && *name && !sl_storage_find(s, name))
            sl_store_delete(store, "storageclasses.storage.k8s.io", NULL, name, 0, NULL, &err);
    }
    json_decref(old);
    for (i = 0; i < sl_storage_count(s); i++) {
        json_t *want = sl_storage_class_object(sl_storage_at(s, i));
        const char *name = sl_kube_name(want);
        json_t *cur = sl_store_get(store, "storageclasses.storage.k8s.io", NULL, name);
        int rc = cur ? sl_store_update(store, "storageclasses.storage.k8s.io", want, 0, &err)
                     : sl_store_create(store, "storageclasses.storage.k8s.io", want, &err);
        if (rc < 0)
            sl_warn("StorageClass %s: %s", name, err.text);
        sl_error_clear(&err);
        json_decref(cur);
        json_decref(want);
    }
}

static int load_storage(daemon_state_t *d, sl_error_t *err)
{
    const sl_config_t *cfg = d->cfg;
    if (!(d->storage = sl_storage_load(CS(STORAGE_CLASSES), err))) {
        sl_err("storage.classes: %s", err->text);
        return -1;
    }
    sl_storage_set_current(d->storage);
    publish_classes(d->store, d->storage);
    return 0;
}

/* pulls whose tools would run as root, or fail for want of their user */
static void warn_pull_user(const sl_config_t *cfg)
{
    const char *user = CS(IMAGE_UNPACK_USER);
    sl_error_t err = SL_ERROR_INIT;
    uid_t uid;
    gid_t gid;
    if (!user)
        sl_warn("images.unpack_user is not set: registry pulls without credentials run skopeo "
                "and umoci as root (`slurmlink up` and the Debian package make %s for it)",
                SL_IMAGE_PULL_USER);
    else if (sl_image_as_lookup(user, &uid, &gid, &err) < 0)
        sl_warn("%s: registry pulls fail until it is fixed", err.text);
    sl_error_clear(&err);
}

/* the API, then the controllers: they start after the API has its port (the
 * shims' report URL names it); shim pushes before that find no pod and are
 * dropped harmlessly (the pod folder keeps them) */
/* libslurm of the build against slurmctld's release: one line when their
 * major releases differ; and one error line when slurmctld refuses every
 * job of slurm.run_as (nobody from Slurm 25.11 with accounting). In a
 * thread of its own: a controller that is down holds the RPC for
 * MessageTimeout, and the start does not wait for it. */
typedef struct release_arg {
    char *bin_dir, *run_as;
} release_arg_t;

static void job_user_check(const char *run_as)
{
    sl_slurm_ctl_info_t info;
    sl_error_t e = SL_ERROR_INIT;
    char line[512];
    struct passwd pw, *r = NULL;
    char buf[4096];
    if (!run_as || sl_slurm_ctl_info(&info, &e) < 0)
        return;
    getpwnam_r(run_as, &pw, buf, sizeof(buf), &r);
    if (sl_slurm_job_user_refused(info.version, info.accounting, run_as, r ? (long)r->pw_uid : -1,
                                  line, sizeof(line)) > 0)
        sl_err("%s; set slurm.run_as to an unprivileged user of its own that has an association "
               "(sacctmgr add user NAME DefaultAccount=ACCOUNT)",
               line);
}

static void *release_check(void *arg)
{
    release_arg_t *a = arg;
    char line[640];
    sl_error_t e = SL_ERROR_INIT;
    int r = sl_slurm_release_check(a->bin_dir, line, sizeof(line), &e);
    if (r > 0)
        sl_warn("%s", line);
    else if (r < 0)
        sl_debug("Slurm release check: %s", e.text);
    if (r >= 0)
        job_user_check(a->run_as);
    free(a->bin_dir);
    free(a->run_as);
    free(a);
    return NULL;
}

static void start_release_check(const sl_config_t *cfg)
{
    release_arg_t *a = sl_xcalloc(1, sizeof(*a));
    sl_slurm_bin_dir(CS(SLURM_BIN_DIR), &a->bin_dir, NULL);
    a->run_as = CS(RUN_AS) ? sl_xstrdup(CS(RUN_AS)) : NULL;
    pthread_t t;
    if (pthread_create(&t, NULL, release_check, a) == 0)
        pthread_detach(t);
    else {
        free(a->bin_dir);
        free(a->run_as);
        free(a);
    }
}

static int start_serving(daemon_state_t *d, int controllers, sl_error_t *err)
{
    const sl_config_t *cfg = d->cfg;
    sl_api_opts_t ao = api_opts(cfg, d->store, d->pods_root, d->policy);
    if (!(d->api = sl_api_create(&ao, err))) {
        sl_err("%s", err->text);
        return -1;
    }
    sl_api_namespace_accounts((int)CL(CREATE_ACCOUNTS));
    if (controllers) {
        d->ctl = start_controllers(cfg, d->store, d->api, d->policy, d->pods_root, &d->shim,
                                   &d->report, err);
        if (!d->ctl) {
            sl_err("%s", err->text);
            return -1;
        }
        warn_pull_user(cfg);
        start_release_check(cfg);
    } else {
        sl_info("no slurm.conf given: serving the API without controllers");
    }
    sl_info("slurmlinkd %s listening on %s://%s:%d, state in %s, pods in %s", SLURMLINK_VERSION,
            CS(TLS_CERT) ? "https" : "http", CS(LISTEN), sl_api_port(d->api), CS(STATE_DIR),
            d->pods_root);
    if (sl_api_plain_port(d->api) >= 0)
        sl_info("plain HTTP on http://%s:%d as the policy's anonymous identity%s", ao.plain_listen,
                sl_api_plain_port(d->api),
                sl_authz_anonymous(d->policy) ? "" : " (none: every request there gets 401)");
    return 0;
}

static void daemon_close(daemon_state_t *d)
{
    /* the API first (no more shim pushes into the controller), then the controller */
    sl_api_destroy(d->api);
    sl_ctl_destroy(d->ctl);
    sl_authz_policy_destroy(d->policy); /* after the API: requests use it */
    for (size_t i = 0; i < d->old.n; i++)
        sl_authz_policy_destroy(d->old.v[i]);
    free(d->old.v);
    sl_storage_set_current(NULL);
    sl_storage_destroy(d->storage);
    free(d->shim);
    free(d->report);
    sl_store_close(d->store);
    if (d->lock_fd >= 0)
        close(d->lock_fd); /* last: the store is closed */
    free(d->db);
    free(d->pods_root);
    if (d->live != d->cfg)
        sl_config_destroy(d->live);
    sl_config_destroy(d->cfg);
}

/* slurm.bin_dir, which every job's PATH starts with, must be root's alone
 * (src/slurmif/bindir.c): refused here, before the API listens, so that
 * `slurmlink up` and systemd see the start fail rather than a port that
 * answers and then closes when the controller refuses it (exit 2) */
static int check_bin_dir(const sl_config_t *cfg, sl_error_t *err)
{
    char *dir = NULL;
    if (sl_slurm_bin_dir(CS(SLURM_BIN_DIR), &dir, err) < 0) {
        sl_err("%s", err->text);
        return -1;
    }
    free(dir);
    return 0;
}

/* the runtimes on this host; the default one must be among them (exit 2) */
static int check_runtimes(const sl_config_t *cfg, sl_error_t *err)
{
    if (sl_runtime_probe(CS(DEFAULT_RUNTIME), err) < 0) {
        sl_err("%s", err->text);
        return -1;
    }
    if (!CS(DEFAULT_RUNTIME) && strcmp(sl_runtime_default(), "apptainer"))
        sl_info("runtimes.default not set and apptainer is not installed: registry images run "
                "with %s",
                sl_runtime_default());
    else if (!sl_runtime_installed(sl_runtime_default()))
        sl_warn("no container runtime installed (apptainer, singularity, charliecloud, podman, "
                "enroot): pods with images fail at submission");
    return 0;
}

/* Descriptors: the soft limit up to the hard one (systemd's default soft
 * limit is 1024; the unit sets LimitNOFILE). Every exec session and
 * forwarded connection holds some; the API keeps a reserve and caps them
 * per identity (src/http/conns.c), this gives that room. Raised first
 * thing, said once the start is under way (a start refused for its
 * slurm.conf prints that one line alone): *was, the limit before. */
static int raise_nofile(rlim_t *was)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return -1;
    *was = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max;
    return *was == rl.rlim_max ? 0 : setrlimit(RLIMIT_NOFILE, &rl);
}

static void log_nofile(int raised, rlim_t was)
{
    struct rlimit rl = {0, 0};
    getrlimit(RLIMIT_NOFILE, &rl);
    if (raised < 0)
        sl_warn("cannot raise the descriptor limit from %llu to %llu", (unsigned long long)was,
                (unsigned long long)rl.rlim_max);
    else
        sl_info("descriptors: at most %llu open (RLIMIT_NOFILE, was %llu)",
                (unsigned long long)rl.rlim_cur, (unsigned long long)was);
}

/* the start: Slurm first, before anything is created or listens (and before
 * any thread: the check forks): a slurm.conf libslurm cannot load stops the
 * start with its name and the reason, instead of libslurm's fatal() ending
 * a daemon that has accepted pods */
static int daemon_start(daemon_state_t *d, int controllers, sl_error_t *err)
{
    const sl_config_t *cfg = d->cfg;
    if (controllers && sl_slurm_init(CS(SLURM_CONF), err) < 0) {
        sl_err("%s", err->text);
        return -1;
    }
    log_nofile(d->nofile_raised, d->nofile_was);
    if (check_runtimes(cfg, err) < 0 || (controllers && check_bin_dir(cfg, err) < 0))
        return -2;
    if (open_state(d, err) < 0 || load_policy(d, err) < 0 || load_storage(d, err) < 0)
        return -1;
    return start_serving(d, controllers, err);
}

int main(int argc, char **argv)
{
    /* a fixed threshold: a list's multi-MB reply buffers are mapped and
     * given back when freed (glibc's adaptive one moves them into the heaps,
     * where 100 watch threads' arenas kept ~15 MB of them resident) */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    sl_cfg_action_t action;
    sl_error_t err = SL_ERROR_INIT;
    sl_config_t *cfg = sl_config_load(argc, argv, &action, &err);
    if (!cfg) {
        if (action == SL_CFG_EXIT)
            return 0;
        fprintf(stderr, "%s\n", err.text);
        return 2;
    }
    if (action == SL_CFG_CHECK) {
        sl_config_print(cfg, stdout);
        sl_config_destroy(cfg);
        return 0;
    }
    sl_log_init("slurmlinkd", CL(VERBOSE) ? SL_LOG_DEBUG : SL_LOG_INFO);
    /* before any thread: glibc gives each new thread an arena of its own up
     * to 8 per core, and every connection is a thread; on 16 cores 40 of
     * them held 3/4 of the resident memory, each partly used */
    if (CL(MALLOC_ARENAS) > 0)
        mallopt(M_ARENA_MAX, (int)CL(MALLOC_ARENAS));
    rlim_t nofile_was = 0;
    int nofile_raised = raise_nofile(&nofile_was);
    if (CS(SLURM_CONF))
        setenv("SLURM_CONF", CS(SLURM_CONF), 1);
    sigset_t set;
    block_signals(&set);
    daemon_state_t d = {.cfg = cfg,
                        .live = cfg,
                        .lock_fd = -1,
                        .nofile_raised = nofile_raised,
                        .nofile_was = nofile_was};
    int controllers = CL(CONTROLLERS) && (CS(SLURM_CONF) || getenv("SLURM_CONF"));
    int rc = 1, started = daemon_start(&d, controllers, &err);
    if (started == -2)
        rc = 2; /* a configuration that cannot work */
    if (started == 0) {
        /* signals are taken here synchronously (every thread blocks them; no
         * handler runs): a reload is ordinary code on the main thread */
        sl_memtrim_t trim = {.slack = TRIM_SLACK};
        int sig;
        while ((sig = wait_signal(&set, &trim)) == SIGHUP)
            reload(argc, argv, cfg, &d.live, d.api, d.ctl, d.store, &d.policy, &d.old);
        sl_info("signal %d: shutting down", sig);
        rc = 0;
    }
    daemon_close(&d);
    return rc;
}
