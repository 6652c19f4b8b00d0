/* streams — exec.max_streams_per_user and the descriptor reserve
 * (http/conns.c, api/http/identity.c): an identity takes streams up to its cap, is refused (429,
 * naming the option) beyond it and served again once some are given back,
 * while another identity keeps its own; under a tight RLIMIT_NOFILE any
 * stream is refused (503), whoever asks, and served again once the limit
 * is back. */
#include "api/http/http.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/server.h"
#include "common/tap.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int take(sl_api_t *api, const char *who, unsigned n, unsigned *code, char **why)
{
    free(*why);
    *why = NULL;
    *code = 0;
    return api_streams_take_as(api, who, n, code, why);
}

static long open_fds(void)
{
    long n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *de; d && (de = readdir(d));)
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    tap_plan(14);
    sl_error_t err = SL_ERROR_INIT;
    sl_store_t *store = sl_store_open(":memory:", &err);
    ok(store != NULL, "store (%s)", err.text);
    sl_api_opts_t o = {.listen = "127.0.0.1",
                       .port = 0,
                       .store = store,
                       .pods_root = "/nonexistent",
                       .exec_max_streams = 4};
    sl_api_t *api = sl_api_create(&o, &err);
    ok(api != NULL, "api (%s)", err.text);
    unsigned code = 0;
    char *why = NULL;
    is_int(take(api, "alice", 4, &code, &why), 0, "alice takes her 4 streams");
    is_int(take(api, "alice", 1, &code, &why), -1, "a fifth is refused");
    is_int((int)code, 429, "... with 429");
    has_str(why ? why : "", "exec.max_streams_per_user", "... naming the option (%s)", why);
    is_int(take(api, "bob", 4, &code, &why), 0, "bob still takes his own 4");
    api_streams_give(api, "alice", 2);
    is_int(take(api, "alice", 2, &code, &why), 0, "two given back: alice takes 2 again");
    is_int(take(api, "alice", 1, &code, &why), -1, "... and no more");
    api_streams_give(api, "alice", 4);
    api_streams_give(api, "bob", 4);

    struct rlimit was, tight;
    getrlimit(RLIMIT_NOFILE, &was);
    tight = was;
    tight.rlim_cur = (rlim_t)open_fds() + 2; /* 2 left, under the reserve (a quarter) */
    ok(setrlimit(RLIMIT_NOFILE, &tight) == 0, "a soft limit of %llu descriptors",
       (unsigned long long)tight.rlim_cur);
    is_int(take(api, "carol", 1, &code, &why), -1,
           "short of descriptors: carol's first stream is refused");
    is_int((int)code, 503, "... with 503");
    has_str(why ? why : "", "short of file descriptors", "... saying why (%s)", why);
    setrlimit(RLIMIT_NOFILE, &was);
    is_int(take(api, "carol", 1, &code, &why), 0, "the limit back: served");
    api_streams_give(api, "carol", 1);
    free(why);
    sl_api_destroy(api);
    sl_store_close(store);
    return tap_done();
}
