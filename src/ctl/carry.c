/* carry.c — a gang replica's runs carried over to the pod that replaces it (carry.h). */
#include "ctl/carry.h"
#include "common/log.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "<owner uid>/<pod name>" -> {"runs": SL_ANN_RESTARTS's value, "logs": {container: text}} */
static json_t *carried;
static pthread_mutex_t carried_lock = PTHREAD_MUTEX_INITIALIZER;

static char *carry_key(json_t *owner, json_t *pod)
{
    return sl_xasprintf("%s/%s", sl_kube_uid(owner), sl_kube_name(pod));
}

/* the tail of rel (beneath the pods root) from its first whole line: a
 * regular file of uid with one link, at most CTL_CARRY_LOG_MAX bytes; NULL
 * when there is none */
static json_t *log_tail(int root, const char *rel, uid_t uid)
{
    struct stat st;
    int fd = sl_safefs_open_read(root, rel, uid, &st);
    if (fd < 0)
        return NULL;
    json_t *out = NULL;
    off_t from = st.st_size > CTL_CARRY_LOG_MAX ? st.st_size - CTL_CARRY_LOG_MAX : 0;
    size_t want = (size_t)(st.st_size - from);
    char *buf = st.st_nlink == 1 ? sl_xmalloc(want + 1) : NULL;
    ssize_t n = buf ? pread(fd, buf, want, from) : -1;
    if (n >= 0) {
        const char *start = buf, *nl = from ? memchr(buf, '\n', (size_t)n) : NULL;
        if (from)
            start = nl ? nl + 1 : buf + n;
        out = json_stringn_nocheck(start, (size_t)(buf + n - start));
    }
    free(buf);
    close(fd);
    return out;
}

/* one container status of the failed pod: its next run's count and the
 * failed run (a container not terminated carries nothing) */
static json_t *run_of(json_t *cs)
{
    json_t *t = sl_kube_path(cs, "state.terminated");
    json_t *rc = json_object_get(cs, "restartCount");
    if (!json_is_object(t) || !json_is_integer(json_object_get(t, "exitCode")))
        return NULL;
    json_t *last = json_object();
    static const char *const keep[] = {"exitCode", "signal", "reason", "startedAt", "finishedAt"};
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
        if (json_object_get(t, keep[i]))
            json_object_set(last, keep[i], json_object_get(t, keep[i]));
    return json_pack("{s:I, s:o}", "restartCount",
                     (json_int_t)(json_is_integer(rc) ? json_integer_value(rc) : 0) + 1,
                     "lastTerminated", last);
}

void ctl_carry_save(sl_ctl_t *c, json_t *owner, json_t *pod)
{
    json_t *runs = json_object(), *logs = json_object(), *cs;
    uid_t uid = 0;
    bool known = ctl_run_uid(c, owner, &uid);
    int root = known ? open(c->o.pods_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    size_t i;
    json_array_foreach(sl_kube_path(pod, "status.containerStatuses"), i, cs)
    {
        const char *name = json_string_value(json_object_get(cs, "name"));
        json_t *run = name ? run_of(cs) : NULL;
        if (!run)
            continue;
        char *rel =
            sl_xasprintf("%s/%s-%s/logs/%s/%lld.log", sl_kube_namespace(pod), sl_kube_name(pod),
                         sl_kube_uid(pod), name,
                         (long long)json_integer_value(json_object_get(run, "restartCount")) - 1);
        json_t *text = root >= 0 && !strchr(name, '/') ? log_tail(root, rel, uid) : NULL;
        if (text)
            json_object_set_new(logs, name, text);
        json_object_set_new(runs, name, run);
        free(rel);
    }
    if (root >= 0)
        close(root);
    char *key = carry_key(owner, pod);
    pthread_mutex_lock(&carried_lock);
    if (!carried)
        carried = json_object();
    if (json_object_size(runs) && json_object_size(carried) < CTL_CARRY_MAX)
        json_object_set_new(carried, key, json_pack("{s:O, s:O}", "runs", runs, "logs", logs));
    pthread_mutex_unlock(&carried_lock);
    free(key);
    json_decref(runs);
    json_decref(logs);
}

void ctl_carry_annotate(json_t *owner, json_t *pod)
{
    char *key = carry_key(owner, pod), *v = NULL;
    pthread_mutex_lock(&carried_lock);
    json_t *runs = json_object_get(json_object_get(carried, key), "runs");
    if (runs)
        v = json_dumps(runs, JSON_COMPACT | JSON_SORT_KEYS);
    pthread_mutex_unlock(&carried_lock);
    if (v)
        sl_kube_set_annotation(pod, SL_ANN_RESTARTS, v);
    free(v);
    size_t i;
    json_t *cs;
    json_array_foreach(sl_kube_path(pod, "status.containerStatuses"), i, cs)
        ctl_carry_status(pod, cs); /* its status made already */
    free(key);
}

/* folder name in dirfd, made (owned by uid:gid) or there already; its fd */
static int sub_dir(int dirfd, const char *name, uid_t uid, gid_t gid)
{
    sl_error_t err = SL_ERROR_INIT;
    int fd = sl_safefs_mkdir_excl(dirfd, name, 0750, &err);
    sl_error_clear(&err);
    if (fd >= 0 && fchown(fd, uid, gid) < 0) {
        close(fd);
        return -1;
    }
    return fd >= 0 ? fd : errno == EEXIST ? sl_safefs_opendir(dirfd, name) : -1;
}

/* text as logs/<container>/<n>.log of the pod folder dirfd */
static void write_log(int dirfd, const char *ctr, long long n, json_t *text, uid_t uid, gid_t gid)
{
    int logs = sub_dir(dirfd, "logs", uid, gid);
    int cd = logs >= 0 && !strchr(ctr, '/') ? sub_dir(logs, ctr, uid, gid) : -1;
    char file[32];
    snprintf(file, sizeof(file), "%lld.log", n);
    sl_error_t err = SL_ERROR_INIT;
    if (cd < 0 || sl_safefs_write_excl(cd, file, json_string_value(text), json_string_length(text),
                                       0640, uid, gid, &err) < 0)
        sl_warn("container %s: cannot write its previous log: %s", ctr,
                err.text[0] ? err.text : strerror(errno));
    sl_error_clear(&err);
    if (cd >= 0)
        close(cd);
    if (logs >= 0)
        close(logs);
}

void ctl_carry_logs(sl_ctl_t *c, json_t *owner, json_t *pod, uid_t uid, gid_t gid)
{
    char *key = carry_key(owner, pod);
    pthread_mutex_lock(&carried_lock);
    json_t *e = json_incref(json_object_get(carried, key));
    json_object_del(carried, key);
    pthread_mutex_unlock(&carried_lock);
    free(key);
    json_t *runs = json_object_get(e, "runs"), *text;
    const char *ctr;
    if (!json_object_size(json_object_get(e, "logs"))) {
        json_decref(e);
        return;
    }
    int root = open(c->o.pods_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char *rel =
        sl_xasprintf("%s/%s-%s", sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod));
    int dirfd = root >= 0 ? sl_safefs_opendir(root, rel) : -1;
    json_object_foreach(json_object_get(e, "logs"), ctr, text)
    {
        json_t *n = json_object_get(json_object_get(runs, ctr), "restartCount");
        if (dirfd >= 0 && json_is_integer(n))
            write_log(dirfd, ctr, json_integer_value(n) - 1, text, uid, gid);
    }
    free(rel);
    if (dirfd >= 0)
        close(dirfd);
    if (root >= 0)
        close(root);
    json_decref(e);
}

void ctl_carry_status(json_t *pod, json_t *cs)
{
    const char *v = sl_kube_annotation(pod, SL_ANN_RESTARTS);
    json_t *all = v ? json_loads(v, 0, NULL) : NULL;
    json_t *o = json_object_get(all, json_string_value(json_object_get(cs, "name")));
    json_t *n = json_object_get(o, "restartCount"), *l = json_object_get(o, "lastTerminated");
    if (json_is_integer(n) && json_integer_value(n) > 0)
        json_object_set(cs, "restartCount", n);
    if (json_is_object(l))
        json_object_set_new(cs, "lastState", json_pack("{s:O}", "terminated", l));
    json_decref(all);
}
