/* mpi_stencil.c — the demo's MPI program: a 1-D Jacobi heat stencil over
 * ranks that checks its own answer (docs/cluster.md, "MPI").
 *
 * The rod of N cells (default 4096) is cut into one block per rank. Each
 * of ITERS sweeps (default 500) exchanges one halo cell with each
 * neighbour (MPI_Sendrecv) and replaces every inner cell by the mean of
 * its neighbours; both ends are held at fixed temperatures. Every rank then
 * computes the same sweeps serially over the whole rod, compares its own
 * block with it, and the ranks combine the largest difference and the sum
 * of squares of the residual with MPI_Allreduce. The run passes when the
 * parallel and the serial answers agree to 1e-12 and the two residuals are
 * equal; it prints one line from rank 0 and exits 0, else exits 1.
 *
 *   srun --mpi=pmix mpi-stencil [--cells N] [--iters K] [--expect-ranks R]
 *                               [--expect-nodes M] [--corrupt RANK]
 * --corrupt RANK makes that rank add 1 to one of its cells after the first
 * sweep: the check must then fail (the test of the test).
 * --expect-ranks R fails unless exactly R ranks run, --expect-nodes M unless
 * they run on exactly M distinct nodes. The line names each rank's node, in
 * rank order: "mpi-stencil: 4 ranks on 2 node(s) [node1,node1,node2,node2],
 * 4096 cells, 500 sweeps: verified". */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEFT_T 100.0
#define RIGHT_T 0.0

typedef struct opts {
    long cells, iters;
    int expect, expect_nodes, corrupt;
} opts_t;

static int parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t){4096, 500, 0, 0, -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        long n = v ? strtol(v, &end, 10) : 0;
        if (!v || !*v || *end)
            return -1;
        if (!strcmp(a, "--cells") && n >= 2 && n <= 100000000)
            o->cells = n;
        else if (!strcmp(a, "--iters") && n >= 1 && n <= 1000000)
            o->iters = n;
        else if (!strcmp(a, "--expect-ranks") && n >= 1 && n <= 1000000)
            o->expect = (int)n;
        else if (!strcmp(a, "--expect-nodes") && n >= 1 && n <= 1000000)
            o->expect_nodes = (int)n;
        else if (!strcmp(a, "--corrupt") && n >= 0 && n <= 1000000)
            o->corrupt = (int)n;
        else
            return -1;
        i++;
    }
    return 0;
}

/* one sweep over cells 1..n of u (u[0], u[n+1]: halo or boundary) into v */
static void sweep(const double *u, double *v, long n)
{
    for (long i = 1; i <= n; i++)
        v[i] = 0.5 * (u[i - 1] + u[i + 1]);
}

/* the whole rod serially: cells 1..total, boundaries at 0 and total+1 */
static double *serial(long total, long iters)
{
    double *u = calloc((size_t)total + 2, sizeof(double));
    double *v = calloc((size_t)total + 2, sizeof(double));
    if (!u || !v)
        return NULL;
    u[0] = v[0] = LEFT_T;
    u[total + 1] = v[total + 1] = RIGHT_T;
    for (long k = 0; k < iters; k++) {
        sweep(u, v, total);
        double *t = u;
        u = v;
        v = t;
    }
    free(v);
    return u;
}

/* this rank's block: [first, first + n) of the cells 0..total-1 */
static void block(long total, int rank, int size, long *first, long *n)
{
    long base = total / size, extra = total % size;
    *first = rank * base + (rank < extra ? rank : extra);
    *n = base + (rank < extra ? 1 : 0);
}

/* the sweeps in parallel; u holds the block with its two halo cells */
static void parallel(double *u, double *v, long n, long iters, int rank, int size, int corrupt)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (long k = 0; k < iters; k++) {
        /* halos: my first cell goes left, my last right */
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (rank == 0)
            u[0] = LEFT_T;
        if (rank == size - 1)
            u[n + 1] = RIGHT_T;
        v[0] = u[0];
        v[n + 1] = u[n + 1];
        sweep(u, v, n);
        memcpy(u + 1, v + 1, (size_t)n * sizeof(double));
        if (k == 0 && rank == corrupt && n > 0)
            u[1 + n / 2] += 1.0;
    }
}

/* sum over cells of (mean of neighbours - cell)^2, of a block with halos */
static double residual2(const double *u, long n)
{
    double r = 0;
    for (long i = 1; i <= n; i++) {
        double d = 0.5 * (u[i - 1] + u[i + 1]) - u[i];
        r += d * d;
    }
    return r;
}

static int run(const opts_t *o, int rank, int size)
{
    long first, n;
    block(o->cells, rank, size, &first, &n);
    double *u = calloc((size_t)n + 2, sizeof(double)), *v = calloc((size_t)n + 2, sizeof(double));
    double *ref = serial(o->cells, o->iters);
    if (!u || !v || !ref) {
        fprintf(stderr, "mpi-stencil: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    parallel(u, v, n, o->iters, rank, size, o->corrupt);
    /* the halos are this sweep's neighbours: the residual is of the final state */
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, rank > 0 ? rank - 1 : MPI_PROC_NULL, 2, &u[n + 1], 1,
                 MPI_DOUBLE, rank < size - 1 ? rank + 1 : MPI_PROC_NULL, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, rank < size - 1 ? rank + 1 : MPI_PROC_NULL, 3, &u[0], 1,
                 MPI_DOUBLE, rank > 0 ? rank - 1 : MPI_PROC_NULL, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (rank == 0)
        u[0] = LEFT_T;
    if (rank == size - 1)
        u[n + 1] = RIGHT_T;
    double err = 0, mine[2], all[2];
    for (long i = 1; i <= n; i++)
        err = fmax(err, fabs(u[i] - ref[first + i]));
    MPI_Allreduce(&err, &mine[0], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    mine[1] = residual2(u, n);
    MPI_Allreduce(&mine[1], &all[1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    all[0] = mine[0];
    double ref2 = residual2(ref, o->cells); /* ref has its boundary cells at 0 and cells+1 */
    int good = all[0] <= 1e-12 && fabs(all[1] - ref2) <= 1e-9 * (ref2 > 1 ? ref2 : 1);
    free(u);
    free(v);
    free(ref);
    return good ? 0 : 1;
}

/* the number of distinct nodes of the ranks, and on rank 0 their names in
 * rank order, comma-separated, into *list (the caller frees it): Slurm's
 * node name where srun started the rank (nodes in network namespaces of one
 * machine share its host name), else the host name */
static int hosts(int rank, int size, char **list)
{
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    const char *node = getenv("SLURMD_NODENAME");
    if (node && *node)
        snprintf(name, sizeof(name), "%s", node);
    else
        MPI_Get_processor_name(name, &len);
    char *all = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    *list = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME + 1) : NULL;
    if (rank == 0 && (!all || !*list)) {
        fprintf(stderr, "mpi-stencil: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    int distinct = 0;
    for (int i = 0; rank == 0 && i < size; i++) {
        const char *me = all + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(me, all + (size_t)j * MPI_MAX_PROCESSOR_NAME);
        distinct += !seen;
        if (i > 0)
            strcat(*list, ",");
        strcat(*list, me);
    }
    free(all);
    return distinct;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o;
    if (parse(argc, argv, &o) < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi-stencil [--cells N] [--iters K] [--expect-ranks R] "
                            "[--expect-nodes M] [--corrupt RANK]\n");
        MPI_Finalize();
        return 2;
    }
    char *names = NULL;
    int nhosts = hosts(rank, size, &names);
    int bad = run(&o, rank, size);
    if ((o.expect && size != o.expect) || (rank == 0 && o.expect_nodes && nhosts != o.expect_nodes))
        bad = 1;
    if (rank == 0)
        printf("mpi-stencil: %d ranks on %d node(s) [%s], %ld cells, %ld sweeps: %s\n", size,
               nhosts, names, o.cells, o.iters, bad ? "MISMATCH" : "verified");
    fflush(stdout);
    free(names);
    MPI_Finalize();
    return bad;
}
