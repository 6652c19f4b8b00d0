/* installed.c — which runtimes this host has: probed once at start-up, read
 * afterwards (admission, translation) without locks. */
#include "runtime/runtime.h"

#include "common/buf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RT_MAX 8

static struct {
    int probed;
    char *path[RT_MAX]; /* by position in sl_runtime_names(); NULL: not found */
    const char *deflt;
} inst;

char *sl_runtime_find_program(const char *prog, const char *path)
{
    if (!prog || !*prog)
        return NULL;
    struct stat st;
    if (strchr(prog, '/'))
        return stat(prog, &st) == 0 && S_ISREG(st.st_mode) && access(prog, X_OK) == 0
                   ? sl_xstrdup(prog)
                   : NULL;
    char *dirs = sl_xstrdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *found = NULL, *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *p = sl_xasprintf("%s/%s", *d ? d : ".", prog);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
            found = p;
        else
            free(p);
    }
    free(dirs);
    return found;
}

static int index_of(const char *name)
{
    const char *const *n = sl_runtime_names();
    for (int i = 0; name && n[i] && i < RT_MAX; i++)
        if (!strcmp(n[i], name))
            return i;
    return -1;
}

/* A runtime named by runtimes.default must be there; without the setting
 * the first installed of the container runtimes, in the table's order. */
static int choose_default(const char *configured, sl_error_t *err)
{
    if (configured && *configured) {
        const sl_runtime_ops_t *ops = sl_runtime_get(configured);
        if (!ops) {
            errno = EINVAL;
            return sl_errprintf(err, "runtimes.default: unknown runtime %s", configured);
        }
        if (!sl_runtime_installed(configured)) {
            errno = ENOENT;
            return sl_errprintf(err, "runtimes.default: %s is not installed: %s not found in PATH",
                                configured, ops->default_binary);
        }
        inst.deflt = ops->name;
        return 0;
    }
    const char *const *n = sl_runtime_names();
    for (int i = 0; n[i]; i++)
        if (strcmp(n[i], "host") && inst.path[i]) {
            inst.deflt = n[i];
            return 0;
        }
    inst.deflt = "apptainer"; /* none: pods that need one fail with the reason */
    return 0;
}

int sl_runtime_probe(const char *configured_default, sl_error_t *err)
{
    const char *const *n = sl_runtime_names();
    const char *path = getenv("PATH");
    for (int i = 0; n[i] && i < RT_MAX; i++) {
        free(inst.path[i]);
        const sl_runtime_ops_t *ops = sl_runtime_get(n[i]);
        inst.path[i] = ops->default_binary ? sl_runtime_find_program(ops->default_binary, path)
                                           : sl_xstrdup("");
    }
    inst.probed = 1;
    return choose_default(configured_default, err);
}

int sl_runtime_probed(void) { return inst.probed; }

const char *sl_runtime_installed(const char *name)
{
    int i = index_of(name);
    if (!inst.probed)
        return "";
    return i < 0 ? NULL : inst.path[i];
}

const char *sl_runtime_default(void) { return inst.probed ? inst.deflt : NULL; }

char *sl_runtime_installed_list(void)
{
    sl_buf_t b = SL_BUF_INIT;
    const char *const *n = sl_runtime_names();
    for (int i = 0; n[i]; i++)
        if (!inst.probed || inst.path[i])
            sl_buf_printf(&b, "%s%s", b.len ? ", " : "", n[i]);
    return sl_buf_steal(&b);
}

char *sl_runtime_unavailable(const char *name)
{
    const sl_runtime_ops_t *ops = sl_runtime_get(name);
    if (!ops || sl_runtime_installed(name))
        return NULL;
    char *list = sl_runtime_installed_list();
    char *why = sl_xasprintf("%s is not installed (%s not found in PATH); installed: %s", name,
                             ops->default_binary, list);
    free(list);
    return why;
}
