/* datakeys.c — the data of ConfigMaps and Secrets as kube-apiserver checks
 * it: base64 as Go's decoder reads []byte fields (a decode error, 400),
 * then ValidateConfigMap / ValidateSecret (422): keys (IsConfigMapKey),
 * keys unique across data and binaryData, at most 1 MiB of data. The keys
 * become file names in pod folders, so "..", "." and "/" must never get
 * through. */
#include "api/datakeys.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <string.h>

#define MAX_DATA (1024 * 1024) /* core.MaxSecretSize */
#define MAX_KEY 253            /* DNS1123SubdomainMaxLength */

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static size_t skip_newlines(const char *s, size_t n, size_t si)
{
    while (si < n && (s[si] == '\n' || s[si] == '\r'))
        si++;
    return si;
}

/* One quantum of base64.StdEncoding.decodeQuantum: 0 with *si advanced and
 * *out the bytes it decodes, or -1 with *bad the CorruptInputError offset. */
static int quantum(const char *s, size_t n, size_t *si, size_t *out, size_t *bad)
{
    size_t i = *si;
    int j = 0;
    for (; j < 4; j++) {
        if (i == n) {
            if (j == 0)
                break;
            *bad = i - (size_t)j; /* j == 1, or a padded encoding cut short */
            return -1;
        }
        unsigned char c = (unsigned char)s[i++];
        if (b64_value(c) >= 0)
            continue;
        if (c == '\n' || c == '\r') {
            j--;
            continue;
        }
        if (c != '=' || j < 2) {
            *bad = i - 1; /* not base64, or padding too early */
            return -1;
        }
        if (j == 2) { /* "==" expected: the first '=' is consumed */
            i = skip_newlines(s, n, i);
            if (i == n) {
                *bad = n;
                return -1;
            }
            if (s[i] != '=') {
                *bad = i - 1;
                return -1;
            }
            i++;
        }
        i = skip_newlines(s, n, i);
        if (i < n) { /* trailing garbage */
            *bad = i;
            return -1;
        }
        break;
    }
    *si = i;
    *out = j > 0 ? (size_t)j - 1 : 0;
    return 0;
}

long api_go_base64_error(const char *s, size_t n, size_t *decoded)
{
    size_t si = 0, total = 0, bad = 0;
    while (si < n) {
        size_t got = 0;
        if (quantum(s, n, &si, &got, &bad) < 0)
            return (long)bad;
        total += got;
        if (got < 3) /* padding ended the input, or it ran out */
            break;
    }
    if (decoded)
        *decoded = total;
    return -1;
}

int api_data_decode_check(json_t *obj, const char *field, sl_error_t *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(obj, field), k, v)
    {
        const char *s = json_string_value(v);
        if (!s)
            continue; /* null decodes to nothing; other types: the schema */
        long at = api_go_base64_error(s, json_string_length(v), NULL);
        if (at >= 0)
            return sl_errkindf(err, SL_ERR_BAD_REQUEST, "illegal base64 data at input byte %ld",
                               at);
    }
    return 0;
}

/* IsConfigMapKey, each message an Invalid error on field[key] */
static void check_key(sl_error_t *errs, const char *field, const char *key)
{
    size_t n = strlen(key);
    if (n > MAX_KEY)
        sl_err_invalid(errs, key, "must be no more than 253 characters", "%s[%s]", field, key);
    if (!n || strspn(key, "-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != n)
        sl_err_invalid(errs, key,
                       "a valid config key must consist of alphanumeric characters, '-', '_' or "
                       "'.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for "
                       "validation is '[-._a-zA-Z0-9]+')",
                       "%s[%s]", field, key);
    if (!strcmp(key, "."))
        sl_err_invalid(errs, key, "must not be '.'", "%s[%s]", field, key);
    else if (!strcmp(key, ".."))
        sl_err_invalid(errs, key, "must not be '..'", "%s[%s]", field, key);
    else if (!strncmp(key, "..", 2))
        sl_err_invalid(errs, key, "must not start with '..'", "%s[%s]", field, key);
}

/* keys of obj.field checked; the bytes its values hold */
static size_t check_map(json_t *obj, const char *field, bool b64, sl_error_t *errs)
{
    size_t total = 0;
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(obj, field), k, v)
    {
        check_key(errs, field, k);
        size_t len = json_string_length(v);
        if (b64 && json_is_string(v))
            api_go_base64_error(json_string_value(v), len, &len);
        total += len;
    }
    return total;
}

void api_validate_configmap_data(json_t *obj, sl_error_t *errs)
{
    size_t total = check_map(obj, "data", false, errs);
    json_t *bin = json_object_get(obj, "binaryData");
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(obj, "data"), k, v)
    {
        if (json_object_get(bin, k))
            sl_err_invalid(errs, k, "duplicate of key present in binaryData", "data[%s]", k);
    }
    total += check_map(obj, "binaryData", true, errs);
    if (total > MAX_DATA)
        sl_err_field(errs, SL_FE_TOO_LONG, "[]", NULL, "may not be more than 1048576 bytes");
}

void api_validate_secret_data(json_t *obj, sl_error_t *errs)
{
    if (check_map(obj, "data", true, errs) > MAX_DATA)
        sl_err_field(errs, SL_FE_TOO_LONG, "data", NULL, "may not be more than 1048576 bytes");
}
