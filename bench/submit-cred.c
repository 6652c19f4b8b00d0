/* submit-cred.c — what submitting as the job's user costs (docs/benchmarks.md).
 *
 * On a running cluster, as root, submits N batch jobs for Unix user USER in
 * rounds that alternate two ways, in one process and one run:
 *   root: slurm_submit_batch_job as root (slurmlinkd before), job_desc for USER;
 *   user: sl_slurm_submit, which takes USER's effective uid/gid on the calling
 *         thread for the RPC (slurmlinkd now).
 * Prints submissions per second for each, and the cost of one credential
 * switch and back alone. Put the partition DOWN first, so that jobs queue and
 * none runs:
 *
 *   cc -D_GNU_SOURCE -Isrc -O2 bench/submit-cred.c build/libslurmlink.a -lslurm -lpthread \
 *      -o /tmp/submit-cred
 *   SLURM_CONF=D/etc/slurm.conf /tmp/submit-cred USER ACCOUNT [N]
 */
#include "slurmif/slurmif.h"

#include <pwd.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *script = "#!/bin/sh\ntrue\n";

static int as_root(uid_t uid, gid_t gid, const char *account, const char *const *env)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.script = (char *)script;
    d.environment = (char **)env;
    d.env_size = 1;
    d.user_id = uid;
    d.group_id = gid;
    d.account = (char *)account;
    d.work_dir = "/tmp";
    d.std_out = "/dev/null";
    d.name = "cred-bench";
    submit_response_msg_t *r = NULL;
    int rc = slurm_submit_batch_job(&d, &r);
    if (r)
        slurm_free_submit_response_response_msg(r);
    return rc == SLURM_SUCCESS ? 0 : -1;
}

static int as_user(uid_t uid, gid_t gid, const char *account, const char *const *env)
{
    char acct[128];
    snprintf(acct, sizeof(acct), "--account=%s", account);
    const char *opts[] = {acct, "--job-name=cred-bench", NULL};
    sl_slurm_submit_t req = {.script = script, .env = env, .options = opts, .uid = uid,
                             .gid = gid, .work_dir = "/tmp", .std_out = "/dev/null"};
    uint32_t id;
    sl_error_t err = {""};
    int rc = sl_slurm_submit(&req, &id, NULL, &err);
    if (rc < 0)
        fprintf(stderr, "submit: %s\n", err.text);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: submit-cred USER ACCOUNT [N]\n");
        return 2;
    }
    struct passwd *pw = getpwnam(argv[1]);
    if (!pw)
        return 2;
    int n = argc > 3 ? atoi(argv[3]) : 1000;
    uid_t uid = pw->pw_uid;
    gid_t gid = pw->pw_gid;
    const char *env[] = {"PATH=/usr/bin:/bin", NULL};
    sl_slurm_init(NULL);
    as_root(uid, gid, argv[2], env); /* warm: plugins loaded, connections made */
    double t[2] = {0, 0};
    int ok[2] = {0, 0};
    for (int round = 0; round < 10; round++)
        for (int way = 0; way < 2; way++) {
            double t0 = now();
            for (int i = 0; i < n / 10; i++)
                ok[way] += (way ? as_user : as_root)(uid, gid, argv[2], env) == 0;
            t[way] += now() - t0;
        }
    sl_slurm_cred_t saved;
    sl_error_t err = {""};
    int m = 100000;
    double t0 = now();
    for (int i = 0; i < m; i++) {
        sl_slurm_cred_begin(uid, gid, &saved, &err);
        sl_slurm_cred_end(&saved);
    }
    double sw = (now() - t0) / m;
    printf("root submits (before):       %6.0f jobs/s (%d of %d ok)\n", ok[0] / t[0], ok[0],
           n / 10 * 10);
    printf("user credential (now):       %6.0f jobs/s (%d of %d ok)\n", ok[1] / t[1], ok[1],
           n / 10 * 10);
    printf("one switch to the user and back: %.2f us\n", sw * 1e6);
    return 0;
}
