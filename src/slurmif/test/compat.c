/* compat.h against the libslurm this build links: the helpers that differ
 * by release (bit test, reason and state names, host lists) give the same
 * answers on every release, and the release check names both versions. No
 * slurmctld needed. */
#include "slurmif/compat.h"
#include "common/argv.h"
#include "common/tap.h"
#include "common/xalloc.h"
#include "slurmif/slurmif.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libslurm's bitstring functions (exported, not declared by slurm.h) */
extern bitstr_t *slurm_bit_alloc(bitoff_t nbits);
extern void slurm_bit_set(bitstr_t *b, bitoff_t bit);
extern void slurm_bit_free(bitstr_t **b);

static void diag_chown(void) { printf("# chown: not root?\n"); }

static void bits(void)
{
    const bitoff_t set[] = {0, 5, 63, 64, 65, 127, 128, 199};
    bitstr_t *b = slurm_bit_alloc(200);
    for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
        slurm_bit_set(b, set[i]);
    int wrong = 0, count = 0;
    for (bitoff_t t = 0; t < slurm_bit_size(b); t++) {
        int want = 0;
        for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
            want |= set[i] == t;
        int got = sl_compat_bit_test(b, t);
        wrong += got != want;
        count += got;
    }
    is_int(slurm_bit_size(b), 200, "the bitmap holds 200 bits");
    is_int(wrong, 0, "sl_compat_bit_test agrees with the bits set, word edges included");
    is_int(count, 8, "eight bits set");
    slurm_bit_free(&b);
}

static void names(void)
{
    is_str(sl_compat_reason_string(WAIT_RESOURCES), "Resources", "reason Resources");
    is_str(sl_compat_reason_string(WAIT_NO_REASON), "None", "reason None");
    is_str(slurm_job_state_string(JOB_PENDING), "PENDING", "job state PENDING");
    is_str(slurm_node_state_string(NODE_STATE_IDLE), "IDLE", "node state IDLE");
}

static void hostlists(void)
{
    char **v = sl_slurm_hostlist_expand("node[1-2],gpu3");
    ok(v && v[0] && v[1] && v[2] && !v[3], "node[1-2],gpu3 is three hosts");
    if (v && v[0] && v[1] && v[2])
        ok(!strcmp(v[0], "node1") && !strcmp(v[1], "node2") && !strcmp(v[2], "gpu3"),
           "in order: node1 node2 gpu3");
    else
        ok(0, "in order: node1 node2 gpu3");
    sl_strv_free(v);
    ok(sl_slurm_hostlist_has("node[1-4],gpu7", "node3"), "node3 is in node[1-4],gpu7");
    ok(!sl_slurm_hostlist_has("node[1-4],gpu7", "node5"), "node5 is not");
}

static void releases(void)
{
    const char *built = sl_slurm_built_version();
    unsigned a, b, c;
    char tail = 0;
    ok(sscanf(built, "%u.%u.%u%c", &a, &b, &c, &tail) == 3 &&
           SLURM_VERSION_NUM(a, b, c) == SLURM_VERSION_NUMBER,
       "built against %s, the headers' SLURM_VERSION_NUMBER", built);
    printf("# built against Slurm %s\n", built);

    char line[256] = "";
    char same[32];
    snprintf(same, sizeof(same), "%u.%02u.%u", a, b, c + 1);
    is_int(sl_slurm_release_differs(same, line, sizeof(line)), 0,
           "slurmctld %s: the same major release", same);
    is_str(line, "", "no line when they agree");

    char other[32];
    snprintf(other, sizeof(other), "%u.%02u.1", a + 1, b);
    is_int(sl_slurm_release_differs(other, line, sizeof(line)), 1, "slurmctld %s differs", other);
    ok(strstr(line, built) && strstr(line, other), "one line names both: %s", line);
    ok(!strchr(line, '\n'), "one line");

    snprintf(other, sizeof(other), "%u.%02u.0", a, b == 5 ? 11 : 5);
    is_int(sl_slurm_release_differs(other, line, sizeof(line)), 1,
           "slurmctld %s (same year, other month) differs", other);
    is_int(sl_slurm_release_differs("garbage", line, sizeof(line)), -1, "not a release: -1");
    is_int(sl_slurm_release_differs("", line, sizeof(line)), -1, "empty: -1");
}

#define SYS_PATH "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"

/* sl_slurm_bin_dir's answer for dir: its return value, *out in got */
static int bin_dir_of(const char *dir, char *got, size_t n, sl_error_t *err)
{
    char *out = NULL;
    err->text[0] = '\0';
    int r = sl_slurm_bin_dir(dir, &out, err);
    snprintf(got, n, "%s", out ? out : "(none)");
    free(out);
    return r;
}

/* slurm.bin_dir: the folder set (root's, written by root only), else that
 * of the srun in PATH (in such a folder), else the build's; the jobs' PATH
 * puts it first */
static void bin_dir(void)
{
    char tmp[] = "/tmp/sl-compat-XXXXXX", got[256];
    sl_error_t err;
    ok(mkdtemp(tmp) != NULL, "a folder for a srun of its own");
    char *bin = sl_xasprintf("%s/bin", tmp), *srun = sl_xasprintf("%s/bin/srun", tmp);
    mkdir(bin, 0755);
    int fd = open(srun, O_WRONLY | O_CREAT | O_EXCL, 0755);
    close(fd);

    is_int(bin_dir_of(bin, got, sizeof(got), &err), 0, "a folder set: root's, mode 0755");
    is_str(got, bin, "is the folder");
    char *path = sl_xasprintf("/nonexistent:%s:/usr/bin", bin);
    setenv("PATH", path, 1);
    bin_dir_of(NULL, got, sizeof(got), &err);
    is_str(got, bin, "unset: the folder of the first srun in PATH");
    chmod(srun, 0644);
    bin_dir_of(NULL, got, sizeof(got), &err);
    is_str(got, "/usr/bin", "a srun that is not executable is not one: the next folder's");
    chmod(srun, 0755);
    setenv("PATH", "", 1);
    bin_dir_of(NULL, got, sizeof(got), &err);
    is_str(got, SL_SLURM_BIN_DIR, "no srun in PATH: the build's Slurm (%s)", SL_SLURM_BIN_DIR);

    /* every job's PATH starts with it: a folder another user may write is refused */
    chmod(bin, 0777);
    is_int(bin_dir_of(bin, got, sizeof(got), &err), -1, "a folder anyone may write is refused");
    has_str(err.text, "writable by others", "err says why: %s", err.text);
    setenv("PATH", bin, 1);
    bin_dir_of(NULL, got, sizeof(got), &err);
    is_str(got, SL_SLURM_BIN_DIR, "unset: a srun in such a folder of PATH is passed over");
    chmod(bin, 0755);
    chmod(tmp, 0777);
    is_int(bin_dir_of(bin, got, sizeof(got), &err), -1, "... or in a folder anyone may write");
    has_str(err.text, tmp, "err names that folder: %s", err.text);
    chmod(tmp, 0700);
    if (chown(bin, 65534, 65534) < 0)
        diag_chown();
    is_int(bin_dir_of(bin, got, sizeof(got), &err), -1, "a folder another user owns is refused");
    has_str(err.text, "owned by uid 65534", "err says whose: %s", err.text);
    is_int(bin_dir_of("opt/bin", got, sizeof(got), &err), -1, "a relative folder is refused");
    is_int(bin_dir_of("/nonexistent/bin", got, sizeof(got), &err), -1, "a missing one too");

    char *p = sl_slurm_job_path("/opt/slurm-25.11/bin");
    is_str(p, "PATH=/opt/slurm-25.11/bin:" SYS_PATH, "the jobs' PATH starts with it");
    free(p);
    p = sl_slurm_job_path("/usr/bin");
    is_str(p, "PATH=" SYS_PATH, "a system folder is not named twice (Debian's: as before)");
    free(p);
    p = sl_slurm_job_path(NULL);
    is_str(p, "PATH=" SYS_PATH, "none: the system folders");
    free(p);
    unlink(srun);
    rmdir(bin);
    rmdir(tmp);
    free(srun);
    free(bin);
    free(path);
}

/* slurm.run_as nobody against slurmctld's release and accounting */
static void job_user(void)
{
    char line[512] = "";
    const char *dbd = "accounting_storage/slurmdbd";
    is_int(sl_slurm_job_user_refused("25.11.7", dbd, "nobody", 65534, line, sizeof(line)), 1,
           "25.11 with slurmdbd refuses nobody's jobs");
    ok(strstr(line, "slurm.run_as") && strstr(line, "25.11.7") && !strchr(line, '\n'),
       "one line naming the option and the release: %s", line);
    is_int(sl_slurm_job_user_refused("26.05.3", dbd, "nfsnobody", 65534, line, sizeof(line)), 1,
           "26.05: uid 65534 by another name too");
    is_int(sl_slurm_job_user_refused("26.05.3", dbd, "_slurmlink-jobs", 999, line, sizeof(line)), 0,
           "a user of its own is fine");
    is_int(sl_slurm_job_user_refused("22.05.8", dbd, "nobody", 65534, line, sizeof(line)), 0,
           "22.05 runs nobody's jobs");
    is_int(sl_slurm_job_user_refused("24.11.1", dbd, "nobody", 65534, line, sizeof(line)), 0,
           "24.11 too");
    is_int(sl_slurm_job_user_refused("25.11.7", "accounting_storage/none", "nobody", 65534, line,
                                     sizeof(line)),
           0, "without accounting no association is needed");
    is_int(sl_slurm_job_user_refused("garbage", dbd, "nobody", 65534, line, sizeof(line)), 0,
           "not a release: 0");
}

/* sacctmgr's words for "exists already", as each release prints them
 * (25.11/26.05: as_mysql_assoc.c, user_functions.c and slurmdbd's no-change
 * comment), and words that are a real failure */
static void sacctmgr_said(void)
{
    ok(sl_slurm_sacctmgr_unchanged(" Nothing new added.\n"), "22.05: Nothing new added");
    ok(sl_slurm_sacctmgr_unchanged(" Already existing account default on cluster slurmlink\n"),
       "25.11: an account that exists");
    ok(sl_slurm_sacctmgr_unchanged(
           "Request didn't affect anything\nNothing added.\nMake sure the accounts requested "
           "here have been added to the system/cluster. (sacctmgr add account...)\n"),
       "25.11: a user's association that exists");
    ok(!sl_slurm_sacctmgr_unchanged(" error: Problem adding user associations: Unknown error\n"),
       "a refusal is not");
    ok(!sl_slurm_sacctmgr_unchanged(""), "nothing said is not");
    ok(!sl_slurm_sacctmgr_unchanged(NULL), "NULL is not");
}

int main(void)
{
    tap_plan(52);
    bits();
    names();
    hostlists();
    releases();
    bin_dir();
    job_user();
    sacctmgr_said();
    return tap_done();
}
