/* Unit tests: registry references as Kubernetes and Docker read them
 * (defaults docker.io, library/, :latest; digests; malformed ones). */
#include "common/tap.h"
#include "image/image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define D64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void good(const char *ref, const char *domain, const char *path, const char *tag,
                 const char *digest, const char *full)
{
    sl_image_ref_t r;
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_image_ref_parse(ref, &r, &err);
    ok(rc == 0, "valid: %s (%s)", ref, err.text);
    if (rc < 0)
        return;
    is_str(r.domain, domain, "  registry of %s", ref);
    is_str(r.path, path, "  repository of %s", ref);
    is_str(r.tag ? r.tag : "(none)", tag ? tag : "(none)", "  tag of %s", ref);
    is_str(r.digest ? r.digest : "(none)", digest ? digest : "(none)", "  digest of %s", ref);
    is_str(r.full, full, "  canonical form of %s", ref);
    sl_image_ref_free(&r);
}

static void bad(const char *ref, const char *why)
{
    sl_image_ref_t r;
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_image_ref_parse(ref, &r, &err);
    ok(rc < 0 && errno == EINVAL && r.full == NULL, "invalid: %s", ref);
    has_str(err.text, why, "  reason for %s", ref);
}

int main(void)
{
    tap_plan(88);
    good("busybox", "docker.io", "library/busybox", "latest", NULL,
         "docker.io/library/busybox:latest");
    good("python:3.11", "docker.io", "library/python", "3.11", NULL,
         "docker.io/library/python:3.11");
    good("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime", "docker.io", "pytorch/pytorch",
         "2.5.1-cuda12.4-cudnn9-runtime", NULL,
         "docker.io/pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime");
    good("nvcr.io/nvidia/pytorch:24.01-py3", "nvcr.io", "nvidia/pytorch", "24.01-py3", NULL,
         "nvcr.io/nvidia/pytorch:24.01-py3");
    good("localhost:5000/busybox", "localhost:5000", "busybox", "latest", NULL,
         "localhost:5000/busybox:latest");
    good("127.0.0.1:5000/a/b/c:v1", "127.0.0.1:5000", "a/b/c", "v1", NULL,
         "127.0.0.1:5000/a/b/c:v1");
    good("localhost/x", "localhost", "x", "latest", NULL, "localhost/x:latest");
    good("busybox@sha256:" D64, "docker.io", "library/busybox", NULL, "sha256:" D64,
         "docker.io/library/busybox@sha256:" D64);
    good("reg.example.com:443/team/app:1.0@sha256:" D64, "reg.example.com:443", "team/app", "1.0",
         "sha256:" D64, "reg.example.com:443/team/app:1.0@sha256:" D64);
    good("index.docker.io/busybox", "docker.io", "library/busybox", "latest", NULL,
         "docker.io/library/busybox:latest");
    good("my_org/my-app__x.y", "docker.io", "my_org/my-app__x.y", "latest", NULL,
         "docker.io/my_org/my-app__x.y:latest");

    bad("", "empty");
    bad("Busybox", "lower-case");
    bad("busybox:", "empty tag");
    bad("busybox:-x", "a tag starts with");
    bad("busybox@sha256:abc", "64 hexadecimal digits");
    bad("busybox@md5:" D64, "sha256:");
    bad("busybox@sha256:" D64 "X", "hexadecimal");
    bad("/tmp/x.sif", "not a path");
    bad("bad host!/x", "printable ASCII without spaces");
    bad("-host.com/x", "registry host");
    bad("a//b", "name component");
    return tap_done();
}
