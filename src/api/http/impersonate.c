/* impersonate.c — kubectl --as, --as-group, --as-uid: kube-apiserver's
 * WithImpersonation filter. After authentication, the Impersonate-User,
 * Impersonate-Group, Impersonate-Uid and Impersonate-Extra-* headers each
 * need the verb "impersonate" on users, groups, uids or userextras/KEY (the
 * policy gives it to adminGroups only); once all are granted, the request
 * is served as the user they name. A header refused is a 403 naming the
 * acting user: such headers are never ignored, so a request never runs as
 * someone other than its caller believes. Extras are checked and dropped
 * (no rule of the policy reads them). */
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "common/argv.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "kube/status.h"

#include <string.h>
#include <strings.h>

#define EXTRA_PREFIX "Impersonate-Extra-"

typedef struct imp {
    sl_argv_t groups; /* Impersonate-Group values, in order */
    sl_argv_t extras; /* Impersonate-Extra-KEY keys (lower case, as kube) */
} imp_t;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    imp_t *im = cls;
    if (!strcasecmp(key, "Impersonate-Group") && value)
        sl_argv_add(&im->groups, value);
    else if (!strncasecmp(key, EXTRA_PREFIX, strlen(EXTRA_PREFIX))) {
        char *k = sl_xstrdup(key + strlen(EXTRA_PREFIX));
        for (char *c = k; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        sl_argv_add(&im->extras, k);
        free(k);
    }
    return MHD_YES;
}

static void collect_all(api_req_t *r, imp_t *im)
{
    if (r->conn) {
        MHD_get_connection_values(r->conn, MHD_HEADER_KIND, collect, im);
        return;
    }
    const char *g = api_header(r, "Impersonate-Group"); /* in-process: one of each */
    if (g)
        sl_argv_add(&im->groups, g);
}

/* each requested identity part authorized as kube does: 0, or -1 with the
 * 403 queued */
static int authorize_parts(api_req_t *r, const char *user, const char *uid, const imp_t *im)
{
    if (api_authorize(r, "impersonate", "", "users", NULL, NULL, user) < 0)
        return -1;
    for (size_t i = 0; i < im->groups.n; i++)
        if (api_authorize(r, "impersonate", "", "groups", NULL, NULL, im->groups.v[i]) < 0)
            return -1;
    if (uid && api_authorize(r, "impersonate", "", "uids", NULL, NULL, uid) < 0)
        return -1;
    for (size_t i = 0; i < im->extras.n; i++)
        if (api_authorize(r, "impersonate", "authentication.k8s.io", "userextras", im->extras.v[i],
                          NULL, NULL) < 0)
            return -1;
    return 0;
}

static void become(api_req_t *r, const char *user, const char *uid, const imp_t *im)
{
    sl_info("impersonation: %s acts as %s", r->user->name, user);
    sl_auth_user_t *u = sl_auth_user_create(user, uid, (const char *const *)im->groups.v);
    /* kube adds the group every authenticated identity has */
    sl_auth_user_add_group(u, strcmp(user, "system:anonymous") ? "system:authenticated"
                                                               : "system:unauthenticated");
    sl_auth_user_destroy(r->user);
    r->user = u;
}

int api_impersonate(api_req_t *r)
{
    if (!r->api->policy || !r->user)
        return 0; /* development mode, the shim push */
    const char *user = api_header(r, "Impersonate-User");
    const char *uid = api_header(r, "Impersonate-Uid");
    imp_t im = {SL_ARGV_INIT, SL_ARGV_INIT};
    collect_all(r, &im);
    int rc = 0;
    if (!user && (im.groups.n || uid || im.extras.n)) {
        api_reply_status(r, sl_kube_status_bad_request(
                                "impersonating groups, a uid or extras requires impersonating a "
                                "user (Impersonate-User)"));
        rc = -1;
    } else if (user && !*user) {
        api_reply_status(r, sl_kube_status_bad_request("Impersonate-User is empty"));
        rc = -1;
    } else if (user) {
        rc = authorize_parts(r, user, uid, &im);
        if (rc == 0)
            become(r, user, uid, &im);
    }
    sl_argv_free(&im.groups);
    sl_argv_free(&im.extras);
    return rc;
}
