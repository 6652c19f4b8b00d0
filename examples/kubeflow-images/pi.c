/* pi.c — slurmlink's own MPI pi for the image of mpi-operator's v2beta1 pi
 * example (scripts/kubeflow-images.sh builds it with mpicc into
 * /home/mpiuser/pi): each rank throws darts at the square [-1,1]², rank 0
 * adds the hits up (MPI_Reduce) and prints the estimate, with the lines
 * the example's users look for:
 *   Workers: N
 *   Rank R on host H in pod P (ROLE)   (POD_NAME, K_MPI_JOB_ROLE; "-" unset)
 *   pi is approximately 3.14...
 * Each rank's darts come from its own seed (rank + 1), so a run's printed
 * value depends only on the number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define DARTS 4000000LL /* per rank */

/* a 64-bit xorshift: the same sequence on every libc */
static double next_unit(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / (double)(1ULL << 53) * 2.0 - 1.0;
}

int main(int argc, char **argv)
{
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        printf("Workers: %d\n", size);
    MPI_Get_processor_name(host, &len);
    const char *pod = getenv("POD_NAME"), *role = getenv("K_MPI_JOB_ROLE");
    printf("Rank %d on host %s in pod %s (%s)\n", rank, host, pod ? pod : "-", role ? role : "-");
    fflush(stdout);
    unsigned long long seed = 0x9e3779b97f4a7c15ULL * (unsigned long long)(rank + 1);
    long long in = 0, total = 0;
    for (long long i = 0; i < DARTS; i++) {
        double x = next_unit(&seed), y = next_unit(&seed);
        in += x * x + y * y <= 1.0;
    }
    MPI_Reduce(&in, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pi is approximately %.16f\n", 4.0 * (double)total / (double)DARTS / size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
