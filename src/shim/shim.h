/* shim.h — internal interface of the slurmlink-shim program (not a library).
 *
 * main.c    arguments, signals, the poll loop, exit status
 * pod.c     the containers' state machine: start, reap, restart, terminate
 * status.c  status.json, events.jsonl and the pushes to slurmlinkd
 * tty.c     a tty: true container's pty and the socket that hands it to attach
 * probe.c   the containers' startup, liveness and readiness probes
 */
#ifndef SL_SHIM_SHIM_H
#define SL_SHIM_SHIM_H

#include <poll.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "shim/names.h"
#include "shim/podtmp.h"
#include "shimlib/backoff.h"
#include "shimlib/crilog.h"
#include "shimlib/oom.h"
#include "shimlib/report.h"
#include "shimlib/spec.h"

/* how often the pod's hosts file looks at the Service names file */
#define SHIM_NAMES_CHECK_MS 2000

typedef enum { CS_WAITING = 0, CS_RUNNING, CS_TERMINATED } shim_cstate_t;

/* One finished run of a container (Kubernetes ContainerStateTerminated). */
typedef struct shim_term {
    struct timespec started_at, finished_at;
    int exit_code;     /* 128+signal when killed, 128 for StartError */
    int signal;        /* terminating signal, 0 when it exited */
    char reason[16];   /* Completed | Error | OOMKilled | StartError */
    char message[256]; /* "" when none */
} shim_term_t;

typedef struct shim_probe_run shim_probe_run_t; /* probe.c's state of one probe */

typedef struct shim_ctr {
    const sl_shim_container_t *spec;
    size_t index; /* in its list (init or app) */
    char **envp;  /* the job's environment + spec env; owned */
    shim_cstate_t state;
    const char *waiting_reason; /* static string while CS_WAITING */
    int restart_count;          /* also the number of the current log file */
    pid_t pid;                  /* > 0 while running */
    int fd[2];                  /* stdout, stderr pipe read ends; -1 when closed */
    int in_w, in_r;             /* spec "stdin": the fifo held open by the shim, the run's end */
    int pty;                    /* spec "tty": the running run's pty master, or -1 */
    int tty_sock;               /* spec "tty": DIR/tty-C.sock listening (tty.c), or -1 */
    sl_crilog_t *log;
    struct timespec started_at;
    long long started_ms; /* monotonic, for the back-off reset rule */
    sl_oom_mark_t oom;
    int sent_kill;    /* the shim sent SIGKILL to this run */
    shim_term_t cur;  /* valid in CS_TERMINATED */
    shim_term_t last; /* the run before, when has_last */
    int has_last;
    sl_backoff_t backoff;
    long long restart_at_ms;    /* > 0: restart due at this monotonic time */
    int done;                   /* will not run again */
    long long done_order;       /* order in which containers became done */
    struct shim_rootfs *rootfs; /* the running run's private root, or NULL (rootfs.h) */
    shim_probe_run_t *probes;   /* SL_PROBE_NTYPES entries once a run with probes began */
    int ready;                  /* the running run is ready (no readiness probe, or it succeeded) */
    int started_ok;             /* its startup probe succeeded, or it has none */
    long long probe_kill_at_ms; /* > 0: a probe failure sent SIGTERM; SIGKILL then */
} shim_ctr_t;

typedef enum { POD_INIT = 0, POD_RUNNING, POD_FINISHED } shim_podphase_t;

typedef struct shim_pod {
    sl_shim_spec_t *spec;
    char *dir;        /* pod folder */
    shim_ctr_t *init; /* spec->ninit entries */
    shim_ctr_t *apps; /* spec->ncontainers entries */
    size_t next_init; /* the init container running or next to run */
    shim_podphase_t phase;
    int failed; /* an init container failed for good */
    int terminating;
    long long kill_at_ms;         /* grace deadline once terminating */
    int grace_s;                  /* its grace period: the pod's, or a shorter delete's */
    int sidecars_stopping;        /* every regular app container has finished */
    long long sidecar_kill_at_ms; /* their grace deadline */
    struct timespec start_time;
    long long done_seq;
    int exit_code; /* valid in POD_FINISHED */
    /* reporting */
    int status_dirty; /* status.json is behind the state (shim_status_flush) */
    int events_fd;
    long long seq;
    sl_report_t *report;
    char node[256];
    const char *oom_root;     /* "" (tests of the OOM rule use a fake tree) */
    shim_names_t names;       /* the pod's hosts file for "bindHosts" containers */
    int has_names;            /* spec "hosts" given: names is set */
    long long names_check_ms; /* next look at the Service names file (0: none) */
    shim_podtmp_t tmp;        /* the private /tmp of "privateTmp" containers (podtmp.h) */
    char tmp_error[256];      /* why it could not be made ("": made, or none asked) */
} shim_pod_t;

/* pod.c */
/* The job's environment with a container's variables (env, envRuntime). */
char **shim_build_envp(const sl_shim_container_t *sc);
/* `slurmlink-shim exec ...`: kubectl exec's helper on the node (exec.c). */
int shim_exec_main(int argc, char **argv);
/* `slurmlink-shim attach ...`: kubectl attach's helper (attach.c). */
int shim_attach_main(int argc, char **argv);
/* `slurmlink-shim mpi-serve ...`: an MPIJob Launcher's rsh agent served (mpiserve.c). */
int shim_mpi_serve_main(int argc, char **argv);
/* DIR/NAME (exec-HEX.status only) gets msg: 0, or nonzero (exec.c). */
int shim_exec_status(const char *dir, const char *name, const char *msg);

int shim_pod_init(shim_pod_t *pod, sl_shim_spec_t *spec, const char *dir, sl_error_t *err);
void shim_pod_fini(shim_pod_t *pod);
void shim_pod_start(shim_pod_t *pod);                 /* first init container, or the apps */
void shim_pod_reap(shim_pod_t *pod);                  /* after SIGCHLD */
void shim_pod_read(shim_pod_t *pod, int fd);          /* a pipe is readable or closed */
void shim_pod_timers(shim_pod_t *pod);                /* restarts and the grace deadline */
void shim_pod_stdin_attached(shim_pod_t *pod);        /* SIGUSR1: an attach took stdin */
void shim_pod_terminate(shim_pod_t *pod, int signo);  /* SIGTERM/SIGINT received */
long long shim_pod_next_timer(const shim_pod_t *pod); /* monotonic ms, or -1 */
void shim_pod_cleanup(shim_pod_t *pod);               /* remove the spec's cleanup folders */

/* tty.c */
/* c's socket (made on its first run) and a new pty for the run: c->pty the
 * master, *slave the container's terminal; 0, or -1 with msg. */
int shim_tty_open(const char *dir, shim_ctr_t *c, int *slave, char *msg, size_t len);
/* c->tty_sock is readable: each waiting connection gets the master. */
void shim_tty_serve(shim_ctr_t *c);
/* The attach helper's side: the running master of container name of the
 * pod folder dir (the caller closes it), or -1 (none running, no shim). */
int shim_tty_fetch(const char *dir, const char *name);

/* probe.c */
void shim_probe_begin(shim_pod_t *pod, shim_ctr_t *c); /* a run started: its probes start over */
void shim_probe_end(shim_pod_t *pod, shim_ctr_t *c);   /* the run ended: its probes stop */
void shim_probe_timers(shim_pod_t *pod);               /* due probes, timeouts, kills */
long long shim_probe_next(const shim_pod_t *pod);      /* monotonic ms, or -1 */
size_t shim_probe_fds(const shim_pod_t *pod, struct pollfd *fds); /* running probes' output */
int shim_probe_read(shim_pod_t *pod, int fd);                     /* 1 when fd was a probe's */
int shim_probe_reaped(shim_pod_t *pod, pid_t pid, int status);    /* 1 when pid was a probe */
/* In a forked child: cmd (NULL-terminated) in container c as kubectl exec
 * runs it (exec.c), its output on the caller's stdout and stderr; never
 * returns (the command's status, or 126/127 after a message). */
void shim_exec_probe(const char *dir, const sl_shim_container_t *c, char **cmd)
    __attribute__((noreturn));

/* status.c */
int shim_status_open(shim_pod_t *pod, sl_error_t *err);
/* The state changed: status.json is rewritten by the next shim_status_flush,
 * which the main loop calls before it waits and once the pod is finished.
 * The changes of one pass (a pod's start and its first container's, a
 * container's exit and the pod's end) are one rewrite: each is a new file
 * renamed over the old, a new inode and a freed one. */
void shim_status_write(shim_pod_t *pod);
void shim_status_flush(shim_pod_t *pod);
void shim_event_pod(shim_pod_t *pod, const char *event);
void shim_event_container(shim_pod_t *pod, const shim_ctr_t *c, const char *event,
                          long long restart_in_ms);
/* a probe's run of type t failed (msg: its output), or c's ready or started changed */
void shim_event_probe(shim_pod_t *pod, const shim_ctr_t *c, int t, int success, const char *msg);
/* a probe failure stops c (msg: the kubelet's Killing text) */
void shim_event_killing(shim_pod_t *pod, const shim_ctr_t *c, const char *msg, int grace);
/* the running containers' CPU time and memory (kubectl top pod), pushed
 * every SHIM_USAGE_MS while the pod runs, never written to a file */
#define SHIM_USAGE_MS 10000
void shim_usage_push(shim_pod_t *pod);

#endif
