/* request: the shim push's URL, as the router splits paths (a leading
 * slash, one trailing slash ignored, nothing else). */
#include "api/http/request.h"
#include "api/http/http.h"
#include "api/http/state.h"
#include "common/tap.h"

int main(void)
{
    ok(api_is_shim_push("/internal/v1/shim/events"), "the push endpoint");
    ok(api_is_shim_push("/internal/v1/shim/events/"), "with a trailing slash");
    ok(api_is_shim_push("internal/v1/shim/events"), "without the leading slash");
    ok(!api_is_shim_push("/internal/v1/shim/events//"), "two trailing slashes: an empty segment");
    ok(!api_is_shim_push("//internal/v1/shim/events"), "an empty first segment");
    ok(!api_is_shim_push("/internal/v1/shim/events/x"), "a fifth segment");
    ok(!api_is_shim_push("/internal/v1/shim"), "a prefix");
    ok(!api_is_shim_push("/api/v1/internal/v1/shim/events"), "a suffix");
    ok(!api_is_shim_push(NULL) && !api_is_shim_push(""), "NULL and empty");
    return tap_done();
}
