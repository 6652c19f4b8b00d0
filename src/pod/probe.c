/* probe.c — a container's readinessProbe, livenessProbe and startupProbe,
 * validated as kube-apiserver does (validateProbe, validateHandler and the
 * container rules of ValidatePodSpec), after kube's defaults (a 0 timing
 * field is the default). slurmlink-shim runs exec, httpGet and tcpSocket
 * probes; grpc is refused here (docs/pods.md, "Probes"). */
#include "pod/internal.h"

#include "common/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const char *const sl_pod_probe_fields[SL_POD_NPROBES] = {"readinessProbe", "livenessProbe",
                                                         "startupProbe"};

/* IsValidPortName's messages, the first that applies */
static const char *port_name_problem(const char *s)
{
    size_t n = strlen(s);
    int letter = 0;
    if (n > 15)
        return "must be no more than 15 characters";
    for (size_t i = 0; i < n; i++) {
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
            return "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)";
        letter |= islower((unsigned char)s[i]) != 0;
    }
    if (!letter)
        return "must contain at least one letter (a-z)";
    if (strstr(s, "--"))
        return "must not contain consecutive hyphens";
    if (n && (s[0] == '-' || s[n - 1] == '-'))
        return "must not begin or end with a hyphen";
    return NULL;
}

/* a port by number, or by the name of one of the container's ports */
static void check_port(pod_ctx_t *c, const json_t *ctr, const json_t *v, const char *fp)
{
    if (json_is_string(v)) {
        const char *name = json_string_value(v);
        const char *why =
            *name ? port_name_problem(name) : "must contain at least one letter (a-z)";
        if (why) {
            sl_err_invalid(c->errs, name, why, "%s", fp);
            return;
        }
        const json_t *ports = json_object_get(ctr, "ports");
        for (size_t i = 0; i < json_array_size(ports); i++) {
            const char *pn = json_string_value(json_object_get(json_array_get(ports, i), "name"));
            if (pn && !strcmp(pn, name))
                return;
        }
        /* the kubelet would fail every run of the probe ("couldn't find port") */
        sl_err_not_found(c->errs, name, "%s", fp);
        return;
    }
    if (v && !json_is_integer(v)) {
        pod_type_error(c, v, "", fp, "integer or string");
        return;
    }
    json_int_t n = v ? json_integer_value(v) : 0;
    if (n < 1 || n > 65535)
        sl_err_field_int(c->errs, SL_FE_INVALID, fp, n, "must be between 1 and 65535, inclusive");
}

static void check_http(pod_ctx_t *c, const json_t *ctr, const json_t *h, const char *hp)
{
    char *fp = sl_xasprintf("%s.port", hp);
    check_port(c, ctr, json_object_get(h, "port"), fp);
    free(fp);
    const char *scheme = pod_str(c, h, "scheme", hp);
    if (scheme && strcmp(scheme, "HTTP") && strcmp(scheme, "HTTPS"))
        sl_err_not_supported(c->errs, scheme, (const char *const[]){"HTTP", "HTTPS", NULL},
                             "%s.scheme", hp);
    pod_str(c, h, "path", hp);
    pod_str(c, h, "host", hp);
    const json_t *hs = pod_arr(c, h, "httpHeaders", hp);
    for (size_t i = 0; i < json_array_size(hs); i++) {
        const char *n = json_string_value(json_object_get(json_array_get(hs, i), "name"));
        if (!n || !*n ||
            strspn(n, "-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") !=
                strlen(n))
            sl_err_invalid(c->errs, n ? n : "",
                           "a valid HTTP header must consist of alphanumeric characters or '-' "
                           "(e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')",
                           "%s.httpHeaders", hp);
    }
}

/* exactly one handler: exec, httpGet, tcpSocket (grpc is refused) */
static void check_handler(pod_ctx_t *c, const json_t *ctr, const json_t *pr, const char *pp)
{
    static const char *const kinds[] = {"exec", "httpGet", "tcpSocket", "grpc"};
    int n = 0;
    for (int i = 0; i < 4; i++) {
        const json_t *h = pod_obj(c, pr, kinds[i], pp);
        if (!h)
            continue;
        char *hp = sl_xasprintf("%s.%s", pp, kinds[i]);
        if (n++) {
            sl_err_forbidden(c->errs, "may not specify more than 1 handler type", "%s", hp);
        } else if (i == 0) {
            size_t nc = 0;
            const json_t *cmd = pod_arr(c, h, "command", hp);
            nc = json_array_size(cmd);
            if (!nc)
                sl_err_required(c->errs, NULL, "%s.command", hp);
            for (size_t k = 0; k < nc; k++)
                if (!json_is_string(json_array_get(cmd, k))) {
                    char *key = sl_xasprintf("command[%zu]", k);
                    pod_type_error(c, json_array_get(cmd, k), hp, key, "string");
                    free(key);
                }
        } else if (i == 1) {
            check_http(c, ctr, h, hp);
        } else if (i == 2) {
            char *fp = sl_xasprintf("%s.port", hp);
            check_port(c, ctr, json_object_get(h, "port"), fp);
            free(fp);
            pod_str(c, h, "host", hp);
        } else {
            sl_err_forbidden(c->errs,
                             "grpc probes are not supported: slurmlink-shim has no gRPC client "
                             "(use exec with a health-check command, httpGet or tcpSocket)",
                             "%s", hp);
        }
        free(hp);
    }
    if (!n)
        sl_err_required(c->errs, "must specify a handler type", "%s", pp);
}

static void check_probe(pod_ctx_t *c, const json_t *ctr, const json_t *pr, const char *pp,
                        int which)
{
    static const char *const nonneg[] = {"initialDelaySeconds", "timeoutSeconds", "periodSeconds",
                                         "successThreshold", "failureThreshold"};
    check_handler(c, ctr, pr, pp);
    for (size_t i = 0; i < sizeof(nonneg) / sizeof(nonneg[0]); i++) {
        int64_t v = pod_int(c, pr, nonneg[i], pp, 0);
        char *fp = sl_xasprintf("%s.%s", pp, nonneg[i]);
        if (v < 0)
            sl_err_field_int(c->errs, SL_FE_INVALID, fp, v, "must be greater than or equal to 0");
        else if (v > 2147483647)
            sl_err_field_int(c->errs, SL_FE_INVALID, fp, v,
                             "must be between 0 and 2147483647, inclusive");
        free(fp);
    }
    int64_t st = pod_int(c, pr, "successThreshold", pp, 0);
    if (which != SL_POD_PROBE_READINESS && st != 0 && st != 1) { /* 0 is defaulted to 1 */
        char *fp = sl_xasprintf("%s.successThreshold", pp);
        sl_err_field_int(c->errs, SL_FE_INVALID, fp, st, "must be 1");
        free(fp);
    }
    const json_t *g = json_object_get(pr, "terminationGracePeriodSeconds");
    if (g && !json_is_null(g)) {
        char *fp = sl_xasprintf("%s.terminationGracePeriodSeconds", pp);
        int64_t v = pod_int(c, pr, "terminationGracePeriodSeconds", pp, 1);
        if (which == SL_POD_PROBE_READINESS)
            sl_err_field_int(c->errs, SL_FE_INVALID, fp, v, "must not be set for readinessProbes");
        else if (v <= 0)
            sl_err_field_int(c->errs, SL_FE_INVALID, fp, v, "must be greater than 0");
        free(fp);
    }
}

void pod_parse_probes(pod_ctx_t *c, const json_t *ctr, const char *path, sl_pod_container_t *k)
{
    int sidecar = k->init && k->restart_policy && !strcmp(k->restart_policy, "Always");
    for (int i = 0; i < SL_POD_NPROBES; i++) {
        const json_t *pr = pod_obj(c, ctr, sl_pod_probe_fields[i], path);
        if (!pr)
            continue;
        if (k->init && !sidecar) {
            sl_err_forbidden(c->errs,
                             "may not be set for init containers without restartPolicy=Always",
                             "%s.%s", path, sl_pod_probe_fields[i]);
            continue;
        }
        char *pp = sl_xasprintf("%s.%s", path, sl_pod_probe_fields[i]);
        check_probe(c, ctr, pr, pp, i);
        free(pp);
        k->probes[i] = pr;
    }
}
