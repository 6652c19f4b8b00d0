/* protobuf.h — Kubernetes protobuf request bodies (the kinds kubectl's
 * typed clients create: Namespace, ConfigMap, Secret, ServiceAccount). */
#ifndef SL_API_PROTOBUF_H
#define SL_API_PROTOBUF_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* The object in data (with the "k8s\0" envelope) as its JSON form (new
 * ref). NULL with err and errno: ENOTSUP and SL_ERR_UNSUPPORTED_MEDIA_TYPE
 * for a kind not decoded here, EINVAL and SL_ERR_BAD_REQUEST for malformed
 * data. */
json_t *api_pb_decode(const char *data, size_t len, sl_error_t *err);

#endif
