/* b64: the one base64 codec against RFC 4648's test vectors, both
 * alphabets, binary data and the inputs it must refuse. */
#include "common/b64.h"
#include "common/tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void vectors(void)
{
    static const char *const v[][2] = {{"", ""},
                                       {"f", "Zg=="},
                                       {"fo", "Zm8="},
                                       {"foo", "Zm9v"},
                                       {"foob", "Zm9vYg=="},
                                       {"fooba", "Zm9vYmE="},
                                       {"foobar", "Zm9vYmFy"}};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        char *e = sl_b64_encode(v[i][0], strlen(v[i][0]));
        is_str(e, v[i][1], "encode '%s'", v[i][0]);
        size_t n = 99;
        char *d = sl_b64_decode(v[i][1], strlen(v[i][1]), &n);
        is_str(d, v[i][0], "decode '%s'", v[i][1]);
        is_int((int)n, (int)strlen(v[i][0]), "decoded length of '%s'", v[i][1]);
        free(e);
        free(d);
    }
}

static void binary_and_url(void)
{
    const unsigned char bin[] = {0xfb, 0xff, 0x00, 0xfe, 0x3e};
    char *e = sl_b64_encode(bin, sizeof(bin));
    is_str(e, "+/8A/j4=", "binary with a NUL byte, standard alphabet");
    size_t n = 0;
    char *d = sl_b64_decode(e, strlen(e), &n);
    ok(d && n == sizeof(bin) && !memcmp(d, bin, n), "binary round trip");
    free(d);
    char *u = sl_b64url_encode(bin, sizeof(bin));
    is_str(u, "-_8A_j4", "URL-safe alphabet, no padding");
    d = sl_b64url_decode(u, &n);
    ok(d && n == sizeof(bin) && !memcmp(d, bin, n), "URL-safe round trip");
    free(d);
    d = sl_b64url_decode(e, &n);
    ok(d && n == sizeof(bin) && !memcmp(d, bin, n), "URL-safe decoder takes the standard form");
    free(d);
    free(u);
    free(e);
    d = sl_b64url_decode("eyJ2IjoxfQ", &n);
    is_str(d, "{\"v\":1}", "a continue token's JSON");
    free(d);
}

static void refused(void)
{
    const char *bad[] = {"Zg", "Zg=", "Z", "Zm9v!", "Zg==Zg", "Zm9vYg==x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        char *d = sl_b64_decode(bad[i], strlen(bad[i]), NULL);
        ok(!d && errno == EINVAL, "refused: '%s'", bad[i]);
        free(d);
    }
    const char *badurl[] = {"Z", "Zm9v!", "Zg=g", "a+b=c"};
    for (size_t i = 0; i < sizeof(badurl) / sizeof(badurl[0]); i++) {
        char *d = sl_b64url_decode(badurl[i], NULL);
        ok(!d, "URL-safe refused: '%s'", badurl[i]);
        free(d);
    }
    char *d = sl_b64_decode("Zm9v\nYmFy", 9, NULL);
    is_str(d, "foobar", "a line break is skipped (as Go's decoder does)");
    free(d);
}

int main(void)
{
    vectors();
    binary_and_url();
    refused();
    return tap_done();
}
