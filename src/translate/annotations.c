/* annotations.c — the annotations slurmlink reads, checked; errors name the
 * annotation as Kubernetes names a map key: metadata.annotations[KEY]. */
#include "translate/flags.h"
#include "translate/internal.h"

#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <stdlib.h>
#include <string.h>

#define AP "metadata.annotations[%s]"

static int charset(const char *v, const char *extra)
{
    if (!*v)
        return 0;
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr(extra, *p)))
            return 0;
    return 1;
}

static int posint(const char *v)
{
    char *end;
    long n = strtol(v, &end, 10);
    return *v >= '0' && *v <= '9' && !*end && n >= 1 && n <= 1000000;
}

static void slurm_name(sl_error_t *e, const sl_pod_t *p, const char *key)
{
    const char *v = sl_pod_annotation(p, key);
    if (v && !charset(v, "-_."))
        sl_err_invalid(e, v, "must be a Slurm name: letters, digits, '-', '_' or '.'", AP, key);
}

/* each allowed flag's value, through the parser submission uses: what
 * slurmlinkd could not submit is refused here, not after the pod is stored */
static int flag_values(const sl_flags_t *f, sl_error_t *err)
{
    for (size_t i = 0; i < f->n; i++) {
        char *o = sl_flag_option(&f->v[i]);
        const char *one[] = {o, NULL};
        int rc = sl_slurm_check_options(one, err);
        free(o);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* N or MIN-MAX, positive */
static int node_count(const char *v)
{
    const char *dash = strchr(v, '-');
    if (!dash)
        return posint(v);
    char *a = sl_xstrndup(v, (size_t)(dash - v));
    int okn = posint(a) && posint(dash + 1) && atol(a) <= atol(dash + 1);
    free(a);
    return okn;
}

/* slurm-job.vk.io/singularity-options: words, options first, no newlines */
static void sing_options(sl_error_t *e, const char *v)
{
    sl_argv_t w = SL_ARGV_INIT;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_flags_split(v, &w, &err) < 0)
        sl_err_invalid(e, v, err.text, AP, SL_ANN_IL_SING_OPTS);
    else if (w.n && w.v[0][0] != '-')
        sl_err_invalid(e, v, "must be apptainer/singularity options (starting with '-')", AP,
                       SL_ANN_IL_SING_OPTS);
    for (size_t i = 0; i < w.n; i++)
        if (strpbrk(w.v[i], "\n\r")) {
            sl_err_invalid(e, v, "must not contain newlines", AP, SL_ANN_IL_SING_OPTS);
            break;
        }
    sl_argv_free(&w);
}

/* slurm-job.vk.io/singularity-mounts: --bind SRC[:DST[:OPTS]] words only */
static void sing_mounts(sl_error_t *e, const char *v)
{
    sl_argv_t w = SL_ARGV_INIT;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_flags_split(v, &w, &err) < 0) {
        sl_err_invalid(e, v, err.text, AP, SL_ANN_IL_SING_MOUNTS);
        sl_argv_free(&w);
        return;
    }
    for (size_t i = 0; i < w.n; i++) {
        const char *a = w.v[i];
        int okw = 0;
        if (!strcmp(a, "--bind") || !strcmp(a, "-B"))
            okw = ++i < w.n && *w.v[i] && !strpbrk(w.v[i], "\n\r");
        else if (!strncmp(a, "--bind=", 7))
            okw = a[7] && !strpbrk(a, "\n\r");
        if (!okw) {
            sl_err_invalid(e, v, "must be --bind SRC[:DST[:OPTS]] options", AP,
                           SL_ANN_IL_SING_MOUNTS);
            break;
        }
    }
    sl_argv_free(&w);
}

int sl_translate_validate(const sl_pod_t *p, const sl_translate_config_t *cfg, sl_error_t *e)
{
    size_t before = sl_err_nfields(e);
    const char *v;
    /* the pod folder <name>-<uid> is one file name (NAME_MAX 255); uids are
     * 36-character UUIDs, not yet assigned at admission */
    size_t ulen = p->uid && *p->uid ? strlen(p->uid) : 36;
    if (p->name && ulen < 254 && strlen(p->name) > 254 - ulen) {
        char *d = sl_xasprintf("must be no more than %zu characters: the pod folder "
                               "<name>-<uid> must fit in a file name (255 bytes)",
                               254 - ulen);
        sl_err_invalid(e, p->name, d, "metadata.name");
        free(d);
    }
    tr_gpu_validate(p, cfg, e);
    slurm_name(e, p, SL_ANN_PARTITION);
    slurm_name(e, p, SL_ANN_ACCOUNT);
    slurm_name(e, p, SL_ANN_QOS);
    if ((v = sl_pod_annotation(p, SL_ANN_TIME))) {
        long m = sl_slurm_time_minutes(v);
        if (m == -1 || m == 0)
            sl_err_invalid(e, v,
                           "must be a Slurm time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
                           "D-HH:MM:SS or UNLIMITED",
                           AP, SL_ANN_TIME);
    }
    if ((v = sl_pod_annotation(p, SL_ANN_NODES)) && !node_count(v))
        sl_err_invalid(e, v, "must be a node count N or a range MIN-MAX", AP, SL_ANN_NODES);
    if ((v = sl_pod_annotation(p, SL_ANN_NTASKS)) && !posint(v))
        sl_err_invalid(e, v, "must be a positive integer", AP, SL_ANN_NTASKS);
    /* Slurm 22.05's --exclusive takes user or mcs (topo came later) */
    if ((v = sl_pod_annotation(p, SL_ANN_EXCLUSIVE)) && strcmp(v, "true") && strcmp(v, "false") &&
        strcmp(v, "user") && strcmp(v, "mcs"))
        sl_err_not_supported(e, v, (const char *const[]){"true", "false", "user", "mcs", NULL}, AP,
                             SL_ANN_EXCLUSIVE);
    if ((v = sl_pod_annotation(p, SL_ANN_CONSTRAINT)) && !charset(v, "-_.:*&|,()[]!"))
        sl_err_invalid(e, v,
                       "must be a Slurm constraint: node features (letters, digits, '-', '_', '.', "
                       "':') joined by & | , with ( ) [ ] * !",
                       AP, SL_ANN_CONSTRAINT);
    if ((v = sl_pod_annotation(p, SL_ANN_TMP)) && strcmp(v, "private") && strcmp(v, "node"))
        sl_err_not_supported(e, v, (const char *const[]){"private", "node", NULL}, AP, SL_ANN_TMP);
    if ((v = sl_pod_annotation(p, SL_ANN_RUNTIME)) && !sl_runtime_get(v))
        sl_err_not_supported(e, v, sl_runtime_names(), AP, SL_ANN_RUNTIME);
    else if (v) {
        char *why = sl_runtime_unavailable(v); /* not on this host: not on the nodes either */
        if (why)
            sl_err_invalid(e, v, why, AP, SL_ANN_RUNTIME);
        free(why);
    }
    if ((v = sl_pod_annotation(p, SL_ANN_IL_FLAGS))) {
        sl_flags_t f = SL_FLAGS_INIT;
        sl_error_t err = SL_ERROR_INIT;
        if (sl_flags_parse(v, &f, &err) < 0 || flag_values(&f, &err) < 0)
            sl_err_invalid(e, v, err.text, AP, SL_ANN_IL_FLAGS);
        sl_flags_free(&f);
    }
    if ((v = sl_pod_annotation(p, SL_ANN_IL_PRE_EXEC)) && !(cfg && cfg->allow_pre_exec))
        sl_err_forbidden(e,
                         "shell pre-exec commands are disabled on this cluster (site setting "
                         "allow_pre_exec); use an init container",
                         AP, SL_ANN_IL_PRE_EXEC);
    if ((v = sl_pod_annotation(p, SL_ANN_IL_SING_OPTS)))
        sing_options(e, v);
    if ((v = sl_pod_annotation(p, SL_ANN_IL_SING_MOUNTS)))
        sing_mounts(e, v);
    if ((v = sl_pod_annotation(p, SL_ANN_IL_IMAGE_ROOT))) {
        int bad = !*v;
        for (const unsigned char *q = (const unsigned char *)v; *q; q++)
            bad |= *q <= ' ' || *q == 0x7f;
        if (bad)
            sl_err_invalid(e, v, "must be an image prefix without spaces (e.g. docker://)", AP,
                           SL_ANN_IL_IMAGE_ROOT);
    }
    return (int)(sl_err_nfields(e) - before);
}
