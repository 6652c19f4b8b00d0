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

static _Thread_local const char *last_why; /* sl_image_ref_reason() */

static int bad(sl_error_t *err, const char *ref, const char *why)
{
    last_why = why;
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

/* printable ASCII without spaces, and not a path */
static int chars_ok(const char *ref, sl_error_t *err)
{
    if (!ref || !*ref)
        return bad(err, "", "empty");
    if (ref[0] == '/' || ref[0] == '.' || strstr(ref, ".."))
        return bad(err, ref,
                   "an image name is a reference such as busybox or "
                   "library/busybox:1.36, not a path");
    for (const unsigned char *p = (const unsigned char *)ref; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f)
            return bad(err, ref, "only printable ASCII without spaces is allowed");
    return 0;
}

/* digest := "sha256:" 64 lower-case hex digits (the only algorithm registries use) */
static int digest_ok(const char *ref, const char *d, sl_error_t *err)
{
    if (strncmp(d, "sha256:", 7))
        return bad(err, ref, "a digest is sha256: followed by 64 hexadecimal digits");
    size_t n = 0;
    for (const char *p = d + 7; *p; p++, n++)
        if (!isdigit((unsigned char)*p) && !(*p >= 'a' && *p <= 'f'))
            return bad(err, ref,
                       "a digest is sha256: followed by 64 lower-case hexadecimal digits");
    if (n != 64)
        return bad(err, ref, "a sha256 digest has 64 hexadecimal digits");
    return 0;
}

static int tag_ok(const char *ref, const char *t, size_t tlen, sl_error_t *err)
{
    if (tlen == 0)
        return bad(err, ref, "empty tag after ':'");
    if (tlen > TAG_MAX_LEN)
        return bad(err, ref, "tag longer than 128 characters");
    if (!(isalnum((unsigned char)t[0]) || t[0] == '_'))
        return bad(err, ref, "a tag starts with a letter, digit or '_'");
    for (size_t i = 0; i < tlen; i++)
        if (!(isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == '.' || t[i] == '-'))
            return bad(err, ref, "a tag may only contain letters, digits, '_', '.' and '-'");
    return 0;
}

/* Is the first component of name (before the first '/') a registry host, as
 * Docker decides: it contains '.' or ':', or is "localhost"? Its length, or 0. */
static size_t domain_len(const char *name, size_t nlen)
{
    const char *s = memchr(name, '/', nlen);
    if (!s)
        return 0;
    size_t clen = (size_t)(s - name);
    if (memchr(name, '.', clen) || memchr(name, ':', clen) ||
        (clen == 9 && !strncmp(name, "localhost", 9)))
        return clen;
    return 0;
}

/* the name (nlen bytes of ref): [domain/]component(/component)* */
static int name_ok(const char *ref, size_t nlen, sl_error_t *err)
{
    if (nlen == 0)
        return bad(err, ref, "empty name");
    if (nlen > NAME_MAX_LEN)
        return bad(err, ref, "name longer than 255 characters");
    size_t dl = domain_len(ref, nlen);
    if (dl && !domain_ok(ref, dl))
        return bad(err, ref, "invalid registry host in the first component");
    const char *p = ref + (dl ? dl + 1 : 0), *end = ref + nlen;
    for (;;) {
        const char *s = memchr(p, '/', (size_t)(end - p));
        size_t clen = s ? (size_t)(s - p) : (size_t)(end - p);
        if (!path_component_ok(p, clen))
            return bad(err, ref,
                       "each name component is lower-case letters and digits, "
                       "separated by '.', '_', '__' or dashes");
        if (!s)
            return 0;
        p = s + 1;
    }
}

/* ref split into name, tag (NULL when absent) and digest (NULL when absent) */
static int split(const char *ref, char **name, char **tag, char **digest, sl_error_t *err)
{
    *name = *tag = *digest = NULL;
    if (chars_ok(ref, err) < 0)
        return -1;
    const char *at = strchr(ref, '@');
    size_t rest = at ? (size_t)(at - ref) : strlen(ref);
    if (at && digest_ok(ref, at + 1, err) < 0)
        return -1;
    /* the tag is after the last ':' that follows the last '/' */
    const char *slash = memrchr(ref, '/', rest);
    const char *colon =
        memrchr(slash ? slash : ref, ':', rest - (size_t)((slash ? slash : ref) - ref));
    size_t nlen = colon ? (size_t)(colon - ref) : rest;
    if (colon && tag_ok(ref, colon + 1, rest - nlen - 1, err) < 0)
        return -1;
    if (name_ok(ref, nlen, err) < 0)
        return -1;
    *name = sl_xstrndup(ref, nlen);
    if (colon)
        *tag = sl_xstrndup(colon + 1, rest - nlen - 1);
    if (at)
        *digest = sl_xstrdup(at + 1);
    return 0;
}

int sl_image_parse_ref(const char *ref, char **name, char **tag, sl_error_t *err)
{
    char *digest = NULL;
    if (ref && strchr(ref, '@')) {
        *name = *tag = NULL;
        return bad(err, ref, "digests are not supported by the local store; use a tag");
    }
    if (split(ref, name, tag, &digest, err) < 0)
        return -1;
    if (!*tag)
        *tag = sl_xstrdup("latest");
    return 0;
}

int sl_image_ref_parse(const char *ref, sl_image_ref_t *out, sl_error_t *err)
{
    memset(out, 0, sizeof(*out));
    char *name, *tag, *digest;
    if (split(ref, &name, &tag, &digest, err) < 0)
        return -1;
    size_t nlen = strlen(name), dl = domain_len(name, nlen);
    if (dl) {
        out->domain = sl_xstrndup(name, dl);
        out->path = sl_xstrdup(name + dl + 1);
    } else {
        out->domain = sl_xstrdup("docker.io");
        out->path = sl_xstrdup(name);
    }
    if (!strcmp(out->domain, "index.docker.io")) { /* Docker's legacy name of its hub */
        free(out->domain);
        out->domain = sl_xstrdup("docker.io");
    }
    if (!strcmp(out->domain, "docker.io") && !strchr(out->path, '/')) {
        char *p = sl_xasprintf("library/%s", out->path);
        free(out->path);
        out->path = p;
    }
    out->tag = tag ? tag : (digest ? NULL : sl_xstrdup("latest"));
    out->explicit_tag = tag != NULL;
    out->digest = digest;
    out->repo = sl_xasprintf("%s/%s", out->domain, out->path);
    out->full = sl_xasprintf("%s%s%s%s%s", out->repo, out->tag ? ":" : "", out->tag ? out->tag : "",
                             digest ? "@" : "", digest ? digest : "");
    free(name);
    return 0;
}

void sl_image_ref_free(sl_image_ref_t *r)
{
    if (!r)
        return;
    free(r->domain);
    free(r->path);
    free(r->tag);
    free(r->digest);
    free(r->repo);
    free(r->full);
    memset(r, 0, sizeof(*r));
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

const char *sl_image_ref_reason(const char *ref)
{
    sl_image_ref_t r;
    if (sl_image_ref_parse(ref, &r, NULL) == 0) {
        sl_image_ref_free(&r);
        return NULL;
    }
    return last_why;
}
