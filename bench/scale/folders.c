/* folders.c — the file system's side of a pod folder, alone: T threads make
 * N folders, each with two small files (a pod folder's job.sh and shim.json),
 * all in one parent folder (as <pods.root>/<namespace>/ holds a namespace's
 * pods) or spread over S sub-folders of it; then remove them, and again.
 * Prints each round's folders per second. Not a test.
 *   cc -O2 -pthread bench/scale/folders.c -o folders
 *   ./folders DIR [N=10000] [T=8] [S=0] [ROUNDS=3] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *top;
static int n, t, s;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void path_of(char *p, size_t len, int i)
{
    if (s)
        snprintf(p, len, "%s/%02x/pod-%d", top, i % s, i);
    else
        snprintf(p, len, "%s/pod-%d", top, i);
}

static void put(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, "#!/bin/sh\nexec true\n", 20) != 20)
        perror(name);
    if (fd >= 0)
        close(fd);
}

static void *make(void *arg)
{
    char p[512];
    for (int i = (int)(long)arg; i < n; i += t) {
        path_of(p, sizeof(p), i);
        if (mkdir(p, 0700) < 0) {
            perror(p);
            continue;
        }
        int dfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        put(dfd, "job.sh");
        put(dfd, "shim.json");
        close(dfd);
    }
    return NULL;
}

static void *unmake(void *arg)
{
    char p[512], f[600];
    for (int i = (int)(long)arg; i < n; i += t) {
        path_of(p, sizeof(p), i);
        snprintf(f, sizeof(f), "%s/job.sh", p);
        unlink(f);
        snprintf(f, sizeof(f), "%s/shim.json", p);
        unlink(f);
        rmdir(p);
    }
    return NULL;
}

static double run(void *(*fn)(void *))
{
    pthread_t th[256];
    double t0 = now();
    for (long k = 0; k < t; k++)
        pthread_create(&th[k], NULL, fn, (void *)k);
    for (int k = 0; k < t; k++)
        pthread_join(th[k], NULL);
    return n / (now() - t0);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: folders DIR [N] [T] [S] [ROUNDS]\n"), 2;
    top = argv[1];
    n = argc > 2 ? atoi(argv[2]) : 10000;
    t = argc > 3 ? atoi(argv[3]) : 8;
    s = argc > 4 ? atoi(argv[4]) : 0;
    int rounds = argc > 5 ? atoi(argv[5]) : 3;
    if (t < 1 || t > 256 || n < 1 || s < 0 || s > 256)
        return fprintf(stderr, "folders: bad arguments\n"), 2;
    mkdir(top, 0711);
    for (int k = 0; k < s; k++) {
        char p[512];
        snprintf(p, sizeof(p), "%s/%02x", top, k);
        mkdir(p, 0711);
    }
    for (int r = 0; r < rounds; r++) {
        double mk = run(make), rm = run(unmake);
        printf("%s threads %d sub-folders %d round %d: make %.0f/s remove %.0f/s\n", top, t, s, r, mk,
               rm);
        fflush(stdout);
    }
    return 0;
}
