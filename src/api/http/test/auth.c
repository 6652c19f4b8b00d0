/* auth — the API's authentication, authorization and pod admission,
 * in-process (sl_api_serve: the server's request path without a socket):
 * 401/403 Statuses, the tenants' boundaries, the identity annotation,
 * runAsUser, the flags allow-list, limits, option checks at create, and
 * development mode without a policy. */
#include "api/inproc.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/tap.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T_ADMIN "Bearer 0123456789abcdef0123456789abcdef"
#define T_ALICE "Bearer aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define T_BOB "Bearer bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define T_GHOST "Bearer cccccccccccccccccccccccccccccccc"
#define T_OLD "Bearer dddddddddddddddddddddddddddddddd"

static sl_api_response_t R;

/* serve one request; auth NULL: none; plain: the plain listener */
static unsigned req_ct(sl_api_t *api, const char *ctype, const char *auth, bool plain,
                       const char *method, const char *target, const char *body)
{
    const char *h[] = {"Content-Type", ctype, auth ? "Authorization" : NULL, auth, NULL};
    sl_api_request_t q = {method, target, h, body, body ? strlen(body) : 0, plain};
    sl_api_response_clear(&R);
    if (sl_api_serve(api, &q, &R) < 0)
        return 0;
    return R.code;
}

static unsigned req(sl_api_t *api, const char *auth, bool plain, const char *method,
                    const char *target, const char *body)
{
    return req_ct(api, "application/json", auth, plain, method, target, body);
}

static const char *msg(void)
{
    static char buf[1024];
    json_t *j = json_loadb(R.body, R.body_len, 0, NULL);
    snprintf(buf, sizeof(buf), "%s", json_string_value(json_object_get(j, "message")) ?: "");
    json_decref(j);
    return buf;
}

static const char *annotation(const char *key)
{
    static char buf[256];
    json_t *j = json_loadb(R.body, R.body_len, 0, NULL);
    json_t *a =
        json_object_get(json_object_get(json_object_get(j, "metadata"), "annotations"), key);
    snprintf(buf, sizeof(buf), "%s", a ? json_string_value(a) : "(none)");
    json_decref(j);
    return buf;
}

static char *pod(const char *name, const char *extra_meta, const char *extra_spec)
{
    char *s = NULL;
    if (asprintf(&s,
                 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"%s},"
                 "\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\"}]%s}}",
                 name, extra_meta ? extra_meta : "", extra_spec ? extra_spec : "") < 0)
        abort();
    return s;
}

static void dev_mode(const char *dir)
{
    char db[512];
    snprintf(db, sizeof(db), "%s/dev.db", dir);
    sl_store_t *st = sl_store_open(db, NULL);
    sl_api_opts_t o = {.store = st, .no_listen = true, .pods_root = dir};
    sl_api_t *api = sl_api_create(&o, NULL);
    ok(api != NULL, "development mode: a server without a policy");
    is_int(req(api, NULL, false, "GET", "/api/v1/namespaces/default/pods", NULL), 200,
           "development mode: no credentials needed");
    char *p = pod("d1", ",\"annotations\":{\"slurmlink.io/user\":\"root\"}", NULL);
    is_int(req(api, NULL, false, "POST", "/api/v1/namespaces/default/pods", p), 201,
           "development mode: create");
    is_str(annotation("slurmlink.io/user"), "(none)",
           "development mode: a client's slurmlink.io/user is dropped");
    free(p);
    is_int(req_ct(api, "application/merge-patch+json", NULL, false, "PATCH",
                  "/api/v1/namespaces/default/pods/d1",
                  "{\"metadata\":{\"annotations\":{\"slurmlink.io/user\":\"root\"}}}"),
           422, "development mode: it cannot be set later either");
    sl_api_destroy(api);
    sl_store_close(st);
}

int main(void)
{
    sl_log_init("test", SL_LOG_ERR);
    char dir[] = "/tmp/sl-api-auth.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    struct passwd *nobody = getpwnam("nobody");
    if (!nobody)
        return 1;
    unsigned nuid = (unsigned)nobody->pw_uid;

    char tokens[512], db[512];
    snprintf(tokens, sizeof(tokens), "%s/tokens.csv", dir);
    snprintf(db, sizeof(db), "%s/objects.db", dir);
    const char *tok = "0123456789abcdef0123456789abcdef,admin,admin,\"system:masters\"\n"
                      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,alice,alice\n"
                      "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,bob,bob\n"
                      "cccccccccccccccccccccccccccccccc,ghost,ghost,\"devs\"\n"
                      "dddddddddddddddddddddddddddddddd,old,old,\"system:masters\","
                      "2001-01-01T00:00:00Z\n";
    sl_write_file(tokens, tok, strlen(tok), 0600, NULL);
    sl_error_t err = SL_ERROR_INIT;
    sl_authz_policy_t *pol =
        sl_authz_policy_parse("adminGroups: [system:masters]\n"
                              "cluster: {read: {groups: [system:authenticated]}}\n"
                              "namespaces:\n"
                              "  team-a: {write: {users: [alice]}}\n"
                              "  team-b: {write: {users: [bob]}}\n"
                              "  team-d: {write: {groups: [devs]}}\n"
                              "users: {alice: nobody, bob: nobody, admin: nobody, ghost: "
                              "no-such-user-here, dev: nobody}\n"
                              "anonymous: {user: dev, groups: [devs]}\n",
                              "policy.yaml", &err);
    ok(pol != NULL, "policy parses %s", err.text);
    sl_store_t *st = sl_store_open(db, &err);

    /* option checks */
    sl_api_opts_t bad = {.store = st, .listen = "127.0.0.1", .policy = pol};
    errno = 0;
    ok(!sl_api_create(&bad, &err) && errno == EINVAL, "a policy without TLS is refused");
    has_str(err.text, "a policy needs TLS", "... saying why");
    sl_api_opts_t bad2 = {.store = st, .listen = "127.0.0.1", .token_file = tokens};
    ok(!sl_api_create(&bad2, &err) && errno == EINVAL, "tokens without a policy are refused");
    sl_api_opts_t bad3 = {.store = st, .no_listen = true, .plain_listen = "127.0.0.1"};
    ok(!sl_api_create(&bad3, &err) && errno == EINVAL, "a plain listener without a policy");
    sl_api_opts_t bad4 = {.store = st,
                          .listen = "127.0.0.1",
                          .tls_cert = "/x",
                          .tls_key = "/y",
                          .policy = pol,
                          .plain_listen = "0.0.0.0"};
    ok(!sl_api_create(&bad4, &err) && errno == EINVAL, "a plain listener off loopback");
    has_str(err.text, "loopback", "... saying why");

    sl_api_opts_t o = {.store = st,
                       .no_listen = true,
                       .pods_root = dir,
                       .token_file = tokens,
                       .policy = pol,
                       .max_body = 200000,
                       .max_object = 100000};
    sl_api_t *api = sl_api_create(&o, &err);
    ok(api != NULL, "server with a policy and tokens %s", err.text);
    if (!api)
        return tap_done();

    /* --- 401 --- */
    is_int(req(api, NULL, false, "GET", "/version", NULL), 401, "no credentials: 401");
    is_str(R.body,
           "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
           "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n",
           "... kube-apiserver's Status");
    is_int(req(api, T_OLD, false, "GET", "/version", NULL), 401, "an expired admin token: 401");
    is_int(req(api, "Bearer nope", false, "GET", "/version", NULL), 401, "an unknown token: 401");
    is_int(req(api, "Basic YTpi", false, "GET", "/version", NULL), 401, "Basic auth: 401");
    is_int(req(api, NULL, false, "POST", "/api/v1/namespaces/team-a/pods", "{\"x\":1}"), 401,
           "401 before the body is looked at");
    is_int(req(api, NULL, false, "POST", "/internal/v1/shim/events", "{}"), 503,
           "the shim push is not judged by user authentication (its own hook)");

    /* --- the tenants --- */
    is_int(req(api, T_ADMIN, false, "POST", "/api/v1/namespaces",
               "{\"metadata\":{\"name\":\"team-a\"}}"),
           201, "admin creates team-a");
    req(api, T_ADMIN, false, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-b\"}}");
    req(api, T_ADMIN, false, "POST", "/api/v1/namespaces", "{\"metadata\":{\"name\":\"team-d\"}}");
    char *p = pod("pa", ",\"annotations\":{\"slurmlink.io/user\":\"bob\"}", NULL);
    is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/pods", p), 201,
           "alice creates a pod in team-a");
    is_str(annotation("slurmlink.io/user"), "alice",
           "slurmlink.io/user is the creator, not the client's");
    free(p);
    p = pod("pb", NULL, NULL);
    is_int(req(api, T_BOB, false, "POST", "/api/v1/namespaces/team-b/pods", p), 201,
           "bob creates a pod in team-b");
    free(p);
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-b/pods/pb", NULL), 403,
           "alice cannot get bob's pod");
    is_str(msg(),
           "pods \"pb\" is forbidden: User \"alice\" cannot get resource \"pods\" in API group "
           "\"\" in the namespace \"team-b\"",
           "... kube-apiserver's message");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-b/pods/pb/log", NULL), 403,
           "alice cannot read bob's logs");
    has_str(msg(), "cannot get resource \"pods/log\"", "... naming pods/log");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-b/pods?watch=1", NULL), 403,
           "alice cannot watch bob's pods");
    has_str(msg(), "cannot watch resource \"pods\"", "... naming watch");
    is_int(req(api, T_ALICE, false, "DELETE", "/api/v1/namespaces/team-b/pods/pb", NULL), 403,
           "alice cannot delete bob's pod");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-b/secrets", NULL), 403,
           "alice cannot list bob's secrets");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-b/configmaps/x", NULL), 403,
           "alice cannot read bob's config maps (even missing ones: 403 before 404)");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/pods", NULL), 403,
           "alice cannot list every namespace's pods");
    has_str(msg(), "at the cluster scope", "... at the cluster scope");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-b", NULL), 403,
           "a namespace object counts as inside itself");
    is_int(req(api, T_ALICE, false, "GET", "/apis/nosuch.io/v1/namespaces/team-b/things", NULL),
           403, "unknown groups and resources: 403 before 404");
    is_int(req(api, T_ADMIN, false, "GET", "/apis/nosuch.io/v1/namespaces/team-b/things", NULL),
           404, "... and 404 for an admin");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-a/pods", NULL), 200,
           "alice lists her own pods");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-a/pods?watch=1", NULL), 200,
           "alice watches her own pods");
    is_int(req(api, T_ALICE, false, "GET", "/api/v1/nodes", NULL), 200, "alice reads nodes");
    is_int(req(api, T_ALICE, false, "GET", "/apis", NULL), 200, "discovery for alice");
    is_int(req(api, T_ALICE, false, "POST", "/version", NULL), 403, "POST /version: 403");
    is_str(msg(), "forbidden: User \"alice\" cannot post path \"/version\"", "... naming the path");
    is_int(req(api, T_ADMIN, false, "GET", "/api/v1/pods", NULL), 200, "the admin lists all pods");

    /* --- identity stays --- */
    is_int(req_ct(api, "application/json-patch+json", T_ALICE, false, "PATCH",
                  "/api/v1/namespaces/team-a/pods/pa",
                  "[{\"op\":\"replace\",\"path\":\"/metadata/annotations/slurmlink.io~1user\","
                  "\"value\":\"bob\"}]"),
           422, "changing slurmlink.io/user: 422");
    has_str(msg(),
            "metadata.annotations[slurmlink.io/user]: Invalid value: \"bob\": field is "
            "immutable",
            "... naming the field");
    is_int(req_ct(api, "application/merge-patch+json", T_ALICE, false, "PATCH",
                  "/api/v1/namespaces/team-a/pods/pa", "{\"metadata\":{\"labels\":{\"x\":\"y\"}}}"),
           200, "other changes are fine");
    is_str(annotation("slurmlink.io/user"), "alice", "... and keep it");
    is_int(req_ct(api, "application/json-patch+json", T_ADMIN, false, "PATCH",
                  "/api/v1/namespaces/team-a/pods/pa",
                  "[{\"op\":\"remove\",\"path\":\"/metadata/annotations/slurmlink.io~1user\"}]"),
           200, "removing it ...");
    is_str(annotation("slurmlink.io/user"), "alice", "... keeps it");

    /* --- admission --- */
    p = pod("root", NULL, ",\"securityContext\":{\"runAsUser\":0}");
    is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/pods", p), 422,
           "runAsUser 0: 422");
    char want[256];
    snprintf(want, sizeof(want),
             "spec.securityContext.runAsUser: Invalid value: 0: must be %u, the uid of Unix user "
             "\"nobody\", which the jobs of user \"alice\" run as",
             nuid);
    has_str(msg(), want, "... naming the field, the uid and the user");
    free(p);
    char sc[128];
    snprintf(sc, sizeof(sc), ",\"securityContext\":{\"runAsUser\":%u}", nuid);
    p = pod("own", NULL, sc);
    is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/pods", p), 201,
           "runAsUser of the mapped user: created");
    free(p);
    /* in a runtime with a user namespace of its own, runAsUser is the uid
     * inside, mapped to the job user outside; the host runtime keeps the rule */
    p = pod("ch0", ",\"annotations\":{\"slurmlink.io/runtime\":\"charliecloud\"}",
            ",\"securityContext\":{\"runAsUser\":0}");
    is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/pods", p), 201,
           "charliecloud: runAsUser 0 (root inside its user namespace only): created");
    free(p);
    p = pod("h0", ",\"annotations\":{\"slurmlink.io/runtime\":\"host\"}",
            ",\"securityContext\":{\"runAsUser\":1000}");
    is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/pods", p), 422,
           "host runtime: runAsUser 1000: 422");
    has_str(msg(), "spec.securityContext.runAsUser: Invalid value: 1000: must be ",
            "... naming the field");
    has_str(msg(),
            "(the host runtime runs no container; runAsUser names a uid inside the container, "
            "mapped to that user, with charliecloud)",
            "... and why: the host runtime, and which runtimes map it");
    free(p);
    static const char job_fmt[] =
        "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"%s\"},"
        "\"spec\":{\"template\":{\"metadata\":{\"annotations\":{\"slurmlink.io/runtime\":"
        "\"%s\"}},\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"m\","
        "\"image\":\"busybox\",\"securityContext\":{\"runAsUser\":1000}}]}}}}";
    char job[512];
    snprintf(job, sizeof(job), job_fmt, "jch", "charliecloud");
    is_int(req(api, T_ALICE, false, "POST", "/apis/batch/v1/namespaces/team-a/jobs", job), 201,
           "a Job whose charliecloud template says runAsUser 1000: created");
    snprintf(job, sizeof(job), job_fmt, "jhost", "host");
    is_int(req(api, T_ALICE, false, "POST", "/apis/batch/v1/namespaces/team-a/jobs", job), 422,
           "a Job whose host template says runAsUser 1000: 422");
    has_str(msg(),
            "spec.template.spec.containers[0].securityContext.runAsUser: Invalid value: 1000",
            "... naming the template's field");
    p = pod("g1", NULL, NULL);
    is_int(req(api, T_GHOST, false, "POST", "/api/v1/namespaces/team-d/pods", p), 403,
           "a creator whose Unix user does not exist: 403");
    has_str(msg(),
            "no Unix user to run its jobs as: user \"ghost\" maps to Unix user "
            "\"no-such-user-here\", which does not exist",
            "... with the reason");
    free(p);
    p = pod("f1", ",\"annotations\":{\"slurm-job.vk.io/flags\":\"--partition=gpu --uid=0\"}", NULL);
    is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/pods", p), 422,
           "a refused flag: 422");
    has_str(msg(),
            "metadata.annotations[slurm-job.vk.io/flags]: Invalid value: \"--partition=gpu "
            "--uid=0\": --uid is not allowed",
            "... naming the flag");
    free(p);

    /* --- the plain listener --- */
    p = pod("dp", NULL, NULL);
    is_int(req(api, NULL, true, "POST", "/api/v1/namespaces/team-d/pods", p), 201,
           "plain listener: the anonymous identity (dev, devs) writes team-d");
    is_str(annotation("slurmlink.io/user"), "dev", "... as dev");
    is_int(req(api, T_ADMIN, true, "GET", "/api/v1/namespaces/team-a/pods", NULL), 403,
           "plain listener: a token changes nothing (still dev)");
    free(p);

    /* --- limits --- */
    {
        size_t n = 65;
        char *s = malloc(64 * n + 256);
        strcpy(s, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"many\"},"
                  "\"spec\":{\"containers\":[");
        for (size_t i = 0; i < n; i++)
            sprintf(s + strlen(s), "%s{\"name\":\"c%zu\",\"image\":\"b\"}", i ? "," : "", i);
        strcat(s, "]}}");
        is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/pods", s), 422,
               "65 containers: 422");
        has_str(msg(), "spec.containers: Too many: 65: must have at most 64 items", "... TooMany");
        free(s);
        size_t big = 150000;
        s = malloc(big + 256);
        int k = sprintf(s, "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                           "{\"name\":\"big\"},\"data\":{\"a\":\"");
        memset(s + k, 'x', big);
        strcpy(s + k + big, "\"}}");
        is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/configmaps", s), 413,
               "an object over max_object: 413");
        has_str(msg(), "the object is too large to store", "... saying so");
        is_int(req(api, T_ALICE, false, "GET", "/api/v1/namespaces/team-a/configmaps/big", NULL),
               404, "... and nothing was stored");
        free(s);
        big = 250000;
        s = malloc(big + 1);
        memset(s, ' ', big);
        s[big] = 0;
        is_int(req(api, T_ALICE, false, "POST", "/api/v1/namespaces/team-a/configmaps", s), 413,
               "a body over max_body: 413");
        free(s);
    }

    sl_api_response_clear(&R);
    sl_api_destroy(api);
    sl_store_close(st);
    sl_authz_policy_destroy(pol);
    dev_mode(dir);
    sl_api_response_clear(&R);
    sl_rm_rf(dir);
    return tap_done();
}
