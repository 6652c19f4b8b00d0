/* main.c — `slurmlink VERB ...`: dispatch through the verb table (cmd.h). */
#include "cmd.h"
#include "common/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sl_subcmd_t subcommands[] = {
    {"up", "start a private local cluster (munge, Slurm, slurmlinkd)", cmd_up},
    {"down", "stop everything a cluster folder started", cmd_down},
    {"status", "show each daemon of a cluster folder", cmd_status},
    {"render", "print the batch script a Pod becomes (validates it)", cmd_render},
    {"image", "import, list and remove images in the local image store", cmd_image},
    {"kubeconfig", "issue a user's credential and print a kubeconfig for it", cmd_kubeconfig},
    {"bench", "time a pod end to end via sbatch, kubectl, the API and slurmrestd", cmd_bench},
    {"doctor", "check a cluster for slurmlinkd before users arrive (on the head, as root)",
     cmd_doctor},
    {"report", "summarise a load's jobs from accounting and check no GPU was shared", cmd_report},
};
#define NSUB (sizeof(subcommands) / sizeof(subcommands[0]))

const char *cmd_default_dir(void)
{
    const char *d = getenv("SLURMLINK_DIR");
    return d && *d ? d : "/var/lib/slurmlink-cluster";
}

static void usage(FILE *f)
{
    fprintf(f, "usage: slurmlink VERB [OPTIONS]   (slurmlink VERB --help for its options)\n\n");
    for (size_t i = 0; i < NSUB; i++)
        fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("slurmlink %s\n", SLURMLINK_VERSION);
        return 0;
    }
    for (size_t i = 0; i < NSUB; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "slurmlink: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
