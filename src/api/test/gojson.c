/* gojson — JSON syntax errors worded like Go's encoding/json. */
#include "api/gojson.h"
#include "common/tap.h"

#include <stdlib.h>
#include <string.h>

static void check(const char *in, const char *want)
{
    char *got = api_gojson_error(in, strlen(in));
    char name[64];
    size_t n = 0;
    for (const char *p = in; *p && n < sizeof(name) - 1; p++) /* TAP names stay on one line */
        name[n++] = (unsigned char)*p < 0x20 ? '?' : *p;
    name[n] = '\0';
    is_str(got, want, "%s", name);
    free(got);
}

int main(void)
{
    check("{\"a\":1}", NULL);
    check("  [1, 2.5e3, -0, \"x\\u00e9\", true, false, null]\n", NULL);
    check("", "unexpected end of JSON input");
    check("{\"apiVersion\":\"v1\",", "unexpected end of JSON input");
    check("{\"a\":1,}", "invalid character '}' looking for beginning of object key string");
    check("{a:1}", "invalid character 'a' looking for beginning of object key string");
    check("{\"a\" 1}", "invalid character '1' after object key");
    check("{\"a\":1 \"b\":2}", "invalid character '\"' after object key:value pair");
    check("[1 2]", "invalid character '2' after array element");
    check("xyz", "invalid character 'x' looking for beginning of value");
    check("{\"a\":1}}", "invalid character '}' after top-level value");
    check("tru", "unexpected end of JSON input");
    check("trux", "invalid character 'x' in literal true (expecting 'e')");
    check("nul", "unexpected end of JSON input");
    check("-a", "invalid character 'a' in numeric literal");
    check("1.x", "invalid character 'x' after decimal point in numeric literal");
    check("1ex", "invalid character 'x' in exponent of numeric literal");
    check("01", "invalid character '1' after top-level value");
    check("\"a\\q\"", "invalid character 'q' in string escape code");
    check("\"\\u12x4\"", "invalid character 'x' in \\u hexadecimal character escape");
    check("\"a\nb\"", "invalid character '\\n' in string literal");
    check("{'a':1}", "invalid character '\\'' looking for beginning of object key string");
    check("\x01", "invalid character '\\x01' looking for beginning of value");
    return tap_done();
}
