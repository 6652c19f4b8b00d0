/* lws_pod.c — a LeaderWorkerSet group's pods (lws.h), named, labelled and
 * given the environment as upstream's leader and worker StatefulSets and
 * its pod webhook give them, with the gang's bookkeeping (ctl/gang.h). */
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/podstatus.h"
#include "kinds/job/jobpod.h"
#include "kinds/lws/lws.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"

#include <gnutls/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
}

void lws_revision(json_t *lws, char out[11])
{
    json_t *t = json_pack("{s:O?, s:O?}", "t", sl_kube_path(lws, "spec.leaderWorkerTemplate"), "n",
                          sl_kube_path(lws, "spec.networkConfig"));
    char *s = json_dumps(t, JSON_COMPACT | JSON_SORT_KEYS);
    unsigned char d[32];
    char h[65] = "";
    if (s && gnutls_hash_fast(GNUTLS_DIG_SHA256, s, strlen(s), d) == 0)
        hex(d, sizeof(d), h);
    memcpy(out, h, 10);
    out[10] = '\0';
    free(s);
    json_decref(t);
}

/* upstream's group-key: the SHA-1 of "<ns>/<leader pod>" */
static void group_key(const char *ns, const char *leader, char out[41])
{
    char *s = sl_xasprintf("%s/%s", ns, leader);
    unsigned char d[20];
    out[0] = '\0';
    if (gnutls_hash_fast(GNUTLS_DIG_SHA1, s, strlen(s), d) == 0)
        hex(d, sizeof(d), out);
    free(s);
}

void lws_subdomain(json_t *lws, long long g, char *out, size_t len)
{
    const char *p = sl_kube_path_str(lws, "spec.networkConfig.subdomainPolicy");
    if (p && !strcmp(p, "UniquePerReplica"))
        snprintf(out, len, "%s-%lld", sl_kube_name(lws), g);
    else
        snprintf(out, len, "%s", sl_kube_name(lws));
}

static void add_env(json_t *env, const char *name, const char *value)
{
    size_t i;
    json_t *e;
    json_array_foreach(env, i, e)
    {
        const char *n = json_string_value(json_object_get(e, "name"));
        if (n && !strcmp(n, name))
            return; /* the template's own wins, as upstream's webhook leaves it */
    }
    json_array_append_new(env, json_pack("{s:s, s:s}", "name", name, "value", value));
}

/* LWS_LEADER_ADDRESS, LWS_GROUP_SIZE, LWS_WORKER_INDEX, LWS_NAME in every
 * container and init container, first in the list (so that $(VAR) of the
 * template's own can refer to them) */
static void set_env(json_t *spec, json_t *lws, long long g, long long w, const char *sub)
{
    char addr[512], size[24], idx[24];
    snprintf(addr, sizeof(addr), "%s-%lld.%s.%s", sl_kube_name(lws), g, sub,
             sl_kube_namespace(lws));
    snprintf(size, sizeof(size), "%lld", lws_size(lws));
    snprintf(idx, sizeof(idx), "%lld", w);
    static const char *const lists[] = {"containers", "initContainers"};
    for (size_t l = 0; l < 2; l++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, lists[l]), i, c)
        {
            json_t *env = json_object_get(c, "env"), *mine = json_array();
            add_env(mine, "LWS_LEADER_ADDRESS", addr);
            add_env(mine, "LWS_GROUP_SIZE", size);
            add_env(mine, "LWS_WORKER_INDEX", idx);
            add_env(mine, "LWS_NAME", sl_kube_name(lws));
            size_t k;
            json_t *e;
            json_array_foreach(env, k, e)
            {
                const char *n = json_string_value(json_object_get(e, "name"));
                if (!n || strncmp(n, "LWS_", 4))
                    json_array_append(mine, e);
                else /* the template's own value of one of ours wins */
                    for (size_t m = 0; m < json_array_size(mine); m++)
                        if (!strcmp(n, json_string_value(
                                           json_object_get(json_array_get(mine, m), "name"))))
                            json_array_set(mine, m, e);
            }
            json_object_set_new(c, "env", mine);
        }
    }
}

static void labels(json_t *pod, json_t *lws, long long g, long long w)
{
    char buf[24], key[41], rev[11], *leader = sl_xasprintf("%s-%lld", sl_kube_name(lws), g);
    sl_kube_set_label(pod, LWS_LABEL_NAME, sl_kube_name(lws));
    snprintf(buf, sizeof(buf), "%lld", g);
    sl_kube_set_label(pod, LWS_LABEL_GROUP, buf);
    snprintf(buf, sizeof(buf), "%lld", w);
    sl_kube_set_label(pod, LWS_LABEL_WORKER, buf);
    group_key(sl_kube_namespace(lws), leader, key);
    sl_kube_set_label(pod, LWS_LABEL_GROUP_KEY, key);
    lws_revision(lws, rev);
    sl_kube_set_label(pod, LWS_LABEL_REVISION, rev);
    snprintf(buf, sizeof(buf), "%lld", lws_size(lws));
    sl_kube_set_annotation(pod, LWS_ANN_SIZE, buf);
    if (w)
        sl_kube_set_annotation(pod, LWS_ANN_LEADER, leader);
    free(leader);
}

/* the gang's bookkeeping (server-owned): owner, member index, node, run */
static void bookkeeping(json_t *pod, json_t *lws, long long w, long long attempt)
{
    char buf[24];
    ctl_drop_server_owned(pod); /* the template's are not the server's */
    sl_kube_set_annotation(pod, SL_ANN_JOB_UID, sl_kube_uid(lws) ?: "");
    snprintf(buf, sizeof(buf), "%lld", w);
    sl_kube_set_annotation(pod, ANN_POD_INDEX, buf);
    sl_kube_set_annotation(pod, CTL_ANN_GANG_RANK, buf);
    snprintf(buf, sizeof(buf), "%lld", attempt);
    sl_kube_set_annotation(pod, LWS_ANN_ATTEMPT, buf);
    const char *user = sl_kube_annotation(lws, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(pod, SL_ANN_USER, user);
}

json_t *lws_new_pod(json_t *lws, long long g, long long w, long long attempt)
{
    json_t *t = sl_kube_path(lws, "spec.leaderWorkerTemplate.leaderTemplate");
    if (w || !json_is_object(t))
        t = sl_kube_path(lws, "spec.leaderWorkerTemplate.workerTemplate");
    json_t *meta = sl_kube_object_copy(json_object_get(t, "metadata"));
    json_t *spec = sl_kube_object_copy(json_object_get(t, "spec"));
    json_object_set_new(spec, "restartPolicy", json_string("Never")); /* the group restarts */
    char sub[256];
    lws_subdomain(lws, g, sub, sizeof(sub));
    char *name = w ? sl_xasprintf("%s-%lld-%lld", sl_kube_name(lws), g, w)
                   : sl_xasprintf("%s-%lld", sl_kube_name(lws), g);
    json_object_set_new(spec, "hostname", json_string(name));
    json_object_set_new(spec, "subdomain", json_string(sub));
    set_env(spec, lws, g, w, sub);
    json_t *pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            meta, "spec", spec);
    sl_kube_meta_set_str(pod, "name", name);
    free(name);
    if (sl_kube_namespace(lws))
        sl_kube_meta_set_str(pod, "namespace", sl_kube_namespace(lws));
    labels(pod, lws, g, w);
    bookkeeping(pod, lws, w, attempt);
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", LWS_API_VERSION,
                                  "kind", "LeaderWorkerSet", "name", sl_kube_name(lws) ?: "", "uid",
                                  sl_kube_uid(lws) ?: "", "controller", 1, "blockOwnerDeletion",
                                  1));
    sl_pod_apply_defaults(pod);
    return pod;
}
