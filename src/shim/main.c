/* slurmlink-shim — the kubelet's role inside a Slurm job (see docs/architecture). */
#include "common/version.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--version")) {
        printf("slurmlink-shim %s\n", SLURMLINK_VERSION);
        return 0;
    }
    fprintf(stderr, "usage: slurmlink-shim --version\n");
    return 2;
}
