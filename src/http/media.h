/* media.h — the media ranges of an HTTP Accept header, in the order the
 * client lists them, with the Kubernetes parameters as=, g= and v=. */
#ifndef SL_HTTP_MEDIA_H
#define SL_HTTP_MEDIA_H

#include <stdbool.h>

typedef struct http_media {
    char type[96]; /* "application/json", "*" "/" "*", ... (lower case) */
    char as[64];   /* as= parameter ("Table", "APIGroupDiscoveryList") or "" */
    char g[64];    /* g= */
    char v[32];    /* v= */
} http_media_t;

/* The media ranges of header (an Accept header's value) in order, at most
 * max (max >= 1); a missing or empty header gives one "*" "/" "*". */
int http_accept_parse(const char *header, http_media_t *out, int max);
/* application/json, application/ *, * / * (also application/yaml is not JSON). */
bool http_media_json(const http_media_t *m);

#endif
