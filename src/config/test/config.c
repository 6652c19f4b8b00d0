/* the option table's readers: defaults, argv, the YAML file beneath argv,
 * strict errors naming the key, combinations, --check-config's output
 * reading back, the reload facts. */
#include "config/config.h"
#include "common/fsutil.h"
#include "common/tap.h"
#include "common/xalloc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/sl-config-XXXXXX";

/* load with argv (NULL-terminated after argv[0]); NULL with err */
static sl_config_t *load(const char *const *args, sl_error_t *err)
{
    char *argv[32] = {"slurmlinkd"};
    int argc = 1;
    for (; args && args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    sl_cfg_action_t a;
    return sl_config_load(argc, argv, &a, err);
}

static char *file(const char *name, const char *text)
{
    char *p;
    if (asprintf(&p, "%s/%s", dir, name) < 0)
        abort();
    sl_write_file(p, text, strlen(text), 0644, NULL);
    return p;
}

static void refused(const char *text, const char *want, const char *desc)
{
    char *p = file("bad.conf", text);
    sl_error_t err = SL_ERROR_INIT;
    const char *args[] = {"--config", p, NULL};
    sl_config_t *c = load(args, &err);
    ok(!c, "refused: %s", desc);
    char *full;
    if (asprintf(&full, "%s: %s", p, want) < 0)
        abort();
    is_str(err.text, full, "  one line naming the key: %s", desc);
    free(full);
    free(p);
    sl_config_destroy(c);
}

/* the test program's folder holds no shim: ../libexec/slurmlink of it;
 * once one is put there, that one */
static void default_shim(void)
{
    char *self = sl_self_dir();
    char *up = strrchr(self, '/');
    char *want = sl_xasprintf("%.*s/libexec/slurmlink/slurmlink-shim", (int)(up - self), self);
    char *beside = sl_xasprintf("%s/slurmlink-shim", self);
    char *got = sl_config_default_shim();
    is_str(got, want, "shim.path's default: ../libexec/slurmlink of the program's folder");
    free(got);
    int fd = open(beside, O_WRONLY | O_CREAT | O_EXCL, 0700);
    ok(fd >= 0, "a shim put beside the test program");
    if (fd >= 0)
        close(fd);
    got = sl_config_default_shim();
    is_str(got, beside, "shim.path's default: an executable shim beside the program");
    free(got);
    if (fd >= 0)
        unlink(beside);
    free(beside);
    free(want);
    free(self);
}

int main(void)
{
    tap_plan(40);
    if (!mkdtemp(dir))
        return 1;
    sl_error_t err = SL_ERROR_INIT;
    sl_config_t *c = load(NULL, &err);
    ok(c != NULL, "no file, no options: the defaults (%s)", err.text);
    is_str(sl_config_str(c, SL_CFG_LISTEN), "127.0.0.1", "listen.address default");
    is_int(sl_config_long(c, SL_CFG_PORT), 6443, "listen.port default");
    is_int(sl_config_long(c, SL_CFG_CONTROLLERS), 1, "slurm.controllers default");
    is_int(sl_config_long(c, SL_CFG_SUBMIT_WORKERS), 8, "slurm.submit_workers default");
    is_int(sl_config_long(c, SL_CFG_MALLOC_ARENAS), 4, "limits.malloc_arenas default");
    ok(sl_config_str(c, SL_CFG_TLS_CERT) == NULL, "tls.cert unset");
    sl_config_destroy(c);

    char *f = file("a.conf", "listen: {port: 7000, address: 0.0.0.0}\n"
                             "slurm: {controllers: false, poll_ms: 500, submit_workers: 3}\n"
                             "limits: {max_body_bytes: 4096}\n");
    const char *a1[] = {"--config", f, "--port", "7001", NULL};
    c = load(a1, &err);
    ok(c != NULL, "a file and an option (%s)", err.text);
    is_int(sl_config_long(c, SL_CFG_PORT), 7001, "the command line overrides the file");
    is_str(sl_config_str(c, SL_CFG_LISTEN), "0.0.0.0", "the file overrides the default");
    is_int(sl_config_long(c, SL_CFG_CONTROLLERS), 0, "a boolean from the file");
    is_int(sl_config_long(c, SL_CFG_MAX_BODY), 4096, "an integer from the file");
    is_int(sl_config_long(c, SL_CFG_SUBMIT_WORKERS), 3, "slurm.submit_workers from the file");
    is_str(sl_config_file(c), f, "the file read");

    /* what --check-config prints reads back to the same settings */
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    sl_config_print(c, m);
    fclose(m);
    char *g = file("printed.conf", out);
    const char *a2[] = {"--config", g, NULL};
    sl_config_t *c2 = load(a2, &err);
    int same = c2 != NULL;
    for (int i = 0; same && i < SL_CFG_COUNT; i++)
        same = sl_config_same(c, c2, i);
    ok(same, "--check-config's output reads back to the same settings (%s)", err.text);
    sl_config_destroy(c2);
    sl_config_destroy(c);
    free(out);
    free(g);
    free(f);

    refused("listen: {prot: 1}\n", "listen.prot: unknown key", "unknown key");
    refused("listn: {port: 1}\n", "listn: unknown key", "unknown group");
    refused("listen: {port: [1]}\n", "listen.port: wrong type: want an integer, not a list",
            "wrong type");
    refused("limits: {idle_timeout: 0}\n", "limits.idle_timeout: must be 1..86400, not 0",
            "out of range");
    refused("slurm: {submit_workers: 0}\n", "slurm.submit_workers: must be 1..64, not 0",
            "no submission worker");
    refused("slurm: {submit_workers: 65}\n", "slurm.submit_workers: must be 1..64, not 65",
            "more than 64 submission workers");
    refused("limits: {malloc_arenas: -1}\n", "limits.malloc_arenas: must be 0..1024, not -1",
            "a negative number of malloc arenas");
    const char *a5[] = {"--malloc-arenas", "0", NULL};
    c = load(a5, &err);
    is_int(c ? sl_config_long(c, SL_CFG_MALLOC_ARENAS) : -1, 0,
           "--malloc-arenas 0: glibc's own (%s)", err.text);
    sl_config_destroy(c);
    const char *a4[] = {"--submit-workers", "64", NULL};
    c = load(a4, &err);
    is_int(c ? sl_config_long(c, SL_CFG_SUBMIT_WORKERS) : -1, 64, "--submit-workers 64 (%s)",
           err.text);
    sl_config_destroy(c);
    refused("tls: {cert: /nonexistent/c.pem, key: /nonexistent/k.pem}\n",
            "tls.cert: /nonexistent/c.pem: cannot read: No such file or directory", "missing file");
    refused("auth: {token_file: /etc/hostname}\n",
            "auth.token_file needs --policy (auth.policy): without a policy nothing is "
            "authenticated or authorized",
            "a combination");

    const char *a3[] = {"--config", "/nonexistent/slurmlinkd.conf", NULL};
    c = load(a3, &err);
    ok(!c && !strcmp(err.text, "/nonexistent/slurmlinkd.conf: cannot read: No such file or "
                               "directory"),
       "a --config file that cannot be read: [%s]", err.text);
    sl_config_destroy(c);

    ok(sl_config_reloadable(SL_CFG_POLICY) && sl_config_reloadable(SL_CFG_MAX_BODY) &&
           sl_config_reloadable(SL_CFG_TLS_CERT) && sl_config_reloadable(SL_CFG_TLS_KEY) &&
           sl_config_reloadable(SL_CFG_SUBMIT_WORKERS) && !sl_config_reloadable(SL_CFG_LISTEN) &&
           !sl_config_reloadable(SL_CFG_CLIENT_CA),
       "the reload facts: policy, body size, certificate and key, submission workers yes; "
       "listen address and client CA no");
    sl_rm_rf(dir);
    default_shim();
    return tap_done();
}
