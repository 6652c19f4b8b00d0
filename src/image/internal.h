/* internal.h — shared between the image store's files; not part of its interface. */
#ifndef SL_IMAGE_INTERNAL_H
#define SL_IMAGE_INTERNAL_H

#include "common/err.h"

/* Fill the empty folder dir with busybox (static) and its applet links. */
int sl_image_busybox_tree(const char *dir, const char *busybox, sl_error_t *err);

#endif
