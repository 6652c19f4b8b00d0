/* flags: slurm-job.vk.io/flags splitting, allow-list, refusals, quoting. */
#include "translate/flags.h"
#include "common/tap.h"

#include <errno.h>
#include <stdlib.h>

/* "name=value|name|..." of the parsed flags, or "ERR: text". */
static char *parse(const char *s)
{
    sl_flags_t f = SL_FLAGS_INIT;
    sl_error_t err = SL_ERROR_INIT;
    char buf[2048] = "";
    if (sl_flags_parse(s, &f, &err) < 0) {
        char *e = NULL;
        if (asprintf(&e, "ERR: %s", err.text) < 0)
            abort();
        return e;
    }
    for (size_t i = 0; i < f.n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof(buf) - l, "%s%s%s%s", i ? "|" : "", f.v[i].name,
                 f.v[i].value ? "=" : "", f.v[i].value ? f.v[i].value : "");
    }
    sl_flags_free(&f);
    return strdup(buf);
}

#define P(in, want, label)                                                                         \
    do {                                                                                           \
        char *got_ = parse(in);                                                                    \
        is_str(got_, want, label);                                                                 \
        free(got_);                                                                                \
    } while (0)

int main(void)
{
    P("", "", "empty");
    P("--partition=gpu", "partition=gpu", "long with =");
    P("--partition gpu", "partition=gpu", "long with separate value");
    P("-p geant4", "partition=geant4", "short with separate value (interLink's bug)");
    P("-pgeant4", "partition=geant4", "short with attached value");
    P("-N 2 -n8 --ntasks-per-node=4", "nodes=2|ntasks=8|ntasks-per-node=4", "several");
    P("--exclusive", "exclusive", "optional-argument switch");
    P("--exclusive=user", "exclusive=user", "optional argument given");
    P("-sk", "oversubscribe|no-kill", "bundled short switches");
    P("--part=debug", "partition=debug", "unique long prefix");
    P("--ex", "ERR: ambiguous sbatch option --ex", "ambiguous prefix");
    P("--gres=gpu:a100:2 --constraint='a100&ib'", "gres=gpu:a100:2|constraint=a100&ib",
      "single quotes");
    P("--comment2 x", "ERR: unknown sbatch option --comment2", "unknown long option");
    P("--mail-user \"a b@c\"", "mail-user=a b@c", "double quotes");
    P("--mail-user=a\\ b", "mail-user=a b", "backslash escape");
    P("--mail-user='$(id)'", "mail-user=$(id)", "nothing is evaluated");
    P("--mail-user=`id`", "mail-user=`id`", "backticks stay literal");
    P("--time=1:00:00 --qos=high -A proj", "time=1:00:00|qos=high|account=proj", "policy options");
    P("--uid=0", "ERR: --uid is not allowed: the job runs as the pod's user", "--uid refused");
    P("--gid 0", "ERR: --gid is not allowed: the job runs as the pod's user", "--gid refused");
    P("--wrap='rm -rf /'", "ERR: --wrap is not allowed: slurmlink writes the batch script",
      "--wrap refused");
    P("-o /tmp/x",
      "ERR: -o (--output) is not allowed: output goes to the pod folder (kubectl logs "
      "reads it there)",
      "-o refused");
    P("--output=/tmp/x",
      "ERR: --output is not allowed: output goes to the pod folder (kubectl "
      "logs reads it there)",
      "--output refused");
    P("-e x",
      "ERR: -e (--error) is not allowed: output goes to the pod folder (kubectl logs reads "
      "it there)",
      "-e refused");
    P("-D /", "ERR: -D (--chdir) is not allowed: the job runs in the pod folder", "-D refused");
    P("--chdir=/", "ERR: --chdir is not allowed: the job runs in the pod folder",
      "--chdir refused");
    P("--export=ALL", "ERR: --export is not allowed: the environment comes from the pod spec",
      "--export refused");
    P("--get-user-env",
      "ERR: --get-user-env is not allowed: the environment comes from the pod spec",
      "--get-user-env refused");
    P("--array=1-3",
      "ERR: --array is not allowed: one pod is one job (a Kubernetes Job becomes an "
      "array)",
      "--array refused");
    P("-J x", "ERR: -J (--job-name) is not allowed: slurmlink sets it to NAMESPACE/NAME",
      "job name refused");
    P("--partition=a; rm -rf /", "ERR: unexpected word 'rm': only sbatch options are accepted",
      "shell operators are just words, and refused");
    P("--partition=a && --uid=0", "ERR: unexpected word '&&': only sbatch options are accepted",
      "&& refused");
    P("-p gpu --uid=0", "ERR: --uid is not allowed: the job runs as the pod's user",
      "one bad flag fails the whole annotation");
    P("--partition", "ERR: --partition needs a value", "missing value");
    P("--partition=", "ERR: --partition needs a value", "empty value");
    P("--contiguous=yes", "ERR: --contiguous takes no value", "switch with a value");
    P("--mail-user='a\nb'", "ERR: --mail-user: value contains a newline", "newline refused");
    P("--partition='gpu", "ERR: unterminated quote", "unterminated quote");
    P("-p gpu \\", "ERR: trailing backslash", "trailing backslash");
    P("-Z", "ERR: unknown sbatch option -Z", "unknown short option");
    P("--test-only",
      "ERR: --test-only is not allowed: it only changes how the sbatch command "
      "itself behaves",
      "CLI-only options refused");

    sl_flag_t f = {"mail-user", (char *)"it's me@x"};
    char *d = sl_flag_directive(&f);
    is_str(d, "#SBATCH --mail-user='it'\\''s me@x'", "directive quotes the value");
    free(d);
    d = sl_flag_option(&f);
    is_str(d, "--mail-user=it's me@x", "option is raw");
    free(d);
    sl_flag_t s = {"exclusive", NULL};
    d = sl_flag_directive(&s);
    is_str(d, "#SBATCH --exclusive", "switch directive");
    free(d);
    sl_flags_t fl = SL_FLAGS_INIT;
    ok(sl_flags_parse("-c 4 --mem=8G", &fl, NULL) == 0 && sl_flags_has(&fl, "cpus-per-task") &&
           sl_flags_has(&fl, "mem") && !sl_flags_has(&fl, "gres"),
       "has");
    sl_flags_free(&fl);
    const char *const *al = sl_flags_allowed();
    int found = 0, bad = 0;
    for (size_t i = 0; al[i]; i++) {
        found |= !strcmp(al[i], "partition");
        bad |= !strcmp(al[i], "uid");
    }
    ok(found && !bad, "allow-list has partition, not uid");
    sl_argv_t w = SL_ARGV_INIT;
    ok(sl_flags_split("a 'b c' \"d\\\"e\" f\\ g '' \"\"", &w, NULL) == 0 && w.n == 6 &&
           !strcmp(w.v[1], "b c") && !strcmp(w.v[2], "d\"e") && !strcmp(w.v[3], "f g") &&
           !strcmp(w.v[4], "") && !strcmp(w.v[5], ""),
       "split words like sh");
    sl_argv_free(&w);
    return tap_done();
}
