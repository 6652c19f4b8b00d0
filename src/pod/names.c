/* names.c — Kubernetes name and label rules with their exact messages
 * (k8s.io/apimachinery/pkg/util/validation) as field errors. The matchers
 * and messages live in kube/meta.h, the one home of the name rules. */
#include "pod/pod.h"

#include "common/xalloc.h"
#include "kube/meta.h"

#include <stdlib.h>
#include <string.h>

#define ENVNAME_MSG                                                                                \
    "a valid environment variable name must consist only of printable ASCII characters "           \
    "other than '='"

int sl_validate_dns1123_label(sl_error_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (strlen(v) > 63) {
        sl_err_invalid(errs, v, "must be no more than 63 characters", "%s", field);
        n++;
    }
    if (!sl_kube_match_dns1123_label(v, strlen(v))) {
        if (sl_kube_match_dns1123_subdomain(v))
            sl_err_invalid(errs, v, "must not contain dots", "%s", field);
        else
            sl_err_invalid(errs, v, SL_KUBE_LABEL_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_dns1123_subdomain(sl_error_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (strlen(v) > 253) {
        sl_err_invalid(errs, v, "must be no more than 253 characters", "%s", field);
        n++;
    }
    if (!sl_kube_match_dns1123_subdomain(v)) {
        sl_err_invalid(errs, v, SL_KUBE_SUBDOMAIN_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_qualified_name(sl_error_t *errs, const char *field, const char *v)
{
    int n = 0;
    const char *slash = strchr(v, '/');
    const char *name = v;
    if (slash && strchr(slash + 1, '/')) {
        sl_err_invalid(errs, v,
                       "a qualified name " SL_KUBE_QNAME_MSG
                       " with an optional DNS subdomain prefix and "
                       "'/' (e.g. 'example.com/MyName')",
                       "%s", field);
        return 1;
    }
    if (slash) {
        char *prefix = sl_xstrndup(v, (size_t)(slash - v));
        name = slash + 1;
        if (!*prefix) {
            sl_err_invalid(errs, v, "prefix part must be non-empty", "%s", field);
            n++;
        } else {
            if (strlen(prefix) > 253) {
                sl_err_invalid(errs, v, "prefix part must be no more than 253 characters", "%s",
                               field);
                n++;
            }
            if (!sl_kube_match_dns1123_subdomain(prefix)) {
                sl_err_invalid(errs, v, "prefix part " SL_KUBE_SUBDOMAIN_MSG, "%s", field);
                n++;
            }
        }
        free(prefix);
    }
    if (!*name) {
        sl_err_invalid(errs, v, "name part must be non-empty", "%s", field);
        n++;
    } else if (strlen(name) > 63) {
        sl_err_invalid(errs, v, "name part must be no more than 63 characters", "%s", field);
        n++;
    }
    if (!sl_kube_match_qname(name, strlen(name))) {
        sl_err_invalid(errs, v, "name part " SL_KUBE_QNAME_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_label_value(sl_error_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (strlen(v) > 63) {
        sl_err_invalid(errs, v, "must be no more than 63 characters", "%s", field);
        n++;
    }
    if (*v && !sl_kube_match_qname(v, strlen(v))) {
        sl_err_invalid(errs, v, SL_KUBE_LABEL_VALUE_MSG, "%s", field);
        n++;
    }
    return n;
}

int sl_validate_env_name(sl_error_t *errs, const char *field, const char *v)
{
    int n = 0;
    if (!*v) {
        sl_err_invalid(errs, v, "environment variable name must be non-empty", "%s", field);
        n++;
    }
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '=') {
            sl_err_invalid(errs, v, ENVNAME_MSG, "%s", field);
            n++;
            break;
        }
    return n;
}
