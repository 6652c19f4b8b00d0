/* image.c — `slurmlink image import | list | rm`: the local image store (src/image). */
#include "image/image.h"
#include "cmd.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slurmlink image import NAME DIR|TAR|- [--force] [--store S]\n"
            "       slurmlink image import NAME --busybox[=PATH] [--force] [--store S]\n"
            "       slurmlink image list [--json] [--store S]\n"
            "       slurmlink image rm NAME... [--store S]\n"
            "       slurmlink image pull REF [--authfile F] [--cert-dir D] [--json] [--store S]\n\n"
            "The store holds unpacked root filesystems that charliecloud (ch-run) runs:\n"
            "NAME[:TAG] is kept in S/<NAME with '/' as '%%'>+<TAG> (TAG defaults to latest).\n"
            "import copies a folder or unpacks a tar (any compression tar knows; '-' reads\n"
            "standard input) atomically and adds what ch-run needs; --busybox builds a small\n"
            "image from a static busybox (default /bin/busybox, Debian's busybox-static).\n"
            "pull fetches REF ([registry[:port]/]repository[:tag|@sha256:digest]) with skopeo\n"
            "and unpacks it with umoci into S/sha256/<digest>/rootfs, once per digest\n"
            "(docs/images.md); F is a containers-auth.json, D a folder of CA certificates.\n"
            "S defaults to $SLURMLINK_IMAGE_STORE, else $SLURMLINK_DIR/images, else\n"
            "/var/tmp/slurmlink/images.\n");
}

static char *default_store(void)
{
    const char *s = getenv("SLURMLINK_IMAGE_STORE");
    if (s && *s)
        return sl_xstrdup(s);
    return sl_xasprintf("%s/images", cmd_default_dir());
}

static void human(unsigned long long b, char out[32])
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int i = 0;
    while (v >= 1024 && i < 4) {
        v /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(out, 32, "%lluB", b);
    else
        snprintf(out, 32, "%.1f%s", v, u[i]);
}

static int do_list(const char *store, int json)
{
    sl_error_t err = SL_ERROR_INIT;
    size_t n;
    sl_image_info_t *v = sl_image_list(store, &n, &err);
    if (!v) {
        fprintf(stderr, "slurmlink image list: %s\n", err.text);
        return 1;
    }
    if (json) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:I,s:s}", "ref", v[i].ref, "name",
                                               v[i].name, "tag", v[i].tag, "size",
                                               (json_int_t)v[i].size, "path", v[i].path));
        char *s = json_dumps(a, JSON_INDENT(2));
        printf("%s\n", s ? s : "[]");
        free(s);
        json_decref(a);
    } else {
        size_t wn = 4, wt = 3;
        for (size_t i = 0; i < n; i++) {
            if (strlen(v[i].name) > wn)
                wn = strlen(v[i].name);
            if (strlen(v[i].tag) > wt)
                wt = strlen(v[i].tag);
        }
        printf("%-*s  %-*s  %9s  %s\n", (int)wn, "NAME", (int)wt, "TAG", "SIZE", "PATH");
        for (size_t i = 0; i < n; i++) {
            char h[32];
            human(v[i].size, h);
            printf("%-*s  %-*s  %9s  %s\n", (int)wn, v[i].name, (int)wt, v[i].tag, h, v[i].path);
        }
    }
    sl_image_list_free(v, n);
    return 0;
}

static int do_pull(const char *store, const char *ref, const sl_image_pull_opts_t *o, int json)
{
    sl_error_t err = SL_ERROR_INIT;
    sl_image_pulled_t p;
    long long t0 = sl_now_ms();
    if (sl_image_pull(store, ref, o, &p, &err) < 0) {
        fprintf(stderr, "slurmlink image pull: failed to pull image \"%s\": %s\n", ref, err.text);
        return 1;
    }
    double s = (double)(sl_now_ms() - t0) / 1000.0;
    if (json) {
        json_t *j =
            json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:b,s:f}", "ref", p.ref, "imageID", p.image_id,
                      "digest", p.digest, "repoDigest", p.repo_digest, "path", p.rootfs, "size",
                      (json_int_t)p.size, "cached", p.cached, "seconds", s);
        char *t = json_dumps(j, JSON_INDENT(2));
        printf("%s\n", t);
        free(t);
        json_decref(j);
    } else {
        printf("%s %s (%s) in %.1fs: %s, %llu bytes\n", p.cached ? "found" : "pulled", p.ref,
               p.image_id, s, p.rootfs, p.size);
    }
    sl_image_pulled_free(&p);
    return 0;
}

int cmd_image(int argc, char **argv)
{
    static const struct option lo[] = {
        {"store", required_argument, 0, 's'},    {"json", no_argument, 0, 'j'},
        {"force", no_argument, 0, 'f'},          {"busybox", optional_argument, 0, 'b'},
        {"help", no_argument, 0, 'h'},           {"authfile", required_argument, 0, 'A'},
        {"cert-dir", required_argument, 0, 'C'}, {0, 0, 0, 0}};
    sl_image_pull_opts_t po = {0};
    char *store = NULL;
    const char *busybox = NULL;
    int json = 0, force = 0, want_busybox = 0, c;
    optind = 1;
    /* GNU getopt permutes: options may come before or after the words */
    while ((c = getopt_long(argc, argv, "s:jfh", lo, NULL)) != -1) {
        switch (c) {
        case 's':
            free(store);
            store = sl_xstrdup(optarg);
            break;
        case 'j': json = 1; break;
        case 'A': po.authfile = optarg; break;
        case 'C': po.cert_dir = optarg; break;
        case 'f': force = 1; break;
        case 'b':
            want_busybox = 1;
            busybox = optarg;
            break;
        case 'h':
            usage(stdout);
            free(store);
            return 0;
        default:
            usage(stderr);
            free(store);
            return 2;
        }
    }
    if (!store)
        store = default_store();
    int rc = 2;
    const char *action = optind < argc ? argv[optind] : NULL;
    char **args = argv + optind + 1;
    int nargs = action ? argc - optind - 1 : 0;
    sl_error_t err = SL_ERROR_INIT;
    if (!action) {
        usage(stderr);
    } else if (!strcmp(action, "import")) {
        if (nargs != (want_busybox ? 1 : 2)) {
            fprintf(stderr, want_busybox
                                ? "slurmlink image import: NAME --busybox takes no source\n"
                                : "slurmlink image import: need NAME and DIR|TAR|-\n");
        } else {
            int r = want_busybox ? sl_image_import_busybox(store, args[0], busybox, force, &err)
                                 : sl_image_import(store, args[0], args[1], force, &err);
            if (r < 0) {
                fprintf(stderr, "slurmlink image import: %s\n", err.text);
                rc = 1;
            } else {
                char *dir = sl_image_dir(store, args[0], NULL), *n = NULL, *t = NULL;
                sl_image_parse_ref(args[0], &n, &t, NULL);
                printf("imported %s:%s into %s\n", n ? n : args[0], t ? t : "", dir ? dir : store);
                free(dir);
                free(n);
                free(t);
                rc = 0;
            }
        }
    } else if (!strcmp(action, "list") || !strcmp(action, "ls")) {
        if (nargs)
            fprintf(stderr, "slurmlink image list: unexpected argument '%s'\n", args[0]);
        else
            rc = do_list(store, json);
    } else if (!strcmp(action, "pull")) {
        if (nargs != 1)
            fprintf(stderr, "slurmlink image pull: need one REF\n");
        else
            rc = do_pull(store, args[0], &po, json);
    } else if (!strcmp(action, "rm")) {
        if (!nargs)
            fprintf(stderr, "slurmlink image rm: need at least one NAME\n");
        rc = nargs ? 0 : 2;
        for (int i = 0; i < nargs; i++) {
            if (sl_image_rm(store, args[i], &err) < 0) {
                fprintf(stderr, "slurmlink image rm: %s\n", err.text);
                rc = 1;
            } else {
                printf("removed %s\n", args[i]);
            }
        }
    } else {
        fprintf(stderr, "slurmlink image: unknown action '%s' (import, list, pull, rm)\n", action);
    }
    free(store);
    return rc;
}
