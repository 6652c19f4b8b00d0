/* protobuf — kubectl's protobuf bodies (bytes captured from kubectl 1.32
 * `create secret generic s2 --from-literal=x=y -n foo`). */
#include "api/protobuf.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static const unsigned char secret[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0c, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x06, 0x53, 0x65,
    0x63, 0x72, 0x65, 0x74, 0x12, 0x21, 0x0a, 0x15, 0x0a, 0x02, 0x73, 0x32, 0x12, 0x00,
    0x1a, 0x03, 0x66, 0x6f, 0x6f, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42,
    0x00, 0x12, 0x06, 0x0a, 0x01, 0x78, 0x12, 0x01, 0x79, 0x1a, 0x00, 0x1a, 0x00, 0x22, 0x00};

int main(void)
{
    sl_error_t err = SL_ERROR_INIT;
    json_t *o = api_pb_decode((const char *)secret, sizeof(secret), &err);
    ok(o != NULL, "decodes a Secret (%s)", err.text);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    is_str(s, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"s2\","
              "\"namespace\":\"foo\"},\"data\":{\"x\":\"eQ==\"}}",
           "Secret as JSON: empty fields omitted, bytes base64");
    free(s);
    json_decref(o);

    /* a Pod is not decoded here: ENOTSUP */
    unsigned char pod[] = {0x6b, 0x38, 0x73, 0x00, 0x0a, 0x09, 0x0a, 0x02, 0x76,
                           0x31, 0x12, 0x03, 0x50, 0x6f, 0x64, 0x12, 0x00};
    errno = 0;
    o = api_pb_decode((const char *)pod, sizeof(pod), &err);
    ok(!o && errno == ENOTSUP, "Pod bodies are refused with ENOTSUP");
    o = api_pb_decode("{}", 2, &err);
    ok(!o, "no magic: refused");
    unsigned char trunc[] = {0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0c, 0x0a, 0x02};
    o = api_pb_decode((const char *)trunc, sizeof(trunc), &err);
    ok(!o && errno == EINVAL, "truncated: EINVAL");
    return tap_done();
}
