/* pull.c — images from registries into the store, once per digest (layout:
 * image.h). skopeo speaks the registry protocol, umoci applies the layers;
 * this file only decides what to fetch and keeps the store consistent. */
#include "image/image.h"
#include "image/internal.h"

#include "common/argv.h"
#include "common/fault.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "runtime/runtime.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* the node platform's architecture in OCI's words */
static const char *node_arch(void)
{
    struct utsname u;
    if (uname(&u) < 0)
        return "amd64";
    if (!strcmp(u.machine, "x86_64"))
        return "amd64";
    if (!strcmp(u.machine, "aarch64"))
        return "arm64";
    if (!strcmp(u.machine, "ppc64le"))
        return "ppc64le";
    return "amd64";
}

/* Docker and containerd allow plain HTTP to registries on loopback */
static int loopback(const char *domain)
{
    return !strncmp(domain, "localhost", 9) && (domain[9] == '\0' || domain[9] == ':')
               ? 1
               : !strncmp(domain, "127.", 4) || !strncmp(domain, "[::1]", 5);
}

/* --authfile (the pull's copy, as->auth), --tls-verify, --cert-dir (with
 * "src-" for copy); never skopeo's default files: they are the daemon's own */
static void auth_args(sl_argv_t *a, const char *pfx, const sl_image_ref_t *r,
                      const sl_image_pull_opts_t *o, const sl_image_as_t *as)
{
    sl_argv_addf(a, "--%sauthfile=%s", pfx, as->auth);
    if (loopback(r->domain))
        sl_argv_addf(a, "--%stls-verify=false", pfx);
    if (o->cert_dir)
        sl_argv_addf(a, "--%scert-dir=%s", pfx, o->cert_dir);
}

static int timeout_ms(const sl_image_pull_opts_t *o)
{
    return (o->timeout_s > 0 ? o->timeout_s : 600) * 1000;
}

/* the manifest request: a registry answers it at once, or not at all */
static int resolve_timeout_ms(const sl_image_pull_opts_t *o)
{
    return (o->resolve_timeout_s > 0 ? o->resolve_timeout_s : 30) * 1000;
}

static char *sha256_of(const char *data, size_t len)
{
    unsigned char d[32];
    gnutls_hash_fast(GNUTLS_DIG_SHA256, data, len, d);
    char *s = sl_xmalloc(7 + 65);
    memcpy(s, "sha256:", 7);
    for (int i = 0; i < 32; i++)
        snprintf(s + 7 + 2 * i, 3, "%02x", d[i]);
    return s;
}

/* the manifest of the node platform in an index / manifest list */
static char *platform_digest(json_t *idx, const char *arch, sl_error_t *err)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(idx, "manifests"), i, m)
    {
        json_t *pl = json_object_get(m, "platform");
        if (!strcmp(json_string_value(json_object_get(pl, "os")) ?: "", "linux") &&
            !strcmp(json_string_value(json_object_get(pl, "architecture")) ?: "", arch) &&
            json_is_string(json_object_get(m, "digest")))
            return sl_xstrdup(json_string_value(json_object_get(m, "digest")));
    }
    errno = EIO;
    sl_errprintf(err, "no matching manifest for linux/%s in the manifest list entries", arch);
    return NULL;
}

/* ask the registry what r is: out->repo_digest and out->digest */
static int resolve(const sl_image_ref_t *r, const sl_image_pull_opts_t *o, const sl_image_as_t *as,
                   const char *work, sl_image_pulled_t *out, sl_error_t *err)
{
    sl_argv_t a = SL_ARGV_INIT;
    sl_argv_add(&a, "skopeo");
    sl_argv_add(&a, "inspect");
    sl_argv_add(&a, "--raw");
    auth_args(&a, "", r, o, as);
    char *t = sl_xasprintf("docker://%s", r->full);
    sl_argv_add(&a, t);
    free(t);
    char *raw = NULL;
    int rc =
        sl_image_tool_run((const char *const *)a.v, work, resolve_timeout_ms(o), &raw, as, err);
    sl_argv_free(&a);
    if (rc < 0)
        return -1;
    out->repo_digest = sha256_of(raw, strlen(raw));
    json_t *j = json_loads(raw, 0, NULL);
    free(raw);
    if (!json_is_object(j)) {
        json_decref(j);
        errno = EIO;
        return sl_errprintf(err, "the registry's manifest of %s is not JSON", r->full);
    }
    if (json_is_array(json_object_get(j, "manifests")))
        out->digest = platform_digest(j, o->arch ? o->arch : node_arch(), err);
    else
        out->digest = sl_xstrdup(out->repo_digest);
    json_decref(j);
    return out->digest ? 0 : -1;
}

/* a file of the OCI layout (ocifd: the tools' user may own it), parsed:
 * never through a link, at most 4 MiB */
static json_t *oci_json(int ocifd, const char *rel)
{
    size_t len = 0;
    char *text = ocifd >= 0 ? sl_safefs_read(ocifd, rel, 4u << 20, &len, NULL) : NULL;
    json_t *j = text ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    return j;
}

/* a blob of the OCI layout, parsed */
static json_t *oci_blob(int ocifd, const char *digest)
{
    if (!digest || strncmp(digest, "sha256:", 7) || strchr(digest, '/'))
        return NULL;
    char *p = sl_xasprintf("blobs/sha256/%s", digest + 7);
    json_t *j = oci_json(ocifd, p);
    free(p);
    return j;
}

json_t *sl_image_oci_config(const char *oci)
{
    int fd = open(oci, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    json_t *idx = oci_json(fd, "index.json");
    json_t *m = oci_blob(fd, json_string_value(json_object_get(
                                 json_array_get(json_object_get(idx, "manifests"), 0), "digest")));
    json_t *c =
        oci_blob(fd, json_string_value(json_object_get(json_object_get(m, "config"), "digest")));
    if (fd >= 0)
        close(fd);
    json_t *cfg = json_object();
    json_t *ic = json_object_get(c, "config");
    const char *keys[] = {"Entrypoint", "Cmd", "Env", "WorkingDir", "User"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
        json_t *v = json_object_get(ic, keys[i]);
        if (v && !json_is_null(v))
            json_object_set(cfg, keys[i], v);
    }
    json_decref(c);
    json_decref(m);
    json_decref(idx);
    return cfg;
}

/* tmp/bundle/rootfs made safe and ready as tmp/final/rootfs, image.json beside it */
static int finish_tree(const sl_image_ref_t *r, const char *tmp, const char *oci,
                       sl_image_pulled_t *out, sl_error_t *err)
{
    char *fin = sl_xasprintf("%s/final", tmp);
    char *from = sl_xasprintf("%s/bundle/rootfs", tmp), *to = sl_xasprintf("%s/rootfs", fin);
    int rc = -1;
    if (mkdir(fin, 0755) < 0 || rename(from, to) < 0) {
        sl_errprintf(err, "move %s to %s: %s", from, to, strerror(errno));
    } else if (sl_image_prepare_rootfs(to, err) == 0 && sl_image_safe_stamp(fin, err) == 0) {
        out->size = sl_image_disk_usage(to);
        json_t *info = json_pack("{s:s, s:s, s:s, s:I, s:o}", "ref", r->full, "repoDigest",
                                 out->repo_digest, "digest", out->digest, "size",
                                 (json_int_t)out->size, "config", sl_image_oci_config(oci));
        char *p = sl_xasprintf("%s/image.json", fin);
        rc = json_dump_file(info, p, JSON_INDENT(2)) == 0 ? 0 : sl_errprintf(err, "write %s", p);
        free(p);
        json_decref(info);
    }
    free(fin);
    free(from);
    free(to);
    return rc;
}

/* a bounded tool's EFBIG said with the image and the option */
static int too_big(const sl_image_ref_t *r, unsigned long long limit, sl_error_t *err)
{
    errno = EFBIG;
    return sl_errprintf(err,
                        "image %s is larger than the limit of %llu bytes "
                        "(images.max_image_size): the pull was stopped",
                        r->full, limit);
}

/* skopeo copy of repo@digest into tmp/oci (a folder of as's), as as */
static int copy_oci(const sl_image_ref_t *r, const sl_image_pull_opts_t *o, const sl_image_as_t *as,
                    const char *tmp, const char *digest, unsigned long long limit, sl_error_t *err)
{
    char *oci = sl_xasprintf("%s/oci", tmp);
    int rc = sl_image_as_open(tmp, as, err) == 0 ? sl_image_as_mkdir(oci, as, err) : -1;
    sl_argv_t a = SL_ARGV_INIT;
    sl_argv_addv(&a, (const char *const[]){"skopeo", "copy", "--quiet", NULL});
    auth_args(&a, "src-", r, o, as);
    sl_argv_addf(&a, "docker://%s@%s", r->repo, digest);
    sl_argv_addf(&a, "oci:%s:img", oci);
    if (rc == 0)
        rc = limit ? sl_image_tool_run_bounded((const char *const *)a.v, tmp, timeout_ms(o), oci,
                                               limit, as, err)
                   : sl_image_tool_run((const char *const *)a.v, tmp, timeout_ms(o), NULL, as, err);
    sl_argv_free(&a);
    free(oci);
    return rc;
}

/* skopeo copy of the platform manifest into tmp/oci, umoci unpack into
 * tmp/bundle/rootfs (sl_image_unpack), both as as and each stopped when
 * its folder grows past the image limit; the tree ends as tmp/final/rootfs
 * with image.json beside it, made safe to share (sl_image_prepare_rootfs)
 * once tmp is root's alone again (mkdtemp: 0700) */
static int fetch(const sl_image_ref_t *r, const sl_image_pull_opts_t *o, const sl_image_as_t *as,
                 const char *tmp, sl_image_pulled_t *out, sl_error_t *err)
{
    unsigned long long limit = o->image_limit ? o->image_limit : SL_IMAGE_DEFAULT_LIMIT;
    char *oci = sl_xasprintf("%s/oci", tmp);
    int rc = copy_oci(r, o, as, tmp, out->digest, limit, err);
    if (rc == 0)
        rc = sl_image_unpack(tmp, as, limit, timeout_ms(o), err);
    if (rc < 0 && errno == EFBIG)
        too_big(r, limit, err);
    if (rc == 0)
        rc = finish_tree(r, tmp, oci, out, err);
    free(oci);
    return rc;
}

/* leftovers of pulls of hex cut short (the caller holds its lock) */
static void remove_leftovers(const char *store, const char *hex)
{
    DIR *d = opendir(store);
    if (!d)
        return;
    char *pfx = sl_xasprintf(".pull-%s-", hex);
    struct dirent *de;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, pfx, strlen(pfx))) {
            char *p = sl_xasprintf("%s/%s", store, de->d_name);
            sl_rm_rf(p);
            free(p);
        }
    free(pfx);
    closedir(d);
}

/* tmp/final into place as the digest folder, within the store limit */
static int install(const char *store, const char *hex, const char *tmp,
                   const sl_image_pull_opts_t *o, sl_image_pulled_t *out, sl_error_t *err)
{
    int sfd = -1, rc = -1;
    if (o->store_limit) { /* one pull at a time decides what goes */
        sfd = sl_image_lock(store, "store", 1, err);
        if (sfd < 0 || sl_image_make_room(store, hex, out->size, o->store_limit, err) < 0)
            goto out;
    }
    char *fin = sl_xasprintf("%s/final", tmp);
    rc = rename(fin, out->dir) == 0 ? 0 : sl_errprintf(err, "rename %s: %s", fin, strerror(errno));
    free(fin);
out:
    if (sfd >= 0)
        close(sfd);
    return rc;
}

/* <dir>/public: the digest was fetched without credentials */
static char *public_mark(const char *dir) { return sl_xasprintf("%s/public", dir); }

/* dir (a digest folder) 0755 when public, else 0750 with the group of the
 * store it is in (root's in the shared store, the job's in a private part) */
static int set_access(const char *store, const char *dir, int public, sl_error_t *err)
{
    struct stat st;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = fd >= 0 && stat(store, &st) == 0 && fchown(fd, 0, st.st_gid) == 0 &&
                     fchmod(fd, public ? 0755 : 0750) == 0
                 ? 0
                 : sl_errprintf(err, "set the access of %s: %s", dir, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

/* The registry gives the digest away without credentials: skopeo copy of
 * repo@digest (every blob checked against its digest) into a work folder
 * (named as a pull's, so a crash leaves what prune removes), then dropped.
 * The store's copy is used for anonymous pulls from then on. */
static int confirm_public(const char *store, const sl_image_ref_t *r, const sl_image_pull_opts_t *o,
                          const sl_image_as_t *as, const sl_image_pulled_t *out, sl_error_t *err)
{
    char *tmp = sl_xasprintf("%s/.pull-%s-XXXXXX", store, out->digest + 7);
    if (!mkdtemp(tmp)) {
        sl_errprintf(err, "mkdtemp %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = copy_oci(r, o, as, tmp, out->digest, 0, err);
    char *mark = public_mark(out->dir);
    if (rc == 0)
        rc = sl_write_file(mark, "", 0, 0644, err);
    if (rc == 0)
        rc = set_access(store, out->dir, 1, err);
    free(mark);
    sl_rm_rf(tmp);
    free(tmp);
    return rc;
}

/* a digest already stored, for this pull: a pull with credentials is in its
 * own part of the store (or an admin's); one without uses it only when it is
 * public, or once its registry gave it away to this pull too */
static int use_stored(const char *store, const sl_image_ref_t *r, const sl_image_pull_opts_t *o,
                      const sl_image_as_t *as, sl_image_pulled_t *out, sl_error_t *err)
{
    char *mark = public_mark(out->dir);
    int public = access(mark, F_OK) == 0;
    free(mark);
    if (o->authfile || public)
        return 0;
    return confirm_public(store, r, o, as, out, err);
}

/* the fetched tree marked public when no credential fetched it */
static int mark_fetched(const char *tmp, const sl_image_pull_opts_t *o, sl_error_t *err)
{
    if (o->authfile)
        return 0;
    char *mark = sl_xasprintf("%s/final/public", tmp);
    int rc = sl_write_file(mark, "", 0, 0644, err);
    free(mark);
    return rc;
}

/* the digest folder in place: it was there, or it is fetched now under its lock */
static int ensure(const char *store, const sl_image_ref_t *r, const sl_image_pull_opts_t *o,
                  const sl_image_as_t *as, sl_image_pulled_t *out, sl_error_t *err)
{
    const char *hex = out->digest + 7;
    char *info = sl_xasprintf("%s/image.json", out->dir);
    char *sha = sl_xasprintf("%s/sha256", store);
    int rc = -1, fd = -1;
    char *tmp = NULL;
    if (sl_mkdir_p(sha, 0755, err) < 0)
        goto out;
    fd = sl_image_lock(store, hex, 1, err); /* a pull of this digest elsewhere: wait for it */
    if (fd < 0)
        goto out;
    if (access(info, F_OK) == 0) {
        out->cached = 1;
        rc = sl_image_digest_safe(out->dir, err);
        if (rc == 0)
            rc = use_stored(store, r, o, as, out, err);
        goto out;
    }
    remove_leftovers(store, hex);
    tmp = sl_xasprintf("%s/.pull-%s-XXXXXX", store, hex);
    if (!mkdtemp(tmp)) {
        sl_errprintf(err, "mkdtemp %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (fetch(r, o, as, tmp, out, err) < 0)
        goto out;
    SL_FAULT("pull-fetched"); /* the layers are unpacked, the digest not yet in place */
    if (mark_fetched(tmp, o, err) == 0 && install(store, hex, tmp, o, out, err) == 0)
        rc = set_access(store, out->dir, o->authfile == NULL, err);
out:
    if (tmp)
        sl_rm_rf(tmp);
    if (fd >= 0)
        close(fd); /* the lock goes with it */
    free(tmp);
    free(sha);
    free(info);
    return rc;
}

/* <store>/refs/<name>+<tag>: the tag's last resolution */
static char *ref_record(const char *store, const sl_image_ref_t *r)
{
    return sl_image_ref_record(store, r->full);
}

static void record(const char *store, const sl_image_ref_t *r, const sl_image_pulled_t *p,
                   int anonymous)
{
    char *refs = sl_xasprintf("%s/refs", store);
    char *path = ref_record(store, r);
    json_t *j = json_pack("{s:s, s:s, s:s, s:b}", "ref", r->full, "repoDigest", p->repo_digest,
                          "digest", p->digest, "anonymous", anonymous);
    char *text = json_dumps(j, JSON_INDENT(2));
    /* root's alone: the tags pulled, of every tenant */
    if (sl_mkdir_p(refs, 0700, NULL) == 0 && chmod(refs, 0700) == 0)
        sl_write_file(path, text, strlen(text), 0600, NULL);
    free(text);
    json_decref(j);
    free(path);
    free(refs);
}

/* out->ref, image_id, dir, rootfs from r and the two digests */
static void fill_paths(const char *store, const sl_image_ref_t *r, sl_image_pulled_t *out)
{
    out->ref = sl_xstrdup(r->full);
    out->image_id = sl_xasprintf("%s@%s", r->repo, out->repo_digest);
    out->dir = sl_xasprintf("%s/sha256/%s", store, out->digest + 7);
    out->rootfs = sl_xasprintf("%s/rootfs", out->dir);
}

/* out->present and out->size from the digest folder's image.json */
static void read_info(sl_image_pulled_t *out)
{
    char *info = sl_xasprintf("%s/image.json", out->dir);
    json_t *j = json_load_file(info, 0, NULL);
    out->present = j != NULL;
    if (j)
        out->size = (unsigned long long)json_integer_value(json_object_get(j, "size"));
    json_decref(j);
    free(info);
}

static int digest_sane(const char *d)
{
    if (!d || strncmp(d, "sha256:", 7) || strlen(d) != 71)
        return 0;
    return strspn(d + 7, "0123456789abcdef") == 64;
}

/* a failed manifest request as a tenant may read it: the registry's answer,
 * else one text for a closed, silent or non-registry port (the log has it) */
static void tenant_error(const sl_image_ref_t *r, const sl_image_pull_opts_t *o, sl_error_t *err)
{
    if (!err || !o->tenant_errors || errno == ECANCELED || sl_image_registry_answer(err->text))
        return;
    int e = errno;
    sl_warn("image %s: the manifest request failed: %s", r->full, err->text);
    sl_error_clear(err);
    sl_errprintf(err, "cannot reach registry %s", r->domain);
    errno = e;
}

/* who runs this pull's tools: for a pull with credentials the pod's job
 * user (none given, or root's ids: root, whose the credentials are), for
 * one without images.unpack_user (unset: root) */
static int pull_as(const sl_image_pull_opts_t *o, sl_image_as_t *as, sl_error_t *err)
{
    memset(as, 0, sizeof(*as));
    if (o->authfile) {
        if (o->cred_uid && o->cred_gid) {
            as->uid = o->cred_uid;
            as->gid = o->cred_gid;
        }
        return 0;
    }
    return o->unpack_user ? sl_image_as_lookup(o->unpack_user, &as->uid, &as->gid, err) : 0;
}

/* the registry's answer for r (out's digests), then the digest in the store */
static int pull_in(const char *store, const sl_image_ref_t *r, const sl_image_pull_opts_t *o,
                   const sl_image_as_t *as, const char *work, sl_image_pulled_t *out,
                   sl_error_t *err)
{
    if (resolve(r, o, as, work, out, err) < 0) {
        tenant_error(r, o, err);
        return -1;
    }
    if (!digest_sane(out->digest)) {
        errno = EIO;
        return sl_errprintf(err, "the registry named an invalid digest for %s", r->full);
    }
    fill_paths(store, r, out);
    int rc = o->check_only ? 0 : ensure(store, r, o, as, out, err);
    read_info(out);
    if (rc == 0 && !o->check_only)
        record(store, r, out, o->authfile == NULL);
    return rc;
}

int sl_image_pull(const char *store, const char *ref, const sl_image_pull_opts_t *o,
                  sl_image_pulled_t *out, sl_error_t *err)
{
    memset(out, 0, sizeof(*out));
    sl_image_ref_t r;
    if (sl_image_ref_parse(ref, &r, err) < 0)
        return -1;
    sl_image_as_t as;
    char *work = NULL;
    int rc = -1;
    if (pull_as(o, &as, err) < 0 || sl_mkdir_p(store, 0755, err) < 0)
        goto done;
    work = sl_xasprintf("%s/.resolve-XXXXXX", store);
    if (!mkdtemp(work)) {
        sl_errprintf(err, "mkdtemp %s: %s", work, strerror(errno));
        goto done;
    }
    sl_image_tool_cancel_on(o->cancel);
    if (sl_image_as_prepare(&as, work, o->authfile, err) == 0)
        rc = pull_in(store, &r, o, &as, work, out, err);
done:
    sl_image_tool_cancel_on(NULL);
    if (work)
        sl_rm_rf(work);
    free(work);
    sl_image_as_free(&as);
    sl_image_ref_free(&r);
    if (rc < 0)
        sl_image_pulled_free(out);
    return rc;
}

int sl_image_lookup_pulled(const char *store, const char *ref, sl_image_pulled_t *out,
                           sl_error_t *err)
{
    memset(out, 0, sizeof(*out));
    sl_image_ref_t r;
    if (sl_image_ref_parse(ref, &r, err) < 0)
        return -1;
    char *path = ref_record(store, &r);
    json_t *j = json_load_file(path, 0, NULL);
    const char *rd = json_string_value(json_object_get(j, "repoDigest"));
    const char *d = json_string_value(json_object_get(j, "digest"));
    int rc = -1;
    if (digest_sane(rd) && digest_sane(d)) {
        out->repo_digest = sl_xstrdup(rd);
        out->digest = sl_xstrdup(d);
        fill_paths(store, &r, out);
        read_info(out);
        out->cached = 1;
        /* a tag resolved without credentials to a digest fetched without
         * them: a record written before the public mark existed may name
         * a digest that was pulled with credentials */
        char *mark = public_mark(out->dir);
        out->anonymous = json_is_true(json_object_get(j, "anonymous")) && access(mark, F_OK) == 0;
        free(mark);
        rc = out->present ? 0 : -1;
    }
    if (rc < 0) {
        sl_image_pulled_free(out);
        errno = ENOENT;
        sl_errprintf(err, "image %s has not been pulled into %s", r.full, store);
    }
    json_decref(j);
    free(path);
    sl_image_ref_free(&r);
    return rc;
}

void sl_image_pulled_free(sl_image_pulled_t *p)
{
    if (!p)
        return;
    free(p->ref);
    free(p->repo_digest);
    free(p->image_id);
    free(p->digest);
    free(p->dir);
    free(p->rootfs);
    memset(p, 0, sizeof(*p));
}
