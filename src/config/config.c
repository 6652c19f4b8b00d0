/* config.c — the option table and the three readers of it: argv,
 * the YAML configuration file, and the printers (--help, --check-config,
 * the key list docs/configuration.md is checked against). */
#include "config/config.h"
#include "gpu/gpu.h"

#include "common/fsutil.h"
#include "common/version.h"
#include "common/xalloc.h"
#include "pod/yamljson.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SL_SYSCONFDIR
#define SL_SYSCONFDIR "/etc"
#endif

typedef enum opt_type {
    T_STR,  /* a string */
    T_FILE, /* a file slurmlinkd reads: checked readable */
    T_INT,  /* an integer in lo..hi */
    T_BOOL, /* the command-line flag sets the opposite of the default */
} opt_type_t;

typedef struct opt {
    const char *name; /* long option */
    int shortopt;     /* 0: none */
    const char *key;  /* group.key in the file */
    opt_type_t type;
    const char *arg; /* the argument's name in --help */
    const char *def; /* a string's default (NULL: unset or derived, see help) */
    long ndef, lo, hi;
    int reload; /* SIGHUP applies a change */
    const char *help;
} opt_t;

#define S(n, sh, k, a, d, h)                                                                       \
    {                                                                                              \
        n, sh, k, T_STR, a, d, 0, 0, 0, 0, h                                                       \
    }
#define F(n, sh, k, a, h)                                                                          \
    {                                                                                              \
        n, sh, k, T_FILE, a, NULL, 0, 0, 0, 0, h                                                   \
    }
/* a file SIGHUP reads again */
#define FR(n, sh, k, a, h)                                                                         \
    {                                                                                              \
        n, sh, k, T_FILE, a, NULL, 0, 0, 0, 1, h                                                   \
    }
/* an integer SIGHUP applies */
#define IR(n, sh, k, a, d, l, u, h)                                                                \
    {                                                                                              \
        n, sh, k, T_INT, a, NULL, d, l, u, 1, h                                                    \
    }
#define I(n, sh, k, a, d, l, u, h)                                                                 \
    {                                                                                              \
        n, sh, k, T_INT, a, NULL, d, l, u, 0, h                                                    \
    }
#define BR(n, sh, k, d, h) /* reloadable */                                                        \
    {                                                                                              \
        n, sh, k, T_BOOL, NULL, NULL, d, 0, 1, 1, h                                                \
    }
#define B(n, sh, k, d, h)                                                                          \
    {                                                                                              \
        n, sh, k, T_BOOL, NULL, NULL, d, 0, 1, 0, h                                                \
    }

/* one row per sl_cfg_id_t, in its order */
static const opt_t opts[SL_CFG_COUNT] = {
    [SL_CFG_LISTEN] =
        S("listen", 'l', "listen.address", "ADDR", "127.0.0.1", "IPv4 address the API listens on"),
    [SL_CFG_PORT] = I("port", 'p', "listen.port", "N", 6443, 0, 65535, "port (0 picks a free one)"),
    [SL_CFG_PLAIN_PORT] = I("plain-http-port", 0, "listen.plain_http_port", "N", -1, -1, 65535,
                            "also serve plain HTTP on a loopback address, as the policy's "
                            "anonymous identity (0 picks a port; -1: none)"),
    [SL_CFG_PLAIN_ADDRESS] = S("plain-http-address", 0, "listen.plain_http_address", "ADDR", NULL,
                               "its address (127.0.0.1; only 127.0.0.0/8)"),
    [SL_CFG_TLS_CERT] =
        FR("tls-cert", 0, "tls.cert", "PEM",
           "serve HTTPS with this certificate chain (SIGHUP reads it again: new connections "
           "get the new one, open ones keep theirs)"),
    [SL_CFG_TLS_KEY] = FR("tls-key", 0, "tls.key", "PEM", "... and this private key"),
    [SL_CFG_POLICY] = FR("policy", 0, "auth.policy", "FILE",
                         "policy.yaml: who may do what, users -> Unix users, namespaces -> "
                         "accounts; turns authentication on (needs TLS). Without it: "
                         "development mode, no checks"),

    [SL_CFG_CLIENT_CA] =
        F("client-ca", 0, "auth.client_ca", "PEM", "accept client certificates signed by this CA"),
    [SL_CFG_TOKEN_FILE] =
        F("token-file", 0, "auth.token_file", "CSV", "accept the bearer tokens of this file"),
    [SL_CFG_STATE_DIR] = S("state-dir", 's', "state.dir", "DIR", "/var/lib/slurmlink",
                           "objects database (SQLite) and state"),
    [SL_CFG_GROUP_COMMIT] =
        IR("group-commit", 0, "state.group_commit", "N", 64, 1, 1024,
           "creates that commit together in one store transaction: those that come while "
           "another is written wait for it and are then written and committed at once (1: "
           "each create its own transaction)"),
    [SL_CFG_SLURM_CONF] = F("slurm-conf", 'c', "slurm.conf", "PATH",
                            "slurm.conf of the cluster (default: SLURM_CONF of the environment)"),
    [SL_CFG_CONTROLLERS] = B("no-controllers", 0, "slurm.controllers", 1,
                             "run the controllers (submit pods as Slurm jobs) when a slurm.conf "
                             "is known; --no-controllers serves the API only"),
    [SL_CFG_RUN_AS] = S("run-as", 0, "slurm.run_as", "USER", "nobody",
                        "Unix user the jobs run as without a policy"),
    [SL_CFG_POLL_MS] = I("poll-ms", 0, "slurm.poll_ms", "N", 250, 10, 60000,
                         "Slurm job poll period in milliseconds; a poll that took longer than a "
                         "tenth of it spaces the next one to ten times its own duration (at most "
                         "5 s): a poll reads every job slurmctld holds, of every user, whenever "
                         "any changed"),
    [SL_CFG_SUBMIT_WORKERS] =
        IR("submit-workers", 0, "slurm.submit_workers", "N", 8, 1, 64,
           "threads that submit pods to Slurm at once (translation, pod folder, the submit RPC, "
           "the job id stored); SIGHUP resizes the pool, a shrunk pool's extra threads end "
           "after their current submission"),
    [SL_CFG_SLURM_BIN_DIR] =
        S("slurm-bin-dir", 0, "slurm.bin_dir", "DIR", NULL,
          "folder of Slurm's commands (srun, scontrol), first in the jobs' PATH (default: "
          "the folder of the srun in slurmlinkd's PATH, else the built Slurm's bin)"),
    [SL_CFG_CREATE_ACCOUNTS] =
        BR("create-accounts", 0, "slurm.create_accounts", 0,
           "with Slurm accounting: a new namespace gets its Slurm account and its creator's "
           "association with sacctmgr; a pod refused because the account (or its user's "
           "association with it) is missing makes them, then is submitted again; a namespace "
           "named root is refused (Slurm's root account); deleting a namespace keeps its "
           "account"),
    [SL_CFG_PODS_ROOT] = S("pods-root", 0, "pods.root", "DIR", NULL,
                           "pod folders and shim logs, on storage every node mounts at the "
                           "same path (default <state.dir>/pods)"),
    [SL_CFG_STORAGE_CLASSES] =
        F("storage-classes", 0, "storage.classes", "FILE",
          "the StorageClasses: a YAML file naming each class's root folder on a filesystem "
          "every node mounts, its access modes and size limits (docs/pods.md, Storage)"),
    [SL_CFG_IMAGE_STORE] =
        S("image-store", 0, "images.store", "DIR", NULL, "local images for charliecloud"),
    [SL_CFG_IMAGE_CREDENTIALS] =
        F("image-credentials", 0, "images.credentials", "FILE",
          "server-wide registry credentials (a docker config.json / containers-auth.json), "
          "used for every pod's pulls after its own pull secrets"),
    [SL_CFG_IMAGE_CA_DIR] = S("image-ca-dir", 0, "images.ca_dir", "DIR", NULL,
                              "CA certificates registries are verified with (default: the "
                              "system's)"),
    [SL_CFG_IMAGE_STORE_LIMIT] =
        I("image-store-limit", 0, "images.store_limit", "BYTES", 0, 0, LONG_MAX,
          "bytes the pulled images may take in the store (0: no limit); a pull that would go "
          "over removes the least recently used images no live pod uses first"),
    [SL_CFG_IMAGE_MAX_SIZE] =
        I("image-max-size", 0, "images.max_image_size", "BYTES", 34359738368LL, 1048576, LONG_MAX,
          "bytes one pulled image may download and unpack to: the pull is stopped while it "
          "runs and fails naming the image and this limit"),
    [SL_CFG_IMAGE_UNPACK_USER] =
        S("image-unpack-user", 0, "images.unpack_user", "USER", NULL,
          "Unix user (not root, used for nothing else) that skopeo and umoci run as for "
          "registry pulls without credentials (those with a pod's credentials run as its job "
          "user); the tree is root's once it is made safe (unset: they run as root)"),
    [SL_CFG_IMAGE_MAX_PULLS] =
        I("image-max-pulls", 0, "images.max_pulls", "N", 8, 1, 1024,
          "image pulls at once (each a root skopeo or umoci process); a pod whose pull finds "
          "them all taken waits; a pull whose pods are all deleted is killed"),
    [SL_CFG_IMAGE_MAX_PULLS_PER_NS] =
        I("image-max-pulls-per-namespace", 0, "images.max_pulls_per_namespace", "N", 4, 1, 1024,
          "image pulls at once of one namespace's pods"),
    [SL_CFG_IMAGE_MANIFEST_TIMEOUT] =
        I("image-manifest-timeout", 0, "images.manifest_timeout", "SECONDS", 30, 1, 600,
          "seconds a registry has to answer a pull's manifest request (the layers' download "
          "has 600)"),
    [SL_CFG_SHIM] = S("shim", 0, "shim.path", "PATH", NULL,
                      "slurmlink-shim as the nodes see it (default: beside slurmlinkd, else "
                      "the installed one)"),
    [SL_CFG_REPORT_URL] = S("report-url", 0, "shim.report_url", "URL", NULL,
                            "where shims push (default http[s]://<listen.address>:<port>"
                            "/internal/v1/shim/events)"),
    [SL_CFG_REPORT_CA] = F("report-ca", 0, "shim.report_ca", "PEM",
                           "CA file the shims trust for an https report URL"),
    [SL_CFG_DEFAULT_RUNTIME] =
        S("default-runtime", 0, "runtimes.default", "R", NULL,
          "runtime for images not in the store; it must be installed (else exit 2); unset: the "
          "first installed of apptainer, singularity, charliecloud, podman, enroot"),
    [SL_CFG_GPU_TYPES] =
        S("gpu-types", 0, "gpus.types", "TABLE", NULL,
          "the policy table from nvidia.com/gpu.product label values to Slurm GRES types, "
          "PRODUCT=TYPE rows joined by commas: a pod selecting a product gets "
          "--gres=gpu:TYPE:N, a node of type T is labelled with the first product of T "
          "(unset: the built-in table of docs/gpus.md)"),
    [SL_CFG_GPU_SHARED] =
        S("gpu-shared-resource", 0, "gpus.shared_resource", "NAME", "nvidia.com/gpu.shared",
          "the extended resource a pod requests for a share of a GPU: N of it is "
          "--gres=shard:N (Slurm's shard GRES)"),
    [SL_CFG_MAX_CONNECTIONS] = I("max-connections", 0, "limits.max_connections", "N", 1024, 1,
                                 100000, "total connections per listener"),
    [SL_CFG_MAX_PER_IP] = I("max-per-ip", 0, "limits.max_per_ip", "N", 0, 0, 100000,
                            "connections per client address (0: no limit; local clients all "
                            "share 127.0.0.1)"),
    [SL_CFG_MAX_PER_USER] = IR("max-per-user", 0, "limits.max_per_user", "N", 256, 1, 100000,
                               "connections per authenticated identity"),
    [SL_CFG_MAX_WATCHES] = IR("max-watches-per-user", 0, "limits.max_watches_per_user", "N", 128, 1,
                              100000, "concurrent watches per identity"),
    [SL_CFG_MAX_UNAUTH] =
        IR("max-unauthenticated", 0, "limits.max_unauthenticated", "N", 128, 1, 100000,
           "connections not yet authenticated; when full, the oldest of them "
           "is closed for a new one"),
    [SL_CFG_HANDSHAKE] = I("handshake-timeout", 0, "limits.handshake_timeout", "S", 10, 1, 3600,
                           "seconds for TLS and a first request"),
    [SL_CFG_IDLE] = IR("idle-timeout", 0, "limits.idle_timeout", "S", 120, 1, 86400,
                       "close connections idle for S seconds"),
    [SL_CFG_MAX_BODY] = IR("max-body-bytes", 0, "limits.max_body_bytes", "N", 3L << 20, 1024,
                           1L << 30, "request body limit"),
    [SL_CFG_MAX_OBJECT] = IR("max-object-bytes", 0, "limits.max_object_bytes", "N", 1536L << 10,
                             1024, 1L << 30, "stored object size limit"),
    [SL_CFG_MALLOC_ARENAS] =
        I("malloc-arenas", 0, "limits.malloc_arenas", "N", 4, 0, 1024,
          "glibc malloc arenas the daemon's threads share (M_ARENA_MAX; 0: glibc's own, 8 per "
          "core, where each of many threads keeps its own partly used heap)"),
    [SL_CFG_BOOKMARK] = I("bookmark-interval", 0, "watch.bookmark_interval", "S", 60, 1, 86400,
                          "watch BOOKMARK period in seconds"),
    [SL_CFG_WATCH_LOG] = I("watch-log", 0, "watch.log", "N", 10000, 1, 10000000,
                           "changes kept for resuming watches (up to 4 times as many while "
                           "slurmlinkd's own controllers have not read them: docs/lifecycle.md)"),
    [SL_CFG_WATCH_WINDOW] = I("watch-window", 0, "watch.window", "N", 1024, 1, 1000000,
                              "recent changes per resource shared by all watches"),
    [SL_CFG_WATCH_WINDOW_BYTES] =
        I("watch-window-bytes", 0, "watch.window_bytes", "N", 4L << 20, 4096, 1L << 32,
          "bytes the shared recent changes of one resource may hold (each change's object and "
          "the object before it); the oldest go first, and a watch behind them reads the "
          "store's change log"),
    [SL_CFG_EVENT_TTL] = I("event-ttl", 0, "events.ttl", "S", 3600, 1, 100L * 86400,
                           "remove events older than S seconds"),
    [SL_CFG_EXEC_IDLE] = I("exec-idle-timeout", 0, "exec.idle_timeout", "S", 14400, 1, 100L * 86400,
                           "end an exec session after S seconds without a byte either way"),
    [SL_CFG_EXEC_MAX] = I("exec-max-duration", 0, "exec.max_duration", "S", 86400, 1, 100L * 86400,
                          "end an exec session S seconds after it started"),
    [SL_CFG_EXEC_MAX_MESSAGE] =
        I("exec-max-message-bytes", 0, "exec.max_message_bytes", "N", 1L << 20, 1024, 1L << 30,
          "largest WebSocket message a client may send on an exec, attach or port-forward "
          "session; a larger one closes it (1009, message too big)"),
    [SL_CFG_EXEC_MAX_STREAMS] =
        I("exec-max-streams-per-user", 0, "exec.max_streams_per_user", "N", 128, 1, 100000,
          "exec and attach sessions and forwarded connections one identity may hold at once "
          "(a port-forward session counts one per port)"),
    [SL_CFG_VERBOSE] = B("verbose", 'v', "log.verbose", 0, "log every request"),
};

enum { ORIGIN_DEFAULT, ORIGIN_FILE, ORIGIN_ARGV };

struct sl_config {
    char *file; /* the configuration file read, or NULL */
    struct {
        char *s;
        long n;
        int origin;
    } v[SL_CFG_COUNT];
};

/* the options that are not settings */
enum { M_CONFIG = 1000, M_CHECK, M_KEYS, M_HELP, M_VERSION };

const char *sl_config_default_path(void) { return SL_SYSCONFDIR "/slurmlink/slurmlinkd.conf"; }

char *sl_config_default_shim(void)
{
    char *self = sl_self_dir();
    char *shim = sl_xasprintf("%s/slurmlink-shim", self);
    if (access(shim, X_OK) != 0) {
        free(shim);
        char *up = strrchr(self, '/');
        if (up)
            *up = '\0';
        shim = sl_xasprintf("%s/libexec/slurmlink/slurmlink-shim", self);
    }
    free(self);
    return shim;
}

const char *sl_config_str(const sl_config_t *c, sl_cfg_id_t id) { return c->v[id].s; }

long sl_config_long(const sl_config_t *c, sl_cfg_id_t id) { return c->v[id].n; }

const char *sl_config_key(sl_cfg_id_t id) { return opts[id].key; }

int sl_config_reloadable(sl_cfg_id_t id) { return opts[id].reload; }

int sl_config_same(const sl_config_t *a, const sl_config_t *b, sl_cfg_id_t id)
{
    const char *x = a->v[id].s, *y = b->v[id].s;
    return a->v[id].n == b->v[id].n && (x == y || (x && y && !strcmp(x, y)));
}

const char *sl_config_file(const sl_config_t *c) { return c->file; }

void sl_config_destroy(sl_config_t *c)
{
    if (!c)
        return;
    for (int i = 0; i < SL_CFG_COUNT; i++)
        free(c->v[i].s);
    free(c->file);
    free(c);
}

static sl_config_t *config_new(void)
{
    sl_config_t *c = sl_xcalloc(1, sizeof(*c));
    for (int i = 0; i < SL_CFG_COUNT; i++) {
        c->v[i].s = opts[i].def ? sl_xstrdup(opts[i].def) : NULL;
        c->v[i].n = opts[i].ndef;
    }
    return c;
}

/* how a message names setting id: as it was given */
static int where(const sl_config_t *c, sl_cfg_id_t id, char *out, size_t n)
{
    if (c->v[id].origin == ORIGIN_FILE)
        return snprintf(out, n, "%s: %s", c->file, opts[id].key);
    return snprintf(out, n, "slurmlinkd: --%s", opts[id].name);
}

static int set_str(sl_config_t *c, int id, const char *s, int origin)
{
    free(c->v[id].s);
    c->v[id].s = s ? sl_xstrdup(s) : NULL;
    c->v[id].origin = origin;
    return 0;
}

static int set_long(sl_config_t *c, int id, long v, int origin, sl_error_t *err)
{
    c->v[id].origin = origin;
    if (v < opts[id].lo || v > opts[id].hi) {
        char w[300];
        where(c, id, w, sizeof(w));
        return sl_errprintf(err, "%s: must be %ld..%ld, not %ld", w, opts[id].lo, opts[id].hi, v);
    }
    c->v[id].n = v;
    return 0;
}

/* a command-line option's argument into setting id */
static int set_arg(sl_config_t *c, int id, const char *arg, sl_error_t *err)
{
    if (opts[id].type == T_BOOL)
        return set_long(c, id, !opts[id].ndef, ORIGIN_ARGV, err);
    if (opts[id].type != T_INT)
        return set_str(c, id, arg, ORIGIN_ARGV);
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || *end || !*arg || v < opts[id].lo || v > opts[id].hi)
        return sl_errprintf(err, "slurmlinkd: --%s must be %ld..%ld, not '%s'", opts[id].name,
                            opts[id].lo, opts[id].hi, arg);
    return set_long(c, id, v, ORIGIN_ARGV, err);
}

/* the getopt tables from opts[] and the meta options */
static void build_getopt(struct option *lo, char *shorts)
{
    int n = 0;
    char *sp = shorts;
    for (int i = 0; i < SL_CFG_COUNT; i++) {
        lo[n++] = (struct option){opts[i].name,
                                  opts[i].type == T_BOOL ? no_argument : required_argument, 0, i};
        if (opts[i].shortopt) {
            *sp++ = (char)opts[i].shortopt;
            if (opts[i].type != T_BOOL)
                *sp++ = ':';
        }
    }
    lo[n++] = (struct option){"config", required_argument, 0, M_CONFIG};
    lo[n++] = (struct option){"check-config", no_argument, 0, M_CHECK};
    lo[n++] = (struct option){"config-keys", no_argument, 0, M_KEYS};
    lo[n++] = (struct option){"help", no_argument, 0, M_HELP};
    lo[n++] = (struct option){"version", no_argument, 0, M_VERSION};
    lo[n] = (struct option){0, 0, 0, 0};
    strcpy(sp, "hV");
}

static int short_to_id(int ch)
{
    for (int i = 0; i < SL_CFG_COUNT; i++)
        if (opts[i].shortopt == ch)
            return i;
    return -1;
}

/* argv into c; *config the --config argument. -1 with err, 0, or 1 when
 * --help/--version were printed */
static int parse_argv(sl_config_t *c, int argc, char **argv, const char **config,
                      sl_cfg_action_t *action, sl_error_t *err)
{
    struct option lo[SL_CFG_COUNT + 6];
    char shorts[2 * SL_CFG_COUNT + 3];
    build_getopt(lo, shorts);
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        int id = ch < SL_CFG_COUNT ? ch : short_to_id(ch);
        if (ch == M_CONFIG) {
            *config = optarg;
        } else if (ch == M_CHECK) {
            *action = SL_CFG_CHECK;
        } else if (ch == M_KEYS) {
            sl_config_print_keys(stdout);
            return 1;
        } else if (ch == 'h' || ch == M_HELP) {
            sl_config_usage(stdout);
            return 1;
        } else if (ch == 'V' || ch == M_VERSION) {
            printf("slurmlinkd %s\n", SLURMLINK_VERSION);
            return 1;
        } else if (id < 0) {
            return sl_errprintf(err, "slurmlinkd: unknown option (see slurmlinkd --help)");
        } else if (set_arg(c, id, optarg, err) < 0) {
            return -1;
        }
    }
    if (optind < argc)
        return sl_errprintf(err, "slurmlinkd: unexpected argument '%s'", argv[optind]);
    return 0;
}

static int find_key(const char *group, const char *key)
{
    size_t gl = strlen(group);
    for (int i = 0; i < SL_CFG_COUNT; i++)
        if (!strncmp(opts[i].key, group, gl) && opts[i].key[gl] == '.' &&
            (!key || !strcmp(opts[i].key + gl + 1, key)))
            return i;
    return -1;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "a mapping";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* one file value into setting id; a setting the command line gave stays */
static int set_json(sl_config_t *c, int id, const json_t *v, sl_error_t *err)
{
    static const char *want[] = {"a string", "a file name", "an integer", "true or false"};
    int t = opts[id].type, ok = t == T_INT    ? json_is_integer(v)
                                : t == T_BOOL ? json_is_boolean(v)
                                              : json_is_string(v) || json_is_null(v);
    if (!ok)
        return sl_errprintf(err, "%s: %s: wrong type: want %s, not %s", c->file, opts[id].key,
                            want[t], json_kind(v));
    if (c->v[id].origin == ORIGIN_ARGV)
        return 0;
    if (t == T_INT)
        return set_long(c, id, (long)json_integer_value(v), ORIGIN_FILE, err);
    if (t == T_BOOL)
        return set_long(c, id, json_is_true(v), ORIGIN_FILE, err);
    return set_str(c, id, json_is_string(v) ? json_string_value(v) : NULL, ORIGIN_FILE);
}

static int read_groups(sl_config_t *c, const json_t *top, sl_error_t *err)
{
    const char *g, *k;
    json_t *grp, *v;
    if (!json_is_object(top))
        return sl_errprintf(err, "%s: wrong type: want a mapping of groups, not %s", c->file,
                            json_kind(top));
    json_object_foreach((json_t *)top, g, grp)
    {
        if (find_key(g, NULL) < 0)
            return sl_errprintf(err, "%s: %s: unknown key", c->file, g);
        if (!json_is_object(grp))
            return sl_errprintf(err, "%s: %s: wrong type: want a mapping, not %s", c->file, g,
                                json_kind(grp));
        json_object_foreach(grp, k, v)
        {
            int id = find_key(g, k);
            if (id < 0)
                return sl_errprintf(err, "%s: %s.%s: unknown key", c->file, g, k);
            if (set_json(c, id, v, err) < 0)
                return -1;
        }
    }
    return 0;
}

static int read_file(sl_config_t *c, sl_error_t *err)
{
    size_t len;
    sl_error_t e = SL_ERROR_INIT;
    int fd = open(c->file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sl_errprintf(err, "%s: cannot read: %s", c->file, strerror(errno));
    close(fd);
    char *text = sl_read_file(c->file, &len, &e);
    if (!text)
        return sl_errprintf(err, "%s: cannot read: %s", c->file, strerror(errno));
    json_t *docs = sl_yaml_to_json(text, len, &e);
    free(text);
    if (!docs)
        return sl_errprintf(err, "%s: %s", c->file, e.text);
    int rc = 0;
    if (json_array_size(docs) > 1)
        rc = sl_errprintf(err, "%s: one YAML document expected, not %zu", c->file,
                          json_array_size(docs));
    else if (json_array_size(docs) == 1)
        rc = read_groups(c, json_array_get(docs, 0), err);
    json_decref(docs);
    return rc;
}

/* every file a setting names can be opened and read */
static int check_files(const sl_config_t *c, sl_error_t *err)
{
    for (int i = 0; i < SL_CFG_COUNT; i++) {
        if (opts[i].type != T_FILE || !c->v[i].s)
            continue;
        char w[300], b;
        int fd = open(c->v[i].s, O_RDONLY | O_CLOEXEC);
        if (fd >= 0 && read(fd, &b, 1) >= 0) {
            close(fd);
            continue;
        }
        int e = errno;
        if (fd >= 0)
            close(fd);
        where(c, i, w, sizeof(w));
        return sl_errprintf(err, "%s: %s: cannot read: %s", w, c->v[i].s, strerror(e));
    }
    return 0;
}

/* the settings that need each other */
static int check_combinations(const sl_config_t *c, sl_error_t *err)
{
    char a[300], b[300];
    const char *cert = c->v[SL_CFG_TLS_CERT].s, *key = c->v[SL_CFG_TLS_KEY].s;
    if (!cert != !key) {
        where(c, cert ? SL_CFG_TLS_CERT : SL_CFG_TLS_KEY, a, sizeof(a));
        return sl_errprintf(err,
                            "%s: tls.cert and tls.key (--tls-cert and --tls-key) go "
                            "together",
                            a);
    }
    int need = c->v[SL_CFG_CLIENT_CA].s         ? SL_CFG_CLIENT_CA
               : c->v[SL_CFG_TOKEN_FILE].s      ? SL_CFG_TOKEN_FILE
               : c->v[SL_CFG_PLAIN_PORT].n >= 0 ? SL_CFG_PLAIN_PORT
                                                : -1;
    if (need >= 0 && !c->v[SL_CFG_POLICY].s) {
        where(c, need, a, sizeof(a));
        return sl_errprintf(err,
                            "%s needs --policy (auth.policy): without a policy nothing is "
                            "authenticated or authorized",
                            a);
    }
    if (c->v[SL_CFG_POLICY].s && !cert) {
        where(c, SL_CFG_POLICY, a, sizeof(a));
        return sl_errprintf(err,
                            "%s needs --tls-cert and --tls-key (tls.cert, tls.key): "
                            "credentials must not cross the network in clear text",
                            a);
    }
    if (sl_gpu_types_check(c->v[SL_CFG_GPU_TYPES].s, NULL) < 0) {
        where(c, SL_CFG_GPU_TYPES, a, sizeof(a));
        sl_gpu_types_check(c->v[SL_CFG_GPU_TYPES].s, err);
        return sl_errprefix(err, "%s", a);
    }
    const char *shared = c->v[SL_CFG_GPU_SHARED].s;
    if (shared && (!strchr(shared, '/') || !sl_gpu_type_ok(strchr(shared, '/') + 1))) {
        where(c, SL_CFG_GPU_SHARED, a, sizeof(a));
        return sl_errprintf(err, "%s: '%s' must be an extended resource name DOMAIN/NAME", a,
                            shared);
    }
    if (c->v[SL_CFG_PLAIN_ADDRESS].s && c->v[SL_CFG_PLAIN_PORT].n < 0) {
        where(c, SL_CFG_PLAIN_ADDRESS, b, sizeof(b));
        return sl_errprintf(err, "%s needs --plain-http-port (listen.plain_http_port)", b);
    }
    return 0;
}

sl_config_t *sl_config_load(int argc, char **argv, sl_cfg_action_t *action, sl_error_t *err)
{
    sl_config_t *c = config_new();
    const char *file = NULL;
    *action = SL_CFG_RUN;
    int r = parse_argv(c, argc, argv, &file, action, err);
    if (r != 0) {
        sl_config_destroy(c);
        if (r > 0)
            *action = SL_CFG_EXIT;
        return NULL;
    }
    if (!file && access(sl_config_default_path(), F_OK) == 0)
        file = sl_config_default_path();
    if (file)
        c->file = sl_xstrdup(file);
    if ((c->file && read_file(c, err) < 0) || check_files(c, err) < 0 ||
        check_combinations(c, err) < 0) {
        sl_config_destroy(c);
        return NULL;
    }
    return c;
}

static void print_value(const sl_config_t *c, int i, FILE *f)
{
    if (opts[i].type == T_INT) {
        fprintf(f, "%ld", c->v[i].n);
    } else if (opts[i].type == T_BOOL) {
        fputs(c->v[i].n ? "true" : "false", f);
    } else if (!c->v[i].s) {
        fputs("null", f);
    } else {
        json_t *s = json_string(c->v[i].s);
        char *q = json_dumps(s, JSON_ENCODE_ANY);
        fputs(q ? q : "null", f);
        free(q);
        json_decref(s);
    }
}

void sl_config_print(const sl_config_t *c, FILE *f)
{
    static const char *from[] = {"default", "file", "command line"};
    fprintf(f, "# slurmlinkd %s: the effective configuration (from %s)\n", SLURMLINK_VERSION,
            c->file ? c->file : "no configuration file");
    for (int i = 0; i < SL_CFG_COUNT; i++) {
        const char *dot = strchr(opts[i].key, '.');
        int gl = (int)(dot - opts[i].key);
        if (i == 0 || strncmp(opts[i].key, opts[i - 1].key, (size_t)gl + 1))
            fprintf(f, "%.*s:\n", gl, opts[i].key);
        fprintf(f, "  %s: ", dot + 1);
        print_value(c, i, f);
        fprintf(f, "  # %s\n", from[c->v[i].origin]);
    }
}

static const char *type_name(int t)
{
    static const char *n[] = {"string", "file", "integer", "boolean"};
    return n[t];
}

static void print_default(int i, FILE *f)
{
    if (opts[i].type == T_INT)
        fprintf(f, "%ld", opts[i].ndef);
    else if (opts[i].type == T_BOOL)
        fputs(opts[i].ndef ? "true" : "false", f);
    else
        fputs(opts[i].def ? opts[i].def : "-", f);
}

void sl_config_usage(FILE *f)
{
    fprintf(f,
            "usage: slurmlinkd [OPTIONS]\n"
            "      --config FILE        configuration file (%s when it exists);\n"
            "                           options below override its settings\n"
            "      --check-config       check the configuration, print the settings, exit\n"
            "      --config-keys        list the configuration keys (for the docs), exit\n",
            sl_config_default_path());
    for (int i = 0; i < SL_CFG_COUNT; i++) {
        char lead[64];
        snprintf(lead, sizeof(lead), "%c%c%c --%s %s", opts[i].shortopt ? '-' : ' ',
                 opts[i].shortopt ? opts[i].shortopt : ' ', opts[i].shortopt ? ',' : ' ',
                 opts[i].name, opts[i].arg ? opts[i].arg : "");
        fprintf(f, "  %-26s %s [%s, default ", lead, opts[i].help, opts[i].key);
        print_default(i, f);
        fprintf(f, "]\n");
    }
    fprintf(f, "  -V, --version\n");
}

void sl_config_print_keys(FILE *f)
{
    for (int i = 0; i < SL_CFG_COUNT; i++) {
        fprintf(f, "%s\t--%s\t%s\t", opts[i].key, opts[i].name, type_name(opts[i].type));
        print_default(i, f);
        fprintf(f, "\t%s\t%s\n", opts[i].reload ? "reload" : "restart", opts[i].help);
    }
}
