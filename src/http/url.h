/* url.h — request paths and query parts as Go's clients write them. */
#ifndef SL_HTTP_URL_H
#define SL_HTTP_URL_H

#include <stddef.h>

/* Go's url.Values / MHD unescaping of paths and query parts, in place:
 * %XX and '+' (space). Returns the new length. */
size_t http_unescape(char *s);

#endif
