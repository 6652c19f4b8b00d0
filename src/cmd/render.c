/* render.c — `slurmlink render pod.yaml|pod.json|-`: what a Pod becomes in Slurm. */
#include "cmd.h"

#include "common/fsutil.h"
#include "common/xalloc.h"
#include "image/image.h"
#include "kube/quantity.h"
#include "pod/pod.h"
#include "pod/yamljson.h"
#include "runtime/runtime.h"
#include "translate/translate.h"

#include "podfs/podfs.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *read_input(const char *path, size_t *len)
{
    if (strcmp(path, "-")) {
        sl_error_t err = SL_ERROR_INIT;
        char *s = sl_read_file(path, len, &err);
        if (!s)
            fprintf(stderr, "slurmlink render: %s\n", err.text);
        return s;
    }
    size_t cap = 65536, n = 0, r;
    char *s = sl_xmalloc(cap);
    while ((r = fread(s + n, 1, cap - n - 1, stdin)) > 0) {
        n += r;
        if (cap - n < 4096)
            s = sl_xrealloc(s, cap *= 2);
    }
    s[n] = 0;
    *len = n;
    return s;
}

static int quantity_opt(const char *opt, const char *v, int milli, int64_t *out)
{
    sl_quantity_t q;
    sl_error_t qerr = SL_ERROR_INIT;
    int r = sl_quantity_parse(v, &q, &qerr);
    if (r == 0)
        r = milli ? sl_quantity_milli(&q, out) : sl_quantity_ceil_div(&q, 1, out);
    if (r < 0 || *out <= 0) {
        fprintf(stderr, "slurmlink render: %s: %s is not a positive quantity%s%s\n", opt, v,
                *qerr.text ? ": " : "", qerr.text);
        return -1;
    }
    return 0;
}

/* The caller's half of translation: the pod folder (0700) and its files. */
static int write_pod(const sl_translate_result_t *r)
{
    sl_error_t err = SL_ERROR_INIT;
    if (sl_podfs_write(r, 0, 0, 0, &err) < 0) {
        fprintf(stderr, "slurmlink render: %s\n", err.text);
        return -1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slurmlink render [OPTIONS] pod.yaml|pod.json|-\n\n"
            "Validate a Pod and print the batch script slurmlinkd would submit for it.\n"
            "The file may hold several YAML documents: the Pod and the ConfigMaps and\n"
            "Secrets it references. Invalid pods print one field error per line (exit 1).\n\n"
            "  --spec               also print shim.json\n"
            "  --files              also print the files of the pod folder (mode, size, path)\n"
            "  --options            also print the sbatch options, one per line\n"
            "  --no-script          do not print the script\n"
            "  --json               everything as one JSON object\n"
            "  --pods-root DIR      pod folders' root (default /var/lib/slurmlink-cluster/pods)\n"
            "  --shim PATH          slurmlink-shim on the nodes (default: beside this program)\n"
            "  --runtime NAME       default runtime for registry images (default apptainer)\n"
            "  --image-store DIR    local image store (charliecloud)\n"
            "  --default-cpu Q      CPU when the pod requests none (default 1)\n"
            "  --default-memory Q   memory when the pod requests none (default 1Gi)\n"
            "  --partition P        default partition;  --account A  default account\n"
            "  --report-url URL     where the shim reports (default: none)\n"
            "  --allow-pre-exec     accept the slurm-job.vk.io/pre-exec annotation\n"
            "  --uid UID            pod UID when the file has none\n"
            "  --run-as UID:GID     the job's user (default: yours)\n"
            "  --write              also create the pod folder and its files (as slurmlinkd\n"
            "                       does before submitting), then `bash <pod>/job.sh` runs it\n");
}

/* --json: the whole result as one object */
static void print_json(const sl_translate_result_t *r)
{
    json_t *o = json_pack("{s:s, s:s, s:s}", "podDir", r->pod_dir, "script", r->script, "shimJson",
                          r->shim_json);
    json_t *oa = json_array(), *fa = json_array(), *wa = json_array();
    for (size_t k = 0; k < r->noptions; k++)
        json_array_append_new(oa, json_string(r->options[k]));
    for (size_t k = 0; k < r->nfiles; k++)
        json_array_append_new(fa,
                              json_pack("{s:s, s:i, s:b, s:I}", "path", r->files[k].path, "mode",
                                        r->files[k].mode, "dir", r->files[k].data == NULL, "size",
                                        (json_int_t)r->files[k].len));
    for (size_t k = 0; k < r->nwarnings; k++)
        json_array_append_new(wa, json_string(r->warnings[k]));
    json_object_set_new(o, "options", oa);
    json_object_set_new(o, "files", fa);
    json_object_set_new(o, "warnings", wa);
    json_dumpf(o, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(o);
}

/* job.sh, shim.json, the options and the files, as asked; headers when more than one */
static void print_sections(const sl_translate_result_t *r, int script, int spec, int files,
                           int options)
{
    int sections = script + spec + files + options, hdr = sections > 1;
    if (script) {
        if (hdr)
            printf("==> job.sh <==\n");
        fputs(r->script, stdout);
    }
    if (spec) {
        if (hdr)
            printf("%s==> shim.json <==\n", script ? "\n" : "");
        fputs(r->shim_json, stdout);
    }
    if (options) {
        if (hdr)
            printf("\n==> sbatch options <==\n");
        for (size_t k = 0; k < r->noptions; k++)
            printf("%s\n", r->options[k]);
    }
    if (files) {
        if (hdr)
            printf("\n==> files in %s <==\n", r->pod_dir);
        for (size_t k = 0; k < r->nfiles; k++)
            printf("%04o %8zu %s%s\n", r->files[k].mode, r->files[k].len, r->files[k].path,
                   r->files[k].data ? "" : "/");
    }
}

/* the first Pod of the documents (new reference, NULL if none); ConfigMaps
 * and Secrets appended to cms and secs */
static json_t *split_docs(json_t *docs, json_t *cms, json_t *secs)
{
    json_t *pod = NULL;
    size_t i;
    json_t *d;
    json_array_foreach(docs, i, d)
    {
        const char *kind = json_string_value(json_object_get(d, "kind"));
        if (!kind || !strcmp(kind, "Pod")) {
            if (!pod)
                pod = json_incref(d);
        } else if (!strcmp(kind, "ConfigMap")) {
            json_array_append(cms, d);
        } else if (!strcmp(kind, "Secret")) {
            json_array_append(secs, d);
        }
    }
    return pod;
}

/* what the API server fills in before a pod reaches translation */
static void server_fields(json_t *pod, const char *uid)
{
    json_t *meta = json_object_get(pod, "metadata");
    if (!json_is_object(meta))
        json_object_set_new(pod, "metadata", meta = json_object());
    if (!json_object_get(meta, "namespace"))
        json_object_set_new(meta, "namespace", json_string("default"));
    if (!json_object_get(meta, "uid"))
        json_object_set_new(meta, "uid", json_string(uid));
}

typedef struct render_opts {
    sl_translate_config_t cfg;
    int spec, files, options, script, json, write;
    const char *uid;
} render_opts_t;

/* the command line: -1 to go on, else the exit status (0 for --help) */
static int parse_opts(int argc, char **argv, render_opts_t *o)
{
    static const struct option lo[] = {{"spec", no_argument, 0, 's'},
                                       {"files", no_argument, 0, 'f'},
                                       {"options", no_argument, 0, 'o'},
                                       {"no-script", no_argument, 0, 'n'},
                                       {"json", no_argument, 0, 'j'},
                                       {"pods-root", required_argument, 0, 'R'},
                                       {"shim", required_argument, 0, 'S'},
                                       {"runtime", required_argument, 0, 'r'},
                                       {"image-store", required_argument, 0, 'I'},
                                       {"default-cpu", required_argument, 0, 'c'},
                                       {"default-memory", required_argument, 0, 'm'},
                                       {"partition", required_argument, 0, 'p'},
                                       {"account", required_argument, 0, 'A'},
                                       {"report-url", required_argument, 0, 'U'},
                                       {"allow-pre-exec", no_argument, 0, 'P'},
                                       {"uid", required_argument, 0, 'u'},
                                       {"run-as", required_argument, 0, 'a'},
                                       {"write", no_argument, 0, 'w'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
    o->cfg = (sl_translate_config_t){.pods_root = "/var/lib/slurmlink-cluster/pods",
                                     .default_cpu_milli = SL_TRANSLATE_DEFAULT_CPU_MILLI,
                                     .default_mem_bytes = SL_TRANSLATE_DEFAULT_MEM_BYTES,
                                     .default_runtime = "apptainer",
                                     .uid = getuid(),
                                     .gid = getgid(),
                                     .image_lookup = sl_podfs_image_exists,
                                     .image_has_path = sl_image_has_path};
    o->script = 1;
    o->uid = "00000000-0000-0000-0000-000000000000";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': o->spec = 1; break;
        case 'f': o->files = 1; break;
        case 'o': o->options = 1; break;
        case 'n': o->script = 0; break;
        case 'j': o->json = 1; break;
        case 'R': o->cfg.pods_root = optarg; break;
        case 'S': o->cfg.shim_path = optarg; break;
        case 'r': o->cfg.default_runtime = optarg; break;
        case 'I': o->cfg.image_store = optarg; break;
        case 'c':
            if (quantity_opt("--default-cpu", optarg, 1, &o->cfg.default_cpu_milli) < 0)
                return 2;
            break;
        case 'm':
            if (quantity_opt("--default-memory", optarg, 0, &o->cfg.default_mem_bytes) < 0)
                return 2;
            break;
        case 'p': o->cfg.default_partition = optarg; break;
        case 'A': o->cfg.default_account = optarg; break;
        case 'U': o->cfg.report_url = optarg; break;
        case 'P': o->cfg.allow_pre_exec = 1; break;
        case 'u': o->uid = optarg; break;
        case 'w': o->write = 1; break;
        case 'a': {
            unsigned u, g;
            char extra;
            if (sscanf(optarg, "%u:%u%c", &u, &g, &extra) != 2) {
                fprintf(stderr, "slurmlink render: --run-as takes UID:GID\n");
                return 2;
            }
            o->cfg.uid = (uid_t)u;
            o->cfg.gid = (gid_t)g;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    if (!sl_runtime_get(o->cfg.default_runtime)) {
        fprintf(stderr, "slurmlink render: --runtime: unknown runtime %s\n",
                o->cfg.default_runtime);
        return 2;
    }
    return -1;
}

int cmd_render(int argc, char **argv)
{
    render_opts_t o = {.script = 1};
    int prc = parse_opts(argc, argv, &o);
    if (prc >= 0)
        return prc;
    sl_translate_config_t cfg = o.cfg;
    char *self = NULL;
    if (!cfg.shim_path) {
        char *d = sl_self_dir();
        self = sl_xasprintf("%s/slurmlink-shim", d ? d : ".");
        free(d);
        cfg.shim_path = self;
    }
    size_t len = 0;
    char *text = read_input(argv[optind], &len);
    if (!text) {
        free(self);
        return 1;
    }
    sl_error_t err = SL_ERROR_INIT;
    json_t *docs = sl_yaml_to_json(text, len, &err);
    free(text);
    if (!docs) {
        fprintf(stderr, "slurmlink render: %s: %s\n", argv[optind], err.text);
        free(self);
        return 1;
    }
    json_t *cms = json_array(), *secs = json_array();
    json_t *pod = split_docs(docs, cms, secs);
    json_decref(docs);
    int rc = 1;
    sl_error_t *errs = sl_error_new_invalid();
    sl_pod_t *p = NULL;
    sl_translate_result_t *r = NULL;
    if (!pod) {
        fprintf(stderr, "slurmlink render: %s holds no Pod\n", argv[optind]);
        goto out;
    }
    server_fields(pod, o.uid);
    p = sl_pod_parse(pod, errs);
    if (p && sl_translate(p, cms, secs, &cfg, &r, errs, &err) == 0) {
        rc = 0;
    } else if (sl_err_nfields(errs)) {
        char *lines = sl_err_fields_lines(errs);
        fputs(lines, stderr);
        free(lines);
    } else {
        fprintf(stderr, "slurmlink render: %s\n", err.text);
    }
    if (rc)
        goto out;
    for (size_t w = 0; w < r->nwarnings; w++)
        fprintf(stderr, "warning: %s\n", r->warnings[w]);
    if (o.write && write_pod(r) < 0) {
        rc = 1;
        goto out;
    }
    if (o.json)
        print_json(r);
    else
        print_sections(r, o.script, o.spec, o.files, o.options);
out:
    sl_translate_result_destroy(r);
    sl_pod_destroy(p);
    sl_error_free(errs);
    json_decref(pod);
    json_decref(cms);
    json_decref(secs);
    free(self);
    return rc;
}
