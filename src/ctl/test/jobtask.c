/* jobtask — the links a Job's array tasks wait for, and the batch script
 * every task runs (run here by bash: a task whose link is there runs its
 * pod's job.sh in the pod's folder, job.out appended). */
#include "ctl/jobtask.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return sl_xstrdup("");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return sl_xstrdup(buf);
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* the script of K.C run as task `task`: its exit status, output in *out */
static int run_task(const char *root, json_t *job, const char *task, char **out)
{
    char *script = ctl_jobtask_script(root, job, 2, 1);
    char *path = sl_xasprintf("%s/batch.sh", root),
         *env = sl_xasprintf("SLURM_ARRAY_TASK_ID=%s", task);
    spit(path, script);
    const char *argv[] = {"/bin/bash", path, NULL};
    const char *envp[] = {env, "PATH=/usr/bin:/bin", NULL};
    int rc = sl_run(argv, envp, 1, 30000, out, NULL);
    free(script);
    free(path);
    free(env);
    return rc;
}

int main(void)
{
    tap_plan(12);
    char tmpl[] = "/tmp/jobtask.XXXXXX";
    const char *root = mkdtemp(tmpl);
    const char *uid = "0b1c2d3e-0000-4000-8000-000000000001";
    json_t *job =
        json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "it's", "namespace", "ns", "uid", uid);

    ok(!ctl_jobtask_claimed(root, uid, 2, 1, 3) && !ctl_jobtask_linked(root, uid, 2, 1, 3),
       "a task has neither mark nor link at first");
    ok(ctl_jobtask_claim(root, uid, 2, 1, 3, NULL) == 0 &&
           ctl_jobtask_claimed(root, uid, 2, 1, 3) && !ctl_jobtask_linked(root, uid, 2, 1, 3),
       "its mark: claimed, not linked");
    ctl_jobtask_unclaim(root, uid, 2, 1, 3);
    ok(!ctl_jobtask_claimed(root, uid, 2, 1, 3), "unclaimed (its pod refused): no mark");
    ok(ctl_jobtask_claim(root, uid, 2, 1, 3, NULL) == 0 && ctl_jobtask_claimed(root, uid, 2, 1, 3),
       "claimed again");
    char *pod = sl_xasprintf("%s/pod dir", root), *sh = sl_xasprintf("%s/job.sh", pod);
    mkdir(pod, 0755);
    spit(sh, "echo \"ran in $PWD as task $SLURM_ARRAY_TASK_ID\"\n");
    ok(ctl_jobtask_link(root, uid, 2, 1, 3, pod, NULL) == 0 &&
           ctl_jobtask_linked(root, uid, 2, 1, 3),
       "the link made");
    ok(ctl_jobtask_link(root, uid, 2, 1, 3, pod, NULL) == 0, "made again, it is replaced");
    ok(!ctl_jobtask_claimed(root, uid, 2, 0, 3) && !ctl_jobtask_claimed(root, uid, 1, 1, 3),
       "another chunk's or submission's task 3 is not claimed");
    struct stat st;
    char *dir = sl_xasprintf("%s/.job-tasks/%s/2.1", root, uid);
    char *idx = sl_xasprintf("%s/.job-tasks", root);
    struct stat ist;
    /* reached by path by the task's user, never listed: no Job's uid shown */
    ok(stat(dir, &st) == 0 && (st.st_mode & 07777) == 0711 && stat(idx, &ist) == 0 &&
           (ist.st_mode & 07777) == 0711,
       "the index and the link folder are 0711");
    free(idx);

    char *out = NULL;
    int rc = run_task(root, job, "3", &out);
    char *log = sl_xasprintf("%s/job.out", pod), *got = slurp(log);
    char *want = sl_xasprintf("ran in %s as task 3\n", pod);
    ok(rc == 0 && !strcmp(got, want), "task 3 runs its pod's job.sh in the pod folder (rc %d: %s)",
       rc, got);
    free(out);
    free(got);
    rc = run_task(root, job, "3", &out);
    got = slurp(log);
    ok(rc == 0 && strlen(got) == 2 * strlen(want), "job.out is appended to");
    char *script = ctl_jobtask_script(root, job, 2, 1);
    ok(strstr(script, "no pod for array task") && strstr(script, "i < 120"),
       "without a link a task waits 120 s, then says so");

    ctl_jobtask_remove(root, uid);
    char *jd = sl_xasprintf("%s/.job-tasks/%s", root, uid);
    ok(lstat(jd, &st) < 0 && stat(sh, &st) == 0, "removed: the links go, the pod folder stays");

    free(script);
    free(out);
    free(got);
    free(want);
    free(log);
    free(jd);
    free(dir);
    free(sh);
    free(pod);
    json_decref(job);
    char *rm = sl_xasprintf("%s", root);
    const char *argv[] = {"/bin/rm", "-rf", rm, NULL};
    sl_run(argv, NULL, 1, 30000, NULL, NULL);
    free(rm);
    return tap_done();
}
