/* storage unit tests: the storage.classes file (every mistake names its
 * key), the StorageClass objects, and the folders of volumes: made only
 * beneath a root-owned root, never through a link, emptied as their owner. */
#include "storage/storage.h"
#include "common/fsutil.h"
#include "common/tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64], root[96], file[96];

static sl_storage_t *load(const char *text, sl_error_t *err)
{
    FILE *f = fopen(file, "w");
    fputs(text, f);
    fclose(f);
    return sl_storage_load(file, err);
}

static void refused(const char *text, const char *want, const char *label)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_storage_t *s = load(text, &err);
    ok(!s, "%s: refused", label);
    has_str(err.text, want, "%s: the error names it", label);
    sl_storage_destroy(s);
}

static void file_tests(void)
{
    char *t = NULL;
    refused("classes:\n- name: a\n  root: rel\n", "classes[0].root: must be an absolute path",
            "a relative root");
    refused("classes:\n- name: a\n  root: /nonexistent-sl-root\n",
            "classes[0].root:", "a root that does not exist");
    if (asprintf(&t, "classes:\n- {name: a, root: %s, maxClaimSize: lots}\n", root) > 0)
        refused(t, "classes[0].maxClaimSize: must be a positive quantity", "a bad size");
    free(t);
    if (asprintf(&t, "classes:\n- {name: a, root: %s, accessModes: [ReadWriteSometimes]}\n", root) >
        0)
        refused(t, "classes[0].accessModes[0]: must be ReadWriteOnce", "a bad access mode");
    free(t);
    if (asprintf(&t,
                 "classes:\n- {name: a, root: %s, default: true}\n- {name: b, root: %s, "
                 "default: true}\n",
                 root, root) > 0)
        refused(t, "at most one class may be the default", "two defaults");
    free(t);
    if (asprintf(&t, "classes:\n- {name: a, root: %s}\n- {name: a, root: %s}\n", root, root) > 0)
        refused(t, "classes[1].name: a is named twice", "a name twice");
    free(t);
    refused("klasses: []\n", "klasses: unknown key", "an unknown key");
    if (asprintf(&t, "classes:\n- {name: a, root: %s, reclaimPolicy: Recycle}\n", root) > 0)
        refused(t, "classes[0].reclaimPolicy: must be Delete or Retain", "Recycle");
    free(t);

    sl_error_t err = SL_ERROR_INIT;
    if (asprintf(&t,
                 "classes:\n- {name: scratch, root: %s, default: true, accessModes: "
                 "[ReadWriteMany], maxClaimSize: 1Gi, maxNamespaceSize: 2Gi}\n"
                 "- {name: keep, root: %s, reclaimPolicy: Retain, volumeBindingMode: "
                 "WaitForFirstConsumer}\n",
                 root, root) < 0)
        t = NULL;
    sl_storage_t *s = load(t, &err);
    free(t);
    ok(s != NULL, "a valid file loads (%s)", err.text);
    is_int(sl_storage_count(s), 2, "two classes");
    const sl_storage_class_t *d = sl_storage_find(s, NULL), *k = sl_storage_find(s, "keep");
    is_str(d ? sl_storage_class_name(d) : NULL, "scratch", "the default class");
    ok(d && sl_storage_class_allows(d, "ReadWriteMany") &&
           !sl_storage_class_allows(d, "ReadWriteOnce"),
       "its access modes");
    is_int(d ? sl_storage_class_max_claim(d) : 0, 1LL << 30, "maxClaimSize in bytes");
    is_int(d ? sl_storage_class_max_namespace(d) : 0, 2LL << 30, "maxNamespaceSize in bytes");
    ok(k && !strcmp(sl_storage_class_reclaim(k), "Retain") &&
           !strcmp(sl_storage_class_binding(k), "WaitForFirstConsumer") &&
           sl_storage_class_max_claim(k) == -1 && sl_storage_class_allows(k, "ReadWriteOncePod"),
       "the other's policy and binding mode, no limit, every access mode");
    json_t *o = d ? sl_storage_class_object(d) : NULL;
    char *js = o ? json_dumps(o, JSON_SORT_KEYS) : NULL;
    has_str(js, "\"storageclass.kubernetes.io/is-default-class\": \"true\"",
            "the default class's object is annotated as the default");
    has_str(js, "\"provisioner\": \"slurmlink.io/shared-folder\"", "... its provisioner");
    free(js);
    json_decref(o);
    ok(sl_storage_find(s, "nosuch") == NULL, "no class of another name");
    sl_storage_destroy(s);
}

static int tree_has(const char *path) { return access(path, F_OK) == 0; }

static void folder_tests(void)
{
    sl_error_t err = SL_ERROR_INIT;
    char p[160], q[160];
    ok(sl_storage_make_dir(root, "pvc-1", 65534, 65534, &err) == 0, "a folder made (%s)", err.text);
    snprintf(p, sizeof(p), "%s/pvc-1", root);
    struct stat st;
    ok(stat(p, &st) == 0 && st.st_uid == 65534 && (st.st_mode & 07777) == 0700,
       "... owned by the claim's user, 0700");
    ok(sl_storage_make_dir(root, "pvc-1", 65534, 65534, &err) == 0,
       "the same folder again (made before a crash) will do");
    snprintf(q, sizeof(q), "%s/pvc-2", root);
    ok(symlink("/etc", q) == 0, "a link in place of a folder");
    err = (sl_error_t)SL_ERROR_INIT;
    ok(sl_storage_make_dir(root, "pvc-2", 65534, 65534, &err) < 0,
       "a link is never taken for a folder");
    ok(lstat("/etc", &st) == 0 && st.st_uid == 0, "... nothing is chowned through it");
    err = (sl_error_t)SL_ERROR_INIT;
    ok(sl_storage_remove_dir(root, "pvc-2", 65534, 65534, &err) < 0 && tree_has("/etc/passwd"),
       "removal refuses a link (and follows none)");
    unlink(q);
    /* the owner's folder holds links out and a folder it may not write */
    char out[256], lnk[256], locked[200], f[256];
    snprintf(out, sizeof(out), "%s/outside", base);
    sl_write_file(out, "x", 1, 0644, NULL);
    snprintf(lnk, sizeof(lnk), "%s/l", p);
    ok(symlink(out, lnk) == 0 && lchown(lnk, 65534, 65534) == 0, "a link out of the folder");
    snprintf(locked, sizeof(locked), "%s/locked", p);
    snprintf(f, sizeof(f), "%s/f", locked);
    mkdir(locked, 0700);
    sl_write_file(f, "y", 1, 0644, NULL);
    ok(chown(f, 65534, 65534) == 0 && chown(locked, 65534, 65534) == 0 && chmod(locked, 0500) == 0,
       "a folder of the owner that the owner may not write");
    err = (sl_error_t)SL_ERROR_INIT;
    ok(sl_storage_remove_dir(root, "pvc-1", 65534, 65534, &err) < 0 && tree_has(f),
       "removal runs as the owner: what it may not remove stays (root could have)");
    chmod(locked, 0700);
    err = (sl_error_t)SL_ERROR_INIT;
    ok(sl_storage_remove_dir(root, "pvc-1", 65534, 65534, &err) == 0 && !tree_has(p),
       "then the folder goes (%s)", err.text);
    ok(tree_has(out), "... the file its link named stays");
    ok(sl_storage_remove_dir(root, "pvc-1", 65534, 65534, &err) == 0,
       "a folder gone already: done");
    chmod(root, 0777);
    err = (sl_error_t)SL_ERROR_INIT;
    ok(sl_storage_make_dir(root, "pvc-3", 65534, 65534, &err) < 0 && !tree_has(q),
       "a root others may write: nothing is made there");
    chmod(root, 0755);
}

int main(void)
{
    snprintf(base, sizeof(base), "/tmp/sl-storage-XXXXXX");
    if (!mkdtemp(base))
        return 1;
    chmod(base, 0755);
    snprintf(root, sizeof(root), "%s/root", base);
    snprintf(file, sizeof(file), "%s/classes.yaml", base);
    mkdir(root, 0755);
    file_tests();
    if (geteuid() == 0)
        folder_tests();
    else
        printf("# not root: the folder tests need root (chown) and are not run\n");
    sl_rm_rf(base);
    return tap_done();
}
