/* runtime.c — the backend table, runtime choice and the image store mapping. */
#include "runtime/runtime.h"

#include "common/buf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <string.h>

extern const sl_runtime_ops_t sl_rt_apptainer, sl_rt_singularity, sl_rt_charliecloud, sl_rt_podman,
    sl_rt_enroot, sl_rt_host;

static const sl_runtime_ops_t *const backends[] = {&sl_rt_apptainer,    &sl_rt_singularity,
                                                   &sl_rt_charliecloud, &sl_rt_podman,
                                                   &sl_rt_enroot,       &sl_rt_host};
static const char *const names[] = {"apptainer", "singularity", "charliecloud", "podman", "enroot",
                                    "host",      NULL};

const sl_runtime_ops_t *sl_runtime_get(const char *name)
{
    for (size_t i = 0; name && i < sizeof(backends) / sizeof(backends[0]); i++)
        if (!strcmp(backends[i]->name, name))
            return backends[i];
    errno = ENOENT;
    return NULL;
}

const char *const *sl_runtime_names(void) { return names; }

int sl_runtime_maps_user(const char *ann, const char *image, const char *def)
{
    const sl_runtime_ops_t *ops = sl_runtime_get(sl_runtime_choose(ann, image, 0, def));
    return ops && ops->maps_user;
}

char *sl_runtime_mapping_list(void)
{
    sl_buf_t b = SL_BUF_INIT;
    for (const char *const *n = sl_runtime_names(); *n; n++)
        if (sl_runtime_get(*n)->maps_user)
            sl_buf_printf(&b, "%s%s", b.len ? ", " : "", *n);
    return sl_buf_steal(&b);
}

int sl_runtime_image_has_scheme(const char *image)
{
    if (!image || !*image)
        return 0;
    if (image[0] == '/')
        return 1;
    const char *s = strstr(image, "://");
    if (!s || s == image)
        return 0;
    for (const char *p = image; p < s; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '+'))
            return 0;
    return 1;
}

char *sl_runtime_image_dir(const char *store, const char *image)
{
    if (!image || !*image)
        return NULL;
    if (!strncmp(image, "docker://", 9))
        image += 9;
    const char *slash = strrchr(image, '/');
    const char *last = slash ? slash + 1 : image;
    const char *at = strchr(last, '@');
    const char *colon = strrchr(last, ':');
    size_t namelen;
    const char *tag;
    if (at) {
        namelen = (size_t)(at - image);
        tag = at + 1;
    } else if (colon) {
        namelen = (size_t)(colon - image);
        tag = colon + 1;
    } else {
        namelen = strlen(image);
        tag = "latest";
    }
    sl_buf_t b = SL_BUF_INIT;
    if (store && *store) {
        sl_buf_puts(&b, store);
        if (store[strlen(store) - 1] != '/')
            sl_buf_putc(&b, '/');
    }
    for (size_t i = 0; i < namelen; i++)
        sl_buf_putc(&b, image[i] == '/' ? '%' : image[i]);
    sl_buf_putc(&b, '+');
    sl_buf_puts(&b, *tag ? tag : "latest");
    return sl_buf_steal(&b);
}

int sl_runtime_image_is_file(const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    return (n > 10 && !strcmp(dir + n - 10, "/image.sif")) ||
           (n > 11 && !strcmp(dir + n - 11, "/image.sqsh"));
}

const char *sl_runtime_choose(const char *ann, const char *image, int in_store, const char *def)
{
    if (ann && *ann)
        return ann;
    if (!image || !*image)
        return "host";
    size_t n = strlen(image);
    if (image[0] == '/' && n > 4 && !strcmp(image + n - 4, ".sif"))
        return "apptainer";
    if (in_store)
        return "charliecloud";
    return def && *def ? def : "apptainer";
}
