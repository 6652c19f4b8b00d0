/* image.c — `slurmlink image import | list | rm`: the local image store (src/image). */
#include "image/image.h"
#include "cmd.h"
#include "common/proc.h"
#include "common/xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(
        f, "usage: slurmlink image import NAME DIR|TAR|- [--force] [--store S]\n"
           "       slurmlink image import NAME --busybox[=PATH] [--force] [--store S]\n"
           "       slurmlink image list [--json|-o json] [--store S]\n"
           "       slurmlink image rm NAME|REF|DIGEST... [--store S]\n"
           "       slurmlink image prune [--all] [--store S]\n"
           "       slurmlink image convert REF --to squashfs|sif [--store S]\n"
           "       slurmlink image pull REF [--platform linux/ARCH] [--authfile F] [--cert-dir D]\n"
           "                            [--limit BYTES] [--json] [--store S]\n\n"
           "The store holds unpacked root filesystems that charliecloud (ch-run) runs:\n"
           "NAME[:TAG] is kept in S/<NAME with '/' as '%%'>+<TAG> (TAG defaults to latest).\n"
           "import copies a folder or unpacks a tar (any compression tar knows; '-' reads\n"
           "standard input) atomically and adds what ch-run needs; --busybox builds a small\n"
           "image from a static busybox (default /bin/busybox, Debian's busybox-static).\n"
           "pull fetches REF ([registry[:port]/]repository[:tag|@sha256:digest]) with skopeo\n"
           "and unpacks it with umoci into S/sha256/<digest>/rootfs, once per digest\n"
           "(docs/images.md); F is a containers-auth.json, D a folder of CA certificates;\n"
           "--limit keeps the pulled images under BYTES (least recently used go first).\n"
           "list shows imported and pulled images (IN-USE: live pods of slurmlinkd using\n"
           "it); rm of a pulled image removes its digest and every tag naming it, and is\n"
           "refused while a live pod uses it; prune removes the pulled images no live pod\n"
           "uses that no tag names (--all: every one no live pod uses). convert builds a\n"
           "pulled image's squashfs (mksquashfs, for enroot) or SIF (apptainer build), once\n"
           "per digest, beside its tree.\n"
           "S defaults to $SLURMLINK_IMAGE_STORE, else $SLURMLINK_DIR/images, else\n"
           "/var/lib/slurmlink-cluster/images.\n");
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

/* "2026-12-01T19:50:00Z", or "-" */
static void when(long long t, char out[32])
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!t || !gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, 32, "-");
}

/* one row of the list: imported images have no digest and no use records */
typedef struct row {
    char *repo, *tag, *digest, *path, *last;
    unsigned long long size;
    json_t *users; /* array of "ns/name", NULL: not known (imported) */
} row_t;

static void add_row(row_t **v, size_t *n, row_t r)
{
    *v = sl_xrealloc(*v, (*n + 1) * sizeof(row_t));
    (*v)[(*n)++] = r;
}

/* the rows of a pulled digest: one per tag, or <none> <none> when dangling */
static void pulled_rows(const sl_image_stored_t *s, row_t **v, size_t *n)
{
    char last[32];
    when(s->last_used, last);
    json_t *users = json_array();
    for (size_t k = 0; k < s->nusers; k++)
        json_array_append_new(users, json_string(s->users[k]));
    for (size_t k = 0; k < (s->nrefs ? s->nrefs : 1); k++) {
        sl_image_ref_t r = {0};
        int good = s->nrefs && sl_image_ref_parse(s->refs[k], &r, NULL) == 0;
        row_t w = {sl_xstrdup(good ? r.repo : "<none>"),
                   sl_xstrdup(good && r.tag ? r.tag : "<none>"),
                   sl_xstrdup(s->digest),
                   sl_xasprintf("%s/rootfs", s->dir),
                   sl_xstrdup(last),
                   s->size,
                   json_incref(users)};
        add_row(v, n, w);
        if (good)
            sl_image_ref_free(&r);
    }
    json_decref(users);
}

static void print_rows(const row_t *v, size_t n)
{
    int wn = 10, wt = 3;
    for (size_t i = 0; i < n; i++) {
        if ((int)strlen(v[i].repo) > wn)
            wn = (int)strlen(v[i].repo);
        if ((int)strlen(v[i].tag) > wt)
            wt = (int)strlen(v[i].tag);
    }
    printf("%-*s  %-*s  %-12s  %9s  %-20s  %-6s  %s\n", wn, "REPOSITORY", wt, "TAG", "DIGEST",
           "SIZE", "LAST-USED", "IN-USE", "PATH");
    for (size_t i = 0; i < n; i++) {
        char h[32], use[16];
        human(v[i].size, h);
        if (v[i].users)
            snprintf(use, sizeof(use), "%zu", json_array_size(v[i].users));
        else
            snprintf(use, sizeof(use), "-");
        printf("%-*s  %-*s  %-12.12s  %9s  %-20s  %-6s  %s\n", wn, v[i].repo, wt, v[i].tag,
               v[i].digest ? v[i].digest + 7 : "-", h, v[i].last, use, v[i].path);
    }
}

static void print_json(const row_t *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:s}", "name", v[i].repo, "tag", v[i].tag,
                              "path", v[i].path, "size", (json_int_t)v[i].size, "kind",
                              v[i].digest ? "pulled" : "imported");
        char *ref = sl_xasprintf("%s:%s", v[i].repo, v[i].tag);
        json_object_set_new(o, "ref", json_string(ref));
        free(ref);
        json_object_set_new(o, "digest", v[i].digest ? json_string(v[i].digest) : json_null());
        json_object_set_new(o, "lastUsed",
                            strcmp(v[i].last, "-") ? json_string(v[i].last) : json_null());
        json_object_set(o, "inUse", v[i].users ? v[i].users : json_null());
        json_array_append_new(a, o);
    }
    char *s = json_dumps(a, JSON_INDENT(2));
    printf("%s\n", s ? s : "[]");
    free(s);
    json_decref(a);
}

static int do_list(const char *store, int json)
{
    sl_error_t err = SL_ERROR_INIT;
    size_t n, m, nr = 0;
    sl_image_info_t *v = sl_image_list(store, &n, &err);
    sl_image_stored_t *p = v ? sl_image_stored_list(store, &m, &err) : NULL;
    if (!p) {
        fprintf(stderr, "slurmlink image list: %s\n", err.text);
        sl_image_list_free(v, n);
        return 1;
    }
    row_t *rows = NULL;
    for (size_t i = 0; i < n; i++)
        add_row(&rows, &nr,
                (row_t){sl_xstrdup(v[i].name), sl_xstrdup(v[i].tag), NULL, sl_xstrdup(v[i].path),
                        sl_xstrdup("-"), v[i].size, NULL});
    for (size_t i = m; i-- > 0;) /* most recently used first */
        pulled_rows(&p[i], &rows, &nr);
    if (json)
        print_json(rows, nr);
    else
        print_rows(rows, nr);
    for (size_t i = 0; i < nr; i++) {
        free(rows[i].repo);
        free(rows[i].tag);
        free(rows[i].digest);
        free(rows[i].path);
        free(rows[i].last);
        json_decref(rows[i].users);
    }
    free(rows);
    sl_image_stored_free(p, m);
    sl_image_list_free(v, n);
    return 0;
}

/* rm of an imported image (its folder), else of a pulled one */
static int do_rm(const char *store, char **args, int nargs)
{
    int rc = 0;
    for (int i = 0; i < nargs; i++) {
        sl_error_t err = SL_ERROR_INIT;
        char *dir = sl_image_dir(store, args[i], NULL), *digest = NULL;
        int imported = dir && access(dir, F_OK) == 0, r;
        free(dir);
        if (imported)
            r = sl_image_rm(store, args[i], &err);
        else if ((r = sl_image_rm_pulled(store, args[i], &digest, &err)) < 0 && errno == ENOENT)
            sl_errprintf(&err, "no image %s in %s", args[i], store);
        if (r < 0) {
            fprintf(stderr, "slurmlink image rm: %s\n", err.text);
            rc = 1;
        } else if (digest) {
            printf("removed %s (%s)\n", args[i], digest);
        } else {
            printf("removed %s\n", args[i]);
        }
        free(digest);
    }
    return rc;
}

static int do_convert(const char *store, const char *what, const char *to)
{
    sl_image_format_t f = SL_IMAGE_SQUASHFS;
    if (!to || (strcmp(to, "squashfs") && strcmp(to, "sqsh") && strcmp(to, "sif"))) {
        fprintf(stderr, "slurmlink image convert: --to squashfs or --to sif\n");
        return 2;
    }
    if (!strcmp(to, "sif"))
        f = SL_IMAGE_SIF;
    sl_error_t err = SL_ERROR_INIT;
    sl_image_pulled_t p;
    char *path = NULL;
    int cached = 0;
    if (sl_image_lookup_pulled(store, what, &p, &err) < 0 ||
        sl_image_convert(store, p.digest, f, NULL, 0, &path, &cached, &err) < 0) {
        fprintf(stderr, "slurmlink image convert: %s\n", err.text);
        if (p.digest)
            sl_image_pulled_free(&p);
        return 1;
    }
    printf("%s %s: %s\n", cached ? "found" : "converted", p.ref, path);
    free(path);
    sl_image_pulled_free(&p);
    return 0;
}

static void pruned(void *arg, const sl_image_stored_t *s)
{
    (void)arg;
    printf("removed %s%s%s\n", s->digest, s->nrefs ? " " : "", s->nrefs ? s->refs[0] : "");
}

static int do_prune(const char *store, int all)
{
    sl_error_t err = SL_ERROR_INIT;
    int n = sl_image_prune(store, all, pruned, NULL, &err);
    if (n < 0) {
        fprintf(stderr, "slurmlink image prune: %s\n", err.text);
        return 1;
    }
    printf("%d image%s removed\n", n, n == 1 ? "" : "s");
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

static int do_import(const char *store, char **args, int nargs, int want_busybox,
                     const char *busybox, int force)
{
    sl_error_t err = SL_ERROR_INIT;
    if (nargs != (want_busybox ? 1 : 2)) {
        fprintf(stderr, want_busybox ? "slurmlink image import: NAME --busybox takes no source\n"
                                     : "slurmlink image import: need NAME and DIR|TAR|-\n");
        return 2;
    }
    int r = want_busybox ? sl_image_import_busybox(store, args[0], busybox, force, &err)
                         : sl_image_import(store, args[0], args[1], force, &err);
    if (r < 0) {
        fprintf(stderr, "slurmlink image import: %s\n", err.text);
        return 1;
    }
    char *dir = sl_image_dir(store, args[0], NULL), *n = NULL, *t = NULL;
    sl_image_parse_ref(args[0], &n, &t, NULL);
    printf("imported %s:%s into %s\n", n ? n : args[0], t ? t : "", dir ? dir : store);
    free(dir);
    free(n);
    free(t);
    return 0;
}

typedef struct image_args {
    char *store;
    const char *busybox;
    int json, force, want_busybox, all;
    const char *to;
    sl_image_pull_opts_t po;
} image_args_t;

/* the options; -1: stop with *rc */
static int parse_opts(int argc, char **argv, image_args_t *a, int *rc)
{
    static const struct option lo[] = {{"store", required_argument, 0, 's'},
                                       {"json", no_argument, 0, 'j'},
                                       {"force", no_argument, 0, 'f'},
                                       {"busybox", optional_argument, 0, 'b'},
                                       {"help", no_argument, 0, 'h'},
                                       {"authfile", required_argument, 0, 'A'},
                                       {"cert-dir", required_argument, 0, 'C'},
                                       {"all", no_argument, 0, 'a'},
                                       {"limit", required_argument, 0, 'L'},
                                       {"output", required_argument, 0, 'o'},
                                       {"to", required_argument, 0, 'T'},
                                       {"platform", required_argument, 0, 'P'},
                                       {0, 0, 0, 0}};
    int c;
    optind = 1;
    /* GNU getopt permutes: options may come before or after the words */
    while ((c = getopt_long(argc, argv, "s:jfho:a", lo, NULL)) != -1) {
        switch (c) {
        case 's':
            free(a->store);
            a->store = sl_xstrdup(optarg);
            break;
        case 'j': a->json = 1; break;
        case 'o':
            if (strcmp(optarg, "json")) {
                fprintf(stderr, "slurmlink image: -o %s: only json is known\n", optarg);
                *rc = 2;
                return -1;
            }
            a->json = 1;
            break;
        case 'A': a->po.authfile = optarg; break;
        case 'C': a->po.cert_dir = optarg; break;
        case 'L': a->po.store_limit = strtoull(optarg, NULL, 10); break;
        case 'a': a->all = 1; break;
        case 'P':
            if (strncmp(optarg, "linux/", 6) || !optarg[6] || strchr(optarg + 6, '/')) {
                fprintf(stderr, "slurmlink image: --platform %s: want linux/ARCH\n", optarg);
                *rc = 2;
                return -1;
            }
            a->po.arch = optarg + 6;
            break;
        case 'T': a->to = optarg; break;
        case 'f': a->force = 1; break;
        case 'b':
            a->want_busybox = 1;
            a->busybox = optarg;
            break;
        case 'h':
            usage(stdout);
            *rc = 0;
            return -1;
        default:
            usage(stderr);
            *rc = 2;
            return -1;
        }
    }
    return 0;
}

static int dispatch(image_args_t *a, const char *action, char **args, int nargs)
{
    if (!strcmp(action, "import"))
        return do_import(a->store, args, nargs, a->want_busybox, a->busybox, a->force);
    if (!strcmp(action, "list") || !strcmp(action, "ls")) {
        if (!nargs)
            return do_list(a->store, a->json);
        fprintf(stderr, "slurmlink image list: unexpected argument '%s'\n", args[0]);
        return 2;
    }
    if (!strcmp(action, "pull")) {
        if (nargs == 1)
            return do_pull(a->store, args[0], &a->po, a->json);
        fprintf(stderr, "slurmlink image pull: need one REF\n");
        return 2;
    }
    if (!strcmp(action, "rm") || !strcmp(action, "rmi")) {
        if (nargs)
            return do_rm(a->store, args, nargs);
        fprintf(stderr, "slurmlink image rm: need at least one NAME, REF or DIGEST\n");
        return 2;
    }
    if (!strcmp(action, "convert")) {
        if (nargs == 1)
            return do_convert(a->store, args[0], a->to);
        fprintf(stderr, "slurmlink image convert: need one REF\n");
        return 2;
    }
    if (!strcmp(action, "prune")) {
        if (!nargs)
            return do_prune(a->store, a->all);
        fprintf(stderr, "slurmlink image prune: unexpected argument '%s'\n", args[0]);
        return 2;
    }
    fprintf(stderr,
            "slurmlink image: unknown action '%s' (import, list, pull, rm, prune, convert)\n",
            action);
    return 2;
}

int cmd_image(int argc, char **argv)
{
    image_args_t a = {0};
    int rc = 2;
    if (parse_opts(argc, argv, &a, &rc) < 0) {
        free(a.store);
        return rc;
    }
    if (!a.store)
        a.store = default_store();
    const char *action = optind < argc ? argv[optind] : NULL;
    if (!action)
        usage(stderr);
    else
        rc = dispatch(&a, action, argv + optind + 1, argc - optind - 1);
    free(a.store);
    return rc;
}
