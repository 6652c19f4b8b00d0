/* status.c — Pod status validation. See status.h. */
#include "pod/status.h"
#include "common/xalloc.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IP_DETAIL "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"

static const char *const PHASES[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown", NULL};
/* sets.List() order, as kube-apiserver prints them */
static const char *const COND_STATUSES[] = {"False", "True", "Unknown", NULL};
static const char *const QOS[] = {"Guaranteed", "Burstable", "BestEffort", NULL};

static int one_of(const char *s, const char *const *set)
{
    for (size_t i = 0; set[i]; i++)
        if (!strcmp(s, set[i]))
            return 1;
    return 0;
}

static int absent(json_t *v) { return !v || json_is_null(v); }

/* a value of the wrong JSON type: Invalid, showing (the start of) its JSON */
static void wrong_type(sl_error_t *errs, json_t *v, const char *what, const char *field)
{
    char *txt = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    if (txt && strlen(txt) > 64)
        strcpy(txt + 61, "...");
    char *detail = sl_xasprintf("must be %s", what);
    sl_err_field(errs, SL_FE_INVALID, field, txt ? txt : "", detail);
    free(detail);
    free(txt);
}

/* obj[key] as a string: NULL when absent or null; a wrong type is an error */
static const char *opt_str(json_t *obj, const char *key, const char *path, sl_error_t *errs)
{
    json_t *v = json_object_get(obj, key);
    if (absent(v))
        return NULL;
    if (json_is_string(v))
        return json_string_value(v);
    char f[256];
    snprintf(f, sizeof(f), "%s.%s", path, key);
    wrong_type(errs, v, "a string", f);
    return NULL;
}

/* obj[key] as a non-empty string; Required when absent, null or "" */
static const char *req_str(json_t *obj, const char *key, const char *path, sl_error_t *errs)
{
    json_t *v = json_object_get(obj, key);
    const char *s = opt_str(obj, key, path, errs);
    if (absent(v) || (s && !*s))
        sl_err_required(errs, NULL, "%s.%s", path, key);
    return s && *s ? s : NULL;
}

static void opt_type(json_t *obj, const char *key, const char *path, sl_error_t *errs,
                     int (*is)(const json_t *), const char *what)
{
    json_t *v = json_object_get(obj, key);
    if (absent(v) || is(v))
        return;
    char f[256];
    snprintf(f, sizeof(f), "%s.%s", path, key);
    wrong_type(errs, v, what, f);
}

static int is_bool(const json_t *v) { return json_is_boolean(v); }

static int is_int(const json_t *v) { return json_is_integer(v); }

/* obj[key] as an array (NULL when absent or null; a wrong type is an error) */
static json_t *opt_array(json_t *obj, const char *key, const char *path, sl_error_t *errs)
{
    json_t *v = json_object_get(obj, key);
    if (absent(v))
        return NULL;
    if (json_is_array(v))
        return v;
    char f[256];
    snprintf(f, sizeof(f), "%s.%s", path, key);
    wrong_type(errs, v, "an array", f);
    return NULL;
}

static int valid_ip(const char *s)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static void check_ip(json_t *obj, const char *key, const char *path, sl_error_t *errs)
{
    const char *s = opt_str(obj, key, path, errs);
    if (s && *s && !valid_ip(s))
        sl_err_invalid(errs, s, IP_DETAIL, "%s.%s", path, key);
}

/* hostIPs, podIPs: [{"ip": ...}] */
static void check_ips(json_t *st, const char *key, sl_error_t *errs)
{
    size_t i;
    json_t *e;
    json_array_foreach(opt_array(st, key, "status", errs), i, e)
    {
        char path[64];
        snprintf(path, sizeof(path), "status.%s[%zu]", key, i);
        if (!json_is_object(e)) {
            wrong_type(errs, e, "an object", path);
            continue;
        }
        const char *ip = req_str(e, "ip", path, errs);
        if (ip && !valid_ip(ip))
            sl_err_invalid(errs, ip, IP_DETAIL, "%s.ip", path);
    }
}

static void check_conditions(json_t *st, sl_error_t *errs)
{
    size_t i;
    json_t *c;
    json_array_foreach(opt_array(st, "conditions", "status", errs), i, c)
    {
        char path[64];
        snprintf(path, sizeof(path), "status.conditions[%zu]", i);
        if (!json_is_object(c)) {
            wrong_type(errs, c, "an object", path);
            continue;
        }
        req_str(c, "type", path, errs);
        const char *s = req_str(c, "status", path, errs);
        if (s && !one_of(s, COND_STATUSES))
            sl_err_not_supported(errs, s, COND_STATUSES, "%s.status", path);
        static const char *const strs[] = {"reason", "message", "lastProbeTime",
                                           "lastTransitionTime", NULL};
        for (size_t k = 0; strs[k]; k++)
            opt_str(c, strs[k], path, errs);
    }
}

/* one of state / lastState: at most one of waiting, running, terminated */
static void check_state(json_t *cs, const char *key, const char *cpath, sl_error_t *errs)
{
    json_t *state = json_object_get(cs, key);
    if (absent(state))
        return;
    char path[128];
    snprintf(path, sizeof(path), "%s.%s", cpath, key);
    if (!json_is_object(state)) {
        wrong_type(errs, state, "an object", path);
        return;
    }
    static const char *const kinds[] = {"waiting", "running", "terminated", NULL};
    int n = 0;
    for (size_t k = 0; kinds[k]; k++) {
        json_t *s = json_object_get(state, kinds[k]);
        if (absent(s))
            continue;
        n++;
        char sp[160];
        snprintf(sp, sizeof(sp), "%s.%s", path, kinds[k]);
        if (!json_is_object(s)) {
            wrong_type(errs, s, "an object", sp);
            continue;
        }
        static const char *const strs[] = {"reason",     "message",     "startedAt",
                                           "finishedAt", "containerID", NULL};
        for (size_t j = 0; strs[j]; j++)
            opt_str(s, strs[j], sp, errs);
        opt_type(s, "exitCode", sp, errs, is_int, "an integer");
        opt_type(s, "signal", sp, errs, is_int, "an integer");
    }
    if (n > 1)
        sl_err_forbidden(errs, "may not specify more than 1 of waiting, running and terminated",
                         "%s", path);
}

static int spec_has(json_t *pod, const char *list, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(pod, "spec"), list), i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        if (n && !strcmp(n, name))
            return 1;
    }
    return 0;
}

static void check_container_status(json_t *pod, json_t *cs, const char *list, const char *path,
                                   sl_error_t *errs)
{
    const char *name = req_str(cs, "name", path, errs);
    if (name && !spec_has(pod, list, name))
        sl_err_not_found(errs, name, "%s.name", path);
    opt_type(cs, "restartCount", path, errs, is_int, "an integer");
    json_t *rc = json_object_get(cs, "restartCount");
    if (json_is_integer(rc) && json_integer_value(rc) < 0) {
        char f[128];
        snprintf(f, sizeof(f), "%s.restartCount", path);
        sl_err_field_int(errs, SL_FE_INVALID, f, (long long)json_integer_value(rc),
                         "must be greater than or equal to 0");
    }
    opt_type(cs, "ready", path, errs, is_bool, "a boolean");
    opt_type(cs, "started", path, errs, is_bool, "a boolean");
    static const char *const strs[] = {"image", "imageID", "containerID", NULL};
    for (size_t k = 0; strs[k]; k++)
        opt_str(cs, strs[k], path, errs);
    check_state(cs, "state", path, errs);
    check_state(cs, "lastState", path, errs);
}

static void check_container_statuses(json_t *pod, json_t *st, sl_error_t *errs)
{
    static const char *const keys[][2] = {{"initContainerStatuses", "initContainers"},
                                          {"containerStatuses", "containers"},
                                          {"ephemeralContainerStatuses", "ephemeralContainers"}};
    for (size_t l = 0; l < sizeof(keys) / sizeof(keys[0]); l++) {
        size_t i;
        json_t *cs;
        json_array_foreach(opt_array(st, keys[l][0], "status", errs), i, cs)
        {
            char path[80];
            snprintf(path, sizeof(path), "status.%s[%zu]", keys[l][0], i);
            if (!json_is_object(cs))
                wrong_type(errs, cs, "an object", path);
            else
                check_container_status(pod, cs, keys[l][1], path, errs);
        }
    }
}

void sl_pod_status_errors(json_t *pod, sl_error_t *errs)
{
    json_t *st = json_object_get(pod, "status");
    if (absent(st))
        return;
    if (!json_is_object(st)) {
        wrong_type(errs, st, "an object", "status");
        return;
    }
    const char *phase = opt_str(st, "phase", "status", errs);
    if (phase && !one_of(phase, PHASES))
        sl_err_not_supported(errs, phase, PHASES, "status.phase");
    check_conditions(st, errs);
    check_ip(st, "hostIP", "status", errs);
    check_ips(st, "hostIPs", errs);
    check_ip(st, "podIP", "status", errs);
    check_ips(st, "podIPs", errs);
    const char *qos = opt_str(st, "qosClass", "status", errs);
    if (qos && !one_of(qos, QOS))
        sl_err_not_supported(errs, qos, QOS, "status.qosClass");
    static const char *const strs[] = {"reason", "message", "nominatedNodeName", "startTime", NULL};
    for (size_t k = 0; strs[k]; k++)
        opt_str(st, strs[k], "status", errs);
    check_container_statuses(pod, st, errs);
}

void sl_pod_status_update_errors(json_t *pod, json_t *old, sl_error_t *errs)
{
    const char *was = json_string_value(json_object_get(json_object_get(old, "status"), "phase"));
    if (!was || (strcmp(was, "Succeeded") && strcmp(was, "Failed")))
        return;
    json_t *st = json_object_get(pod, "status");
    const char *now = json_is_object(st) ? json_string_value(json_object_get(st, "phase")) : NULL;
    if (now && !strcmp(now, was))
        return;
    char detail[96];
    snprintf(detail, sizeof(detail), "a pod in a terminal phase (%s) may not change phase", was);
    sl_err_forbidden(errs, detail, "status.phase");
}
