/* lws — the LeaderWorkerSet kind's API hooks and pods without a cluster:
 * upstream's defaults (CRD schema and webhook), the webhook's and
 * slurmlink's validation with the fields named, strict decoding, the
 * printer columns, a group's pods (names, templates, labels, LWS_* env,
 * hostname/subdomain, the gang's bookkeeping) and the template revision. */
#include "kinds/lws/lws.h"
#include "common/err.h"
#include "common/tap.h"
#include "ctl/gang.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <stdlib.h>
#include <string.h>

static const api_kind_ops_t *ops(void) { return sl_kind_lws.api.ops; }

static json_t *sample(void)
{
    json_t *o = json_loads(
        "{\"apiVersion\":\"leaderworkerset.x-k8s.io/v1\",\"kind\":\"LeaderWorkerSet\","
        "\"metadata\":{\"name\":\"web\",\"namespace\":\"team\","
        "\"uid\":\"11111111-2222-3333-4444-555555555555\","
        "\"annotations\":{\"slurmlink.io/user\":\"alice\"}},"
        "\"spec\":{\"replicas\":2,\"leaderWorkerTemplate\":{\"size\":3,"
        "\"leaderTemplate\":{\"metadata\":{\"labels\":{\"role\":\"leader\"}},"
        "\"spec\":{\"containers\":[{\"name\":\"l\",\"image\":\"busybox\"}]}},"
        "\"workerTemplate\":{\"spec\":{\"containers\":[{\"name\":\"w\",\"image\":\"busybox\","
        "\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":\"LWS_NAME\",\"value\":\"mine\"}]}]}}}"
        "}}",
        0, NULL);
    ops()->defaults(o);
    return o;
}

static json_t *ctr0(json_t *pod) { return json_array_get(sl_kube_path(pod, "spec.containers"), 0); }

static const char *env_of(json_t *pod, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(ctr0(pod), "env"), i,
                       e) if (!strcmp(json_string_value(json_object_get(e, "name")),
                                      name)) return json_string_value(json_object_get(e, "value"));
    return NULL;
}

static char *first_error(json_t *o)
{
    sl_error_t err = SL_ERROR_INIT;
    ops()->validate_create(o, &err);
    char *s = sl_err_nfields(&err) ? sl_err_fields_aggregate(&err) : strdup("");
    sl_error_clear(&err);
    return s;
}

static void check_defaults(void)
{
    json_t *o = json_loads("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"leaderWorkerTemplate\":"
                           "{\"restartPolicy\":\"Default\"}}}",
                           0, NULL);
    ops()->defaults(o);
    is_int(lws_replicas(o), 1, "replicas defaults to 1");
    is_int(lws_size(o), 1, "size defaults to 1");
    is_str(sl_kube_path_str(o, "spec.leaderWorkerTemplate.restartPolicy"), "None",
           "the deprecated restartPolicy Default becomes None (the webhook)");
    is_str(sl_kube_path_str(o, "spec.startupPolicy"), "LeaderCreated",
           "startupPolicy LeaderCreated");
    is_str(sl_kube_path_str(o, "spec.networkConfig.subdomainPolicy"), "Shared",
           "subdomainPolicy Shared");
    is_str(sl_kube_path_str(o, "spec.rolloutStrategy.type"), "RollingUpdate",
           "rolloutStrategy RollingUpdate");
    is_int(json_integer_value(
               sl_kube_path(o, "spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable")),
           1, "maxUnavailable 1, maxSurge 0");
    json_decref(o);
    o = json_loads("{\"spec\":{\"leaderWorkerTemplate\":{}}}", 0, NULL);
    ops()->defaults(o);
    is_str(sl_kube_path_str(o, "spec.leaderWorkerTemplate.restartPolicy"),
           "RecreateGroupOnPodRestart", "restartPolicy RecreateGroupOnPodRestart");
    json_decref(o);
}

static void check_validation(void)
{
    json_t *o = sample();
    char *e = first_error(o);
    is_str(e, "", "the sample is valid");
    free(e);
    json_object_set_new(sl_kube_path(o, "spec.leaderWorkerTemplate"), "size", json_integer(0));
    e = first_error(o);
    ok(strstr(e, "spec.leaderWorkerTemplate.size: Invalid value: 0: size must be equal or greater "
                 "than 1") != NULL,
       "size 0: the webhook's error (%s)", e);
    free(e);
    json_decref(o);
    o = sample();
    json_object_set_new(sl_kube_path(o, "spec.rolloutStrategy.rollingUpdateConfiguration"),
                        "maxUnavailable", json_string("150%"));
    e = first_error(o);
    ok(strstr(e, "maxUnavailable: Invalid value: \"150%\": must not be greater than 100%") != NULL,
       "maxUnavailable 150%% (%s)", e);
    free(e);
    json_object_set_new(sl_kube_path(o, "spec.rolloutStrategy.rollingUpdateConfiguration"),
                        "maxUnavailable", json_integer(0));
    e = first_error(o);
    ok(strstr(e, "must not be 0 when `maxSurge` is 0") != NULL, "maxUnavailable and maxSurge 0");
    free(e);
    json_decref(o);
    o = sample();
    json_object_set_new(sl_kube_path(o, "spec.leaderWorkerTemplate"), "subGroupPolicy",
                        json_pack("{s:i}", "subGroupSize", 1));
    e = first_error(o);
    ok(strstr(e, "spec.leaderWorkerTemplate.subGroupPolicy: Forbidden") != NULL,
       "subGroupPolicy is refused, not ignored (%s)", e);
    free(e);
    json_decref(o);
    o = sample();
    json_object_set_new(json_object_get(o, "spec"), "replicas", json_integer(10001));
    e = first_error(o);
    ok(strstr(e, "spec.replicas: Invalid value: 10001: must be no more than 10000") != NULL,
       "more groups than Slurm's default MaxJobCount (%s)", e);
    free(e);
    json_decref(o);
    o = sample();
    json_object_set_new(sl_kube_meta(o), "name", json_string("Web_1"));
    e = first_error(o);
    ok(strstr(e, "metadata.name") != NULL, "a name that is no DNS-1035 label (%s)", e);
    free(e);
    json_decref(o);
    o = sample();
    json_object_set_new(json_object_get(o, "spec"), "replicaz", json_integer(1));
    json_t *unknown = json_array(), *warn = json_array();
    sl_error_t err = SL_ERROR_INIT;
    ops()->decode_check(o, unknown, warn, &err);
    is_str(json_string_value(json_array_get(unknown, 0)), "unknown field \"spec.replicaz\"",
           "strict decoding names an unknown field");
    json_decref(unknown);
    json_decref(warn);
    json_decref(o);
}

static void check_pods(void)
{
    json_t *o = sample();
    json_t *l = lws_new_pod(o, 1, 0, 7), *w = lws_new_pod(o, 1, 2, 7);
    is_str(sl_kube_name(l), "web-1", "the leader is <lws>-<g>");
    is_str(sl_kube_name(w), "web-1-2", "a worker is <lws>-<g>-<w>");
    is_str(json_string_value(json_object_get(ctr0(l), "name")), "l",
           "the leader from leaderTemplate");
    is_str(json_string_value(json_object_get(ctr0(w), "name")), "w",
           "a worker from workerTemplate");
    is_str(sl_kube_label(l, "role"), "leader", "the template's labels kept");
    is_str(env_of(w, "LWS_LEADER_ADDRESS"), "web-1.web.team", "LWS_LEADER_ADDRESS");
    is_str(env_of(w, "LWS_GROUP_SIZE"), "3", "LWS_GROUP_SIZE");
    is_str(env_of(w, "LWS_WORKER_INDEX"), "2", "LWS_WORKER_INDEX");
    is_str(env_of(l, "LWS_WORKER_INDEX"), "0", "the leader's LWS_WORKER_INDEX 0");
    is_str(env_of(w, "LWS_NAME"), "mine", "the template's own LWS_NAME wins");
    is_str(env_of(w, "A"), "1", "the template's env kept");
    is_str(sl_kube_path_str(w, "spec.hostname"), "web-1-2", "hostname");
    is_str(sl_kube_path_str(w, "spec.subdomain"), "web", "subdomain (Shared: the LWS's name)");
    is_str(sl_kube_path_str(w, "spec.restartPolicy"), "Never",
           "restartPolicy Never: the group restarts");
    is_str(sl_kube_label(w, LWS_LABEL_GROUP), "1", "group-index");
    is_str(sl_kube_label(w, LWS_LABEL_WORKER), "2", "worker-index");
    is_str(sl_kube_annotation(w, LWS_ANN_LEADER), "web-1", "leader-name on a worker");
    ok(!sl_kube_annotation(l, LWS_ANN_LEADER), "... not on the leader");
    is_str(sl_kube_annotation(w, CTL_ANN_GANG_RANK), "2", "the gang rank is the worker index");
    is_str(sl_kube_annotation(w, LWS_ANN_ATTEMPT), "7", "the run number");
    is_str(sl_kube_annotation(w, SL_ANN_USER), "alice", "the creator's identity");
    is_str(sl_kube_annotation(w, SL_ANN_JOB_UID), "11111111-2222-3333-4444-555555555555",
           "the owner's uid");
    is_str(json_string_value(json_object_get(
               json_array_get(sl_kube_path(w, "metadata.ownerReferences"), 0), "kind")),
           "LeaderWorkerSet", "controller ownerReference");
    json_decref(l);
    json_decref(w);
    json_object_set_new(sl_kube_path(o, "spec.networkConfig"), "subdomainPolicy",
                        json_string("UniquePerReplica"));
    w = lws_new_pod(o, 1, 1, 0);
    is_str(sl_kube_path_str(w, "spec.subdomain"), "web-1", "UniquePerReplica: <lws>-<g>");
    is_str(env_of(w, "LWS_LEADER_ADDRESS"), "web-1.web-1.team", "... and the leader's address");
    json_decref(w);
    json_decref(o);
}

static void check_revision_and_cells(void)
{
    json_t *o = sample();
    char a[11], b[11];
    lws_revision(o, a);
    json_object_set_new(json_object_get(o, "spec"), "replicas", json_integer(5));
    lws_revision(o, b);
    is_str(b, a, "the revision does not follow replicas");
    json_object_set_new(sl_kube_path(o, "spec.leaderWorkerTemplate"), "size", json_integer(4));
    lws_revision(o, b);
    ok(strlen(a) == 10 && strcmp(a, b), "... it follows the template (%s, %s)", a, b);
    json_object_set_new(o, "status",
                        json_pack("{s:i, s:i}", "readyReplicas", 2, "updatedReplicas", 1));
    json_t *cols = ops()->table_columns(), *cells = ops()->table_cells(o, 0);
    char *c = json_dumps(cols, 0), *v = json_dumps(cells, 0);
    ok(strstr(c, "\"Ready\"") && strstr(c, "\"Desired\"") && strstr(c, "\"Up-to-date\"") &&
           strstr(c, "\"Age\""),
       "columns Name Ready Desired Up-to-date Age");
    is_str(v, "[\"web\", 2, 5, 1, null]", "a row");
    free(c);
    free(v);
    json_decref(cols);
    json_decref(cells);
    json_decref(o);
}

int main(void)
{
    check_defaults();
    check_validation();
    check_pods();
    check_revision_and_cells();
    return tap_done();
}
