/* sweep.c — pod folders whose pods are no longer stored, at start-up
 * (internal.h, ctl_sweep_folders).
 *
 * A pod's folder goes when the controller reads the pod's DELETED change,
 * or at once when it removed the pod itself (ctl.c finish_delete); the
 * removal runs on the remover's thread, from a queue in memory. A crash
 * between the pod's removal from the store and that of its folder leaves
 * the folder; one between a force delete (the API removes the pod at once)
 * and the controller's reading of it leaves the job running too, as the
 * restarted controller lists the stored pods and not the changes before.
 *
 * Once the first job poll is in, each folder PODS/NS/NAME-UID whose UID is
 * neither a pod of the table nor a stored pod is handled as its DELETED
 * change would have been (ctl.c handle_pod): the pod's active job is
 * cancelled and the folder removed. The job is found by its comment: a
 * pod's own carries slurmlink:uid=UID; a Job's pod is the array task its
 * link PODS/.job-tasks/JOBUID/K.C/TASK names (comment slurmlink:uid=JOBUID
 * slurmlink:submission=K.C, task TASK); a gang's late member, linked as
 * PODS/.job-tasks/OWNER/K.0/RANK, is in the gang's job (slurmlink:uid=OWNER
 * slurmlink:gang=K), which is cancelled as a replica pod's deletion
 * cancels it. The empty folder of a namespace no longer stored goes too.
 * When slurmctld does not answer the list or a cancel, no folder goes (a
 * job may still run in it) and the controller sweeps again a few seconds
 * later, until it is done. */
#include "common/fault.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "ctl/remover.h"
#include "kube/meta.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { UID_LEN = 36 };

/* the UID of a folder named NAME-UID, or NULL */
static const char *folder_uid(const char *entry)
{
    size_t n = strlen(entry);
    if (n < UID_LEN + 2 || entry[n - UID_LEN - 1] != '-')
        return NULL;
    const char *u = entry + n - UID_LEN;
    for (size_t i = 0; i < UID_LEN; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? u[i] != '-' : !strchr("0123456789abcdef", u[i]))
            return NULL;
    }
    return u;
}

/* the folders the links in dir (PODS/.job-tasks/OWNER/K.C) point at: each
 * one's uid in out, with the keys of the jobs that may run in it */
static void links_in(const char *dir, json_t *out)
{
    const char *kc = strrchr(dir, '/');
    const char *owner = kc ? kc - 1 : dir;
    while (owner > dir && owner[-1] != '/')
        owner--;
    if (!kc || owner == kc)
        return;
    char *ouid = sl_xstrndup(owner, (size_t)(kc - owner));
    long long k = atoll(kc + 1);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *link = sl_xasprintf("%s/%s", dir, e->d_name), target[PATH_MAX];
        ssize_t n = e->d_name[0] == '.' ? -1 : readlink(link, target, sizeof(target) - 1);
        free(link);
        if (n <= 0)
            continue;
        target[n] = '\0';
        const char *slash = strrchr(target, '/');
        const char *u = folder_uid(slash ? slash + 1 : target);
        if (u)
            json_object_set_new(out, u,
                                json_pack("[oo]",
                                          json_sprintf("task %s %s %s", ouid, kc + 1, e->d_name),
                                          json_sprintf("gang %s %lld", ouid, k)));
    }
    if (d)
        closedir(d);
    free(ouid);
}

/* fn on each folder in dir (not those whose names start with a dot) */
static void each_subdir(const char *dir, void (*fn)(const char *, json_t *), json_t *out)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *sub = sl_xasprintf("%s/%s", dir, e->d_name);
        fn(sub, out);
        free(sub);
    }
    if (d)
        closedir(d);
}

/* the task links of one owner: PODS/.job-tasks/OWNER/K.C/TASK */
static void owner_links(const char *dir, json_t *out) { each_subdir(dir, links_in, out); }

/* the uids of the folders the task links point at */
static void linked_uids(const char *root, json_t *out)
{
    char *top = sl_xasprintf("%s/.job-tasks", root);
    each_subdir(top, owner_links, out);
    free(top);
}

/* a folder's pod is known: in the table, or stored with that uid */
static int pod_known(sl_ctl_t *c, const char *ns, const char *name, const char *uid)
{
    pthread_mutex_lock(&c->lock);
    int known = ctl_pod_find(c, uid) != NULL;
    pthread_mutex_unlock(&c->lock);
    if (known)
        return 1;
    json_t *pod = sl_store_get(c->store, "pods", ns, name);
    const char *have = pod ? sl_kube_uid(pod) : NULL;
    known = have && !strcmp(have, uid);
    json_decref(pod);
    return known;
}

/* the folders of namespace ns whose pods are gone into gone ([ns, name,
 * uid]); the keys of the jobs that may run in them into keys (each key: the
 * folder's index in gone) */
static void gone_in(sl_ctl_t *c, const char *ns, json_t *linked, json_t *gone, json_t *keys)
{
    char *dir = sl_xasprintf("%s/%s", c->o.pods_root, ns);
    DIR *d = opendir(dir);
    free(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *uid = folder_uid(e->d_name);
        if (!uid)
            continue;
        char *name = sl_xstrndup(e->d_name, (size_t)(uid - 1 - e->d_name));
        if (!pod_known(c, ns, name, uid)) {
            json_t *at = json_integer((json_int_t)json_array_size(gone));
            json_array_append_new(gone, json_pack("[sss]", ns, name, uid));
            char key[128];
            snprintf(key, sizeof(key), "pod %s", uid);
            json_object_set(keys, key, at);
            size_t i;
            json_t *k;
            json_array_foreach(json_object_get(linked, uid), i, k)
                json_object_set(keys, json_string_value(k), at);
            json_decref(at);
        }
        free(name);
    }
    if (d)
        closedir(d);
}

/* the key a job's comment gives it (see the top) and the uid it carries
 * (uid_len bytes), or 0 */
static int job_key(const sl_slurm_job_t *j, char *key, size_t len, char *uid, size_t uid_len)
{
    long long sub;
    unsigned chunk;
    if (!ctl_comment_uid(j->comment, uid, uid_len))
        return 0;
    const char *gang = strstr(j->comment, "slurmlink:gang=");
    if (j->array_job_id && ctl_comment_submission(j->comment, &sub, &chunk))
        snprintf(key, len, "task %s %lld.%u %u", uid, sub, chunk, j->array_task_id);
    else if (j->array_job_id)
        return 0;
    else if (gang)
        snprintf(key, len, "gang %s %lld", uid, atoll(gang + strlen("slurmlink:gang=")));
    else
        snprintf(key, len, "pod %s", uid);
    return 1;
}

/* each active job that runs a gone pod cancelled (ctl_job_kill checks its
 * comment once more), how many in *cancelled; -1 when slurmctld did not
 * answer the list or a cancel (the sweep is tried again) */
static int cancel_jobs(json_t *gone, json_t *keys, size_t *cancelled)
{
    sl_slurm_jobs_t *jobs = NULL;
    sl_error_t err = SL_ERROR_INIT;
    *cancelled = 0;
    if (sl_slurm_jobs_load(NULL, &jobs, &err) < 0) {
        sl_warn("the pod folders' sweep: %s", err.text);
        return -1;
    }
    size_t n = 0;
    int again = 0;
    for (size_t i = 0; i < sl_slurm_jobs_count(jobs); i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jobs, i);
        char key[256], uid[128];
        json_t *at;
        if (!ctl_job_active(j->state) || !job_key(j, key, sizeof(key), uid, sizeof(uid)) ||
            !(at = json_object_get(keys, key)))
            continue;
        json_t *pod = json_array_get(gone, (size_t)json_integer_value(at));
        const char *ns = json_string_value(json_array_get(pod, 0));
        const char *name = json_string_value(json_array_get(pod, 1));
        if (ctl_job_kill(ns, name, uid, j->job_id, SIGKILL) == 0) {
            sl_info("pod %s/%s, no longer stored: its Slurm job %u cancelled", ns, name, j->job_id);
            n++;
        } else if (sl_slurm_retryable(errno)) {
            again = 1;
        }
    }
    sl_slurm_jobs_free(jobs);
    *cancelled = n;
    return again ? -1 : 0;
}

/* The folder PODS/NS of a namespace no longer stored, removed when empty
 * (its pods' folders went before; one that gone_in found is removed after,
 * and its namespace's folder at the next start). No pod is made in a
 * namespace that is not stored; a namespace made again makes it again. */
static int ns_folder_gone(sl_ctl_t *c, int root_fd, const char *ns)
{
    json_t *o = sl_store_get(c->store, "namespaces", NULL, ns);
    json_decref(o);
    return !o && unlinkat(root_fd, ns, AT_REMOVEDIR) == 0;
}

int ctl_sweep_folders(sl_ctl_t *c)
{
    SL_FAULT("sweep-listing"); /* the test build: slurmctld stopped before the sweep's list */
    DIR *d = opendir(c->o.pods_root);
    if (!d)
        return 0;
    json_t *linked = json_object(), *gone = json_array(), *keys = json_object();
    linked_uids(c->o.pods_root, linked);
    struct dirent *e;
    size_t emptied = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        gone_in(c, e->d_name, linked, gone, keys);
        emptied += ns_folder_gone(c, dirfd(d), e->d_name);
    }
    closedir(d);
    if (emptied)
        sl_info("removed %zu empty folder%s of namespaces no longer stored", emptied,
                emptied == 1 ? "" : "s");
    size_t n = json_array_size(gone), cancelled = 0;
    int again = n && cancel_jobs(gone, keys, &cancelled) < 0;
    if (again) /* a job may still run in them: they stay until it is cancelled */
        sl_info("found %zu pod folder%s whose pods are no longer stored: %zu job%s cancelled, "
                "slurmctld did not answer for the rest; the folders stay and the sweep is tried "
                "again",
                n, n == 1 ? "" : "s", cancelled, cancelled == 1 ? "" : "s");
    else if (n)
        sl_info("found %zu pod folder%s whose pods are no longer stored (a crash before their "
                "deletion was handled): %zu job%s cancelled, the folders removed",
                n, n == 1 ? "" : "s", cancelled, cancelled == 1 ? "" : "s");
    size_t i;
    json_t *k;
    json_array_foreach(again ? NULL : gone, i, k)
    {
        ctl_remover_push(c->remover, ctl_pod_dir(c, json_string_value(json_array_get(k, 0)),
                                                 json_string_value(json_array_get(k, 1)),
                                                 json_string_value(json_array_get(k, 2))));
    }
    json_decref(linked);
    json_decref(gone);
    json_decref(keys);
    return again ? -1 : 0;
}
