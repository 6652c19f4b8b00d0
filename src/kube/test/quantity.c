/* quantity: Kubernetes resource.Quantity parsing, conversions, canonical text. */
#include "kube/quantity.h"
#include "common/tap.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

static void good(const char *in, const char *canon, long long milli)
{
    sl_quantity_t q;
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_quantity_parse(in, &q, &err);
    ok(r == 0, "parse %s", in);
    if (r != 0) {
        printf("#   error: %s\n", err.text);
        return;
    }
    char *s = sl_quantity_string(&q);
    is_str(s, canon, "canonical %s", in);
    free(s);
    int64_t m = 0;
    if (milli != LLONG_MIN) {
        ok(sl_quantity_milli(&q, &m) == 0 && m == milli, "milli %s = %lld", in, milli);
        if (m != milli)
            printf("#   got %lld\n", (long long)m);
    }
}

static void bad(const char *in, const char *want)
{
    sl_quantity_t q;
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_quantity_parse(in, &q, &err);
    ok(r == -1 && errno == EINVAL && err.kind == SL_ERR_BAD_REQUEST && strcmp(err.text, want) == 0,
       "reject [%s]", in);
    if (r == 0 || strcmp(err.text, want))
        printf("#   got r=%d msg=%s\n", r, err.text);
}

static long long div_of(const char *in, int64_t unit)
{
    sl_quantity_t q;
    int64_t v = -12345;
    if (sl_quantity_parse(in, &q, NULL) < 0 || sl_quantity_ceil_div(&q, unit, &v) < 0)
        return -99999;
    return v;
}

int main(void)
{
    good("0", "0", 0);
    good("1", "1", 1000);
    good("+1", "1", 1000);
    good("-1", "-1", -1000);
    good("1.5", "1500m", 1500);
    good("0.1", "100m", 100);
    good(".5", "500m", 500);
    good("1.", "1", 1000);
    good("500m", "500m", 500);
    good("2000m", "2", 2000);
    good("1000", "1k", 1000000);
    good("100", "100", 100000);
    good("1k", "1k", 1000000);
    good("1M", "1M", 1000000000LL);
    good("1G", "1G", 1000000000000LL);
    good("1T", "1T", LLONG_MIN);
    good("1P", "1P", LLONG_MIN);
    good("1E", "1E", LLONG_MIN);
    good("1n", "1n", 1);
    good("1u", "1u", 1);
    good("0.1n", "1n", 1); /* rounded up to the smallest unit */
    good("1Ki", "1Ki", 1024000);
    good("1Mi", "1Mi", LLONG_MIN);
    good("1Gi", "1Gi", LLONG_MIN);
    good("1024Mi", "1Gi", LLONG_MIN);
    good("1536Mi", "1536Mi", LLONG_MIN);
    good("1.5Gi", "1536Mi", LLONG_MIN);
    good("0.5Ki", "512", 512000);
    good("1Ti", "1Ti", LLONG_MIN);
    good("1Pi", "1Pi", LLONG_MIN);
    good("1Ei", "1Ei", LLONG_MIN);
    good("1e3", "1e3", 1000000);
    good("1E3", "1e3", 1000000);
    good("1e+3", "1e3", 1000000);
    good("12e-3", "12e-3", 12);
    good("1.5e3", "1500", 1500000);
    good("0001", "1", 1000);
    good("000", "0", 0);
    good("-", "0", 0);  /* what ParseQuantity accepts */
    good("Ki", "0", 0); /* likewise */
    good("1.000000001", "1000000001n", 1001);
    good("0.000000000000000000000001", "1n", 1);
    good("123456789012345678901234567890e-20", "1234567890123456790e-9", 1234567890124LL);

    bad("", SL_QUANTITY_ERR_FORMAT);
    bad("1.5.3Gi", SL_QUANTITY_ERR_FORMAT);
    bad("abc", SL_QUANTITY_ERR_FORMAT);
    bad("1Kb", SL_QUANTITY_ERR_FORMAT);
    bad("1 ", SL_QUANTITY_ERR_FORMAT);
    bad(" 1", SL_QUANTITY_ERR_FORMAT);
    bad("1e3e3", SL_QUANTITY_ERR_FORMAT);
    bad("1--1", SL_QUANTITY_ERR_FORMAT);
    bad("1ki", SL_QUANTITY_ERR_SUFFIX);
    bad("1mi", SL_QUANTITY_ERR_SUFFIX);
    bad("1e", SL_QUANTITY_ERR_SUFFIX);
    bad("1KiB", SL_QUANTITY_ERR_FORMAT);
    bad("1iK", SL_QUANTITY_ERR_SUFFIX);
    bad("1e99999999999999999999", SL_QUANTITY_ERR_SUFFIX);
    bad("e-20", SL_QUANTITY_ERR_NUMERIC);

    /* binary values are capped at 2^63-1 as in Kubernetes */
    sl_quantity_t q;
    ok(sl_quantity_parse("10Ei", &q, NULL) == 0, "10Ei parses");
    char *s = sl_quantity_string(&q);
    is_str(s, "9223372036854775807", "10Ei is capped at maxAllowed");
    free(s);
    /* decimal values are not capped: huge, and every helper says ERANGE */
    ok(sl_quantity_parse("1e40", &q, NULL) == 0 && q.huge, "1e40 parses as huge");
    int64_t v;
    ok(sl_quantity_milli(&q, &v) == -1 && errno == ERANGE, "huge milli is ERANGE");
    ok(sl_quantity_ceil_div(&q, 1, &v) == -1 && errno == ERANGE, "huge bytes is ERANGE");
    ok(sl_quantity_parse("100P", &q, NULL) == 0 && sl_quantity_ceil_div(&q, 1, &v) == 0,
       "100P bytes fits");
    ok(sl_quantity_parse("10E", &q, NULL) == 0 && sl_quantity_ceil_div(&q, 1, &v) == -1 &&
           errno == ERANGE,
       "10E bytes overflows int64");
    ok(sl_quantity_parse("9223372036854775807", &q, NULL) == 0 && sl_quantity_milli(&q, &v) == -1,
       "int64 max milli overflows");

    /* conversions */
    is_int(div_of("1Gi", 1 << 20), 1024, "1Gi = 1024 MiB");
    is_int(div_of("1G", 1 << 20), 954, "1G = 954 MiB rounded up");
    is_int(div_of("1", 1 << 20), 1, "1 byte = 1 MiB rounded up");
    is_int(div_of("0", 1 << 20), 0, "0 = 0 MiB");
    is_int(div_of("100Mi", 1), 104857600, "100Mi bytes");
    is_int(div_of("1.5", 1), 2, "1.5 CPUs round up to 2");
    is_int(div_of("100m", 1), 1, "100m rounds up to 1 CPU");
    is_int(div_of("2", 1), 2, "2 CPUs");
    is_int(div_of("-1.5", 1), -2, "negative rounds away from zero");

    /* comparisons */
    sl_quantity_t a, b;
    sl_quantity_parse("1Gi", &a, NULL);
    sl_quantity_parse("1G", &b, NULL);
    is_int(sl_quantity_cmp(&a, &b), 1, "1Gi > 1G");
    sl_quantity_parse("1000m", &a, NULL);
    sl_quantity_parse("1", &b, NULL);
    is_int(sl_quantity_cmp(&a, &b), 0, "1000m == 1");
    ok(sl_quantity_is_integer(&a), "1000m is an integer");
    sl_quantity_parse("1500m", &a, NULL);
    ok(!sl_quantity_is_integer(&a), "1500m is not an integer");
    is_int(sl_quantity_sign(&a), 1, "sign +");

    /* JSON forms */
    json_t *j = json_real(0.1);
    char *t = NULL;
    ok(sl_quantity_from_json(j, &q, &t, NULL) == 0 && !strcmp(t, "0.1") &&
           sl_quantity_milli(&q, &v) == 0 && v == 100,
       "JSON number 0.1 is 100m");
    free(t);
    json_decref(j);
    j = json_integer(2);
    ok(sl_quantity_from_json(j, &q, NULL, NULL) == 0 && q.nanos == 2000000000, "JSON integer 2");
    json_decref(j);
    j = json_string(" 1Gi ");
    ok(sl_quantity_from_json(j, &q, NULL, NULL) == 0, "JSON string is trimmed");
    json_decref(j);
    j = json_true();
    sl_error_t err = SL_ERROR_INIT;
    ok(sl_quantity_from_json(j, &q, NULL, &err) == -1 && !strcmp(err.text, SL_QUANTITY_ERR_FORMAT),
       "JSON bool is not a quantity");
    json_decref(j);
    return tap_done();
}
