/* The submitter's credential: one thread takes a user's effective ids,
 * the others keep root, a Unix socket peer (munged's SO_PEERCRED) sees the
 * user, and everything comes back. Needs root (the tests run as root). */
#include "common/tap.h"
#include "slurmif/slurmif.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define UID 65534
#define GID 65533

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stage; /* 1: the thread has switched; 2: main has looked */
static struct sockaddr_un addr;
static const char *secret;

typedef struct seen {
    int begin_rc;
    uid_t r, e, s;
    gid_t eg;
    int ngroups;
    gid_t group0;
    int open_errno;
    uid_t after_e;
    gid_t after_eg;
    int after_open;
    int nafter;
    gid_t after[256];
} seen_t;

static void *worker(void *arg)
{
    seen_t *w = arg;
    sl_slurm_cred_t saved;
    sl_error_t err = SL_ERROR_INIT;
    w->begin_rc = sl_slurm_cred_begin(UID, GID, &saved, &err);
    getresuid(&w->r, &w->e, &w->s);
    w->eg = getegid();
    gid_t g[8];
    w->ngroups = getgroups(8, g);
    w->group0 = w->ngroups > 0 ? g[0] : (gid_t)-1;
    int fd = open(secret, O_RDONLY);
    w->open_errno = fd < 0 ? errno : 0;
    if (fd >= 0)
        close(fd);
    /* what a daemon on a Unix socket (munged) learns of this thread */
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) < 0)
        perror("connect");
    pthread_mutex_lock(&mu);
    stage = 1;
    pthread_cond_broadcast(&cv);
    while (stage < 2)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    close(s);
    sl_slurm_cred_end(&saved);
    w->after_e = geteuid();
    w->after_eg = getegid();
    fd = open(secret, O_RDONLY);
    w->after_open = fd >= 0;
    if (fd >= 0)
        close(fd);
    w->nafter = getgroups(256, w->after);
    return NULL;
}

int main(void)
{
    if (geteuid() != 0) {
        printf("1..1\nnot ok 1 - this test needs root\n");
        return 1;
    }
    printf("1..14\n");
    char dir[] = "/tmp/slcred.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256];
    snprintf(path, sizeof(path), "%s/secret", dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    close(fd);
    secret = path;
    chmod(dir, 0755);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s/sock", dir);
    int ls = socket(AF_UNIX, SOCK_STREAM, 0);
    bind(ls, (struct sockaddr *)&addr, sizeof(addr));
    chmod(addr.sun_path, 0777);
    listen(ls, 1);
    gid_t before[256];
    int nbefore = getgroups(256, before);

    seen_t w;
    memset(&w, 0, sizeof(w));
    pthread_t t;
    pthread_create(&t, NULL, worker, &w);
    pthread_mutex_lock(&mu);
    while (stage < 1)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    int cs = accept(ls, NULL, NULL);
    struct ucred cr = {0, 0, 0};
    socklen_t l = sizeof(cr);
    getsockopt(cs, SOL_SOCKET, SO_PEERCRED, &cr, &l);
    uid_t me_e = geteuid();
    gid_t me_eg = getegid();
    pthread_mutex_lock(&mu);
    stage = 2;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    close(cs);

    is_int(w.begin_rc, 0, "the thread takes uid %d gid %d", UID, GID);
    is_int(w.e, UID, "its effective uid is the user's");
    ok(w.r == 0 && w.s == 0, "its real and saved uid stay 0 (the user cannot signal or trace it)");
    is_int(w.eg, GID, "its effective gid is the job's group");
    ok(w.ngroups == 1 && w.group0 == GID, "its only group is the job's group");
    is_int(w.open_errno, EACCES, "meanwhile it cannot open a root-only file");
    is_int(cr.uid, UID, "a Unix socket peer (munged, SO_PEERCRED) sees the user's uid");
    is_int(cr.gid, GID, "... and gid");
    is_int(me_e, 0, "another thread keeps euid 0 meanwhile");
    is_int(me_eg, 0, "... and egid 0");
    is_int(w.after_e, 0, "after: the thread is root again");
    is_int(w.after_eg, 0, "... egid 0");
    ok(w.after_open, "... and opens the root-only file");
    ok(w.nafter == nbefore && !memcmp(before, w.after, (size_t)nbefore * sizeof(gid_t)),
       "... with its groups as before");
    unlink(addr.sun_path);
    unlink(path);
    rmdir(dir);
    return tap_failed || tap_n != 14;
}
