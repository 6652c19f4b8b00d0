/* probespec.c — shim.json's probes (see probespec.h). */
#include "shimlib/probespec.h"

#include "common/xalloc.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[SL_PROBE_NTYPES] = {"readiness", "liveness", "startup"};

const char *sl_probe_type_name(sl_probe_type_t t)
{
    static const char *const n[SL_PROBE_NTYPES] = {"Readiness", "Liveness", "Startup"};
    return t < SL_PROBE_NTYPES ? n[t] : "?";
}

void sl_shim_probe_free(sl_shim_probe_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->ncommand; i++)
        free(p->command[i]);
    free(p->command);
    for (size_t i = 0; i < p->nheaders; i++)
        free(p->headers[i]);
    free(p->headers);
    free(p->host);
    free(p->path);
    free(p);
}

static int bad(sl_error_t *err, const char *path, const char *what)
{
    errno = EINVAL;
    return sl_errprintf(err, "%s: %s", path, what);
}

/* a string without NUL (and without CR or LF when header) */
static char *text(json_t *v, int header)
{
    const char *s = json_string_value(v);
    if (!s || strlen(s) != json_string_length(v) || (header && strpbrk(s, "\r\n")))
        return NULL;
    return sl_xstrdup(s);
}

static int int_in(json_t *o, const char *key, int lo, int hi, int def, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        *out = def;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return -1;
    *out = (int)json_integer_value(v);
    return 0;
}

static int parse_exec(json_t *h, sl_shim_probe_t *p)
{
    json_t *cmd = json_object_get(h, "command");
    size_t n = json_array_size(cmd);
    if (!n)
        return -1;
    p->kind = SL_PROBE_EXEC;
    p->command = sl_xcalloc(n + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        if (!(p->command[i] = text(json_array_get(cmd, i), 0)))
            return -1;
        p->ncommand++;
    }
    return 0;
}

static int parse_net(json_t *h, int http, sl_shim_probe_t *p)
{
    p->kind = http ? SL_PROBE_HTTP : SL_PROBE_TCP;
    json_t *host = json_object_get(h, "host");
    if (int_in(h, "port", 1, 65535, 0, &p->port) < 0 || !p->port ||
        (host && !(p->host = text(host, 1))))
        return -1;
    if (!http)
        return 0;
    const char *scheme = json_string_value(json_object_get(h, "scheme"));
    if (scheme && strcmp(scheme, "HTTP") && strcmp(scheme, "HTTPS"))
        return -1;
    p->https = scheme && !strcmp(scheme, "HTTPS");
    json_t *path = json_object_get(h, "path");
    if (!(p->path = path ? text(path, 1) : sl_xstrdup("/")))
        return -1;
    json_t *hs = json_object_get(h, "httpHeaders");
    p->headers = sl_xcalloc(json_array_size(hs) + 1, sizeof(char *));
    for (size_t i = 0; i < json_array_size(hs); i++) {
        char *n = text(json_object_get(json_array_get(hs, i), "name"), 1);
        char *v = text(json_object_get(json_array_get(hs, i), "value"), 1);
        if (n && v && *n && !strchr(n, ':'))
            p->headers[p->nheaders++] = sl_xasprintf("%s: %s", n, v);
        free(n);
        free(v);
        if (p->nheaders != i + 1)
            return -1;
    }
    return 0;
}

static int parse_one(json_t *o, sl_shim_probe_t *p, const char **what)
{
    json_t *h;
    *what = "must have one of exec (command), httpGet or tcpSocket (port 1 to 65535)";
    if ((h = json_object_get(o, "exec"))        ? parse_exec(h, p) < 0
        : (h = json_object_get(o, "httpGet"))   ? parse_net(h, 1, p) < 0
        : (h = json_object_get(o, "tcpSocket")) ? parse_net(h, 0, p) < 0
                                                : 1)
        return -1;
    *what = "timing fields must be integers: initialDelaySeconds >= 0, the others >= 1";
    if (int_in(o, "initialDelaySeconds", 0, 1 << 30, 0, &p->initial_delay) < 0 ||
        int_in(o, "periodSeconds", 1, 1 << 30, 10, &p->period) < 0 ||
        int_in(o, "timeoutSeconds", 1, 1 << 30, 1, &p->timeout) < 0 ||
        int_in(o, "successThreshold", 1, 1 << 30, 1, &p->success_threshold) < 0 ||
        int_in(o, "failureThreshold", 1, 1 << 30, 3, &p->failure_threshold) < 0 ||
        int_in(o, "terminationGracePeriodSeconds", 1, 1 << 30, -1, &p->grace) < 0)
        return -1;
    return 0;
}

int sl_shim_probes_parse(json_t *o, const char *path, sl_shim_probe_t **out, sl_error_t *err)
{
    for (int i = 0; i < SL_PROBE_NTYPES; i++)
        out[i] = NULL;
    if (!o || json_is_null(o))
        return 0;
    char p[300];
    snprintf(p, sizeof(p), "%s.probes", path);
    if (!json_is_object(o))
        return bad(err, p, "must be an object");
    for (int i = 0; i < SL_PROBE_NTYPES; i++) {
        json_t *v = json_object_get(o, keys[i]);
        if (!v)
            continue;
        snprintf(p, sizeof(p), "%s.probes.%s", path, keys[i]);
        const char *what = "must be an object";
        out[i] = sl_xcalloc(1, sizeof(sl_shim_probe_t));
        if (!json_is_object(v) || parse_one(v, out[i], &what) < 0)
            return bad(err, p, what);
    }
    return 0;
}
