/* quantity.c — resource.Quantity parsing, conversion and canonical text.
 * Mirrors apimachinery's ParseQuantity step by step (fast int64 path, slow
 * inf.Dec path) because the two paths differ in visible ways (format of
 * binary values below 1, capping, which inputs are ErrNumeric). */
#include "kube/quantity.h"

#include "common/buf.h"
#include "common/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

const char SL_QUANTITY_ERR_FORMAT[] = "quantities must match the regular expression "
                                      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const char SL_QUANTITY_ERR_NUMERIC[] = "unable to parse numeric part of quantity";
const char SL_QUANTITY_ERR_SUFFIX[] = "unable to parse quantity's suffix";

typedef __int128 i128;
#define I128_MAX ((i128)(((unsigned __int128)1 << 127) - 1))

static int isdig(char c) { return c >= '0' && c <= '9'; }

/* parseQuantityString: offsets into str. */
typedef struct scan {
    int positive;
    size_t value_len; /* str[0:value_len] is the numeric text inf.Dec would see */
    int zeros_only;   /* sign and zeros only: Go sets value to "0" */
    const char *num;  /* leading zeros stripped; "0" if empty */
    size_t num_len;
    const char *denom; /* digits after '.' */
    size_t denom_len;
    const char *suffix;
    size_t suffix_len;
} scan_t;

static int scan_quantity(const char *str, scan_t *sc)
{
    size_t pos = 0, end = strlen(str), i;
    memset(sc, 0, sizeof(*sc));
    sc->positive = 1;
    sc->num = "0";
    sc->num_len = 1;
    sc->denom = sc->suffix = "";
    if (pos < end) {
        if (str[0] == '-') {
            sc->positive = 0;
            pos++;
        } else if (str[0] == '+') {
            pos++;
        }
    }
    for (i = pos;; i++) {
        if (i >= end) { /* only sign and zeros: value "0" */
            sc->zeros_only = 1;
            return 0;
        }
        if (str[i] != '0')
            break;
        pos++;
    }
    for (i = pos;; i++) {
        if (i >= end) {
            if (i > pos) {
                sc->num = str + pos;
                sc->num_len = i - pos;
            }
            sc->value_len = end;
            return 0;
        }
        if (!isdig(str[i]))
            break;
    }
    if (i > pos) {
        sc->num = str + pos;
        sc->num_len = i - pos;
    }
    pos = i;
    if (pos < end && str[pos] == '.') {
        pos++;
        for (i = pos;; i++) {
            if (i >= end) {
                sc->denom = str + pos;
                sc->denom_len = end - pos;
                sc->value_len = end;
                return 0;
            }
            if (!isdig(str[i]))
                break;
        }
        sc->denom = str + pos;
        sc->denom_len = i - pos;
        pos = i;
    }
    sc->value_len = pos;
    size_t sstart = pos;
    for (i = pos;; i++) {
        if (i >= end) {
            sc->suffix = str + sstart;
            sc->suffix_len = end - sstart;
            return 0;
        }
        if (!strchr("eEinumkKMGTP", str[i])) {
            pos = i;
            break;
        }
    }
    if (pos < end && (str[pos] == '-' || str[pos] == '+'))
        pos++;
    for (i = pos;; i++) {
        if (i >= end) {
            sc->suffix = str + sstart;
            sc->suffix_len = end - sstart;
            return 0;
        }
        if (!isdig(str[i]))
            break;
    }
    return -1; /* ErrFormatWrong */
}

/* Go strconv.ParseInt(s, 10, 64). */
static int go_parse_int64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    unsigned long long v = 0, lim;
    if (n == 0)
        return -1;
    if (s[0] == '+' || s[0] == '-') {
        neg = s[0] == '-';
        i = 1;
        if (n == 1)
            return -1;
    }
    lim = neg ? (unsigned long long)INT64_MAX + 1 : (unsigned long long)INT64_MAX;
    for (; i < n; i++) {
        if (!isdig(s[i]))
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

static int interpret_suffix(const char *s, size_t n, int *base, int32_t *exp, sl_qformat_t *fmt)
{
    static const struct {
        const char *s;
        int base, exp;
        sl_qformat_t fmt;
    } tab[] = {
        {"", 10, 0, SL_QF_DECIMAL_SI},   {"n", 10, -9, SL_QF_DECIMAL_SI},
        {"u", 10, -6, SL_QF_DECIMAL_SI}, {"m", 10, -3, SL_QF_DECIMAL_SI},
        {"k", 10, 3, SL_QF_DECIMAL_SI},  {"M", 10, 6, SL_QF_DECIMAL_SI},
        {"G", 10, 9, SL_QF_DECIMAL_SI},  {"T", 10, 12, SL_QF_DECIMAL_SI},
        {"P", 10, 15, SL_QF_DECIMAL_SI}, {"E", 10, 18, SL_QF_DECIMAL_SI},
        {"Ki", 2, 10, SL_QF_BINARY_SI},  {"Mi", 2, 20, SL_QF_BINARY_SI},
        {"Gi", 2, 30, SL_QF_BINARY_SI},  {"Ti", 2, 40, SL_QF_BINARY_SI},
        {"Pi", 2, 50, SL_QF_BINARY_SI},  {"Ei", 2, 60, SL_QF_BINARY_SI},
    };
    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strlen(tab[i].s) == n && memcmp(tab[i].s, s, n) == 0) {
            *base = tab[i].base;
            *exp = tab[i].exp;
            *fmt = tab[i].fmt;
            return 0;
        }
    if (n > 1 && (s[0] == 'e' || s[0] == 'E')) {
        int64_t v;
        if (go_parse_int64(s + 1, n - 1, &v) < 0)
            return -1;
        *base = 10;
        *exp = (int32_t)(uint32_t)(uint64_t)v; /* Go's int32(parsed) wraps */
        *fmt = SL_QF_DECIMAL_EXPONENT;
        return 0;
    }
    return -1;
}

/* digits (ASCII, possibly with leading zeros) × 10^k, rounded up to an integer,
 * into *out; returns 1 when it does not fit (huge). */
static int scale_digits(const char *d, size_t n, long long k, i128 *out)
{
    i128 v = 0;
    size_t keep = n;
    int frac_nonzero = 0, any = 0;
    for (size_t i = 0; i < n; i++)
        any |= d[i] != '0';
    *out = 0;
    if (!any)
        return 0;
    if (k < 0) {
        long long drop = -k;
        if ((long long)n <= drop) {
            keep = 0;
        } else {
            keep = n - (size_t)drop;
        }
        for (size_t i = keep; i < n; i++)
            frac_nonzero |= d[i] != '0';
        k = 0;
    }
    for (size_t i = 0; i < keep; i++) {
        if (v > (I128_MAX - 9) / 10)
            return 1;
        v = v * 10 + (d[i] - '0');
    }
    for (long long i = 0; i < k; i++) {
        if (v == 0)
            break;
        if (v > I128_MAX / 10)
            return 1;
        v *= 10;
    }
    if (frac_nonzero)
        v += 1; /* inf.RoundUp: away from zero */
    *out = v;
    return 0;
}

/* -1, EINVAL, err of kind SL_ERR_BAD_REQUEST with kube's text. */
static int qerr(sl_error_t *err, const char *text)
{
    errno = EINVAL;
    return sl_errkindf(err, SL_ERR_BAD_REQUEST, "%s", text);
}

int sl_quantity_parse(const char *str, sl_quantity_t *q, sl_error_t *err)
{
    scan_t sc;
    int base = 10;
    int32_t exponent = 0;
    sl_qformat_t fmt = SL_QF_DECIMAL_SI;
    memset(q, 0, sizeof(*q));
    errno = EINVAL;
    if (!str || !*str)
        return qerr(err, SL_QUANTITY_ERR_FORMAT);
    if (strcmp(str, "0") == 0)
        return 0;
    if (scan_quantity(str, &sc) < 0)
        return qerr(err, SL_QUANTITY_ERR_FORMAT);
    if (interpret_suffix(sc.suffix, sc.suffix_len, &base, &exponent, &fmt) < 0)
        return qerr(err, SL_QUANTITY_ERR_SUFFIX);
    /* The fast path of ParseQuantity: does it apply and succeed? */
    int fast = 0;
    if (fmt != SL_QF_BINARY_SI) {
        int precision = 18 - (int)(sc.num_len + sc.denom_len);
        long long scale = (long long)exponent - (long long)sc.denom_len;
        fast = precision >= 0 && scale >= -9;
    } else if (sc.denom_len == 0) {
        int precision = 15 - (int)sc.num_len - (int)((float)exponent * 3 / 10) - 1;
        if (precision >= 0) {
            int64_t v;
            if (go_parse_int64(sc.num, sc.num_len, &v) == 0 &&
                (v == 0 || v <= (INT64_MAX >> exponent)))
                fast = 1;
        }
    }
    if (!fast) {
        /* inf.Dec.SetString(value) needs at least one digit */
        int has_digit = sc.zeros_only;
        for (size_t i = 0; i < sc.value_len; i++)
            has_digit |= isdig(str[i]);
        if (!has_digit)
            return qerr(err, SL_QUANTITY_ERR_NUMERIC);
    }
    /* Exact value: digits = num+denom, × base^exponent, ÷ 10^len(denom), in nanos. */
    size_t nd = sc.num_len + sc.denom_len;
    size_t cap = nd + 24;
    char *d = sl_xmalloc(cap);
    memcpy(d, sc.num, sc.num_len);
    memcpy(d + sc.num_len, sc.denom, sc.denom_len);
    long long k = 9 - (long long)sc.denom_len;
    if (base == 10) {
        k += exponent;
    } else {
        /* × 2^exponent on the decimal digit string (exponent ≤ 60 adds ≤ 19 digits) */
        for (int e = 0; e < exponent; e++) {
            int carry = 0;
            for (size_t i = nd; i-- > 0;) {
                int v = (d[i] - '0') * 2 + carry;
                d[i] = (char)('0' + v % 10);
                carry = v / 10;
            }
            if (carry) {
                memmove(d + 1, d, nd);
                d[0] = (char)('0' + carry);
                nd++;
            }
        }
    }
    i128 nanos;
    int huge = scale_digits(d, nd, k, &nanos);
    free(d);
    if (!fast && fmt == SL_QF_BINARY_SI) {
        const i128 max_nanos = (i128)INT64_MAX * 1000000000;
        if (huge || nanos > max_nanos) { /* maxAllowed cap */
            huge = 0;
            nanos = max_nanos;
        }
        if (nanos > 0 && nanos < 1000000000)
            fmt = SL_QF_DECIMAL_SI;
    }
    if (huge)
        nanos = I128_MAX;
    q->nanos = sc.positive ? nanos : -nanos;
    q->huge = huge;
    q->format = fmt;
    errno = 0;
    return 0;
}

int sl_quantity_from_json(const json_t *v, sl_quantity_t *q, char **text, sl_error_t *err)
{
    char *s = NULL;
    if (text)
        *text = NULL;
    if (!v || json_is_null(v)) {
        memset(q, 0, sizeof(*q));
        if (text)
            *text = sl_xstrdup("0");
        return 0;
    }
    if (json_is_string(v)) {
        const char *p = json_string_value(v);
        size_t n = strlen(p);
        while (n && strchr(" \t\n\r\v\f", p[n - 1]))
            n--;
        while (n && strchr(" \t\n\r\v\f", *p)) {
            p++;
            n--;
        }
        s = sl_xstrndup(p, n);
    } else if (json_is_integer(v)) {
        s = sl_xasprintf("%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        double x = json_real_value(v);
        char tmp[64];
        for (int prec = 1; prec <= 17; prec++) { /* shortest text that reads back */
            snprintf(tmp, sizeof(tmp), "%.*g", prec, x);
            if (strtod(tmp, NULL) == x)
                break;
        }
        s = sl_xstrdup(tmp);
    } else {
        memset(q, 0, sizeof(*q));
        return qerr(err, SL_QUANTITY_ERR_FORMAT);
    }
    int r = sl_quantity_parse(s, q, err);
    if (r == 0 && text)
        *text = s;
    else
        free(s);
    return r;
}

int sl_quantity_cmp(const sl_quantity_t *a, const sl_quantity_t *b)
{
    return a->nanos < b->nanos ? -1 : a->nanos > b->nanos ? 1 : 0;
}

int sl_quantity_sign(const sl_quantity_t *q) { return q->nanos < 0 ? -1 : q->nanos > 0; }

int sl_quantity_is_integer(const sl_quantity_t *q) { return q->huge || q->nanos % 1000000000 == 0; }

/* ceil(|n| / div) with n's sign; div > 0 */
static i128 div_away(i128 n, i128 div)
{
    int neg = n < 0;
    i128 a = neg ? -n : n;
    i128 r = a / div + (a % div != 0);
    return neg ? -r : r;
}

static int fit64(i128 v, int64_t *out)
{
    if (v > INT64_MAX || v < INT64_MIN) {
        errno = ERANGE;
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int sl_quantity_milli(const sl_quantity_t *q, int64_t *out)
{
    if (q->huge) {
        errno = ERANGE;
        return -1;
    }
    return fit64(div_away(q->nanos, 1000000), out);
}

int sl_quantity_ceil_div(const sl_quantity_t *q, int64_t unit, int64_t *out)
{
    if (q->huge || unit <= 0) {
        errno = q->huge ? ERANGE : EINVAL;
        return -1;
    }
    return fit64(div_away(q->nanos, (i128)unit * 1000000000), out);
}

static void put_i128(sl_buf_t *b, i128 v)
{
    char tmp[48];
    int i = sizeof(tmp);
    int neg = v < 0;
    unsigned __int128 u = neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    tmp[--i] = '\0';
    do {
        tmp[--i] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (neg)
        tmp[--i] = '-';
    sl_buf_puts(b, tmp + i);
}

char *sl_quantity_string(const sl_quantity_t *q)
{
    sl_buf_t b = SL_BUF_INIT;
    i128 v = q->nanos;
    if (v == 0) {
        sl_buf_putc(&b, '0');
        return sl_buf_steal(&b);
    }
    sl_qformat_t fmt = q->format;
    if (fmt == SL_QF_BINARY_SI) {
        const i128 k1024 = (i128)1024 * 1000000000;
        if ((v > -k1024 && v < k1024) || v % 1000000000 != 0)
            fmt = SL_QF_DECIMAL_SI; /* small or fractional: shown decimal */
    }
    if (fmt == SL_QF_BINARY_SI) {
        static const char *const suf[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
        i128 m = v / 1000000000;
        int e = 0;
        while (e < 6 && m % 1024 == 0) {
            m /= 1024;
            e++;
        }
        put_i128(&b, m);
        sl_buf_puts(&b, suf[e]);
        return sl_buf_steal(&b);
    }
    /* decimal: mantissa × 10^exp with exp a multiple of 3, mantissa without
     * trailing zeros where the exponent allows */
    int exp = -9;
    while (v % 10 == 0) {
        v /= 10;
        exp++;
    }
    while (((exp % 3) + 3) % 3 != 0) {
        v *= 10;
        exp--;
    }
    if (fmt == SL_QF_DECIMAL_EXPONENT) {
        put_i128(&b, v);
        if (exp != 0)
            sl_buf_printf(&b, "e%d", exp);
        return sl_buf_steal(&b);
    }
    while (exp > 18) {
        v *= 10;
        exp--;
    }
    static const char *const dsuf[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    put_i128(&b, v);
    sl_buf_puts(&b, dsuf[(exp + 9) / 3]);
    return sl_buf_steal(&b);
}
