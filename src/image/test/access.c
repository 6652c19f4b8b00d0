/* Unit tests: who may read what of the store, and the pulls' processes:
 * the private part of a job's user (root's, group-readable by the job's
 * group only), the use records root's alone (also a uses folder an older
 * version made 0755), their sweep in the private parts, which manifest
 * errors are a registry's answers, and a tool killed when its pull is
 * cancelled. */
#include "common/fsutil.h"
#include "common/proc.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "image/image.h"
#include "image/internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *hex = "abababababababababababababababababababababababababababababababab";

static mode_t mode_of(const char *path, uid_t *uid, gid_t *gid)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return 0;
    if (uid)
        *uid = st.st_uid;
    if (gid)
        *gid = st.st_gid;
    return st.st_mode & 07777;
}

/* a complete digest folder of hex in store */
static void digest(const char *store)
{
    char *dir = sl_xasprintf("%s/sha256/%s/rootfs", store, hex);
    sl_mkdir_p(dir, 0755, NULL);
    char *info = sl_xasprintf("%s/sha256/%s/image.json", store, hex);
    sl_write_file(info, "{}", 2, 0644, NULL);
    free(info);
    free(dir);
}

static int never_live(void *arg, const char *uid)
{
    (void)arg;
    (void)uid;
    return 0;
}

static void private_part(const char *store)
{
    sl_error_t err = SL_ERROR_INIT;
    char *part = sl_image_private_store(store, 4242, 4343, &err);
    char *want = sl_xasprintf("%s/private/4242.4343", store);
    is_str(part, want, "the private part of uid 4242, gid 4343");
    uid_t u = 1;
    gid_t g = 1;
    char *priv = sl_xasprintf("%s/private", store);
    is_int(mode_of(priv, &u, NULL), 0711, "private/ is 0711: nothing to list");
    is_int(u, 0, "  root's");
    is_int(mode_of(part, &u, &g), 0750, "the part is 0750");
    ok(u == 0 && g == 4343, "  root's, group 4343 (the job's): %u:%u", (unsigned)u, (unsigned)g);
    chmod(part, 0777); /* made again: put right */
    free(sl_image_private_store(store, 4242, 4343, &err));
    is_int(mode_of(part, NULL, NULL), 0750, "an existing part is made 0750 again");
    /* a use record in the part, swept like the shared store's */
    digest(part);
    ok(sl_image_use_claim(part,
                          "sha256:abababababababababababababababababababababababababababababababab",
                          "pod-1", "team-b", "b1", &err) == 0,
       "a use record in the private part");
    is_int(sl_image_use_sweep(store, never_live, NULL), 2,
           "the sweep of the store drops it and the shared store's record");
    free(priv);
    free(want);
    free(part);
}

static void use_records(const char *store)
{
    sl_error_t err = SL_ERROR_INIT;
    digest(store);
    char *uses = sl_xasprintf("%s/uses", store);
    sl_mkdir_p(uses, 0755, NULL); /* as an older version left it */
    const char *d = "sha256:abababababababababababababababababababababababababababababababab";
    ok(sl_image_use_claim(store, d, "pod-2", "team-a", "a1", &err) == 0, "a use record");
    is_int(mode_of(uses, NULL, NULL), 0700, "uses/ is 0700 (it was 0755)");
    char *sub = sl_xasprintf("%s/%s", uses, hex), *rec = sl_xasprintf("%s/pod-2", sub);
    is_int(mode_of(sub, NULL, NULL), 0700, "uses/<hex> is 0700");
    is_int(mode_of(rec, NULL, NULL), 0600, "the record is 0600");
    free(rec);
    free(sub);
    free(uses);
}

static void answers(void)
{
    ok(sl_image_registry_answer("reading manifest v1 in r/x: authentication required"),
       "authentication required: the registry's answer");
    ok(sl_image_registry_answer("reading manifest v1 in r/x: manifest unknown"),
       "manifest unknown");
    ok(sl_image_registry_answer("requested access to the resource is denied"), "denied");
    ok(!sl_image_registry_answer("pinging container registry 127.0.0.1:22: Get "
                                 "\"https://127.0.0.1:22/v2/\": dial tcp 127.0.0.1:22: connect: "
                                 "connection refused"),
       "connection refused: not an answer");
    ok(!sl_image_registry_answer("pinging container registry 127.0.0.1:6817: invalid status code "
                                 "from registry 404 (Not Found)"),
       "a non-registry server's 404 while pinging: not an answer");
    ok(!sl_image_registry_answer("pinging container registry x: unauthorized"),
       "anything while pinging: not an answer");
    ok(!sl_image_registry_answer("skopeo: no answer within 30 s"), "a timeout: not an answer");
    ok(!sl_image_registry_answer(NULL), "NULL");
}

static atomic_int flag;

static void *cancel_later(void *arg)
{
    (void)arg;
    sl_sleep_ms(300);
    atomic_store(&flag, 1);
    return NULL;
}

static void cancel(const char *work)
{
    sl_error_t err = SL_ERROR_INIT;
    const char *argv[] = {"sleep", "30", NULL};
    pthread_t t;
    sl_image_tool_cancel_on(&flag);
    pthread_create(&t, NULL, cancel_later, NULL);
    long long t0 = sl_now_ms();
    int rc = sl_image_tool_run(argv, work, 30000, NULL, NULL, &err);
    int e = errno;
    long long dt = sl_now_ms() - t0;
    pthread_join(t, NULL);
    ok(rc < 0 && e == ECANCELED, "a cancelled pull's tool fails with ECANCELED (%s)", err.text);
    ok(dt < 2000, "  killed soon after the cancel at 300 ms (%lld ms)", dt);
    rc = sl_image_tool_run(argv, work, 30000, NULL, NULL, &err);
    ok(rc < 0 && errno == ECANCELED, "  the next tool of that pull does not start");
    sl_image_tool_cancel_on(NULL);
    const char *quick[] = {"true", NULL};
    ok(sl_image_tool_run(quick, work, 30000, NULL, NULL, &err) == 0, "another pull's tools run");
    const char *slow[] = {"sleep", "30", NULL};
    t0 = sl_now_ms();
    rc = sl_image_tool_run(slow, work, 300, NULL, NULL, &err);
    ok(rc < 0 && errno == ETIMEDOUT && sl_now_ms() - t0 < 2000, "the time limit still holds (%s)",
       err.text);
    sl_error_clear(&err);
}

int main(void)
{
    char tmpl[] = "/tmp/sl-access-XXXXXX";
    char *store = mkdtemp(tmpl);
    if (!store)
        return 1;
    answers();
    use_records(store);
    cancel(store);
    if (geteuid() == 0)
        private_part(store);
    else
        printf("ok %d # SKIP not root: private parts are root's\n", ++tap_n);
    sl_rm_rf(store);
    return tap_done();
}
