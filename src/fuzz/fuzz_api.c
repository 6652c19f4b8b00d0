/* fuzz_api.c — libFuzzer: the API server's request path, without a socket
 * (sl_api_serve, api/inproc.h): the request-target (path and query string),
 * the headers and the body go through the same unescaping, authentication
 * (bearer tokens, the plain listener's anonymous identity), authorization
 * by a policy, routing, decoding, admission and handlers as a request from
 * the network, against a real store.
 *
 * Input: one byte choosing who asks, then the request:
 *     METHOD SP TARGET LF  (Name: value LF)*  LF  body
 * who: 0 nobody, 1 admin (token), 2 alice (token, writes team-a), 3 the
 * plain listener (anonymous "dev", writes team-d), 4 an expired token,
 * 5 a token not in the file. A header line given in the input comes first,
 * so the fuzzer can send its own Authorization.
 *
 * Oracles (abort on violation): every answer has a code 100..599; a JSON
 * answer parses; a JSON answer >= 400 is a Status carrying that code;
 * nobody, expired and unknown tokens get 401 and nothing else; alice never
 * gets a 2xx for a namespaced path outside team-a. */
#include "api/inproc.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "store/store.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define ADMIN_TOKEN "a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0"
#define ALICE_TOKEN "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1"
#define OLD_TOKEN "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0"

static const char POLICY[] = "adminGroups: [system:masters]\n"
                             "cluster:\n"
                             "  read: {groups: [system:authenticated]}\n"
                             "namespaces:\n"
                             "  team-a: {write: {users: [alice]}}\n"
                             "  team-d: {write: {groups: [devs]}}\n"
                             "users: {alice: nobody, admin: nobody, dev: nobody}\n"
                             "anonymous: {user: dev, groups: [devs]}\n";

static const char TOKENS[] =
    ADMIN_TOKEN ",admin,admin,\"system:masters\"\n" ALICE_TOKEN ",alice,alice\n" OLD_TOKEN
                ",old,old,\"system:masters\",2001-01-01T00:00:00Z\n";

static sl_api_t *api;
static char dir[] = "/tmp/sl-fuzz-api.XXXXXX";

static void cleanup(void) { sl_rm_rf(dir); }

static void setup(void)
{
    sl_log_init("fuzz_api", SL_LOG_ERR);
    if (!mkdtemp(dir))
        abort();
    atexit(cleanup);
    char path[256];
    sl_error_t err = SL_ERROR_INIT;
    snprintf(path, sizeof(path), "%s/tokens.csv", dir);
    if (sl_write_file(path, TOKENS, strlen(TOKENS), 0600, &err) < 0)
        abort();
    char pol[256];
    snprintf(pol, sizeof(pol), "%s/policy.yaml", dir);
    sl_authz_policy_t *policy = sl_authz_policy_parse(POLICY, "policy.yaml", &err);
    char db[256];
    snprintf(db, sizeof(db), "%s/objects.db", dir);
    sl_store_t *store = sl_store_open(db, &err);
    if (!policy || !store)
        abort();
    sl_api_opts_t o = {.store = store,
                       .no_listen = true,
                       .pods_root = dir,
                       .token_file = path,
                       .policy = policy,
                       .max_body = 64 * 1024};
    if (!(api = sl_api_create(&o, &err))) {
        fprintf(stderr, "fuzz_api: %s\n", err.text);
        abort();
    }
    /* the tenants' namespaces, as the admin */
    for (int i = 0; i < 2; i++) {
        const char *body =
            i ? "{\"metadata\":{\"name\":\"team-d\"}}" : "{\"metadata\":{\"name\":\"team-a\"}}";
        const char *h[] = {"Authorization", "Bearer " ADMIN_TOKEN, "Content-Type",
                           "application/json", NULL};
        sl_api_request_t q = {"POST", "/api/v1/namespaces", h, body, strlen(body), false};
        sl_api_response_t r;
        sl_api_serve(api, &q, &r);
        sl_api_response_clear(&r);
    }
    /* the files stay: the server reads the token file at each request */
}

/* "/api/v1/[watch/]namespaces/NS/..." or "/apis/G/V/[watch/]namespaces/NS/...":
 * is NS other than team-a? Targets with escapes are not judged (the server
 * unescapes them; this oracle would have to repeat it). */
static int other_namespace_path(const char *p)
{
    if (!strncmp(p, "/api/v1/", 8))
        p += 8;
    else if (!strncmp(p, "/apis/", 6)) {
        p += 6;
        for (int i = 0; i < 2; i++) {
            p = strchr(p, '/');
            if (!p)
                return 0;
            p++;
        }
    } else
        return 0;
    if (!strncmp(p, "watch/", 6))
        p += 6;
    if (strncmp(p, "namespaces/", 11))
        return 0;
    p += 11;
    size_t n = strcspn(p, "/");
    return n && !(n == 6 && !strncmp(p, "team-a", 6));
}

/* the path alone: a query that reads like a path ("/apis/?api/v1/namespaces/X")
 * names no namespace */
static int other_namespace(const char *target)
{
    if (strpbrk(target, "%+"))
        return 0;
    char *path = strndup(target, strcspn(target, "?"));
    int r = path && other_namespace_path(path);
    free(path);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!api)
        setup();
    if (size < 2)
        return 0;
    int who = data[0] % 6;
    char *in = malloc(size);
    memcpy(in, data + 1, size - 1);
    in[size - 1] = '\0';
    size_t len = size - 1;

    /* request line */
    char *line_end = memchr(in, '\n', len);
    if (!line_end) {
        free(in);
        return 0;
    }
    *line_end = '\0';
    char *sp = strchr(in, ' ');
    if (!sp || sp == in || strlen(in) != (size_t)(line_end - in)) {
        free(in);
        return 0;
    }
    *sp = '\0';
    const char *method = in, *target = sp + 1;

    /* headers: up to 32, then an empty line */
    const char *h[2 * 32 + 6];
    size_t nh = 0;
    char *p = line_end + 1, *end = in + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        *nl = '\0';
        if (!*p) {
            p = nl + (nl < end);
            break;
        }
        char *colon = strchr(p, ':');
        if (colon && nh < 2 * 32) {
            *colon = '\0';
            const char *v = colon + 1;
            while (*v == ' ')
                v++;
            h[nh++] = p;
            h[nh++] = v;
        }
        p = nl + (nl < end);
    }
    static const char *const auth[] = {
        NULL, "Bearer " ADMIN_TOKEN, "Bearer " ALICE_TOKEN,
        NULL, "Bearer " OLD_TOKEN,   "Bearer ffffffffffffffffffffffffffffffff"};
    int own_auth = 0;
    for (size_t i = 0; i < nh; i += 2)
        own_auth |= !strcasecmp(h[i], "Authorization");
    if (auth[who]) {
        h[nh++] = "Authorization";
        h[nh++] = auth[who];
    }
    h[nh] = NULL;
    const char *body = p < end ? p : "";
    size_t blen = p < end ? (size_t)(end - p) : 0;

    sl_api_request_t q = {method, target, h, body, blen, who == 3};
    sl_api_response_t r;
    if (sl_api_serve(api, &q, &r) < 0)
        abort();
    if (r.code < 100 || r.code > 599)
        abort();
    /* streams (watch, log follow) answer in-process with no body */
    if (!strncmp(r.content_type, "application/json", 16) && (r.body_len || r.code != 200)) {
        json_t *j = json_loadb(r.body, r.body_len, 0, NULL);
        if (!j)
            abort();
        const char *kind = json_string_value(json_object_get(j, "kind"));
        if (r.code >= 400 && (!kind || strcmp(kind, "Status") ||
                              json_integer_value(json_object_get(j, "code")) != (json_int_t)r.code))
            abort();
        json_decref(j);
    }
    /* credentials the server must refuse, whatever the request (the shim
     * push has its own tokens and is judged by its hook) */
    int shim = strstr(target, "internal") || strpbrk(target, "%+");
    if (!own_auth && !shim && (who == 0 || who == 4 || who == 5) && r.code != 401)
        abort();
    if (!own_auth && who == 2 && other_namespace(target) && r.code >= 200 && r.code < 300)
        abort();
    sl_api_response_clear(&r);
    free(in);
    return 0;
}
