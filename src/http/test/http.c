/* http: the Accept header's media ranges, the unescaping of paths and
 * queries, the WebSocket accept key. */
#include "common/tap.h"
#include "http/media.h"
#include "http/upconn.h"
#include "http/url.h"

#include <stdlib.h>
#include <string.h>

static void media(void)
{
    http_media_t m[4];
    int n = http_accept_parse(
        "application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1beta1;"
        "g=meta.k8s.io,application/json",
        m, 4);
    is_int(n, 3, "kubectl get's Accept: three ranges");
    ok(!strcmp(m[0].type, "application/json") && !strcmp(m[0].as, "Table") &&
           !strcmp(m[0].v, "v1") && !strcmp(m[0].g, "meta.k8s.io"),
       "the first with its as=, v=, g=");
    is_str(m[1].v, "v1beta1", "the second, in order");
    ok(!m[2].as[0] && http_media_json(&m[2]), "plain JSON last");
    n = http_accept_parse(NULL, m, 4);
    ok(n == 1 && !strcmp(m[0].type, "*/*") && http_media_json(&m[0]), "no header: */*");
    n = http_accept_parse(" Application/YAML ; AS = Table ", m, 4);
    ok(n == 1 && !strcmp(m[0].type, "application/yaml") && !strcmp(m[0].as, "Table") &&
           !http_media_json(&m[0]),
       "types and keys fold case, values keep it; YAML is not JSON");
    n = http_accept_parse("a/a,b/b,c/c,d/d,e/e", m, 2);
    ok(n == 2 && !strcmp(m[1].type, "b/b"), "at most max ranges");
    n = http_accept_parse(" , ", m, 4);
    ok(n == 1 && !strcmp(m[0].type, "*/*"), "only empty ranges: */*");
}

static void url(void)
{
    char s[] = "a+b%20c%2Fd%zz%4";
    size_t n = http_unescape(s);
    is_str(s, "a b c/d%zz%4", "plus and hex escapes decoded, a broken escape kept");
    is_int((int)n, (int)strlen(s), "the new length");
}

static void ws(void)
{
    char *a = http_ws_accept("dGhlIHNhbXBsZSBub25jZQ==");
    is_str(a, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "RFC 6455's example key");
    free(a);
}

int main(void)
{
    media();
    url();
    ws();
    return tap_done();
}
