/* printers.c — Table columns and cells per kind, ported from
 * kubernetes/pkg/printers/internalversion/printers.go (1.32), so that
 * `kubectl get` prints what users know from real clusters. kube-apiserver
 * always fills the wide (priority 1) cells; kubectl hides them unless
 * -o wide. */
#include "api/printers.h"
#include "common/buf.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/quantity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *DESC_NAME =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
static const char *DESC_AGE =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";

static json_t *col(const char *name, const char *type, const char *format, const char *desc,
                   int priority)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", type, "format", format,
                     "description", desc, "priority", priority);
}

static json_t *col_name(void) { return col("Name", "string", "name", DESC_NAME, 0); }

static json_t *col_age(void) { return col("Age", "string", "", DESC_AGE, 0); }

static const char *str_or(const char *s, const char *dflt) { return s && *s ? s : dflt; }

static json_t *age_cell(json_t *obj, long long now)
{
    char buf[32];
    return json_string(
        sl_kube_age(sl_kube_meta_str(obj, "creationTimestamp"), now, buf, sizeof(buf)));
}

static const char *name_of(json_t *o) { return str_or(sl_kube_name(o), ""); }

/* ---- pods ---- */

json_t *api_pod_columns(void)
{
    return json_pack(
        "[o, o, o, o, o, o, o, o, o]", col_name(),
        col("Ready", "string", "",
            "The aggregate readiness state of this pod for accepting traffic.", 0),
        col("Status", "string", "", "The aggregate status of the containers in this pod.", 0),
        col("Restarts", "string", "",
            "The number of times the containers in this pod have been restarted and when the "
            "last container in this pod has restarted.",
            0),
        col_age(),
        col("IP", "string", "",
            "podIP address allocated to the pod. Routable at least within the cluster. Empty if "
            "not yet allocated.",
            1),
        col("Node", "string", "",
            "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
            "candidate for scheduling by the scheduler defined in schedulerName.",
            1),
        col("Nominated Node", "string", "",
            "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
            "cannot be scheduled right away as preemption victims receive their graceful "
            "termination periods.",
            1),
        col("Readiness Gates", "string", "",
            "If specified, all readiness gates will be evaluated for pod readiness.", 1));
}

static bool cond_true(json_t *pod, const char *type)
{
    return sl_kube_condition_true(sl_kube_path(pod, "status.conditions"), type);
}

static bool restartable_init(json_t *pod, const char *name)
{
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(pod, "spec.initContainers"), i, c)
    {
        const char *n = json_string_value(json_object_get(c, "name"));
        const char *rp = json_string_value(json_object_get(c, "restartPolicy"));
        if (n && name && !strcmp(n, name))
            return rp && !strcmp(rp, "Always");
    }
    return false;
}

static long long ts_ns(json_t *v)
{
    int64_t ns = 0;
    const char *s = json_string_value(v);
    if (!s || sl_kube_parse_rfc3339(s, &ns) < 0)
        return 0;
    return ns;
}

static long long last_termination(json_t *cs)
{
    return ts_ns(json_object_get(json_object_get(json_object_get(cs, "lastState"), "terminated"),
                                 "finishedAt"));
}

static const char *sget(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* what printPod adds up over the container statuses */
typedef struct cells {
    long long restarts, last_restart;             /* of the containers counted */
    long long rinit_restarts, last_rinit_restart; /* of restartable init containers */
    long long ready_n;
    char *reason;
    size_t reasonlen;
} cells_t;

static void count_restarts(json_t *c, long long *restarts, long long *last)
{
    *restarts += json_integer_value(json_object_get(c, "restartCount"));
    long long lt = last_termination(c);
    if (lt > *last)
        *last = lt;
}

/* a terminated container without a reason: "Signal:N" or "ExitCode:N" */
static void exit_reason(cells_t *pc, const char *prefix, json_t *term)
{
    long long sig = json_integer_value(json_object_get(term, "signal"));
    if (sig)
        snprintf(pc->reason, pc->reasonlen, "%sSignal:%lld", prefix, sig);
    else
        snprintf(pc->reason, pc->reasonlen, "%sExitCode:%lld", prefix,
                 (long long)json_integer_value(json_object_get(term, "exitCode")));
}

/* the init containers: true while the pod is initializing (reason set) */
static bool init_statuses(json_t *pod, cells_t *pc)
{
    size_t n_init_spec = json_array_size(sl_kube_path(pod, "spec.initContainers"));
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(pod, "status.initContainerStatuses"), i, c)
    {
        count_restarts(c, &pc->restarts, &pc->last_restart);
        bool rinit = restartable_init(pod, sget(c, "name"));
        if (rinit)
            count_restarts(c, &pc->rinit_restarts, &pc->last_rinit_restart);
        json_t *state = json_object_get(c, "state");
        json_t *term = json_object_get(state, "terminated");
        json_t *wait = json_object_get(state, "waiting");
        if (term && json_integer_value(json_object_get(term, "exitCode")) == 0)
            continue;
        if (rinit && json_is_true(json_object_get(c, "started"))) {
            if (json_is_true(json_object_get(c, "ready")))
                pc->ready_n++;
            continue;
        }
        const char *tr = term ? sget(term, "reason") : NULL;
        const char *wr = wait ? sget(wait, "reason") : NULL;
        if (term && (!tr || !*tr))
            exit_reason(pc, "Init:", term);
        else if (term)
            snprintf(pc->reason, pc->reasonlen, "Init:%s", tr);
        else if (wr && *wr && strcmp(wr, "PodInitializing"))
            snprintf(pc->reason, pc->reasonlen, "Init:%s", wr);
        else
            snprintf(pc->reason, pc->reasonlen, "Init:%zu/%zu", i, n_init_spec);
        return true;
    }
    return false;
}

/* the app containers, last first (kubectl's order: the first one's reason wins) */
static void app_statuses(json_t *pod, cells_t *pc)
{
    pc->restarts = pc->rinit_restarts;
    pc->last_restart = pc->last_rinit_restart;
    bool has_running = false;
    json_t *cs = sl_kube_path(pod, "status.containerStatuses");
    for (size_t k = json_array_size(cs); k-- > 0;) {
        json_t *c = json_array_get(cs, k);
        count_restarts(c, &pc->restarts, &pc->last_restart);
        json_t *state = json_object_get(c, "state");
        json_t *term = json_object_get(state, "terminated");
        json_t *wait = json_object_get(state, "waiting");
        const char *wr = wait ? sget(wait, "reason") : NULL;
        const char *tr = term ? sget(term, "reason") : NULL;
        if (wr && *wr) {
            snprintf(pc->reason, pc->reasonlen, "%s", wr);
        } else if (tr && *tr) {
            snprintf(pc->reason, pc->reasonlen, "%s", tr);
        } else if (term) {
            exit_reason(pc, "", term);
        } else if (json_is_true(json_object_get(c, "ready")) && json_object_get(state, "running")) {
            has_running = true;
            pc->ready_n++;
        }
    }
    if (!strcmp(pc->reason, "Completed") && has_running)
        snprintf(pc->reason, pc->reasonlen, "%s", cond_true(pod, "Ready") ? "Running" : "NotReady");
}

/* printPod: READY, STATUS and RESTARTS as kubectl users know them. */
void api_pod_status_cells(json_t *pod, long long now, char *ready, size_t rlen, char *reason,
                          size_t reasonlen, char *restarts_out, size_t restlen)
{
    cells_t pc = {0, 0, 0, 0, 0, reason, reasonlen};
    size_t total = json_array_size(sl_kube_path(pod, "spec.containers"));
    const char *phase = str_or(sl_kube_path_str(pod, "status.phase"), "");
    snprintf(reason, reasonlen, "%s", str_or(sl_kube_path_str(pod, "status.reason"), phase));

    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(pod, "status.conditions"), i, c)
    {
        if (!strcmp(str_or(sget(c, "type"), ""), "PodScheduled") &&
            !strcmp(str_or(sget(c, "reason"), ""), "SchedulingGated"))
            snprintf(reason, reasonlen, "SchedulingGated");
    }
    json_array_foreach(sl_kube_path(pod, "spec.initContainers"), i, c)
    {
        const char *rp = sget(c, "restartPolicy");
        if (rp && !strcmp(rp, "Always"))
            total++;
    }
    if (!init_statuses(pod, &pc) || cond_true(pod, "Initialized"))
        app_statuses(pod, &pc);

    const char *dts = sl_kube_meta_str(pod, "deletionTimestamp");
    const char *sreason = sl_kube_path_str(pod, "status.reason");
    if (dts && sreason && !strcmp(sreason, "NodeLost"))
        snprintf(reason, reasonlen, "Unknown");
    else if (dts && strcmp(phase, "Succeeded") && strcmp(phase, "Failed"))
        snprintf(reason, reasonlen, "Terminating");

    snprintf(ready, rlen, "%lld/%zu", pc.ready_n, total);
    if (pc.restarts != 0 && pc.last_restart) {
        char ago[32];
        sl_kube_since(pc.last_restart, now, ago, sizeof(ago));
        snprintf(restarts_out, restlen, "%lld (%s ago)", pc.restarts, ago);
    } else {
        snprintf(restarts_out, restlen, "%lld", pc.restarts);
    }
}

json_t *api_pod_cells(json_t *pod, long long now)
{
    char ready[32], reason[128], restarts[64];
    api_pod_status_cells(pod, now, ready, sizeof(ready), reason, sizeof(reason), restarts,
                         sizeof(restarts));
    const char *ip = sl_kube_path_str(json_array_get(sl_kube_path(pod, "status.podIPs"), 0), "ip");
    if (!ip || !*ip)
        ip = sl_kube_path_str(pod, "status.podIP");
    char gates[32] = "<none>";
    json_t *rg = sl_kube_path(pod, "spec.readinessGates");
    if (json_array_size(rg)) {
        size_t i, t = 0;
        json_t *g;
        json_array_foreach(rg, i, g) if (cond_true(pod, str_or(sget(g, "conditionType"), ""))) t++;
        snprintf(gates, sizeof(gates), "%zu/%zu", t, json_array_size(rg));
    }
    json_t *cells = json_pack(
        "[s, s, s, s, o, s, s, s, s]", name_of(pod), ready, reason, restarts, age_cell(pod, now),
        str_or(ip, "<none>"), str_or(sl_kube_path_str(pod, "spec.nodeName"), "<none>"),
        str_or(sl_kube_path_str(pod, "status.nominatedNodeName"), "<none>"), gates);
    const char *phase = str_or(sl_kube_path_str(pod, "status.phase"), "");
    json_t *conds = NULL;
    if (!strcmp(phase, "Succeeded"))
        conds = json_pack("[{s:s, s:s, s:s, s:s}]", "type", "Completed", "status", "True", "reason",
                          "Succeeded", "message", "The pod has completed successfully.");
    else if (!strcmp(phase, "Failed"))
        conds = json_pack("[{s:s, s:s, s:s, s:s}]", "type", "Completed", "status", "True", "reason",
                          "Failed", "message", "The pod failed.");
    if (!conds)
        return cells;
    return json_pack("{s:o, s:o}", "cells", cells, "conditions", conds);
}

/* ---- nodes ---- */

json_t *api_node_columns(void)
{
    return json_pack(
        "[o, o, o, o, o, o, o, o, o, o]", col_name(),
        col("Status", "string", "", "The status of the node", 0),
        col("Roles", "string", "", "The roles of the node", 0), col_age(),
        col("Version", "string", "", "Kubelet Version reported by the node.", 0),
        col("Internal-IP", "string", "", "List of addresses reachable to the node.", 1),
        col("External-IP", "string", "", "List of addresses reachable to the node.", 1),
        col("OS-Image", "string", "", "OS Image reported by the node from /etc/os-release.", 1),
        col("Kernel-Version", "string", "", "Kernel Version reported by the node.", 1),
        col("Container-Runtime", "string", "", "ContainerRuntime Version reported by the node.",
            1));
}

static const char *node_address(json_t *node, const char *type)
{
    size_t i;
    json_t *a;
    json_array_foreach(sl_kube_path(node, "status.addresses"), i,
                       a) if (!strcmp(str_or(sget(a, "type"), ""),
                                      type)) return str_or(sget(a, "address"), "<none>");
    return "<none>";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *api_node_cells(json_t *node, long long now)
{
    char status[64] = "";
    const char *ready = NULL;
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(node, "status.conditions"), i,
                       c) if (!strcmp(str_or(sget(c, "type"), ""), "Ready")) ready =
        str_or(sget(c, "status"), "");
    if (ready)
        snprintf(status, sizeof(status), "%s", !strcmp(ready, "True") ? "Ready" : "NotReady");
    else
        snprintf(status, sizeof(status), "Unknown");
    if (json_is_true(sl_kube_path(node, "spec.unschedulable")))
        strncat(status, ",SchedulingDisabled", sizeof(status) - strlen(status) - 1);
    /* roles: node-role.kubernetes.io/<role> keys and kubernetes.io/role values */
    const char *roles[32];
    size_t nr = 0;
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(sl_kube_meta(node), "labels"), k, v)
    {
        const char *role = NULL;
        if (!strncmp(k, "node-role.kubernetes.io/", 24))
            role = k + 24;
        else if (!strcmp(k, "kubernetes.io/role"))
            role = json_string_value(v);
        if (role && *role && nr < 32) {
            bool dup = false;
            for (size_t j = 0; j < nr; j++)
                dup |= !strcmp(roles[j], role);
            if (!dup)
                roles[nr++] = role;
        }
    }
    qsort(roles, nr, sizeof(roles[0]), cmp_str);
    char rolestr[256] = "";
    for (size_t j = 0; j < nr; j++) {
        if (j)
            strncat(rolestr, ",", sizeof(rolestr) - strlen(rolestr) - 1);
        strncat(rolestr, roles[j], sizeof(rolestr) - strlen(rolestr) - 1);
    }
    json_t *info = sl_kube_path(node, "status.nodeInfo");
    return json_pack("[s, s, s, o, s, s, s, s, s, s]", name_of(node), status,
                     str_or(rolestr, "<none>"), age_cell(node, now),
                     str_or(sget(info, "kubeletVersion"), ""), node_address(node, "InternalIP"),
                     node_address(node, "ExternalIP"), str_or(sget(info, "osImage"), "<unknown>"),
                     str_or(sget(info, "kernelVersion"), "<unknown>"),
                     str_or(sget(info, "containerRuntimeVersion"), "<unknown>"));
}

/* ---- events ---- */

json_t *api_event_columns(void)
{
    return json_pack(
        "[o, o, o, o, o, o, o, o, o, o]",
        col("Last Seen", "string", "",
            "The time at which the most recent occurrence of this event was recorded.", 0),
        col("Type", "string", "",
            "Type of this event (Normal, Warning), new types could be added "
            "in the future",
            0),
        col("Reason", "string", "",
            "This should be a short, machine understandable string that gives the reason for the "
            "transition into the object's current status.",
            0),
        col("Object", "string", "", "The object that this event is about.", 0),
        col("Subobject", "string", "",
            "If referring to a piece of an object instead of an entire object, this string "
            "should contain a valid JSON/Go field access statement, such as "
            "desiredState.manifest.containers[2].",
            1),
        col("Source", "string", "",
            "The component reporting this event. Should be a short machine understandable string.",
            1),
        col("Message", "string", "",
            "A human-readable description of the status of this operation.", 0),
        col("First Seen", "string", "",
            "The time at which the event was first recorded. (Time of server receipt is in "
            "TypeMeta.)",
            1),
        col("Count", "string", "", "The number of times this event has occurred.", 1),
        col("Name", "string", "name", DESC_NAME, 1));
}

json_t *api_event_cells(json_t *ev, long long now)
{
    char first[32], last[32];
    const char *ft = sget(ev, "firstTimestamp");
    if (!ft)
        ft = sget(ev, "eventTime");
    sl_kube_age(ft, now, first, sizeof(first));
    const char *lt = sget(ev, "lastTimestamp");
    if (lt)
        sl_kube_age(lt, now, last, sizeof(last));
    else
        snprintf(last, sizeof(last), "%s", first);
    long long count = json_integer_value(json_object_get(ev, "count"));
    json_t *series = json_object_get(ev, "series");
    if (series) {
        sl_kube_age(sget(series, "lastObservedTime"), now, last, sizeof(last));
        count = json_integer_value(json_object_get(series, "count"));
    } else if (count == 0) {
        count = 1;
    }
    json_t *io = json_object_get(ev, "involvedObject");
    char target[512];
    char kind[128];
    snprintf(kind, sizeof(kind), "%s", str_or(sget(io, "kind"), ""));
    for (char *p = kind; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    if (sget(io, "name") && *sget(io, "name"))
        snprintf(target, sizeof(target), "%s/%s", kind, sget(io, "name"));
    else
        snprintf(target, sizeof(target), "%s", kind);
    json_t *src = json_object_get(ev, "source");
    const char *comp = str_or(sget(src, "component"), str_or(sget(ev, "reportingComponent"), ""));
    const char *inst = str_or(sget(src, "host"), str_or(sget(ev, "reportingInstance"), ""));
    char source[256];
    if (*inst)
        snprintf(source, sizeof(source), "%s, %s", comp, inst);
    else
        snprintf(source, sizeof(source), "%s", comp);
    /* strings.TrimSpace(message) */
    const char *msg = str_or(sget(ev, "message"), "");
    while (*msg == ' ' || *msg == '\n' || *msg == '\t' || *msg == '\r')
        msg++;
    size_t ml = strlen(msg);
    while (ml && (msg[ml - 1] == ' ' || msg[ml - 1] == '\n' || msg[ml - 1] == '\t' ||
                  msg[ml - 1] == '\r'))
        ml--;
    return json_pack("[s, s, s, s, s, s, s%, s, I, s]", last, str_or(sget(ev, "type"), ""),
                     str_or(sget(ev, "reason"), ""), target, str_or(sget(io, "fieldPath"), ""),
                     source, msg, ml, first, (json_int_t)count, name_of(ev));
}

/* ---- namespaces, configmaps, secrets, serviceaccounts ---- */

json_t *api_namespace_columns(void)
{
    return json_pack("[o, o, o]", col_name(),
                     col("Status", "string", "", "The status of the namespace", 0), col_age());
}

json_t *api_namespace_cells(json_t *o, long long now)
{
    return json_pack("[s, s, o]", name_of(o), str_or(sl_kube_path_str(o, "status.phase"), ""),
                     age_cell(o, now));
}

json_t *api_configmap_columns(void)
{
    return json_pack("[o, o, o]", col_name(),
                     col("Data", "string", "", "Data contains the configuration data.", 0),
                     col_age());
}

json_t *api_configmap_cells(json_t *o, long long now)
{
    json_int_t n = (json_int_t)(json_object_size(json_object_get(o, "data")) +
                                json_object_size(json_object_get(o, "binaryData")));
    return json_pack("[s, I, o]", name_of(o), n, age_cell(o, now));
}

json_t *api_secret_columns(void)
{
    return json_pack("[o, o, o, o]", col_name(),
                     col("Type", "string", "",
                         "Used to facilitate programmatic handling of secret "
                         "data.",
                         0),
                     col("Data", "string", "", "Data contains the secret data.", 0), col_age());
}

json_t *api_secret_cells(json_t *o, long long now)
{
    json_int_t n = (json_int_t)json_object_size(json_object_get(o, "data"));
    return json_pack("[s, s, I, o]", name_of(o), str_or(sget(o, "type"), ""), n, age_cell(o, now));
}

json_t *api_serviceaccount_columns(void)
{
    return json_pack("[o, o, o]", col_name(),
                     col("Secrets", "string", "",
                         "Secrets is a list of the secrets in the same namespace that pods "
                         "running using this ServiceAccount are allowed to use.",
                         0),
                     col_age());
}

json_t *api_serviceaccount_cells(json_t *o, long long now)
{
    json_int_t n = (json_int_t)json_array_size(json_object_get(o, "secrets"));
    return json_pack("[s, I, o]", name_of(o), n, age_cell(o, now));
}

json_t *api_resourcequota_columns(void)
{
    return json_pack("[o, o, o, o]", col_name(), col_age(),
                     col("Request", "string", "",
                         "Request represents a minimum amount of cpu/memory that a container may "
                         "consume.",
                         0),
                     col("Limit", "string", "",
                         "Limits control the maximum amount of cpu/memory that a container may use "
                         "independent of contention on the node.",
                         0));
}

/* A quantity of a ResourceList as Quantity.String() prints it ("0" when
 * absent or malformed). Caller frees. */
static char *quantity_text(json_t *list, const char *name)
{
    sl_quantity_t q = {0, SL_QF_DECIMAL_SI, 0};
    json_t *v = json_object_get(list, name);
    if (v && sl_quantity_from_json(v, &q, NULL, NULL) < 0)
        q = (sl_quantity_t){0, SL_QF_DECIMAL_SI, 0};
    return sl_quantity_string(&q);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* printResourceQuota: "used/hard" per resource of status.hard, sorted by
 * name; limits.* go to LIMIT, everything else to REQUEST. */
json_t *api_resourcequota_cells(json_t *o, long long now)
{
    json_t *hard = sl_kube_path(o, "status.hard"), *used = sl_kube_path(o, "status.used");
    size_t n = json_object_size(hard), i = 0;
    const char **names = sl_xcalloc(n + 1, sizeof(char *));
    const char *k;
    json_t *v;
    json_object_foreach(hard, k, v) names[i++] = k;
    qsort(names, n, sizeof(char *), cmp_name);
    sl_buf_t req = SL_BUF_INIT, lim = SL_BUF_INIT;
    for (i = 0; i < n; i++) {
        sl_buf_t *w = !strncmp(names[i], "limits.", 7) ? &lim : &req;
        char *u = quantity_text(used, names[i]), *h = quantity_text(hard, names[i]);
        sl_buf_printf(w, "%s%s: %s/%s", w->len ? ", " : "", names[i], u, h);
        free(u);
        free(h);
    }
    free(names);
    json_t *row = json_pack("[s, o, s, s]", name_of(o), age_cell(o, now), req.len ? req.data : "",
                            lim.len ? lim.data : "");
    sl_buf_free(&req);
    sl_buf_free(&lim);
    return row;
}
