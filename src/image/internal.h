/* internal.h — shared between the image store's files; not part of its interface. */
#ifndef SL_IMAGE_INTERNAL_H
#define SL_IMAGE_INTERNAL_H

#include "common/err.h"

/* Fill the empty folder dir with busybox (static) and its applet links. */
int sl_image_busybox_tree(const char *dir, const char *busybox, sl_error_t *err);

/* bytes on disk below path, hard links counted once (store.c) */
unsigned long long sl_image_disk_usage(const char *path);

/* tool.c: skopeo and umoci, argv vectors with a time limit */
char *sl_image_tool_message(const char *stderr_text);
int sl_image_tool_run(const char *const *argv, const char *work, int timeout_ms, char **out,
                      sl_error_t *err);

#endif
