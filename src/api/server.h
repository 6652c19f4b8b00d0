/* server.h — slurmlinkd's HTTP front door (libmicrohttpd).
 *
 * Serves the Kubernetes API subset kubectl needs. The server owns its MHD
 * daemon and threads; sl_api_destroy() stops them and frees everything. */
#ifndef SL_API_SERVER_H
#define SL_API_SERVER_H

#include "common/err.h"

typedef struct sl_api sl_api_t;

typedef struct sl_api_opts {
    const char *listen; /* address, e.g. "127.0.0.1" */
    int port;
} sl_api_opts_t;

sl_api_t *sl_api_create(const sl_api_opts_t *opts, sl_error_t *err);
void sl_api_destroy(sl_api_t *api);

#endif
