/* podstore: the controller's pod writes carry the uid as a precondition: a
 * pod deleted and created again under the same name is not touched. */
#include "common/tap.h"
#include "ctl/internal.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int mark(json_t *pod, void *arg)
{
    sl_kube_set_annotation(pod, SL_ANN_JOB_ID, arg);
    return 1;
}

static char *create(sl_store_t *s, const char *cmd)
{
    json_t *pod = json_pack("{s:s, s:{s:s, s:s}, s:{s:[{s:s, s:[s]}]}}", "kind", "Pod", "metadata",
                            "name", "same", "namespace", "default", "spec", "containers", "name",
                            "main", "command", cmd);
    sl_store_create(s, "pods", pod, NULL);
    char *uid = strdup(sl_kube_uid(pod));
    json_decref(pod);
    return uid;
}

int main(void)
{
    tap_plan(12);
    char dir[] = "/tmp/sl-podstore.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[64];
    snprintf(path, sizeof(path), "%s/db", dir);
    sl_ctl_t c = {0};
    c.store = sl_store_open(path, NULL);
    ok(c.store != NULL, "store opened");
    char *old = create(c.store, "old");
    ok(ctl_pod_mutate(&c, "default", "same", old, mark, "1", NULL, NULL) == 0,
       "a write with the pod's own uid is stored");
    sl_store_delete(c.store, "pods", "default", "same", 0, NULL, NULL);
    char *new = create(c.store, "new");
    ok(strcmp(old, new) != 0, "the pod created again under the same name has another uid");

    sl_error_t err = SL_ERROR_INIT;
    errno = 0;
    ok(ctl_pod_mutate(&c, "default", "same", old, mark, "1", NULL, &err) < 0 && errno == ENOENT,
       "a write for the old uid: ENOENT");
    ok(strstr(err.text, "pod default/same with uid ") == err.text && strstr(err.text, " is gone"),
       "... saying the pod is gone: %s", err.text);
    json_t *got = sl_store_get(c.store, "pods", "default", "same");
    ok(sl_kube_annotation(got, SL_ANN_JOB_ID) == NULL, "the new pod has no job id from it");
    json_decref(got);
    errno = 0;
    ok(ctl_pod_get(&c, "default", "same", old) == NULL && errno == ENOENT,
       "a read for the old uid: none");
    got = ctl_pod_get(&c, "default", "same", new);
    ok(got != NULL, "a read for the new uid: the new pod");
    json_decref(got);
    errno = 0;
    ok(ctl_pod_delete(&c, "default", "same", old, NULL, NULL) < 0 && errno == ENOENT,
       "a delete for the old uid: ENOENT");
    got = sl_store_get(c.store, "pods", "default", "same");
    ok(got != NULL, "... and the new pod is still stored");
    json_decref(got);
    ok(ctl_pod_delete(&c, "default", "same", new, NULL, NULL) == 0, "a delete for the new uid");
    got = sl_store_get(c.store, "pods", "default", "same");
    ok(got == NULL, "... removes it");
    json_decref(got);
    sl_store_close(c.store);
    free(old);
    free(new);
    static const char *const tails[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
        char f[96];
        snprintf(f, sizeof(f), "%s%s", path, tails[i]);
        unlink(f);
    }
    rmdir(dir);
    return tap_done();
}
