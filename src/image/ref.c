/* ref.c — image references (Docker's grammar) and their folder in the store. */
#include "image/image.h"

#include "common/xalloc.h"
#include "runtime/runtime.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 255
#define TAG_MAX_LEN 128

static int bad(sl_error_t *err, const char *ref, const char *why)
{
    errno = EINVAL;
    return sl_errprintf(err, "invalid image reference \"%s\": %s", ref, why);
}

/* path-component := [a-z0-9]+ (separator [a-z0-9]+)*, separator := [_.] | __ | -+ */
static int path_component_ok(const char *s, size_t n)
{
    if (n == 0 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
        return 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (islower((unsigned char)s[i]) || isdigit((unsigned char)s[i])))
            i++;
        if (i == n)
            return 1;
        /* a separator, then at least one alphanumeric */
        if (s[i] == '.')
            i++;
        else if (s[i] == '_')
            i += (i + 1 < n && s[i + 1] == '_') ? 2 : 1;
        else if (s[i] == '-')
            while (i < n && s[i] == '-')
                i++;
        else
            return 0;
        if (i == n || !(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i])))
            return 0;
    }
    return 1;
}

/* domain := component ('.' component)* (':' port)?,
 * component := [a-zA-Z0-9] | [a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9] */
static int domain_ok(const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    size_t hn = colon ? (size_t)(colon - s) : n;
    if (colon) {
        size_t pn = n - hn - 1;
        if (pn == 0 || pn > 5)
            return 0;
        for (size_t i = hn + 1; i < n; i++)
            if (!isdigit((unsigned char)s[i]))
                return 0;
    }
    if (hn == 0)
        return 0;
    size_t start = 0;
    for (size_t i = 0; i <= hn; i++) {
        if (i < hn && s[i] != '.') {
            if (!isalnum((unsigned char)s[i]) && s[i] != '-')
                return 0;
            continue;
        }
        size_t len = i - start;
        if (len == 0 || s[start] == '-' || s[i - 1] == '-')
            return 0;
        start = i + 1;
    }
    return 1;
}

int sl_image_parse_ref(const char *ref, char **name, char **tag, sl_error_t *err)
{
    *name = *tag = NULL;
    if (!ref || !*ref)
        return bad(err, "", "empty");
    if (ref[0] == '/' || ref[0] == '.' || strstr(ref, ".."))
        return bad(err, ref,
                   "an image name is a reference such as busybox or "
                   "library/busybox:1.36, not a path");
    if (strchr(ref, '@'))
        return bad(err, ref, "digests are not supported by the local store; use a tag");
    for (const unsigned char *p = (const unsigned char *)ref; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f)
            return bad(err, ref, "only printable ASCII without spaces is allowed");

    /* the tag is after the last ':' that follows the last '/' */
    const char *slash = strrchr(ref, '/');
    const char *colon = strrchr(slash ? slash : ref, ':');
    size_t nlen = colon ? (size_t)(colon - ref) : strlen(ref);
    const char *t = colon ? colon + 1 : "latest";
    size_t tlen = strlen(t);
    if (tlen == 0)
        return bad(err, ref, "empty tag after ':'");
    if (tlen > TAG_MAX_LEN)
        return bad(err, ref, "tag longer than 128 characters");
    if (!(isalnum((unsigned char)t[0]) || t[0] == '_'))
        return bad(err, ref, "a tag starts with a letter, digit or '_'");
    for (size_t i = 0; i < tlen; i++)
        if (!(isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == '.' || t[i] == '-'))
            return bad(err, ref, "a tag may only contain letters, digits, '_', '.' and '-'");
    if (nlen == 0)
        return bad(err, ref, "empty name");
    if (nlen > NAME_MAX_LEN)
        return bad(err, ref, "name longer than 255 characters");

    /* components; the first is a registry domain when it looks like one
     * (contains '.' or ':', or is "localhost"), as Docker decides */
    const char *p = ref, *end = ref + nlen;
    int first = 1;
    while (p <= end) {
        const char *s = memchr(p, '/', (size_t)(end - p));
        size_t clen = s ? (size_t)(s - p) : (size_t)(end - p);
        int is_domain = first && s &&
                        (memchr(p, '.', clen) || memchr(p, ':', clen) ||
                         (clen == 9 && !strncmp(p, "localhost", 9)));
        if (is_domain) {
            if (!domain_ok(p, clen))
                return bad(err, ref, "invalid registry host in the first component");
        } else if (!path_component_ok(p, clen)) {
            return bad(err, ref,
                       "each name component is lower-case letters and digits, "
                       "separated by '.', '_', '__' or dashes");
        }
        first = 0;
        if (!s)
            break;
        p = s + 1;
    }
    *name = sl_xstrndup(ref, nlen);
    *tag = sl_xstrdup(t);
    return 0;
}

char *sl_image_dir(const char *store, const char *ref, sl_error_t *err)
{
    char *name, *tag;
    if (sl_image_parse_ref(ref, &name, &tag, err) < 0)
        return NULL;
    free(name);
    free(tag);
    /* one mapping rule for the whole project: the runtime backends look
     * images up with the same function */
    return sl_runtime_image_dir(store, ref);
}
