/* names.c — Kubernetes name and label rules with their exact messages
 * (k8s.io/apimachinery/pkg/util/validation). Hand-written matchers stand in
 * for Go's regexps; the regexps themselves appear in the messages. */
#include "pod/pod.h"

#include "common/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define LABEL_MSG                                                                                  \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "            \
    "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "             \
    "'123-abc', regex used for validation is '" LABEL_FMT "')"
#define SUBDOMAIN_MSG                                                                              \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "          \
    "'-' or '.', and must start and end with an alphanumeric character (e.g. "                     \
    "'example.com', regex used for validation is '" LABEL_FMT "(\\." LABEL_FMT ")*')"
#define QNAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QNAME_MSG                                                                                  \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end "            \
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "          \
    "used for validation is '" QNAME_FMT "')"
#define LABELVAL_MSG                                                                               \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', "           \
    "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  "         \
    "or 'my_value',  or '12345', regex used for validation is '(" QNAME_FMT ")?')"
#define ENVNAME_MSG                                                                                \
    "a valid environment variable name must consist only of printable ASCII characters "           \
    "other than '='"

static int lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

static int alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0:n] */
static int match_label(const char *s, size_t n)
{
    if (n == 0 || !lower_alnum(s[0]) || !lower_alnum(s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!lower_alnum(s[i]) && s[i] != '-')
            return 0;
    return 1;
}

static int match_subdomain(const char *s)
{
    const char *p = s;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (!match_label(p, n))
            return 0;
        if (!dot)
            return 1;
        p = dot + 1;
    }
}

static int match_qname(const char *s, size_t n)
{
    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!alnum(s[i]) && !strchr("-_.", s[i]))
            return 0;
    return 1;
}

int sl_is_dns1123_label(const char *v) { return strlen(v) <= 63 && match_label(v, strlen(v)); }

int sl_is_dns1123_subdomain(const char *v) { return strlen(v) <= 253 && match_subdomain(v); }

int sl_validate_dns1123_label(sl_fielderrs_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (strlen(v) > 63) {
        sl_fe_invalid(errs, v, "must be no more than 63 characters", "%s", field);
        n++;
    }
    if (!match_label(v, strlen(v))) {
        if (match_subdomain(v))
            sl_fe_invalid(errs, v, "must not contain dots", "%s", field);
        else
            sl_fe_invalid(errs, v, LABEL_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_dns1123_subdomain(sl_fielderrs_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (strlen(v) > 253) {
        sl_fe_invalid(errs, v, "must be no more than 253 characters", "%s", field);
        n++;
    }
    if (!match_subdomain(v)) {
        sl_fe_invalid(errs, v, SUBDOMAIN_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_qualified_name(sl_fielderrs_t *errs, const char *field, const char *v)
{
    int n = 0;
    const char *slash = strchr(v, '/');
    const char *name = v;
    if (slash && strchr(slash + 1, '/')) {
        sl_fe_invalid(errs, v,
                      "a qualified name " QNAME_MSG " with an optional DNS subdomain prefix and "
                      "'/' (e.g. 'example.com/MyName')",
                      "%s", field);
        return 1;
    }
    if (slash) {
        char *prefix = sl_xstrndup(v, (size_t)(slash - v));
        name = slash + 1;
        if (!*prefix) {
            sl_fe_invalid(errs, v, "prefix part must be non-empty", "%s", field);
            n++;
        } else {
            if (strlen(prefix) > 253) {
                sl_fe_invalid(errs, v, "prefix part must be no more than 253 characters", "%s",
                              field);
                n++;
            }
            if (!match_subdomain(prefix)) {
                sl_fe_invalid(errs, v, "prefix part " SUBDOMAIN_MSG, "%s", field);
                n++;
            }
        }
        free(prefix);
    }
    if (!*name) {
        sl_fe_invalid(errs, v, "name part must be non-empty", "%s", field);
        n++;
    } else if (strlen(name) > 63) {
        sl_fe_invalid(errs, v, "name part must be no more than 63 characters", "%s", field);
        n++;
    }
    if (!match_qname(name, strlen(name))) {
        sl_fe_invalid(errs, v, "name part " QNAME_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_label_value(sl_fielderrs_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (strlen(v) > 63) {
        sl_fe_invalid(errs, v, "must be no more than 63 characters", "%s", field);
        n++;
    }
    if (*v && !match_qname(v, strlen(v))) {
        sl_fe_invalid(errs, v, LABELVAL_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_env_name(sl_fielderrs_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (!*v) {
        sl_fe_invalid(errs, v, "environment variable name must be non-empty", "%s", field);
        n++;
    }
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '=') {
            sl_fe_invalid(errs, v, ENVNAME_MSG, "%s", field);
            n++;
            break;
        }
    return n;
}
