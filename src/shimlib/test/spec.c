/* Unit tests: shim.json parser — values, defaults, and errors that name the field. */
#include "shimlib/spec.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static sl_shim_spec_t *parse(const char *s, sl_error_t *err)
{
    err->text[0] = '\0';
    return sl_shim_spec_parse(s, strlen(s), err);
}

#define POD "\"pod\":{\"namespace\":\"ns\",\"name\":\"p\",\"uid\":\"u1\"}"
#define MAIN "\"containers\":[{\"name\":\"main\",\"argv\":[\"/bin/true\"]}]"

static void expect_error(const char *json, const char *want, const char *what)
{
    sl_error_t err;
    sl_shim_spec_t *s = parse(json, &err);
    ok(s == NULL && errno == EINVAL, "rejects %s", what);
    has_str(err.text, want, "error for %s names it", what);
    sl_shim_spec_destroy(s);
}

int main(void)
{
    sl_error_t err;
    sl_shim_spec_t *s = parse(
        "{\"apiVersion\":\"slurmlink.io/v1\",\"kind\":\"ShimSpec\"," POD ","
        "\"restartPolicy\":\"OnFailure\",\"terminationGracePeriodSeconds\":7,"
        "\"report\":{\"url\":\"http://127.0.0.1:1/x\",\"token\":\"tok.en-1\"},"
        "\"initContainers\":[{\"name\":\"setup\",\"argv\":[\"sh\",\"-c\",\"echo '$(id)' `x`; "
        "y\\n\"]}],"
        "\"containers\":[{\"name\":\"main\",\"argv\":[\"ch-run\",\"/img\",\"--\",\"env\"],"
        "\"env\":{\"A\":\"1\",\"QUOTES\":\"'\\\"\",\"BIN\":{\"base64\":\"/wBh\"}},"
        "\"workingDir\":\"/w\",\"runtime\":\"charliecloud\",\"futureField\":1},"
        "{\"name\":\"side-car2\",\"argv\":[{\"base64\":\"L2Jpbi9lY2hv\"},{\"base64\":\"gP8=\"}]}]}",
        &err);
    /* the base64 "/wBh" decodes to ff 00 61: contains NUL, so that spec must fail */
    ok(s == NULL, "NUL inside a base64 env value is refused");
    has_str(err.text, "containers[0].env.BIN", "the error names containers[0].env.BIN");
    sl_shim_spec_destroy(s);

    s = parse(
        "{\"apiVersion\":\"slurmlink.io/v1\",\"kind\":\"ShimSpec\"," POD ","
        "\"restartPolicy\":\"OnFailure\",\"terminationGracePeriodSeconds\":7,"
        "\"report\":{\"url\":\"http://127.0.0.1:1/x\",\"token\":\"tok.en-1\","
        "\"caFile\":\"/ca.pem\"},"
        "\"initContainers\":[{\"name\":\"setup\",\"argv\":[\"sh\",\"-c\",\"echo '$(id)' `x`; "
        "y\\n\"]}],"
        "\"containers\":[{\"name\":\"main\",\"argv\":[\"ch-run\",\"/img\",\"--\",\"env\"],"
        "\"env\":{\"A\":\"1\",\"QUOTES\":\"'\\\"\",\"BIN\":{\"base64\":\"/2Fi\"}},"
        "\"workingDir\":\"/w\",\"runtime\":\"charliecloud\",\"futureField\":1},"
        "{\"name\":\"side-car2\",\"argv\":[{\"base64\":\"L2Jpbi9lY2hv\"},{\"base64\":\"gP8=\"}]}]}",
        &err);
    ok(s != NULL, "full spec parses (%s)", err.text);
    if (!s)
        return tap_done();
    is_str(s->pod_namespace, "ns", "pod.namespace");
    is_str(s->pod_name, "p", "pod.name");
    is_str(s->pod_uid, "u1", "pod.uid");
    is_int(s->restart_policy, SL_RESTART_ONFAILURE, "restartPolicy");
    is_int(s->grace_seconds, 7, "terminationGracePeriodSeconds");
    is_str(s->report_url, "http://127.0.0.1:1/x", "report.url");
    is_str(s->report_token, "tok.en-1", "report.token");
    is_str(s->report_ca_file, "/ca.pem", "report.caFile");
    ok(s->report_pinned_key == NULL, "report.pinnedPublicKey absent");
    is_int(s->ninit, 1, "one init container");
    ok(s->init_containers[0].init, "init flag set");
    is_str(s->init_containers[0].argv[2], "echo '$(id)' `x`; y\n", "argv bytes kept exactly");
    is_int(s->ncontainers, 2, "two containers");
    const sl_shim_container_t *m = &s->containers[0];
    is_int(m->argc, 4, "argc");
    ok(m->argv[4] == NULL, "argv NULL-terminated");
    is_int(m->nenv, 3, "three env entries");
    is_str(m->env[0], "A=1", "env in spec order, KEY=VALUE");
    is_str(m->env[1], "QUOTES='\"", "quotes kept");
    is_str(m->env[2],
           "BIN=\xff"
           "ab",
           "base64 env value decoded to raw bytes");
    ok(m->env[3] == NULL, "env NULL-terminated");
    is_str(m->working_dir, "/w", "workingDir");
    is_str(m->runtime, "charliecloud", "runtime");
    ok(!m->init, "app container not init");
    const sl_shim_container_t *sc = &s->containers[1];
    is_str(sc->argv[0], "/bin/echo", "base64 argv[0]");
    is_str(sc->argv[1], "\x80\xff", "non-UTF-8 argument through base64");
    ok(sc->env == NULL && sc->nenv == 0, "no env");
    is_str(sl_restart_policy_name(s->restart_policy), "OnFailure", "policy name");
    sl_shim_spec_destroy(s);
    sl_shim_spec_destroy(NULL);
    ok(1, "destroy(NULL) is a no-op");

    /* defaults */
    s = parse("{" POD "," MAIN "}", &err);
    ok(s != NULL, "minimal spec parses (%s)", err.text);
    if (s) {
        is_int(s->restart_policy, SL_RESTART_ALWAYS, "restartPolicy defaults to Always");
        is_int(s->grace_seconds, 30, "grace defaults to 30");
        ok(s->report_url == NULL && s->report_token == NULL, "no report");
        is_int(s->ninit, 0, "no init containers");
    }
    sl_shim_spec_destroy(s);

    /* errors name the field */
    expect_error("{" POD "," MAIN ", \"x\": }", "line 1", "malformed JSON (position given)");
    expect_error("[]", "(root)", "non-object root");
    expect_error("{\"apiVersion\":\"v2\"," POD "," MAIN "}", "apiVersion", "wrong apiVersion");
    expect_error("{\"kind\":\"Pod\"," POD "," MAIN "}", "kind", "wrong kind");
    expect_error("{" MAIN "}", "pod: required", "missing pod");
    expect_error("{\"pod\":{\"namespace\":\"ns\",\"name\":\"p\"}," MAIN "}", "pod.uid: required",
                 "missing pod.uid");
    expect_error("{\"pod\":{\"namespace\":1,\"name\":\"p\",\"uid\":\"u\"}," MAIN "}",
                 "pod.namespace: must be a string", "non-string namespace");
    /* the field error texts the API writes too (src/common/err.c), whole */
    expect_error("{\"apiVersion\":\"v2\"," POD "," MAIN "}",
                 "apiVersion: Unsupported value: \"v2\": supported values: \"slurmlink.io/v1\"",
                 "wrong apiVersion, kube's words");
    expect_error("{" POD ",\"restartPolicy\":\"So\\\"me\"," MAIN "}",
                 "restartPolicy: Unsupported value: \"So\\\"me\": supported values: \"Always\", "
                 "\"OnFailure\", \"Never\"",
                 "bad restartPolicy, the value quoted as Go's %q");
    expect_error("{" POD ",\"terminationGracePeriodSeconds\":-1," MAIN "}",
                 "terminationGracePeriodSeconds: Invalid value: -1: must be between 0 and 2147483",
                 "negative grace, whole");
    expect_error("{" POD ",\"restartPolicy\":\"Sometimes\"," MAIN "}",
                 "restartPolicy: Unsupported value: \"Sometimes\"", "bad restartPolicy");
    expect_error("{" POD ",\"terminationGracePeriodSeconds\":-1," MAIN "}",
                 "terminationGracePeriodSeconds: Invalid value: -1", "negative grace");
    expect_error("{" POD ",\"terminationGracePeriodSeconds\":\"30\"," MAIN "}",
                 "terminationGracePeriodSeconds: must be an integer", "string grace");
    expect_error("{" POD ",\"report\":{\"token\":\"t\"}," MAIN "}", "report.url: required",
                 "report without url");
    expect_error("{" POD ",\"report\":{\"url\":\"ftp://x\"}," MAIN "}", "report.url: Invalid",
                 "non-http report url");
    expect_error("{" POD ",\"report\":{\"url\":\"http://x\",\"token\":\"a\\r\\nX: y\"}," MAIN "}",
                 "report.token", "token with CR/LF (header injection)");
    expect_error("{" POD "}", "containers: required", "no containers");
    expect_error("{" POD ",\"containers\":[]}", "containers: must contain at least one",
                 "empty containers");
    expect_error("{" POD ",\"containers\":{}}", "containers: must be an array",
                 "containers not an array");
    expect_error("{" POD ",\"containers\":[{\"argv\":[\"x\"]}]}", "containers[0].name: required",
                 "container without name");
    expect_error("{" POD ",\"containers\":[{\"name\":\"Main\",\"argv\":[\"x\"]}]}",
                 "containers[0].name: Invalid value: \"Main\"", "upper-case name");
    expect_error("{" POD ",\"containers\":[{\"name\":\"../x\",\"argv\":[\"x\"]}]}",
                 "containers[0].name: Invalid value", "path in name");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\"}]}", "containers[0].argv: required",
                 "missing argv");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[]}]}",
                 "containers[0].argv: must not be empty", "empty argv");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"\"]}]}",
                 "containers[0].argv[0]: must not be empty", "empty argv[0]");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\",3]}]}",
                 "containers[0].argv[1]: must be a string", "number in argv");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\",\"a\\u0000b\"]}]}",
                 "containers[0].argv[1]: contains a NUL byte", "NUL in argv");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[{\"base64\":\"!!\"}]}]}",
                 "containers[0].argv[0]: base64", "bad base64");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"env\":[]}]}",
                 "containers[0].env: must be an object", "env not an object");
    expect_error("{" POD
                 ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"env\":{\"A=B\":\"1\"}}]}",
                 "containers[0].env.A=B: invalid environment variable name", "'=' in env name");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"env\":{\"A\":1}}]}",
                 "containers[0].env.A: must be a string", "number as env value");
    expect_error(
        "{" POD
        ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"env\":{\"A\":\"1\",\"A\":\"2\"}}]}",
        "duplicate", "duplicate env key");
    expect_error(
        "{" POD ",\"initContainers\":[{\"name\":\"a\",\"argv\":[\"x\"]}],"
        "\"containers\":[{\"name\":\"b\",\"argv\":[\"x\"]},{\"name\":\"a\",\"argv\":[\"x\"]}]}",
        "containers[1].name: Duplicate value: \"a\"", "name shared by init and app");
    expect_error("{" POD ",\"initContainers\":[{\"name\":\"a\",\"argv\":\"x\"}]," MAIN "}",
                 "initContainers[0].argv: must be an array", "init argv not an array");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"workingDir\":5}]}",
                 "containers[0].workingDir: must be a string", "workingDir not a string");

    /* fields translate adds: image, envRuntime, sidecar, cleanup */
    s = parse("{" POD ",\"cleanup\":[\"/dev/shm/slurmlink-u1\",\"/scratch/x/slurmlink-u1\"],"
              "\"containers\":[{\"name\":\"main\",\"argv\":[\"x\"],\"image\":\"busybox\","
              "\"env\":{\"A\":\"1\"},\"envRuntime\":{\"NODE\":\"spec.nodeName\","
              "\"APPTAINERENV_IP\":\"status.hostIP\",\"IPS\":\"status.podIPs\"}},"
              "{\"name\":\"log\",\"argv\":[\"y\"],\"sidecar\":true,\"stdin\":true,"
              "\"stdinOnce\":true,\"tty\":true}]}",
              &err);
    ok(s != NULL, "spec with image, envRuntime, sidecar, cleanup parses (%s)", err.text);
    if (s) {
        is_str(s->containers[0].image, "busybox", "image");
        is_int(s->containers[0].nrt_env, 3, "three envRuntime entries");
        is_str(s->containers[0].rt_env[1], "APPTAINERENV_IP", "envRuntime names in order");
        is_int(s->containers[0].rt_field[0], SL_FIELD_NODE_NAME, "spec.nodeName");
        is_int(s->containers[0].rt_field[1], SL_FIELD_HOST_IP, "status.hostIP");
        is_int(s->containers[0].rt_field[2], SL_FIELD_POD_IPS, "status.podIPs");
        ok(!s->containers[0].sidecar && s->containers[1].sidecar, "sidecar flag");
        ok(!s->containers[0].stdin_open && !s->containers[0].stdin_once, "no stdin by default");
        ok(s->containers[1].stdin_open && s->containers[1].stdin_once, "stdin, stdinOnce flags");
        ok(!s->containers[0].tty && s->containers[1].tty, "tty flag, false by default");
        is_int(s->ncleanup, 2, "two cleanup folders");
        is_str(s->cleanup[0], "/dev/shm/slurmlink-u1", "cleanup folder");
        ok(s->cleanup[2] == NULL, "cleanup NULL-terminated");
    }
    sl_shim_spec_destroy(s);
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],"
                 "\"envRuntime\":{\"N\":\"metadata.name\"}}]}",
                 "containers[0].envRuntime.N: Unsupported value", "unknown envRuntime field");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],"
                 "\"envRuntime\":{\"N\":1}}]}",
                 "containers[0].envRuntime.N: Unsupported value", "non-string envRuntime field");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],"
                 "\"env\":{\"N\":\"v\"},\"envRuntime\":{\"N\":\"spec.nodeName\"}}]}",
                 "containers[0].envRuntime.N: also set in env", "envRuntime name also in env");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],"
                 "\"envRuntime\":[]}]}",
                 "containers[0].envRuntime: must be an object", "envRuntime not an object");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"sidecar\":1}]}",
                 "containers[0].sidecar: must be a boolean", "sidecar not a boolean");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"stdin\":1}]}",
                 "containers[0].stdin: must be a boolean", "stdin not a boolean");
    expect_error(
        "{" POD ",\"initContainers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"sidecar\":true}]," MAIN
        "}",
        "initContainers[0].sidecar: a sidecar is listed in containers[]", "sidecar among init");
    const char *bad_cleanup[] = {"/",
                                 "/slurmlink-x",
                                 "/dev/shm/../slurmlink-x",
                                 "dev/shm/slurmlink-x",
                                 "/dev/shm/other",
                                 "/dev/shm//slurmlink-x",
                                 "/dev/shm/slurmlink-",
                                 "/dev/shm/./slurmlink-x",
                                 "/dev/shm/slurmlink-x/",
                                 "/home/user"};
    for (size_t i = 0; i < sizeof(bad_cleanup) / sizeof(bad_cleanup[0]); i++) {
        char *js = sl_xasprintf("{" POD ",\"cleanup\":[\"%s\"]," MAIN "}", bad_cleanup[i]);
        expect_error(js, "cleanup[0]: Invalid value", bad_cleanup[i]);
        free(js);
    }
    expect_error("{" POD ",\"cleanup\":\"/dev/shm/slurmlink-x\"," MAIN "}",
                 "cleanup: must be an array", "cleanup not an array");
    expect_error("{" POD ",\"cleanup\":[3]," MAIN "}", "cleanup[0]: must be a string",
                 "cleanup entry not a string");

    /* rootfs: the private root of a charliecloud container */
#define RF_CTR(rootfs)                                                                             \
    "{" POD ",\"containers\":[{\"name\":\"main\",\"argv\":[\"ch-run\",\"--write\",\"/st/img+1\","  \
    "\"--\",\"sh\"],\"rootfs\":" rootfs "}]}"
    s = parse(RF_CTR("{\"lower\":\"/st/img+1\",\"argvIndex\":2,\"readOnly\":true,\"mounts\":["
                     "{\"source\":\"/p/volumes/c\",\"target\":\"/etc/cfg\"},"
                     "{\"source\":\"/p/volumes/c/k\",\"target\":\"/etc/app.conf\"}]}"),
              &err);
    ok(s && s->containers[0].rootfs, "rootfs parses (%s)", err.text);
    if (s && s->containers[0].rootfs) {
        const sl_shim_rootfs_t *rf = s->containers[0].rootfs;
        ok(!strcmp(rf->lower, "/st/img+1") && rf->argv_index == 2 && rf->read_only &&
               rf->nmounts == 2 && !strcmp(rf->mounts[1].source, "/p/volumes/c/k") &&
               !strcmp(rf->mounts[1].target, "/etc/app.conf"),
           "... lower, argvIndex, readOnly and the mount points");
    } else {
        ok(0, "... lower, argvIndex, readOnly and the mount points");
    }
    sl_shim_spec_destroy(s);
    s = parse("{" POD "," MAIN "}", &err);
    ok(s && !s->containers[0].rootfs, "no rootfs: the runtime's own root");
    sl_shim_spec_destroy(s);
    expect_error(RF_CTR("{\"lower\":\"/st/img+1\",\"argvIndex\":3}"),
                 "containers[0].rootfs.argvIndex: must be the index of the argv word that is "
                 "rootfs.lower",
                 "an argvIndex that is not the image");
    expect_error(RF_CTR("{\"lower\":\"/st/img+1\",\"argvIndex\":0}"),
                 "containers[0].rootfs.argvIndex", "argvIndex 0 (the program)");
    expect_error(RF_CTR("{\"lower\":\"/st/img+1\",\"argvIndex\":9}"),
                 "containers[0].rootfs.argvIndex", "argvIndex past the end");
    expect_error(RF_CTR("{\"lower\":\"st/img+1\",\"argvIndex\":2}"),
                 "containers[0].rootfs.lower: must be an absolute, normalised path",
                 "a relative lower");
    expect_error(RF_CTR("{\"argvIndex\":2}"), "containers[0].rootfs.lower: required field missing",
                 "no lower");
    expect_error(RF_CTR("{\"lower\":\"/st/img+1\",\"argvIndex\":2,\"readOnly\":1}"),
                 "containers[0].rootfs.readOnly: must be a boolean", "readOnly not a boolean");
    const char *bad_targets[] = {"/", "etc", "/etc/../x", "/etc//x", "/etc/"};
    for (size_t i = 0; i < sizeof(bad_targets) / sizeof(bad_targets[0]); i++) {
        char *js = sl_xasprintf(RF_CTR("{\"lower\":\"/st/img+1\",\"argvIndex\":2,\"mounts\":[{"
                                       "\"source\":\"/v\",\"target\":\"%s\"}]}"),
                                bad_targets[i]);
        expect_error(js,
                     "containers[0].rootfs.mounts[0].target: must be an absolute, normalised "
                     "path other than /",
                     bad_targets[i]);
        free(js);
    }
    expect_error(RF_CTR("{\"lower\":\"/st/img+1\",\"argvIndex\":2,\"mounts\":[{\"target\":"
                        "\"/x\"}]}"),
                 "containers[0].rootfs.mounts[0].source: required field missing", "no source");

    /* a gang's replica that replaces a failed one: where its runs go on */
    s = parse("{" POD ",\"containers\":[{\"name\":\"main\",\"argv\":[\"x\"],\"restartCount\":2,"
              "\"lastTerminated\":{\"exitCode\":1,\"reason\":\"Error\","
              "\"startedAt\":\"2026-12-06T18:00:00Z\",\"finishedAt\":\"2026-12-06T18:00:01Z\"}},"
              "{\"name\":\"side\",\"argv\":[\"y\"]}]}",
              &err);
    ok(s != NULL, "restartCount and lastTerminated parse (%s)", err.text);
    if (s) {
        is_int(s->containers[0].restart_count, 2, "restartCount: the first run's count");
        ok(s->containers[0].last && s->containers[0].last->exit_code == 1,
           "lastTerminated's exit code");
        is_str(s->containers[0].last ? s->containers[0].last->finished_at : "",
               "2026-12-06T18:00:01Z", "lastTerminated's finishedAt");
        ok(!s->containers[1].restart_count && !s->containers[1].last, "none by default");
    }
    sl_shim_spec_destroy(s);
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],\"restartCount\":-1}]}",
                 "containers[0].restartCount", "a negative restartCount");
    expect_error("{" POD ",\"containers\":[{\"name\":\"a\",\"argv\":[\"x\"],"
                 "\"lastTerminated\":{\"reason\":\"Error\"}}]}",
                 "containers[0].lastTerminated", "a lastTerminated without exitCode");

    sl_error_t lerr = SL_ERROR_INIT;
    ok(sl_shim_spec_load("/nonexistent/shim.json", &lerr) == NULL, "load of a missing file fails");
    has_str(lerr.text, "/nonexistent/shim.json", "load error names the path");

    ok(sl_kube_is_dns1123_label("a-b0"), "dns label ok");
    ok(!sl_kube_is_dns1123_label("-a"), "leading dash");
    ok(!sl_kube_is_dns1123_label("a-"), "trailing dash");
    ok(!sl_kube_is_dns1123_label(""), "empty");
    ok(!sl_kube_is_dns1123_label("a.b"), "dot");
    ok(!sl_kube_is_dns1123_label(
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
       "64 characters");
    return tap_done();
}
