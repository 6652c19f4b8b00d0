/* bench: store timings with 10,000 pods (SL_BENCH_PODS to change), printed
 * as TAP comments ("# bench ..."); only correctness is asserted, never time,
 * so the numbers can be read from any test run. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "store/store.h"

#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, double *t, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += t[i];
    qsort(t, n, sizeof *t, cmp_d);
    printf("# bench %-28s n=%-6zu avg=%9.1f us  p50=%9.1f us  p99=%9.1f us  total=%8.1f ms\n", what,
           n, sum / n, t[n / 2], t[(n * 99) / 100], sum / 1000);
}

/* A pod of realistic size (~1.6 KB): what the API layer stores after defaults. */
static json_t *pod(int i)
{
    char name[32], ns[16];
    snprintf(name, sizeof name, "job-%05d", i);
    snprintf(ns, sizeof ns, "team%d", i % 10);
    return json_pack(
        "{s:s,s:s,s:{s:s,s:s,s:{s:s,s:s},s:{s:s}},"
        "s:{s:[{s:s,s:s,s:[s,s,s],s:[{s:s,s:s},{s:s,s:s}],s:{s:{s:s,s:s,s:s},s:{s:s,s:s}},"
        "s:[{s:s,s:s}],s:s,s:s,s:s}],s:s,s:i,s:s,s:s,s:s,s:b,s:[{s:s,s:{}}]},"
        "s:{s:s,s:[{s:s,s:s,s:s},{s:s,s:s,s:s}],s:s,s:s}}",
        "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "namespace", ns, "labels",
        "app", "train", "team", ns, "annotations", "slurm.slurmlink.io/partition", "gpu", "spec",
        "containers", "name", "main", "image", "docker.io/pytorch/pytorch:2.3.0", "command",
        "python", "-m", "train", "env", "name", "EPOCHS", "value", "10", "name", "DATA", "value",
        "/data/imagenet", "resources", "limits", "cpu", "8", "memory", "32Gi", "nvidia.com/gpu",
        "1", "requests", "cpu", "8", "memory", "32Gi", "volumeMounts", "name", "scratch",
        "mountPath", "/scratch", "imagePullPolicy", "IfNotPresent", "terminationMessagePath",
        "/dev/termination-log", "terminationMessagePolicy", "File", "restartPolicy", "Never",
        "terminationGracePeriodSeconds", 30, "dnsPolicy", "ClusterFirst", "schedulerName",
        "default-scheduler", "serviceAccountName", "default", "enableServiceLinks", 1, "volumes",
        "name", "scratch", "emptyDir", "status", "phase", "Pending", "conditions", "type",
        "PodScheduled", "status", "False", "reason", "Unschedulable", "type", "Ready", "status",
        "False", "reason", "ContainersNotReady", "qosClass", "Guaranteed", "message",
        "Slurm job 12345 pending: Resources");
}

static int count_raw(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    (void)json;
    *(size_t *)arg += len;
    return 0;
}

/* the writer lock's hold since w0, per write, in us */
static double held_us(sl_store_t *s, const sl_store_lockstat_t *w0, int n)
{
    sl_store_lockstat_t w, r;
    sl_store_lock_stats(s, &w, &r);
    return (double)(w.held_ns - w0->held_ns) / 1e3 / n;
}

static int set_job(json_t *obj, void *arg)
{
    json_object_set_new(json_object_get(obj, "status"), "jobId", json_integer(*(int *)arg));
    return 1;
}

/* the controller's job-id batches (src/ctl/submit.c: record_jobs), 64 pods a
 * transaction, from offset `from` of n pods: as sl_store_mutate calls under
 * the lock (the baseline), or written from drafts made before it; the
 * writer's hold per pod, printed */
static void job_batches(sl_store_t *s, int n, int from, int drafted)
{
    enum { B = 64 };
    sl_store_lockstat_t w0, r0;
    int fails = 0, count = 0, jobs[B];
    double spent = 0;
    sl_store_lock_stats(s, &w0, &r0);
    for (int i = from; i + B <= from + n; i += B) {
        sl_store_draft_t *d[B] = {0};
        char names[B][32], nss[B][16];
        for (int k = 0; k < B; k++) {
            snprintf(names[k], sizeof names[k], "job-%05d", i + k);
            snprintf(nss[k], sizeof nss[k], "team%d", (i + k) % 10);
            jobs[k] = 1000 + i + k;
            if (drafted) { /* a worker's: the pod it read, its draft */
                json_t *p = sl_store_get(s, "pods", nss[k], names[k]);
                d[k] = sl_store_draft_of("pods", p, set_job, &jobs[k]);
                json_decref(p);
            }
        }
        double a = now_us();
        sl_store_txn_begin(s, NULL);
        for (int k = 0; k < B; k++)
            fails += (drafted ? sl_store_draft_write(s, d[k], NULL, NULL)
                              : sl_store_mutate(s, "pods", nss[k], names[k], set_job, &jobs[k],
                                                NULL, NULL)) < 0;
        fails += sl_store_txn_commit(s, NULL) < 0;
        spent += now_us() - a;
        count += B;
        for (int k = 0; k < B; k++)
            sl_store_draft_free(d[k]);
    }
    is_int(fails, 0, "%d job ids written in batches of 64, %s", count,
           drafted ? "from drafts" : "by mutate");
    printf("# bench %-28s n=%-6d writer held %6.1f us per pod (batch %6.1f us per pod)\n",
           drafted ? "job ids, drafted" : "job ids, mutate (baseline)", count,
           held_us(s, &w0, count), spent / count);
}

static int set_running(json_t *obj, void *arg)
{
    (void)arg;
    json_object_set_new(json_object_get(obj, "status"), "phase", json_string("Running"));
    return 1;
}

int main(void)
{
    const char *env = getenv("SL_BENCH_PODS");
    int n = env ? atoi(env) : 10000;
    if (n < 100)
        n = 100;
    char dir[] = "/tmp/sl-store-bench.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char *path = sl_xasprintf("%s/store.db", dir);
    sl_store_t *s = sl_store_open(path, NULL);
    ok(s != NULL, "open");
    double *t = sl_xcalloc((size_t)n + 1, sizeof *t);

    int fails = 0;
    sl_store_lockstat_t w0, r0;
    sl_store_lock_stats(s, &w0, &r0);
    for (int i = 0; i < n; i++) {
        json_t *p = pod(i);
        double t0 = now_us();
        if (sl_store_create(s, "pods", p, NULL) < 0)
            fails++;
        t[i] = now_us() - t0;
        json_decref(p);
    }
    is_int(fails, 0, "%d creates", n);
    report("create (one txn each)", t, (size_t)n);
    printf("# bench %-28s writer held %6.1f us per create\n", "create (one txn each)",
           held_us(s, &w0, n));
    /* the same pods' job ids, by mutate, then others from drafts */
    int jb = n / 2 < 2048 ? n / 2 : 2048;
    job_batches(s, jb, 0, 0);
    job_batches(s, jb, n / 2, 1);

    json_t *sample = sl_store_get(s, "pods", "team0", "job-00000");
    char *txt = json_dumps(sample, JSON_COMPACT);
    printf("# bench pod size: %zu bytes of JSON\n", strlen(txt));
    free(txt);
    json_decref(sample);

    /* batched creates: 1,000 in one transaction */
    double t0 = now_us();
    sl_store_txn_begin(s, NULL);
    for (int i = 0; i < 1000; i++) {
        json_t *p = pod(n + i);
        json_object_set_new(json_object_get(p, "metadata"), "namespace", json_string("batch"));
        sl_store_create(s, "pods", p, NULL);
        json_decref(p);
    }
    sl_store_txn_commit(s, NULL);
    printf("# bench %-28s n=1000   avg=%9.1f us per create\n", "create (batch of 1000)",
           (now_us() - t0) / 1000);
    json_t *gone = sl_store_list(s, "pods", "batch", NULL);
    is_int(json_array_size(gone), 1000, "batch stored");
    for (size_t i = 0; i < json_array_size(gone); i++)
        sl_store_delete(s, "pods", "batch", sl_kube_name(json_array_get(gone, i)), 0, NULL, NULL);
    json_decref(gone);

    int runs = 5;
    for (int r = 0; r < runs; r++) {
        double a = now_us();
        json_t *l = sl_store_list(s, "pods", NULL, NULL);
        t[r] = now_us() - a;
        if (r == 0)
            is_int(json_array_size(l), n, "list returns every pod");
        json_decref(l);
    }
    report("list all, parsed", t, (size_t)runs);
    size_t bytes = 0;
    for (int r = 0; r < runs; r++) {
        double a = now_us();
        bytes = 0;
        sl_store_list_each(s, "pods", NULL, count_raw, &bytes, NULL);
        t[r] = now_us() - a;
    }
    report("list all, raw text", t, (size_t)runs);
    printf("# bench list size: %.1f MB of JSON\n", bytes / 1e6);
    for (int r = 0; r < runs; r++) {
        double a = now_us();
        json_t *l = sl_store_list(s, "pods", "team3", NULL);
        t[r] = now_us() - a;
        json_decref(l);
    }
    report("list one namespace (10%)", t, (size_t)runs);

    int m = n < 2000 ? n : 2000;
    fails = 0;
    for (int i = 0; i < m; i++) {
        char name[32], ns[16];
        int k = (i * 7919) % n;
        snprintf(name, sizeof name, "job-%05d", k);
        snprintf(ns, sizeof ns, "team%d", k % 10);
        double a = now_us();
        json_t *p = sl_store_get(s, "pods", ns, name);
        t[i] = now_us() - a;
        if (!p)
            fails++;
        json_decref(p);
    }
    is_int(fails, 0, "gets find every pod");
    report("get", t, (size_t)m);

    fails = 0;
    for (int i = 0; i < m; i++) {
        char name[32], ns[16];
        snprintf(name, sizeof name, "job-%05d", i);
        snprintf(ns, sizeof ns, "team%d", i % 10);
        json_t *p = sl_store_get(s, "pods", ns, name);
        sl_kube_set_label(p, "step", "2");
        double a = now_us();
        if (sl_store_update(s, "pods", p, sl_kube_rv(p), NULL) < 0)
            fails++;
        t[i] = now_us() - a;
        json_decref(p);
    }
    is_int(fails, 0, "updates with the current rv succeed");
    report("update (rv checked)", t, (size_t)m);

    fails = 0;
    for (int i = 0; i < m; i++) {
        char name[32], ns[16];
        snprintf(name, sizeof name, "job-%05d", i);
        snprintf(ns, sizeof ns, "team%d", i % 10);
        double a = now_us();
        if (sl_store_mutate(s, "pods", ns, name, set_running, NULL, NULL, NULL) < 0)
            fails++;
        t[i] = now_us() - a;
    }
    is_int(fails, 0, "mutates succeed");
    report("mutate (status update)", t, (size_t)m);

    int64_t rev = sl_store_revision(s);
    int64_t from = sl_store_oldest_rv(s);
    for (int r = 0; r < runs; r++) {
        double a = now_us();
        json_t *c = sl_store_changes(s, from, "pods", NULL, 0, NULL);
        t[r] = now_us() - a;
        if (r == 0)
            ok(c && (int64_t)json_array_size(c) == rev - from, "change log read (%lld changes)",
               (long long)(rev - from));
        json_decref(c);
    }
    report("changes: whole log", t, (size_t)runs);
    for (int r = 0; r < runs; r++) {
        double a = now_us();
        json_t *c = sl_store_changes(s, rev - 10, "pods", NULL, 0, NULL);
        t[r] = now_us() - a;
        json_decref(c);
    }
    report("changes: last 10 (watch tick)", t, (size_t)runs);

    sl_store_close(s);
    struct stat st;
    if (stat(path, &st) == 0)
        printf("# bench database file: %.1f MB (+ WAL)\n", st.st_size / 1e6);
    double a = now_us();
    s = sl_store_open(path, NULL);
    printf("# bench %-28s %.1f ms\n", "reopen", (now_us() - a) / 1000);
    is_int(sl_store_revision(s), rev, "revision after reopen");
    sl_store_close(s);
    sl_rm_rf(dir);
    free(path);
    free(t);
    return tap_done();
}
