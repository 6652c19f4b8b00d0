/* flags.h — the slurm-job.vk.io/flags annotation: sbatch options, checked.
 *
 * interLink pastes this annotation into the batch script. We split it into
 * words the way a POSIX shell would (quotes and backslashes, nothing ever
 * evaluated: no $, `, globs or operators), parse the words as sbatch's getopt
 * would (long and short forms, --opt=value, --opt value, -p value, -pvalue,
 * bundled short switches, unambiguous long prefixes), and keep only options
 * on an allow-list: the ones that choose resources and scheduling policy.
 * Options that would change who the job runs as, what it runs, where its
 * output goes or its working directory are refused by name, as is anything
 * unknown. Values containing a newline are refused (sbatch reads #SBATCH
 * directives line by line). The options, their short forms, arguments and
 * who may use them are slurmif's one table (slurmif/options.h), which
 * in-process submission parses values with too.
 */
#ifndef SL_TRANSLATE_FLAGS_H
#define SL_TRANSLATE_FLAGS_H

#include <stddef.h>

#include "common/argv.h"
#include "common/err.h"

typedef struct sl_flag {
    const char *name; /* canonical long name, static ("partition") */
    char *value;      /* owned; NULL for switches */
} sl_flag_t;

typedef struct sl_flags {
    sl_flag_t *v;
    size_t n;
} sl_flags_t;

#define SL_FLAGS_INIT                                                                              \
    {                                                                                              \
        NULL, 0                                                                                    \
    }

/* Shell-like word splitting without evaluation. Unterminated quotes and a
 * trailing backslash are errors. Words are appended to words. */
int sl_flags_split(const char *s, sl_argv_t *words, sl_error_t *err);

/* Split and check s. On error nothing is appended and err names the flag:
 *   "--uid is not allowed: the job runs as the pod's user"
 *   "unknown sbatch option --frobnicate" */
int sl_flags_parse(const char *s, sl_flags_t *out, sl_error_t *err);
void sl_flags_free(sl_flags_t *f);

/* 1 if f holds the option `name` (canonical long name). */
int sl_flags_has(const sl_flags_t *f, const char *name);

/* "--name=value" / "--name" for in-process submission (value raw). Caller frees. */
char *sl_flag_option(const sl_flag_t *f);
/* "#SBATCH --name=<quoted value>" for the script. Caller frees. */
char *sl_flag_directive(const sl_flag_t *f);

/* The allow-list as a NULL-terminated list of long names (for docs and --help). */
const char *const *sl_flags_allowed(void);

#endif
