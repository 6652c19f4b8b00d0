/* cmd.h — the `slurmlink` CLI: each verb an entry in main.c's table, in a file
 * of its own or of its family (cluster.c: up, down, status). */
#ifndef SL_CMD_H
#define SL_CMD_H

typedef struct sl_subcmd {
    const char *name;
    const char *summary;
    int (*fn)(int argc, char **argv); /* argv[0] is the verb; returns the exit code */
} sl_subcmd_t;

int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_image(int argc, char **argv);
int cmd_kubeconfig(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* default cluster folder: $SLURMLINK_DIR, else /var/lib/slurmlink-cluster */
const char *cmd_default_dir(void);

#endif
