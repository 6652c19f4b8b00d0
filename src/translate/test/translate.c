/* translate: $(VAR) expansion, effective request, annotation checks, results. */
#include "translate/translate.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>

static const char *lk(void *arg, const char *name)
{
    (void)arg;
    if (!strcmp(name, "A"))
        return "alpha";
    if (!strcmp(name, "E"))
        return "";
    return NULL;
}

static void expand(const char *in, const char *want)
{
    char *s = sl_k8s_expand(in, lk, NULL);
    is_str(s, want, "expand [%s]", in);
    free(s);
}

static sl_translate_config_t cfg = {.pods_root = "/pods",
                                    .shim_path = "/bin/shim",
                                    .default_cpu_milli = 1000,
                                    .default_mem_bytes = 1LL << 30};

/* translate a pod given as JSON; returns the options joined by spaces or "ERR: ..." */
static char *opts_of(const char *json)
{
    json_t *j = json_loads(json, 0, NULL);
    sl_error_t *e = sl_error_new_invalid();
    sl_pod_t *p = sl_pod_parse(j, e);
    sl_translate_result_t *r = NULL;
    sl_error_t err = SL_ERROR_INIT;
    char *s;
    if (p && sl_translate(p, NULL, NULL, &cfg, &r, e, &err) == 0) {
        size_t n = 1;
        for (size_t i = 0; i < r->noptions; i++)
            n += strlen(r->options[i]) + 1;
        s = calloc(1, n);
        for (size_t i = 0; i < r->noptions; i++) {
            /* skip the path options, the same for every pod */
            if (strstr(r->options[i], "/pods/"))
                continue;
            strcat(s, r->options[i]);
            strcat(s, " ");
        }
    } else {
        char *l = sl_err_fields_lines(e);
        s = malloc(strlen(l) + strlen(err.text) + 8);
        sprintf(s, "ERR: %s%s", l, *l ? "" : err.text);
        free(l);
    }
    sl_translate_result_destroy(r);
    sl_pod_destroy(p);
    sl_error_free(e);
    json_decref(j);
    return s;
}

#define POD(ann, spec)                                                                             \
    "{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\",\"uid\":\"u-1\",\"annotations\":{" ann      \
    "}},\"spec\":" spec "}"
#define C1 "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"command\":[\"x\"]}]}"

static void opts(const char *json, const char *want, const char *label)
{
    char *s = opts_of(json);
    is_str(s, want, "%s", label);
    free(s);
}

int main(void)
{
    expand("$(A)", "alpha");
    expand("x$(A)y$(A)", "xalphayalpha");
    expand("$(E)", "");
    expand("$(B)", "$(B)");
    expand("$$(A)", "$(A)");
    expand("$$$(A)", "$alpha");
    expand("$$", "$");
    expand("$", "$");
    expand("a$", "a$");
    expand("$(A", "$(A");
    expand("$x", "$x");
    expand("$(A)$(", "alpha$(");
    expand("no vars", "no vars");
    expand("$()", "$()");

    opts(POD("", C1),
         "--job-name=n/p --comment=slurmlink:uid=u-1 --cpus-per-task=1 --mem=1024M "
         "--requeue --open-mode=append ",
         "defaults: 1 CPU, 1 GiB; restartPolicy Always lets Slurm requeue");
    opts(POD("", "{\"containers\":[{\"name\":\"a\",\"image\":\"i\",\"command\":[\"x\"],"
                 "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"1\"}}}]}"),
         "--job-name=n/p --comment=slurmlink:uid=u-1 --cpus-per-task=1 --mem=1M "
         "--requeue --open-mode=append ",
         "tiny requests round up to 1 CPU and 1 MiB");
    opts(POD("", "{\"initContainers\":[{\"name\":\"i\",\"image\":\"i\",\"command\":[\"x\"],"
                 "\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}},"
                 "{\"name\":\"s\",\"image\":\"i\",\"command\":[\"x\"],\"restartPolicy\":\"Always\","
                 "\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}],"
                 "\"containers\":[{\"name\":\"a\",\"image\":\"i\",\"command\":[\"x\"],"
                 "\"resources\":{\"requests\":{\"cpu\":\"1500m\",\"memory\":\"512Mi\"}}}]}"),
         "--job-name=n/p --comment=slurmlink:uid=u-1 --cpus-per-task=3 --mem=1536M "
         "--requeue --open-mode=append ",
         "sidecars add to the app sum: max(1.5+1, 2) CPUs, max(0.5+1, 1) GiB");
    opts(POD("\"slurmlink.io/time\":\"2-00:00:00\",\"slurmlink.io/exclusive\":\"user\"",
             "{\"activeDeadlineSeconds\":600,"
             "\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"command\":[\"x\"]}]}"),
         "--job-name=n/p --comment=slurmlink:uid=u-1 --time=10 --cpus-per-task=1 --mem=1024M "
         "--requeue --exclusive=user --open-mode=append ",
         "the shorter time limit wins");
    opts(POD("\"slurmlink.io/partition\":\"a b\",\"slurmlink.io/nodes\":\"3-2\","
             "\"slurmlink.io/runtime\":\"docker\",\"slurmlink.io/exclusive\":\"yes\"",
             C1),
         "ERR: metadata.annotations[slurmlink.io/partition]: Invalid value: \"a b\": must be a "
         "Slurm "
         "name: letters, digits, '-', '_' or '.'\n"
         "metadata.annotations[slurmlink.io/nodes]: Invalid value: \"3-2\": must be a node count N "
         "or a range MIN-MAX\n"
         "metadata.annotations[slurmlink.io/exclusive]: Unsupported value: \"yes\": supported "
         "values: \"true\", \"false\", \"user\", \"mcs\"\n"
         "metadata.annotations[slurmlink.io/runtime]: Unsupported value: \"docker\": supported "
         "values: \"apptainer\", \"singularity\", \"charliecloud\", \"podman\", \"enroot\", "
         "\"host\"\n",
         "annotation errors name the annotation");
    opts(POD("\"slurm-job.vk.io/singularity-mounts\":\"--bind /a:/b --privileged\"", C1),
         "ERR: metadata.annotations[slurm-job.vk.io/singularity-mounts]: Invalid value: \"--bind "
         "/a:/b --privileged\": must be --bind SRC[:DST[:OPTS]] options\n",
         "singularity-mounts takes binds only");
    opts(POD("\"slurmlink.io/runtime\":\"charliecloud\"", C1),
         "ERR: spec.containers[0].image: Invalid value: \"i\": not in the local image store "
         "(slurmlink image import NAME DIR|TAR)\n",
         "charliecloud needs a stored image");
    opts(POD("\"slurmlink.io/runtime\":\"host\"",
             "{\"containers\":[{\"name\":\"c\",\"command\":[\"x\"],\"volumeMounts\":[{\"name\":"
             "\"v\","
             "\"mountPath\":\"/v\"}]}],\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}"),
         "ERR: spec.containers[0].volumeMounts[0]: Forbidden: the host runtime runs without a "
         "container and cannot mount volumes; use a hostPath whose path is the mountPath, or a "
         "container runtime\n",
         "host runtime cannot mount");
    opts(POD("\"slurmlink.io/runtime\":\"host\"", "{\"containers\":[{\"name\":\"c\"}]}"),
         "ERR: spec.containers[0].command: Required value: container c: the host runtime has no "
         "image entrypoint: set command\n",
         "host runtime needs a command");
    opts(POD("", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"envFrom\":[{\"secretRef\":"
                 "{\"name\":\"nope\"}}]}]}"),
         "ERR: secret n/nope referenced by spec.containers[0].envFrom[0] not found",
         "a missing secret is an error");
    opts(POD("", "{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"command\":[\"x\"]}],"
                 "\"volumes\":[{\"name\":\"v\",\"projected\":{\"sources\":[{\"downwardAPI\":"
                 "{\"items\":[{\"path\":\"a\",\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}]}},"
                 "{\"downwardAPI\":{\"items\":[{\"path\":\"a/b\",\"fieldRef\":{\"fieldPath\":"
                 "\"metadata.uid\"}}]}}]}}]}"),
         "ERR: spec.volumes: Invalid value: \"volumes/v/a/b\": is inside the file volumes/v/a: a "
         "path cannot be both a file and a folder\n",
         "paths of two projected sources that collide: a field error, not a retry");
    {
        char name[220];
        memset(name, 'n', 219);
        name[219] = '\0';
        char *j = sl_xasprintf("{\"metadata\":{\"name\":\"%s\",\"namespace\":\"n\",\"uid\":"
                               "\"00000000-0000-0000-0000-000000000001\"},\"spec\":" C1 "}",
                               name);
        char *want = sl_xasprintf("ERR: metadata.name: Invalid value: \"%s\": must be no more "
                                  "than 218 characters: the pod folder <name>-<uid> must fit in "
                                  "a file name (255 bytes)\n",
                                  name);
        opts(j, want, "a name too long for the pod folder's name: a field error");
        free(want);
        free(j);
    }
    return tap_done();
}
