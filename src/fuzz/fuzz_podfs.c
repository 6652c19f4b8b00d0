/* fuzz_podfs.c — libFuzzer: the pod-folder writer against a folder its user
 * changed. The input is lines: "L path target" plants a symlink, "D path"
 * a folder, "F path" a file in an existing pod folder (what the tenant left);
 * "d path" and "f path data" are translate's entries. Oracles: nothing
 * crashes, nothing outside the pods root is created or changed by the
 * writer (a canary folder next to it stays as the planting left it), and a
 * successful write leaves no
 * symlink in the folder. */
#include "common/fsutil.h"
#include "common/xalloc.h"
#include "podfs/podfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[64];

/* every name in dir, recursively, with its type and size */
static void snapshot(const char *dir, FILE *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = sl_xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0) {
            fprintf(out, "%s %o %lld\n", p, (unsigned)st.st_mode, (long long)st.st_size);
            if (S_ISDIR(st.st_mode))
                snapshot(p, out);
        }
        free(p);
    }
    closedir(d);
}

static char *take(const char *dir)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    snapshot(dir, f);
    fclose(f);
    return s;
}

static int has_link(const char *dir)
{
    char *s = take(dir);
    int found = 0;
    for (char *l = s; l && *l;) {
        char *p = strchr(l, ' ');
        if (p && (strtoul(p + 1, NULL, 8) & S_IFMT) == S_IFLNK)
            found = 1;
        l = strchr(l, '\n');
        l = l ? l + 1 : NULL;
    }
    free(s);
    return found;
}

/* what the tenant left, inside her pod folder only: a planted path that
 * climbs out (a ".." component) or is absolute would be the harness itself
 * changing the canary, not the writer under test */
static void plant(const char *pod, char *line)
{
    char *sp = strchr(line + 2, ' ');
    if (sp)
        *sp++ = '\0';
    if (line[2] == '/' || strstr(line + 2, ".."))
        return;
    char *p = sl_xasprintf("%s/%s", pod, line + 2);
    if (line[0] == 'L' && sp)
        symlink(sp, p);
    else if (line[0] == 'D')
        sl_mkdir_p(p, 0700, NULL);
    else if (line[0] == 'F')
        close(open(p, O_WRONLY | O_CREAT | O_NOFOLLOW, 0600));
    free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!base[0]) {
        snprintf(base, sizeof(base), "/tmp/sl-fuzz-podfs-XXXXXX");
        if (!mkdtemp(base))
            abort();
    }
    char *canary = sl_xasprintf("%s/canary", base), *root = sl_xasprintf("%s/pods", base);
    char *pod = sl_xasprintf("%s/ns/p-uid", root);
    sl_rm_rf(canary);
    sl_rm_rf(root);
    char *sub = sl_xasprintf("%s/sub", canary);
    sl_mkdir_p(sub, 0700, NULL);
    sl_mkdir_p(pod, 0700, NULL);
    char *cf = sl_xasprintf("%s/file", canary);
    close(open(cf, O_WRONLY | O_CREAT, 0600));

    char *text = sl_xstrndup((const char *)data, size);
    sl_translate_file_t files[64];
    size_t nfiles = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (strlen(l) < 3 || l[1] != ' ')
            continue;
        if (l[0] == 'L' || l[0] == 'D' || l[0] == 'F') {
            plant(pod, l);
        } else if ((l[0] == 'd' || l[0] == 'f') && nfiles < 64) {
            char *sp = l[0] == 'f' ? strchr(l + 2, ' ') : NULL;
            if (sp)
                *sp++ = '\0';
            files[nfiles++] = (sl_translate_file_t){.path = l + 2,
                                                    .data = l[0] == 'f' ? (sp ? sp : "") : NULL,
                                                    .len = l[0] == 'f' && sp ? strlen(sp) : 0,
                                                    .mode = 0644};
        }
    }
    /* the canary as the planting left it: a planted path through a planted
     * link ("L v ../../../../canary", then "F v/x") is the harness writing
     * there, with the rights a tenant has over her own links, not the
     * writer under test */
    char *before = take(canary);
    sl_translate_result_t r = {.pod_dir = pod, .files = files, .nfiles = nfiles};
    int rc = sl_podfs_write(&r, 0, 0, 0, NULL);
    char *after = take(canary);
    if (strcmp(before, after))
        abort(); /* something outside the pods root changed */
    if (rc == 0 && has_link(pod))
        abort(); /* a planted link survived the fresh write */
    free(before);
    free(after);
    free(text);
    free(cf);
    free(sub);
    free(pod);
    free(root);
    free(canary);
    return 0;
}
