/* protobuf.h — Kubernetes protobuf request bodies (the kinds kubectl's
 * typed clients create: Namespace, ConfigMap, Secret, ServiceAccount). */
#ifndef SL_API_PROTOBUF_H
#define SL_API_PROTOBUF_H

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The object in data (with the "k8s\0" envelope) as its JSON form (new
 * ref). NULL with *why (caller frees) and errno ENOTSUP for a kind not
 * decoded here, EINVAL for malformed data. */
json_t *api_pb_decode(const char *data, size_t len, char **why);

#endif
