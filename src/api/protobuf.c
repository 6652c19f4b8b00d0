/* protobuf.c — request bodies in Kubernetes' protobuf encoding
 * (application/vnd.kubernetes.protobuf), which kubectl's typed clients send
 * for `kubectl create namespace|configmap|secret|serviceaccount|quota|job|cronjob|service|deployment`
 * `kubectl auth can-i|whoami` (the review kinds) and `kubectl drain` (Eviction,
 * and DeleteOptions with --disable-eviction).
 *
 * Envelope: the magic "k8s\0", then runtime.Unknown {typeMeta=1
 * {apiVersion=1, kind=2}, raw=2 (the object), contentEncoding=3,
 * contentType=4}. The object is decoded with a small table of field
 * numbers from k8s.io/api/core/v1/generated.proto and
 * k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto for the kinds
 * above; zero values are omitted as the JSON encoding's omitempty does,
 * unknown field numbers are skipped. Other kinds are refused (415) and
 * clients fall back to nothing: JSON bodies cover every kind. */
#include "api/protobuf.h"
#include "common/b64.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <stdint.h>
#include <string.h>

/* PK_MAP_QTY: map<string, resource.Quantity {string = 1}> as JSON strings */
/* PK_INTSTR: intstr.IntOrString {type = 1, intVal = 2, strVal = 3} as a JSON
 * integer or string */
enum pk {
    PK_STR,
    PK_BYTES,
    PK_INT,
    PK_BOOL,
    PK_MSG,
    PK_MAP_STR,
    PK_MAP_BYTES,
    PK_MAP_QTY,
    PK_TIME,
    PK_INTSTR
};

typedef struct pb_msg pb_msg_t;
typedef struct pb_field {
    int num;
    const char *name;
    enum pk kind;
    bool repeated;
    const pb_msg_t *msg;
} pb_field_t;
struct pb_msg {
    const pb_field_t *fields; /* terminated by num 0 */
};

#define END                                                                                        \
    {                                                                                              \
        0, NULL, PK_STR, false, NULL                                                               \
    }

static const pb_msg_t owner_ref = {
    (const pb_field_t[]){{1, "kind", PK_STR, false, NULL},
                         {3, "name", PK_STR, false, NULL},
                         {4, "uid", PK_STR, false, NULL},
                         {5, "apiVersion", PK_STR, false, NULL},
                         {6, "controller", PK_BOOL, false, NULL},
                         {7, "blockOwnerDeletion", PK_BOOL, false, NULL},
                         END}};

static const pb_msg_t object_meta = {
    (const pb_field_t[]){{1, "name", PK_STR, false, NULL},
                         {2, "generateName", PK_STR, false, NULL},
                         {3, "namespace", PK_STR, false, NULL},
                         {5, "uid", PK_STR, false, NULL},
                         {6, "resourceVersion", PK_STR, false, NULL},
                         {7, "generation", PK_INT, false, NULL},
                         {8, "creationTimestamp", PK_TIME, false, NULL},
                         {9, "deletionTimestamp", PK_TIME, false, NULL},
                         {10, "deletionGracePeriodSeconds", PK_INT, false, NULL},
                         {11, "labels", PK_MAP_STR, false, NULL},
                         {12, "annotations", PK_MAP_STR, false, NULL},
                         {13, "ownerReferences", PK_MSG, true, &owner_ref},
                         {14, "finalizers", PK_STR, true, NULL},
                         END}};

static const pb_msg_t ns_spec = {(const pb_field_t[]){{1, "finalizers", PK_STR, true, NULL}, END}};
static const pb_msg_t ns_status = {(const pb_field_t[]){{1, "phase", PK_STR, false, NULL}, END}};
static const pb_msg_t namespace_ = {
    (const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta},
                         {2, "spec", PK_MSG, false, &ns_spec},
                         {3, "status", PK_MSG, false, &ns_status},
                         END}};

static const pb_msg_t configmap = {
    (const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta},
                         {2, "data", PK_MAP_STR, false, NULL},
                         {3, "binaryData", PK_MAP_BYTES, false, NULL},
                         {4, "immutable", PK_BOOL, false, NULL},
                         END}};

static const pb_msg_t secret = {(const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta},
                                                     {2, "data", PK_MAP_BYTES, false, NULL},
                                                     {3, "type", PK_STR, false, NULL},
                                                     {4, "stringData", PK_MAP_STR, false, NULL},
                                                     {5, "immutable", PK_BOOL, false, NULL},
                                                     END}};

static const pb_msg_t object_ref = {
    (const pb_field_t[]){{1, "kind", PK_STR, false, NULL},
                         {2, "namespace", PK_STR, false, NULL},
                         {3, "name", PK_STR, false, NULL},
                         {4, "uid", PK_STR, false, NULL},
                         {5, "apiVersion", PK_STR, false, NULL},
                         {6, "resourceVersion", PK_STR, false, NULL},
                         {7, "fieldPath", PK_STR, false, NULL},
                         END}};
static const pb_msg_t local_ref = {(const pb_field_t[]){{1, "name", PK_STR, false, NULL}, END}};

static const pb_msg_t serviceaccount = {
    (const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta},
                         {2, "secrets", PK_MSG, true, &object_ref},
                         {3, "imagePullSecrets", PK_MSG, true, &local_ref},
                         {4, "automountServiceAccountToken", PK_BOOL, false, NULL},
                         END}};

static const pb_msg_t scoped_req = {(const pb_field_t[]){{1, "scopeName", PK_STR, false, NULL},
                                                         {2, "operator", PK_STR, false, NULL},
                                                         {3, "values", PK_STR, true, NULL},
                                                         END}};
static const pb_msg_t scope_selector = {
    (const pb_field_t[]){{1, "matchExpressions", PK_MSG, true, &scoped_req}, END}};
static const pb_msg_t rq_spec = {
    (const pb_field_t[]){{1, "hard", PK_MAP_QTY, false, NULL},
                         {2, "scopes", PK_STR, true, NULL},
                         {3, "scopeSelector", PK_MSG, false, &scope_selector},
                         END}};
static const pb_msg_t rq_status = {(const pb_field_t[]){
    {1, "hard", PK_MAP_QTY, false, NULL}, {2, "used", PK_MAP_QTY, false, NULL}, END}};
static const pb_msg_t resourcequota = {
    (const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta},
                         {2, "spec", PK_MSG, false, &rq_spec},
                         {3, "status", PK_MSG, false, &rq_status},
                         END}};

/* batch/v1 Job as `kubectl create job NAME --image=I -- CMD` sends it
 * (k8s.io/api/batch/v1 and core/v1 generated.proto): the job's counts and
 * modes, the template's metadata, restart policy, node selector and
 * containers' name, image, command, args, workingDir, env, resources and
 * imagePullPolicy. A field outside these is skipped: what typed clients
 * send for other Job fields comes as JSON (kubectl apply/create -f). */
static const pb_msg_t env_var = {
    (const pb_field_t[]){{1, "name", PK_STR, false, NULL}, {2, "value", PK_STR, false, NULL}, END}};
static const pb_msg_t resources = {(const pb_field_t[]){
    {1, "limits", PK_MAP_QTY, false, NULL}, {2, "requests", PK_MAP_QTY, false, NULL}, END}};
static const pb_msg_t container_port = {
    (const pb_field_t[]){{1, "name", PK_STR, false, NULL},
                         {2, "hostPort", PK_INT, false, NULL},
                         {3, "containerPort", PK_INT, false, NULL},
                         {4, "protocol", PK_STR, false, NULL},
                         {5, "hostIP", PK_STR, false, NULL},
                         END}};
static const pb_msg_t container = {
    (const pb_field_t[]){{1, "name", PK_STR, false, NULL},
                         {2, "image", PK_STR, false, NULL},
                         {3, "command", PK_STR, true, NULL},
                         {4, "args", PK_STR, true, NULL},
                         {5, "workingDir", PK_STR, false, NULL},
                         {6, "ports", PK_MSG, true, &container_port},
                         {7, "env", PK_MSG, true, &env_var},
                         {8, "resources", PK_MSG, false, &resources},
                         {14, "imagePullPolicy", PK_STR, false, NULL},
                         END}};
static const pb_msg_t pod_spec = {
    (const pb_field_t[]){{2, "containers", PK_MSG, true, &container},
                         {3, "restartPolicy", PK_STR, false, NULL},
                         {4, "terminationGracePeriodSeconds", PK_INT, false, NULL},
                         {5, "activeDeadlineSeconds", PK_INT, false, NULL},
                         {7, "nodeSelector", PK_MAP_STR, false, NULL},
                         {8, "serviceAccountName", PK_STR, false, NULL},
                         END}};
static const pb_msg_t pod_template = {(const pb_field_t[]){
    {1, "metadata", PK_MSG, false, &object_meta}, {2, "spec", PK_MSG, false, &pod_spec}, END}};
static const pb_msg_t job_spec = {
    (const pb_field_t[]){{1, "parallelism", PK_INT, false, NULL},
                         {2, "completions", PK_INT, false, NULL},
                         {3, "activeDeadlineSeconds", PK_INT, false, NULL},
                         {5, "manualSelector", PK_BOOL, false, NULL},
                         {6, "template", PK_MSG, false, &pod_template},
                         {7, "backoffLimit", PK_INT, false, NULL},
                         {8, "ttlSecondsAfterFinished", PK_INT, false, NULL},
                         {9, "completionMode", PK_STR, false, NULL},
                         {10, "suspend", PK_BOOL, false, NULL},
                         END}};
static const pb_msg_t job = {(const pb_field_t[]){
    {1, "metadata", PK_MSG, false, &object_meta}, {2, "spec", PK_MSG, false, &job_spec}, END}};
/* batch/v1 CronJob as `kubectl create cronjob NAME --image=I --schedule=S`
 * sends it: CronJobSpec and JobTemplateSpec of batch/v1's generated.proto */
static const pb_msg_t job_template = {(const pb_field_t[]){
    {1, "metadata", PK_MSG, false, &object_meta}, {2, "spec", PK_MSG, false, &job_spec}, END}};
static const pb_msg_t cronjob_spec = {
    (const pb_field_t[]){{1, "schedule", PK_STR, false, NULL},
                         {2, "startingDeadlineSeconds", PK_INT, false, NULL},
                         {3, "concurrencyPolicy", PK_STR, false, NULL},
                         {4, "suspend", PK_BOOL, false, NULL},
                         {5, "jobTemplate", PK_MSG, false, &job_template},
                         {6, "successfulJobsHistoryLimit", PK_INT, false, NULL},
                         {7, "failedJobsHistoryLimit", PK_INT, false, NULL},
                         {8, "timeZone", PK_STR, false, NULL},
                         END}};
static const pb_msg_t cronjob = {(const pb_field_t[]){
    {1, "metadata", PK_MSG, false, &object_meta}, {2, "spec", PK_MSG, false, &cronjob_spec}, END}};

/* apps/v1 Deployment as `kubectl create deployment NAME --image=I
 * [--replicas=N] [--port=P]` sends it (k8s.io/api/apps/v1 generated.proto) */
static const pb_msg_t label_selector_req = {
    (const pb_field_t[]){{1, "key", PK_STR, false, NULL},
                         {2, "operator", PK_STR, false, NULL},
                         {3, "values", PK_STR, true, NULL},
                         END}};
static const pb_msg_t label_selector = {
    (const pb_field_t[]){{1, "matchLabels", PK_MAP_STR, false, NULL},
                         {2, "matchExpressions", PK_MSG, true, &label_selector_req},
                         END}};
static const pb_msg_t deploy_strategy = {
    (const pb_field_t[]){{1, "type", PK_STR, false, NULL}, END}};
static const pb_msg_t deployment_spec = {
    (const pb_field_t[]){{1, "replicas", PK_INT, false, NULL},
                         {2, "selector", PK_MSG, false, &label_selector},
                         {3, "template", PK_MSG, false, &pod_template},
                         {4, "strategy", PK_MSG, false, &deploy_strategy},
                         {5, "minReadySeconds", PK_INT, false, NULL},
                         {6, "revisionHistoryLimit", PK_INT, false, NULL},
                         {7, "paused", PK_BOOL, false, NULL},
                         {9, "progressDeadlineSeconds", PK_INT, false, NULL},
                         END}};
static const pb_msg_t deployment = {
    (const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta},
                         {2, "spec", PK_MSG, false, &deployment_spec},
                         END}};

/* k8s.io/api/authorization/v1 and authentication/v1: the review kinds
 * (review.c) that kubectl auth can-i and auth whoami send */
static const pb_msg_t res_attrs = {(const pb_field_t[]){{1, "namespace", PK_STR, false, NULL},
                                                        {2, "verb", PK_STR, false, NULL},
                                                        {3, "group", PK_STR, false, NULL},
                                                        {4, "version", PK_STR, false, NULL},
                                                        {5, "resource", PK_STR, false, NULL},
                                                        {6, "subresource", PK_STR, false, NULL},
                                                        {7, "name", PK_STR, false, NULL},
                                                        END}};
static const pb_msg_t nonres_attrs = {
    (const pb_field_t[]){{1, "path", PK_STR, false, NULL}, {2, "verb", PK_STR, false, NULL}, END}};
static const pb_msg_t access_spec = {
    (const pb_field_t[]){{1, "resourceAttributes", PK_MSG, false, &res_attrs},
                         {2, "nonResourceAttributes", PK_MSG, false, &nonres_attrs},
                         {3, "user", PK_STR, false, NULL},
                         {4, "groups", PK_STR, true, NULL},
                         {6, "uid", PK_STR, false, NULL},
                         END}};
static const pb_msg_t access_review = {(const pb_field_t[]){
    {1, "metadata", PK_MSG, false, &object_meta}, {2, "spec", PK_MSG, false, &access_spec}, END}};
static const pb_msg_t rules_spec = {
    (const pb_field_t[]){{1, "namespace", PK_STR, false, NULL}, END}};
static const pb_msg_t rules_review = {(const pb_field_t[]){
    {1, "metadata", PK_MSG, false, &object_meta}, {2, "spec", PK_MSG, false, &rules_spec}, END}};
static const pb_msg_t self_review = {
    (const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta}, END}};

/* k8s.io/api/policy/v1 Eviction (kubectl drain) */
static const pb_msg_t preconditions = {(const pb_field_t[]){
    {1, "uid", PK_STR, false, NULL}, {2, "resourceVersion", PK_STR, false, NULL}, END}};
static const pb_msg_t delete_options = {
    (const pb_field_t[]){{1, "gracePeriodSeconds", PK_INT, false, NULL},
                         {2, "preconditions", PK_MSG, false, &preconditions},
                         {3, "orphanDependents", PK_BOOL, false, NULL},
                         {4, "propagationPolicy", PK_STR, false, NULL},
                         {5, "dryRun", PK_STR, true, NULL},
                         END}};
static const pb_msg_t eviction = {
    (const pb_field_t[]){{1, "metadata", PK_MSG, false, &object_meta},
                         {2, "deleteOptions", PK_MSG, false, &delete_options},
                         END}};

/* kubectl create service: a Service's ports, selector, type, cluster IP */
static const pb_msg_t intstr = {(const pb_field_t[]){{1, "type", PK_INT, false, NULL},
                                                     {2, "intVal", PK_INT, false, NULL},
                                                     {3, "strVal", PK_STR, false, NULL},
                                                     END}};
static const pb_msg_t service_port = {(const pb_field_t[]){
    {1, "name", PK_STR, false, NULL},
    {2, "protocol", PK_STR, false, NULL},
    {3, "port", PK_INT, false, NULL},
    {4, "targetPort", PK_INTSTR, false, &intstr},
    {5, "nodePort", PK_INT, false, NULL},
    {6, "appProtocol", PK_STR, false, NULL},
    END}};
static const pb_msg_t service_spec = {(const pb_field_t[]){
    {1, "ports", PK_MSG, true, &service_port},
    {2, "selector", PK_MAP_STR, false, NULL},
    {3, "clusterIP", PK_STR, false, NULL},
    {4, "type", PK_STR, false, NULL},
    {10, "externalName", PK_STR, false, NULL},
    END}};
static const pb_msg_t service = {(const pb_field_t[]){
    {1, "metadata", PK_MSG, false, &object_meta}, {2, "spec", PK_MSG, false, &service_spec}, END}};

static const pb_msg_t type_meta = {(const pb_field_t[]){
    {1, "apiVersion", PK_STR, false, NULL}, {2, "kind", PK_STR, false, NULL}, END}};

static const struct {
    const char *kind;
    const pb_msg_t *msg;
} kinds[] = {{"Namespace", &namespace_},
             {"ConfigMap", &configmap},
             {"Secret", &secret},
             {"ServiceAccount", &serviceaccount},
             {"Service", &service},
             {"ResourceQuota", &resourcequota},
             {"Job", &job},
             {"CronJob", &cronjob},
             {"Deployment", &deployment},
             {"SelfSubjectAccessReview", &access_review},
             {"SubjectAccessReview", &access_review},
             {"SelfSubjectRulesReview", &rules_review},
             {"SelfSubjectReview", &self_review},
             {"Eviction", &eviction},
             {"DeleteOptions", &delete_options}};

/* ---- wire format ---- */

typedef struct rd {
    const uint8_t *p, *end;
} rd_t;

static int varint(rd_t *r, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end)
            return -1;
        uint8_t b = *r->p++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

/* Length-delimited payload into *sub. */
static int lenpref(rd_t *r, rd_t *sub)
{
    uint64_t n;
    if (varint(r, &n) < 0 || n > (uint64_t)(r->end - r->p))
        return -1;
    sub->p = r->p;
    sub->end = r->p + n;
    r->p += n;
    return 0;
}

static int skip(rd_t *r, int wt)
{
    uint64_t v;
    rd_t sub;
    switch (wt) {
    case 0: return varint(r, &v);
    case 1:
        if (r->end - r->p < 8)
            return -1;
        r->p += 8;
        return 0;
    case 2: return lenpref(r, &sub);
    case 5:
        if (r->end - r->p < 4)
            return -1;
        r->p += 4;
        return 0;
    default: return -1;
    }
}

static json_t *b64(const uint8_t *p, size_t n)
{
    char *e = sl_b64_encode(p, n);
    json_t *s = e ? json_string(e) : NULL;
    free(e);
    return s;
}

static json_t *decode_msg(rd_t *r, const pb_msg_t *m, int depth);

/* resource.Quantity {string = 1} → its string */
static json_t *quantity_json(rd_t *sub)
{
    json_t *v = NULL;
    while (sub->p < sub->end) {
        uint64_t tag;
        rd_t f;
        if (varint(sub, &tag) < 0)
            goto bad;
        if ((tag & 7) != 2) {
            if (skip(sub, (int)(tag & 7)) < 0)
                goto bad;
            continue;
        }
        if (lenpref(sub, &f) < 0)
            goto bad;
        if ((tag >> 3) == 1) {
            json_decref(v);
            v = json_stringn((const char *)f.p, (size_t)(f.end - f.p));
        }
    }
    return v ? v : json_string("");
bad:
    json_decref(v);
    return NULL;
}

static int map_entry(rd_t *sub, enum pk kind, json_t *map)
{
    char *key = NULL;
    json_t *val = NULL;
    while (sub->p < sub->end) {
        uint64_t tag;
        if (varint(sub, &tag) < 0)
            goto bad;
        rd_t f;
        if ((tag & 7) != 2) {
            if (skip(sub, (int)(tag & 7)) < 0)
                goto bad;
            continue;
        }
        if (lenpref(sub, &f) < 0)
            goto bad;
        if ((tag >> 3) == 1) {
            free(key);
            key = sl_xstrndup((const char *)f.p, (size_t)(f.end - f.p));
        } else if ((tag >> 3) == 2) {
            json_decref(val);
            if (kind == PK_MAP_BYTES)
                val = b64(f.p, (size_t)(f.end - f.p));
            else if (kind == PK_MAP_QTY)
                val = quantity_json(&f);
            else
                val = json_stringn((const char *)f.p, (size_t)(f.end - f.p));
            if (!val)
                goto bad;
        }
    }
    if (key)
        json_object_set_new(map, key, val ? val : json_string(""));
    else
        json_decref(val);
    free(key);
    return 0;
bad:
    free(key);
    json_decref(val);
    return -1;
}

static json_t *time_json(rd_t *sub)
{
    int64_t secs = 0;
    while (sub->p < sub->end) {
        uint64_t tag, v;
        if (varint(sub, &tag) < 0)
            return NULL;
        if ((tag & 7) == 0) {
            if (varint(sub, &v) < 0)
                return NULL;
            if ((tag >> 3) == 1)
                secs = (int64_t)v;
        } else if (skip(sub, (int)(tag & 7)) < 0) {
            return NULL;
        }
    }
    if (secs == 0)
        return json_null(); /* the zero time: omitted */
    char *s = sl_kube_rfc3339(secs * 1000000000LL, 0);
    json_t *j = json_string(s);
    free(s);
    return j;
}

/* an IntOrString as its JSON form: the string when type is 1, else the
 * integer */
static json_t *intstr_json(rd_t *sub, const pb_msg_t *m, int depth)
{
    json_t *o = decode_msg(sub, m, depth + 1);
    if (!o)
        return NULL;
    json_t *v = json_integer_value(json_object_get(o, "type")) == 1
                    ? json_string(json_string_value(json_object_get(o, "strVal")) ?: "")
                    : json_integer(json_integer_value(json_object_get(o, "intVal")));
    json_decref(o);
    return v;
}

static bool is_zero(json_t *v)
{
    return !v || json_is_null(v) || json_is_false(v) ||
           (json_is_string(v) && !*json_string_value(v)) ||
           (json_is_integer(v) && !json_integer_value(v)) ||
           (json_is_object(v) && !json_object_size(v));
}

static json_t *decode_msg(rd_t *r, const pb_msg_t *m, int depth)
{
    if (depth > 16)
        return NULL;
    json_t *o = json_object();
    while (r->p < r->end) {
        uint64_t tag;
        if (varint(r, &tag) < 0)
            goto bad;
        int num = (int)(tag >> 3), wt = (int)(tag & 7);
        const pb_field_t *f = m->fields;
        while (f->num && f->num != num)
            f++;
        if (!f->num) {
            if (skip(r, wt) < 0)
                goto bad;
            continue;
        }
        json_t *v = NULL;
        rd_t sub;
        if (f->kind == PK_INT || f->kind == PK_BOOL) {
            uint64_t x;
            if (wt != 0 || varint(r, &x) < 0)
                goto bad;
            v = f->kind == PK_BOOL ? json_boolean(x) : json_integer((json_int_t)x);
        } else {
            if (wt != 2 || lenpref(r, &sub) < 0)
                goto bad;
            size_t n = (size_t)(sub.end - sub.p);
            switch (f->kind) {
            case PK_STR: v = json_stringn((const char *)sub.p, n); break;
            case PK_BYTES: v = b64(sub.p, n); break;
            case PK_MSG: v = decode_msg(&sub, f->msg, depth + 1); break;
            case PK_INTSTR: v = intstr_json(&sub, f->msg, depth); break;
            case PK_TIME: v = time_json(&sub); break;
            case PK_MAP_STR:
            case PK_MAP_BYTES:
            case PK_MAP_QTY: {
                json_t *map = json_object_get(o, f->name);
                if (!map)
                    json_object_set_new(o, f->name, map = json_object());
                if (map_entry(&sub, f->kind, map) < 0)
                    goto bad;
                continue;
            }
            default: break;
            }
            if (!v)
                goto bad;
        }
        if (f->repeated) {
            json_t *a = json_object_get(o, f->name);
            if (!a)
                json_object_set_new(o, f->name, a = json_array());
            json_array_append_new(a, v);
        } else if (is_zero(v)) {
            json_decref(v); /* omitempty */
            json_object_del(o, f->name);
        } else {
            json_object_set_new(o, f->name, v);
        }
    }
    return o;
bad:
    json_decref(o);
    return NULL;
}

json_t *api_pb_decode(const char *data, size_t len, sl_error_t *err)
{
    if (len < 4 || memcmp(data, "k8s\0", 4)) {
        errno = EINVAL;
        sl_errkindf(err, SL_ERR_BAD_REQUEST,
                    "provided data does not appear to be a protobuf message, expected "
                    "prefix [107 56 115 0]");
        return NULL;
    }
    rd_t r = {(const uint8_t *)data + 4, (const uint8_t *)data + len};
    json_t *tm = NULL;
    rd_t raw = {NULL, NULL};
    while (r.p < r.end) {
        uint64_t tag;
        rd_t sub;
        if (varint(&r, &tag) < 0)
            goto bad;
        if ((tag & 7) != 2) {
            if (skip(&r, (int)(tag & 7)) < 0)
                goto bad;
            continue;
        }
        if (lenpref(&r, &sub) < 0)
            goto bad;
        if ((tag >> 3) == 1) {
            json_decref(tm);
            tm = decode_msg(&sub, &type_meta, 0);
        } else if ((tag >> 3) == 2) {
            raw = sub;
        }
    }
    const char *kind = json_string_value(json_object_get(tm, "kind"));
    const pb_msg_t *m = NULL;
    for (size_t i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(kinds[i].kind, kind))
            m = kinds[i].msg;
    if (!m) {
        errno = ENOTSUP;
        sl_errkindf(err, SL_ERR_UNSUPPORTED_MEDIA_TYPE,
                    "protobuf bodies of kind %s are not supported; send JSON",
                    kind ? kind : "(none)");
        json_decref(tm);
        return NULL;
    }
    json_t *obj = raw.p ? decode_msg(&raw, m, 0) : json_object();
    if (!obj)
        goto bad;
    /* apiVersion and kind first, as in JSON bodies */
    json_t *out = json_pack("{s:O, s:O}", "apiVersion", json_object_get(tm, "apiVersion"), "kind",
                            json_object_get(tm, "kind"));
    json_object_update(out, obj);
    json_decref(obj);
    json_decref(tm);
    return out;
bad:
    json_decref(tm);
    errno = EINVAL;
    sl_errkindf(err, SL_ERR_BAD_REQUEST, "unexpected EOF");
    return NULL;
}
