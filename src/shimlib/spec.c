/* spec.c — shim.json parser (jansson). Every error names the field path. */
#include "shimlib/spec.h"

#include "common/b64.h"
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API_VERSION "slurmlink.io/v1"
#define KIND "ShimSpec"

static int bad(sl_error_t *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(sl_error_t *err, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    errno = EINVAL;
    return sl_errprintf(err, "%s: %s", path, msg);
}

/* One field error in the texts the API uses too (src/common/err.c):
 * "path: Invalid value: \"v\": detail"; value printed with Go's %q. */
static int bad_value(sl_error_t *err, sl_fe_type_t type, const char *path, const char *value,
                     const char *detail)
{
    sl_fielderr_t e = {.type = type,
                       .field = (char *)path,
                       .vkind = SL_FE_V_STRING,
                       .value = (char *)value,
                       .detail = (char *)detail};
    errno = EINVAL;
    return sl_errfield(err, &e);
}

const char *sl_restart_policy_name(sl_restart_policy_t p)
{
    switch (p) {
    case SL_RESTART_ALWAYS: return "Always";
    case SL_RESTART_ONFAILURE: return "OnFailure";
    case SL_RESTART_NEVER: return "Never";
    }
    return "?";
}

/* A text field: a JSON string without NUL. Optional fields may be absent
 * (then *out stays NULL). */
static int get_text(json_t *obj, const char *key, const char *path, int required, char **out,
                    sl_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || json_is_null(v)) {
        if (required)
            return bad(err, path, "required field missing");
        return 0;
    }
    if (!json_is_string(v))
        return bad(err, path, "must be a string");
    if (strlen(json_string_value(v)) != json_string_length(v))
        return bad(err, path, "contains a NUL byte");
    *out = sl_xstrdup(json_string_value(v));
    return 0;
}

/* An argument or environment value: a JSON string, or {"base64": "..."} for
 * byte sequences JSON cannot carry (anything that is not UTF-8). NUL can
 * never reach a process (argv and envp are C strings), so it is refused. */
static int get_bytes(json_t *v, const char *path, char **out, sl_error_t *err)
{
    if (json_is_string(v)) {
        if (strlen(json_string_value(v)) != json_string_length(v))
            return bad(err, path, "contains a NUL byte, which cannot be passed to a process");
        *out = sl_xstrdup(json_string_value(v));
        return 0;
    }
    json_t *b = json_is_object(v) ? json_object_get(v, "base64") : NULL;
    if (!b || !json_is_string(b) || json_object_size(v) != 1)
        return bad(err, path, "must be a string or {\"base64\": \"...\"}");
    size_t n = 0;
    char *dec = sl_b64_decode(json_string_value(b), json_string_length(b), &n);
    if (!dec)
        return bad(err, path, "base64: not valid base64");
    if (memchr(dec, '\0', n)) {
        free(dec);
        return bad(err, path, "base64: decodes to a NUL byte, which cannot be passed to a process");
    }
    *out = dec;
    return 0;
}

static void container_free(sl_shim_container_t *c)
{
    free(c->name);
    for (size_t i = 0; i < c->argc; i++)
        free(c->argv[i]);
    free(c->argv);
    for (size_t i = 0; i < c->nenv; i++)
        free(c->env[i]);
    free(c->env);
    free(c->working_dir);
    free(c->runtime);
    free(c->image);
    free(c->last);
    for (size_t i = 0; i < c->nrt_env; i++)
        free(c->rt_env[i]);
    free(c->rt_env);
    free(c->rt_field);
    if (c->rootfs) {
        free(c->rootfs->lower);
        for (size_t i = 0; i < c->rootfs->nmounts; i++) {
            free(c->rootfs->mounts[i].source);
            free(c->rootfs->mounts[i].target);
        }
        free(c->rootfs->mounts);
        free(c->rootfs);
    }
    for (int i = 0; i < SL_PROBE_NTYPES; i++)
        sl_shim_probe_free(c->probes[i]);
}

static int env_name_ok(const char *k)
{
    /* Kubernetes allows any printable ASCII except '=' in env names; the
     * kernel needs only "no '=' and no NUL". Keep the Kubernetes rule. */
    if (!*k)
        return 0;
    for (const unsigned char *p = (const unsigned char *)k; *p; p++)
        if (*p == '=' || *p < 0x20 || *p > 0x7e)
            return 0;
    return 1;
}

/* argv: a non-empty array of strings (or base64 bytes), argv[0] not empty */
static int parse_argv(json_t *o, const char *path, sl_shim_container_t *c, sl_error_t *err)
{
    char p[256];
    snprintf(p, sizeof(p), "%s.argv", path);
    json_t *av = json_object_get(o, "argv");
    if (!av)
        return bad(err, p, "required field missing");
    if (!json_is_array(av))
        return bad(err, p, "must be an array of strings");
    if (json_array_size(av) == 0)
        return bad(err, p, "must not be empty (argv[0] is the program to run)");
    c->argv = sl_xcalloc(json_array_size(av) + 1, sizeof(char *));
    size_t i;
    json_t *e;
    json_array_foreach(av, i, e)
    {
        snprintf(p, sizeof(p), "%s.argv[%zu]", path, i);
        if (get_bytes(e, p, &c->argv[i], err) < 0)
            return -1;
        c->argc++;
    }
    if (!*c->argv[0]) {
        snprintf(p, sizeof(p), "%s.argv[0]", path);
        return bad(err, p, "must not be empty");
    }
    return 0;
}

/* env: an object of NAME: value, into NAME=value strings */
static int parse_env(json_t *o, const char *path, sl_shim_container_t *c, sl_error_t *err)
{
    char p[256];
    snprintf(p, sizeof(p), "%s.env", path);
    json_t *env = json_object_get(o, "env");
    if (!env || json_is_null(env))
        return 0;
    if (!json_is_object(env))
        return bad(err, p, "must be an object of NAME: value");
    c->env = sl_xcalloc(json_object_size(env) + 1, sizeof(char *));
    const char *k;
    json_t *e;
    json_object_foreach(env, k, e)
    {
        snprintf(p, sizeof(p), "%s.env.%s", path, k);
        if (!env_name_ok(k))
            return bad(err, p,
                       "invalid environment variable name (printable ASCII "
                       "without '=')");
        char *val;
        if (get_bytes(e, p, &val, err) < 0)
            return -1;
        c->env[c->nenv++] = sl_xasprintf("%s=%s", k, val);
        free(val);
    }
    return 0;
}

/* envRuntime: NAME: one of the pod fields known only on the node, each NAME
 * not also in env */
static int parse_env_runtime(json_t *o, const char *path, sl_shim_container_t *c, sl_error_t *err)
{
    static const char *const fields[] = {"spec.nodeName", "status.hostIP", "status.hostIPs",
                                         "status.podIP", "status.podIPs"};
    char p[256];
    snprintf(p, sizeof(p), "%s.envRuntime", path);
    json_t *rt = json_object_get(o, "envRuntime");
    if (!rt || json_is_null(rt))
        return 0;
    if (!json_is_object(rt))
        return bad(err, p, "must be an object of NAME: field");
    c->rt_env = sl_xcalloc(json_object_size(rt) + 1, sizeof(char *));
    c->rt_field = sl_xcalloc(json_object_size(rt) + 1, sizeof(sl_shim_field_t));
    const char *k;
    json_t *e;
    json_object_foreach(rt, k, e)
    {
        snprintf(p, sizeof(p), "%s.envRuntime.%s", path, k);
        if (!env_name_ok(k))
            return bad(err, p,
                       "invalid environment variable name (printable ASCII without "
                       "'=')");
        size_t kl = strlen(k);
        for (size_t j = 0; j < c->nenv; j++)
            if (!strncmp(c->env[j], k, kl) && c->env[j][kl] == '=')
                return bad(err, p, "also set in env");
        const char *f = json_is_string(e) ? json_string_value(e) : NULL;
        size_t fi = 0;
        while (f && fi < sizeof(fields) / sizeof(fields[0]) && strcmp(f, fields[fi]))
            fi++;
        if (!f || fi == sizeof(fields) / sizeof(fields[0])) {
            char *v = f ? NULL : json_dumps(e, JSON_ENCODE_ANY | JSON_COMPACT);
            sl_fielderr_t fe = {.type = SL_FE_NOT_SUPPORTED,
                                .field = p,
                                .vkind = f ? SL_FE_V_STRING : SL_FE_V_RAW,
                                .value = f ? (char *)f : v,
                                .detail =
                                    "supported values: \"spec.nodeName\", \"status.hostIP\", "
                                    "\"status.hostIPs\", \"status.podIP\", \"status.podIPs\""};
            errno = EINVAL;
            sl_errfield(err, &fe);
            free(v);
            return -1;
        }
        c->rt_env[c->nrt_env] = sl_xstrdup(k);
        c->rt_field[c->nrt_env++] = (sl_shim_field_t)fi;
    }
    return 0;
}

/* absolute, no empty, "." or ".." component, no trailing '/'; "/" itself
 * only when root_ok */
static int norm_path_ok(const char *s, int root_ok)
{
    if (s[0] != '/')
        return 0;
    if (!s[1])
        return root_ok;
    for (const char *c = s + 1;;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (!e)
            return 1;
        c = e + 1;
    }
}

/* rootfs.mounts[i] */
static int parse_rootfs_mount(json_t *m, const char *path, sl_shim_mount_t *out, sl_error_t *err)
{
    char p[300];
    if (!json_is_object(m))
        return bad(err, path, "must be an object");
    snprintf(p, sizeof(p), "%s.source", path);
    if (get_text(m, "source", p, 1, &out->source, err) < 0)
        return -1;
    if (out->source[0] != '/')
        return bad(err, p, "must be an absolute path");
    snprintf(p, sizeof(p), "%s.target", path);
    if (get_text(m, "target", p, 1, &out->target, err) < 0)
        return -1;
    if (!norm_path_ok(out->target, 0))
        return bad(err, p, "must be an absolute, normalised path other than /");
    return 0;
}

/* rootfs: lower folder, the argv word it is, readOnly, mount points */
static int parse_rootfs(json_t *o, const char *path, sl_shim_container_t *c, sl_error_t *err)
{
    char p[256];
    json_t *r = json_object_get(o, "rootfs");
    snprintf(p, sizeof(p), "%s.rootfs", path);
    if (!r || json_is_null(r))
        return 0;
    if (!json_is_object(r))
        return bad(err, p, "must be an object");
    sl_shim_rootfs_t *rf = c->rootfs = sl_xcalloc(1, sizeof(*rf));
    snprintf(p, sizeof(p), "%s.rootfs.lower", path);
    if (get_text(r, "lower", p, 1, &rf->lower, err) < 0)
        return -1;
    if (!norm_path_ok(rf->lower, 0))
        return bad(err, p, "must be an absolute, normalised path");
    snprintf(p, sizeof(p), "%s.rootfs.argvIndex", path);
    json_t *ix = json_object_get(r, "argvIndex");
    if (!json_is_integer(ix) || json_integer_value(ix) < 1 ||
        (size_t)json_integer_value(ix) >= c->argc ||
        strcmp(c->argv[json_integer_value(ix)], rf->lower))
        return bad(err, p, "must be the index of the argv word that is rootfs.lower");
    rf->argv_index = (size_t)json_integer_value(ix);
    snprintf(p, sizeof(p), "%s.rootfs.readOnly", path);
    json_t *ro = json_object_get(r, "readOnly");
    if (ro && !json_is_boolean(ro))
        return bad(err, p, "must be a boolean");
    rf->read_only = json_is_true(ro);
    json_t *ms = json_object_get(r, "mounts");
    snprintf(p, sizeof(p), "%s.rootfs.mounts", path);
    if (ms && !json_is_array(ms))
        return bad(err, p, "must be an array");
    rf->mounts = sl_xcalloc(json_array_size(ms) + 1, sizeof(*rf->mounts));
    size_t i;
    json_t *m;
    json_array_foreach(ms, i, m)
    {
        snprintf(p, sizeof(p), "%s.rootfs.mounts[%zu]", path, i);
        rf->nmounts++; /* counted even when partial, so destroy frees it */
        if (parse_rootfs_mount(m, p, &rf->mounts[i], err) < 0)
            return -1;
    }
    return 0;
}

/* an optional boolean key of a container: 0 when absent */
static int parse_flag(json_t *o, const char *path, const char *key, int *out, sl_error_t *err)
{
    char p[256];
    snprintf(p, sizeof(p), "%s.%s", path, key);
    json_t *v = json_object_get(o, key);
    if (v && !json_is_null(v) && !json_is_boolean(v))
        return bad(err, p, "must be a boolean");
    *out = json_is_true(v);
    return 0;
}

/* "restartCount" and "lastTerminated" of a container: where its runs start */
static int parse_restarts(json_t *o, const char *path, sl_shim_container_t *c, sl_error_t *err)
{
    char p[256];
    snprintf(p, sizeof(p), "%s.restartCount", path);
    json_t *n = json_object_get(o, "restartCount");
    if (n && (!json_is_integer(n) || json_integer_value(n) < 0 || json_integer_value(n) > 1000000))
        return bad(err, p, "must be an integer from 0 to 1000000");
    c->restart_count = n ? (int)json_integer_value(n) : 0;
    json_t *l = json_object_get(o, "lastTerminated");
    if (!l || json_is_null(l))
        return 0;
    snprintf(p, sizeof(p), "%s.lastTerminated", path);
    json_t *ec = json_object_get(l, "exitCode"), *sg = json_object_get(l, "signal");
    if (!json_is_object(l) || !json_is_integer(ec) || (sg && !json_is_integer(sg)))
        return bad(err, p, "must be an object with an integer exitCode");
    sl_shim_last_t *t = c->last = sl_xcalloc(1, sizeof(*t));
    t->exit_code = (int)json_integer_value(ec);
    t->signal = sg ? (int)json_integer_value(sg) : 0;
    const char *r = json_string_value(json_object_get(l, "reason"));
    const char *s = json_string_value(json_object_get(l, "startedAt"));
    const char *f = json_string_value(json_object_get(l, "finishedAt"));
    snprintf(t->reason, sizeof(t->reason), "%s", r ? r : "Error");
    snprintf(t->started_at, sizeof(t->started_at), "%s", s ? s : "");
    snprintf(t->finished_at, sizeof(t->finished_at), "%s", f ? f : "");
    return 0;
}

static int parse_container(json_t *o, const char *path, int init, sl_shim_container_t *c,
                           sl_error_t *err)
{
    char p[256];
    memset(c, 0, sizeof(*c));
    c->init = init;
    if (!json_is_object(o))
        return bad(err, path, "must be an object");
    snprintf(p, sizeof(p), "%s.name", path);
    if (get_text(o, "name", p, 1, &c->name, err) < 0)
        return -1;
    if (!sl_kube_is_dns1123_label(c->name))
        return bad_value(err, SL_FE_INVALID, p, c->name,
                         "must be a DNS-1123 label (lower-case alphanumerics and '-', at most 63 "
                         "characters)");
    if (parse_argv(o, path, c, err) < 0 || parse_env(o, path, c, err) < 0 ||
        parse_env_runtime(o, path, c, err) < 0)
        return -1;
    snprintf(p, sizeof(p), "%s.sidecar", path);
    json_t *sc = json_object_get(o, "sidecar");
    if (sc && !json_is_null(sc)) {
        if (!json_is_boolean(sc))
            return bad(err, p, "must be a boolean");
        c->sidecar = json_is_true(sc);
        if (c->sidecar && init)
            return bad(err, p,
                       "a sidecar is listed in containers[], where it starts with the "
                       "app containers");
    }
    if (parse_flag(o, path, "stdin", &c->stdin_open, err) < 0 ||
        parse_flag(o, path, "stdinOnce", &c->stdin_once, err) < 0 ||
        parse_flag(o, path, "tty", &c->tty, err) < 0 ||
        parse_flag(o, path, "bindHosts", &c->bind_hosts, err) < 0 ||
        parse_flag(o, path, "privateTmp", &c->private_tmp, err) < 0)
        return -1;
    snprintf(p, sizeof(p), "%s.workingDir", path);
    if (get_text(o, "workingDir", p, 0, &c->working_dir, err) < 0)
        return -1;
    snprintf(p, sizeof(p), "%s.runtime", path);
    if (get_text(o, "runtime", p, 0, &c->runtime, err) < 0)
        return -1;
    snprintf(p, sizeof(p), "%s.image", path);
    if (get_text(o, "image", p, 0, &c->image, err) < 0)
        return -1;
    snprintf(p, sizeof(p), "%s.gpus", path);
    json_t *g = json_object_get(o, "gpus");
    if (g && (!json_is_integer(g) || json_integer_value(g) < 0))
        return bad(err, p, "must be a non-negative integer");
    c->gpus = g ? json_integer_value(g) : 0;
    if (sl_shim_probes_parse(json_object_get(o, "probes"), path, c->probes, err) < 0 ||
        parse_restarts(o, path, c, err) < 0)
        return -1;
    return parse_rootfs(o, path, c, err);
}

/* A folder the shim may delete: absolute, normalised, and named like the
 * folders translate creates ("slurmlink-<uid>"), so that no spec can make
 * the shim remove "/", a home folder or anything else it did not create. */
static int cleanup_path_ok(const char *s)
{
    if (s[0] != '/')
        return 0;
    int comps = 0;
    const char *last = NULL;
    for (const char *c = s + 1;;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        comps++;
        last = c;
        if (!e)
            break;
        c = e + 1;
    }
    return comps >= 2 && !strncmp(last, "slurmlink-", 10) && last[10] != '\0';
}

static int parse_containers(json_t *root, const char *key, int init, int required,
                            sl_shim_container_t **out, size_t *n, sl_error_t *err)
{
    json_t *a = json_object_get(root, key);
    *out = NULL;
    *n = 0;
    if (!a || json_is_null(a)) {
        if (required)
            return bad(err, key, "required field missing");
        return 0;
    }
    if (!json_is_array(a))
        return bad(err, key, "must be an array");
    if (required && json_array_size(a) == 0)
        return bad(err, key, "must contain at least one container");
    *out = sl_xcalloc(json_array_size(a) + 1, sizeof(**out));
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e)
    {
        char p[64];
        snprintf(p, sizeof(p), "%s[%zu]", key, i);
        int r = parse_container(e, p, init, &(*out)[i], err);
        (*n)++; /* counted even when partial, so destroy frees it */
        if (r < 0)
            return -1;
    }
    return 0;
}

static int token_ok(const char *t)
{
    /* it goes into an HTTP header: visible ASCII only (RFC 6750 b64token) */
    for (const unsigned char *p = (const unsigned char *)t; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f)
            return 0;
    return *t != '\0';
}

/* apiVersion, kind and the pod's identity */
static int parse_header(json_t *root, sl_shim_spec_t *s, sl_error_t *err)
{
    char *tmp = NULL;
    if (!json_is_object(root))
        return bad(err, "(root)", "must be a JSON object");
    if (get_text(root, "apiVersion", "apiVersion", 0, &tmp, err) < 0)
        return -1;
    if (tmp && strcmp(tmp, API_VERSION)) {
        bad_value(err, SL_FE_NOT_SUPPORTED, "apiVersion", tmp,
                  "supported values: \"" API_VERSION "\"");
        free(tmp);
        return -1;
    }
    free(tmp);
    if (get_text(root, "kind", "kind", 0, &tmp, err) < 0)
        return -1;
    if (tmp && strcmp(tmp, KIND)) {
        bad_value(err, SL_FE_NOT_SUPPORTED, "kind", tmp, "supported values: \"" KIND "\"");
        free(tmp);
        return -1;
    }
    free(tmp);

    json_t *pod = json_object_get(root, "pod");
    if (!pod)
        return bad(err, "pod", "required field missing");
    if (!json_is_object(pod))
        return bad(err, "pod", "must be an object");
    if (get_text(pod, "namespace", "pod.namespace", 1, &s->pod_namespace, err) < 0 ||
        get_text(pod, "name", "pod.name", 1, &s->pod_name, err) < 0 ||
        get_text(pod, "uid", "pod.uid", 1, &s->pod_uid, err) < 0)
        return -1;
    return 0;
}

/* restartPolicy and terminationGracePeriodSeconds */
static int parse_policy(json_t *root, sl_shim_spec_t *s, sl_error_t *err)
{
    char *tmp = NULL;
    s->restart_policy = SL_RESTART_ALWAYS;
    if (get_text(root, "restartPolicy", "restartPolicy", 0, &tmp, err) < 0)
        return -1;
    if (tmp) {
        if (!strcmp(tmp, "Always"))
            s->restart_policy = SL_RESTART_ALWAYS;
        else if (!strcmp(tmp, "OnFailure"))
            s->restart_policy = SL_RESTART_ONFAILURE;
        else if (!strcmp(tmp, "Never"))
            s->restart_policy = SL_RESTART_NEVER;
        else {
            bad_value(err, SL_FE_NOT_SUPPORTED, "restartPolicy", tmp,
                      "supported values: \"Always\", \"OnFailure\", \"Never\"");
            free(tmp);
            return -1;
        }
        free(tmp);
    }

    s->grace_seconds = 30;
    json_t *g = json_object_get(root, "terminationGracePeriodSeconds");
    if (g && !json_is_null(g)) {
        if (!json_is_integer(g))
            return bad(err, "terminationGracePeriodSeconds", "must be an integer");
        json_int_t v = json_integer_value(g);
        if (v < 0 || v > INT_MAX / 1000) {
            char d[64];
            snprintf(d, sizeof(d), "must be between 0 and %d", INT_MAX / 1000);
            sl_fielderr_t fe = {.type = SL_FE_INVALID,
                                .field = "terminationGracePeriodSeconds",
                                .vkind = SL_FE_V_INT,
                                .ivalue = (long long)v,
                                .detail = d};
            errno = EINVAL;
            return sl_errfield(err, &fe);
        }
        s->grace_seconds = (int)v;
    }
    return 0;
}

/* report: where and how the shim pushes events */
static int parse_report(json_t *root, sl_shim_spec_t *s, sl_error_t *err)
{
    json_t *rep = json_object_get(root, "report");
    if (rep && !json_is_null(rep)) {
        if (!json_is_object(rep))
            return bad(err, "report", "must be an object");
        if (get_text(rep, "url", "report.url", 1, &s->report_url, err) < 0 ||
            get_text(rep, "token", "report.token", 0, &s->report_token, err) < 0 ||
            get_text(rep, "caFile", "report.caFile", 0, &s->report_ca_file, err) < 0 ||
            get_text(rep, "pinnedPublicKey", "report.pinnedPublicKey", 0, &s->report_pinned_key,
                     err) < 0)
            return -1;
        if (strncmp(s->report_url, "http://", 7) && strncmp(s->report_url, "https://", 8))
            return bad_value(err, SL_FE_INVALID, "report.url", s->report_url,
                             "must be an http:// or https:// URL");
        if (s->report_token && !token_ok(s->report_token))
            return bad(err, "report.token",
                       "must be non-empty visible ASCII (it is sent in "
                       "an HTTP header)");
    }
    return 0;
}

/* cleanup: the folders the shim removes at the end */
static int parse_cleanup(json_t *root, sl_shim_spec_t *s, sl_error_t *err)
{
    json_t *cl = json_object_get(root, "cleanup");
    if (cl && !json_is_null(cl)) {
        if (!json_is_array(cl))
            return bad(err, "cleanup", "must be an array of folders");
        s->cleanup = sl_xcalloc(json_array_size(cl) + 1, sizeof(char *));
        size_t i;
        json_t *e;
        json_array_foreach(cl, i, e)
        {
            char p[64];
            snprintf(p, sizeof(p), "cleanup[%zu]", i);
            if (!json_is_string(e) || strlen(json_string_value(e)) != json_string_length(e))
                return bad(err, p, "must be a string");
            if (!cleanup_path_ok(json_string_value(e)))
                return bad_value(err, SL_FE_INVALID, p, json_string_value(e),
                                 "must be an absolute, normalised path whose last component "
                                 "starts with \"slurmlink-\"");
            s->cleanup[s->ncleanup++] = sl_xstrdup(json_string_value(e));
        }
    }
    return 0;
}

/* secretVolumes: names of the volumes that hold secrets */
static int parse_secret_volumes(json_t *root, sl_shim_spec_t *s, sl_error_t *err)
{
    json_t *sv = json_object_get(root, "secretVolumes");
    if (sv && !json_is_null(sv)) {
        if (!json_is_array(sv))
            return bad(err, "secretVolumes", "must be an array of volume names");
        s->secret_volumes = sl_xcalloc(json_array_size(sv) + 1, sizeof(char *));
        size_t i;
        json_t *e;
        json_array_foreach(sv, i, e)
        {
            char p[64];
            snprintf(p, sizeof(p), "secretVolumes[%zu]", i);
            const char *v = json_string_value(e);
            /* a volume name (DNS label): one component of the pod folder's volumes/ */
            if (!v || strlen(v) != json_string_length(e) || !*v || strlen(v) > 63 ||
                strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(v))
                return bad(err, p, "must be a volume name");
            s->secret_volumes[s->nsecret_volumes++] = sl_xstrdup(v);
        }
    }
    return 0;
}

/* names are unique across init and app containers, as in Kubernetes */
static int unique_names(const sl_shim_spec_t *s, sl_error_t *err)
{
    size_t total = s->ninit + s->ncontainers;
    for (size_t i = 0; i < total; i++) {
        const sl_shim_container_t *a =
            i < s->ninit ? &s->init_containers[i] : &s->containers[i - s->ninit];
        for (size_t j = 0; j < i; j++) {
            const sl_shim_container_t *b =
                j < s->ninit ? &s->init_containers[j] : &s->containers[j - s->ninit];
            if (!strcmp(a->name, b->name)) {
                char p[64];
                snprintf(p, sizeof(p), "%s[%zu].name", a->init ? "initContainers" : "containers",
                         a->init ? i : i - s->ninit);
                return bad_value(err, SL_FE_DUPLICATE, p, a->name, NULL);
            }
        }
    }
    return 0;
}

static int parse_root(json_t *root, sl_shim_spec_t *s, sl_error_t *err)
{
    if (parse_header(root, s, err) < 0 || parse_policy(root, s, err) < 0 ||
        parse_report(root, s, err) < 0)
        return -1;
    if (parse_containers(root, "initContainers", 1, 0, &s->init_containers, &s->ninit, err) < 0 ||
        parse_containers(root, "containers", 0, 1, &s->containers, &s->ncontainers, err) < 0)
        return -1;
    if (parse_cleanup(root, s, err) < 0 || parse_secret_volumes(root, s, err) < 0 ||
        sl_hosts_parse(json_object_get(root, "hosts"), &s->hosts, err) < 0)
        return -1;
    return unique_names(s, err);
}

sl_shim_spec_t *sl_shim_spec_parse(const char *json, size_t len, sl_error_t *err)
{
    json_error_t jerr;
    /* JSON_ALLOW_NUL so that a \u0000 is reported against its field by the
     * checks above instead of as a bare syntax error */
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (!root) {
        errno = EINVAL;
        sl_errprintf(err, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    sl_shim_spec_t *s = sl_xcalloc(1, sizeof(*s));
    int r = parse_root(root, s, err);
    json_decref(root);
    if (r < 0) {
        sl_shim_spec_destroy(s);
        errno = EINVAL;
        return NULL;
    }
    return s;
}

sl_shim_spec_t *sl_shim_spec_load(const char *path, sl_error_t *err)
{
    size_t len;
    char *data = sl_read_file(path, &len, err);
    if (!data)
        return NULL;
    sl_shim_spec_t *s = sl_shim_spec_parse(data, len, err);
    free(data);
    if (!s)
        sl_errprefix(err, "%s", path);
    return s;
}

void sl_shim_spec_destroy(sl_shim_spec_t *s)
{
    if (!s)
        return;
    int e = errno;
    free(s->pod_namespace);
    free(s->pod_name);
    free(s->pod_uid);
    free(s->report_url);
    free(s->report_token);
    free(s->report_ca_file);
    free(s->report_pinned_key);
    for (size_t i = 0; i < s->ninit; i++)
        container_free(&s->init_containers[i]);
    free(s->init_containers);
    for (size_t i = 0; i < s->ncontainers; i++)
        container_free(&s->containers[i]);
    free(s->containers);
    for (size_t i = 0; i < s->ncleanup; i++)
        free(s->cleanup[i]);
    free(s->cleanup);
    for (size_t i = 0; i < s->nsecret_volumes; i++)
        free(s->secret_volumes[i]);
    free(s->secret_volumes);
    sl_hosts_free(s->hosts);
    free(s);
    errno = e;
}
