/* config.h — slurmlinkd's settings: one table of options (name, file key,
 * type, default, help, reloadable) read by the command-line parser, the
 * configuration file reader (YAML, /etc/slurmlink/slurmlinkd.conf),
 * --help, --check-config and the documentation check (t/88-config.t), so
 * no option is listed twice.
 *
 * The file holds two-level keys, "group: {key: value}"; a command-line
 * option overrides the file's value. Strict: an unknown key, a wrong type, a
 * value out of range or a file that a key names and that cannot be read is
 * one error naming the key. */
#ifndef SL_CONFIG_CONFIG_H
#define SL_CONFIG_CONFIG_H

#include <stdio.h>

#include "common/err.h"

/* the settings, in table order (config.c's table has one row each) */
typedef enum sl_cfg_id {
    SL_CFG_LISTEN,
    SL_CFG_PORT,
    SL_CFG_PLAIN_PORT,
    SL_CFG_PLAIN_ADDRESS,
    SL_CFG_TLS_CERT,
    SL_CFG_TLS_KEY,
    SL_CFG_POLICY,
    SL_CFG_CLIENT_CA,
    SL_CFG_TOKEN_FILE,
    SL_CFG_STATE_DIR,
    SL_CFG_GROUP_COMMIT,
    SL_CFG_SLURM_CONF,
    SL_CFG_CONTROLLERS,
    SL_CFG_RUN_AS,
    SL_CFG_POLL_MS,
    SL_CFG_SUBMIT_WORKERS,
    SL_CFG_SLURM_BIN_DIR,
    SL_CFG_CREATE_ACCOUNTS,
    SL_CFG_PODS_ROOT,
    SL_CFG_STORAGE_CLASSES,
    SL_CFG_IMAGE_STORE,
    SL_CFG_IMAGE_CREDENTIALS,
    SL_CFG_IMAGE_CA_DIR,
    SL_CFG_IMAGE_STORE_LIMIT,
    SL_CFG_IMAGE_MAX_SIZE,
    SL_CFG_IMAGE_UNPACK_USER,
    SL_CFG_IMAGE_MAX_PULLS,
    SL_CFG_IMAGE_MAX_PULLS_PER_NS,
    SL_CFG_IMAGE_MANIFEST_TIMEOUT,
    SL_CFG_SHIM,
    SL_CFG_REPORT_URL,
    SL_CFG_REPORT_CA,
    SL_CFG_DEFAULT_RUNTIME,
    SL_CFG_GPU_TYPES,
    SL_CFG_GPU_SHARED,
    SL_CFG_MAX_CONNECTIONS,
    SL_CFG_MAX_PER_IP,
    SL_CFG_MAX_PER_USER,
    SL_CFG_MAX_WATCHES,
    SL_CFG_MAX_UNAUTH,
    SL_CFG_HANDSHAKE,
    SL_CFG_IDLE,
    SL_CFG_MAX_BODY,
    SL_CFG_MAX_OBJECT,
    SL_CFG_MALLOC_ARENAS,
    SL_CFG_BOOKMARK,
    SL_CFG_WATCH_LOG,
    SL_CFG_WATCH_WINDOW,
    SL_CFG_WATCH_WINDOW_BYTES,
    SL_CFG_EVENT_TTL,
    SL_CFG_EXEC_IDLE,
    SL_CFG_EXEC_MAX,
    SL_CFG_EXEC_MAX_MESSAGE,
    SL_CFG_EXEC_MAX_STREAMS,
    SL_CFG_VERBOSE,
    SL_CFG_COUNT
} sl_cfg_id_t;

typedef struct sl_config sl_config_t;

/* what sl_config_load decided the program does */
typedef enum sl_cfg_action {
    SL_CFG_RUN,   /* start the daemon */
    SL_CFG_CHECK, /* --check-config: print the effective settings, exit 0 */
    SL_CFG_EXIT,  /* --help or --version printed: exit 0 */
} sl_cfg_action_t;

/* Parse argv, read the configuration file (--config FILE, else the
 * default path when it exists) beneath it and check every value. NULL with
 * err holding the one line to print (exit status 2). */
sl_config_t *sl_config_load(int argc, char **argv, sl_cfg_action_t *action, sl_error_t *err);
void sl_config_destroy(sl_config_t *c);

/* a string setting (NULL: unset), a number or a boolean (0/1) */
const char *sl_config_str(const sl_config_t *c, sl_cfg_id_t id);
long sl_config_long(const sl_config_t *c, sl_cfg_id_t id);
/* the configuration file read, NULL when none */
const char *sl_config_file(const sl_config_t *c);

/* the table's facts about setting id: its file key, and whether a reload
 * (SIGHUP) applies a change of it */
const char *sl_config_key(sl_cfg_id_t id);
int sl_config_reloadable(sl_cfg_id_t id);
/* whether setting id has the same value in a and b */
int sl_config_same(const sl_config_t *a, const sl_config_t *b, sl_cfg_id_t id);

/* the effective settings as a configuration file (a valid one: it reads
 * back to the same settings), each with its origin as a comment */
void sl_config_print(const sl_config_t *c, FILE *f);
/* --help from the table */
void sl_config_usage(FILE *f);
/* every file key, one a line: key, option, type, default, reload|restart
 * (whether SIGHUP applies a change) and help, tab-separated; the table of
 * docs/configuration.md is made from it (t/88-install.t checks) */
void sl_config_print_keys(FILE *f);

/* the default configuration file (SYSCONFDIR of the build) */
const char *sl_config_default_path(void);
/* shim.path's default, as slurmlinkd, slurmlink doctor and kubectl exec
 * find it: slurmlink-shim beside the running program when it is there (a
 * build folder), else DIR/../libexec/slurmlink/slurmlink-shim of the
 * program's folder DIR (make install's layout; another LIBEXECDIR is named
 * by shim.path). Caller frees. */
char *sl_config_default_shim(void);

#endif
