/* Unit tests: shim.json's probes (probespec.c) — values, defaults, errors
 * that name the field. */
#include "common/tap.h"
#include "shimlib/spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD                                                                                       \
    "{\"pod\":{\"namespace\":\"ns\",\"name\":\"p\",\"uid\":\"u1\"},"                               \
    "\"containers\":[{\"name\":\"main\",\"argv\":[\"/bin/true\"],\"probes\":"

static sl_shim_spec_t *parse(const char *probes, sl_error_t *err)
{
    char buf[2048];
    snprintf(buf, sizeof(buf), HEAD "%s}]}", probes);
    err->text[0] = '\0';
    return sl_shim_spec_parse(buf, strlen(buf), err);
}

static void expect_error(const char *probes, const char *want, const char *what)
{
    sl_error_t err;
    sl_shim_spec_t *s = parse(probes, &err);
    ok(s == NULL && errno == EINVAL, "rejects %s", what);
    has_str(err.text, want, "error for %s names it", what);
    sl_shim_spec_destroy(s);
}

int main(void)
{
    sl_error_t err;
    sl_shim_spec_t *s =
        parse("{\"readiness\":{\"httpGet\":{\"scheme\":\"HTTPS\",\"path\":\"/h\",\"port\":8443,"
              "\"httpHeaders\":[{\"name\":\"X-A\",\"value\":\"b c\"}]},\"periodSeconds\":2,"
              "\"successThreshold\":2},"
              "\"liveness\":{\"exec\":{\"command\":[\"cat\",\"/ok\"]},\"failureThreshold\":5,"
              "\"terminationGracePeriodSeconds\":4},"
              "\"startup\":{\"tcpSocket\":{\"port\":22,\"host\":\"10.0.0.1\"},"
              "\"initialDelaySeconds\":3}}",
              &err);
    ok(s != NULL, "three probes parse: %s", err.text);
    const sl_shim_container_t *c = s ? &s->containers[0] : NULL;
    const sl_shim_probe_t *r = c ? c->probes[SL_PROBE_READINESS] : NULL;
    const sl_shim_probe_t *l = c ? c->probes[SL_PROBE_LIVENESS] : NULL;
    const sl_shim_probe_t *st = c ? c->probes[SL_PROBE_STARTUP] : NULL;
    ok(r && r->kind == SL_PROBE_HTTP && r->https && !strcmp(r->path, "/h") && r->port == 8443,
       "httpGet: scheme, path, port");
    ok(r && r->nheaders == 1 && !strcmp(r->headers[0], "X-A: b c"), "httpHeaders as 'Name: value'");
    ok(r && r->period == 2 && r->success_threshold == 2 && r->timeout == 1 &&
           r->failure_threshold == 3 && r->initial_delay == 0 && r->grace == -1,
       "given timing fields kept, the others kube's defaults");
    ok(l && l->kind == SL_PROBE_EXEC && l->ncommand == 2 && !strcmp(l->command[1], "/ok") &&
           !l->command[2] && l->failure_threshold == 5 && l->grace == 4,
       "exec: the command, failureThreshold, terminationGracePeriodSeconds");
    ok(st && st->kind == SL_PROBE_TCP && st->port == 22 && !strcmp(st->host, "10.0.0.1") &&
           st->initial_delay == 3,
       "tcpSocket: host, port, initialDelaySeconds");
    is_str(sl_probe_type_name(SL_PROBE_LIVENESS), "Liveness", "the kubelet's word for a type");
    sl_shim_spec_destroy(s);

    s = parse("{\"readiness\":{\"httpGet\":{\"port\":80}}}", &err);
    ok(s && s->containers[0].probes[SL_PROBE_READINESS] &&
           !strcmp(s->containers[0].probes[SL_PROBE_READINESS]->path, "/") &&
           !s->containers[0].probes[SL_PROBE_READINESS]->https &&
           !s->containers[0].probes[SL_PROBE_LIVENESS],
       "httpGet: path / and HTTP by default; absent types stay NULL");
    sl_shim_spec_destroy(s);

    expect_error("[]", "containers[0].probes: must be an object", "probes not an object");
    expect_error("{\"readiness\":{}}", "containers[0].probes.readiness: must have one of exec",
                 "a probe without a handler");
    expect_error("{\"liveness\":{\"tcpSocket\":{\"port\":0}}}", "containers[0].probes.liveness",
                 "port 0");
    expect_error("{\"liveness\":{\"tcpSocket\":{\"port\":65536}}}", "containers[0].probes.liveness",
                 "port 65536");
    expect_error("{\"startup\":{\"exec\":{\"command\":[]}}}", "containers[0].probes.startup",
                 "an empty command");
    expect_error("{\"readiness\":{\"exec\":{\"command\":[\"x\"]},\"periodSeconds\":0}}",
                 "containers[0].probes.readiness: timing fields", "periodSeconds 0");
    expect_error("{\"readiness\":{\"httpGet\":{\"port\":1,\"scheme\":\"FTP\"}}}",
                 "containers[0].probes.readiness", "a scheme other than HTTP and HTTPS");
    expect_error("{\"readiness\":{\"httpGet\":{\"port\":1,\"httpHeaders\":[{\"name\":\"A\","
                 "\"value\":\"x\\r\\nB: y\"}]}}}",
                 "containers[0].probes.readiness", "a header value with CR LF");
    return tap_done();
}
