/* slurmlink-shim — the kubelet's role inside a Slurm job.
 *
 *     slurmlink-shim --pod-dir DIR [--spec DIR/shim.json]
 *
 * The batch script's last command (exec'ed, so Slurm's signals reach it).
 * Lifecycle: read the spec, block the signals it handles (they arrive on a
 * signalfd), start the containers, then one poll loop moves their output to
 * the logs, reaps them, restarts them after back-off and runs the grace
 * period; pushes to slurmlinkd ride the same loop. Contract and formats:
 * docs/shim-spec.md.
 */
#include "shim.h"

#include "common/fsutil.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/version.h"
#include "common/xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* Exit status when the shim itself cannot run the pod (bad spec, unusable
 * pod folder): 125, as docker and podman use for their own failures. */
#define EXIT_SHIM_ERROR 125
/* How long the last events may take to reach slurmlinkd at exit. */
#define DRAIN_BUDGET_MS 1000

static void usage(FILE *f)
{
    fprintf(f, "usage: slurmlink-shim --pod-dir DIR [--spec FILE]\n\n"
               "Run a pod's containers inside a Slurm job as the kubelet would: init\n"
               "containers in order, then the app containers; CRI logs in DIR/logs/,\n"
               "state in DIR/status.json and DIR/events.jsonl, pushes to the spec's\n"
               "report.url. FILE defaults to DIR/shim.json. See docs/shim-spec.md.\n");
}

/* The spec could not be used: say so where slurmlinkd looks. */
static void write_error_status(const char *dir, const char *msg)
{
    json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:i}", "apiVersion", "slurmlink.io/v1", "kind",
                          "ShimStatus", "phase", "Failed", "reason", "ShimError", "message", msg,
                          "exitCode", EXIT_SHIM_ERROR, "shimPid", (int)getpid());
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!s)
        return;
    char *path = sl_xasprintf("%s/status.json", dir);
    sl_write_file(path, s, strlen(s), 0640, NULL);
    free(path);
    free(s);
}

static int write_pid(const char *dir, sl_error_t *err)
{
    char *path = sl_xasprintf("%s/shim.pid", dir);
    char *s = sl_xasprintf("%d\n", (int)getpid());
    int r = sl_write_file(path, s, strlen(s), 0640, err);
    free(path);
    free(s);
    return r;
}

static void run(shim_pod_t *pod, int sfd)
{
    size_t cap = 1 + 6 * (pod->spec->ninit + pod->spec->ncontainers); /* 3 probes each */
    struct pollfd *fds = sl_xcalloc(cap, sizeof(*fds));
    long long usage_at = 0; /* the next usage sample: the first once the apps run */
    while (pod->phase != POD_FINISHED) {
        if (pod->phase != POD_RUNNING)
            usage_at = 0;
        else if (usage_at <= sl_now_ms()) {
            if (usage_at) /* a first pass: the containers have just been started */
                shim_usage_push(pod);
            usage_at = sl_now_ms() + (usage_at ? SHIM_USAGE_MS : 1000);
        }
        shim_status_flush(pod); /* this pass's changes, before the wait */
        nfds_t n = 0;
        fds[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
        for (size_t i = 0; i < pod->spec->ninit + pod->spec->ncontainers; i++) {
            shim_ctr_t *c = i < pod->spec->ninit ? &pod->init[i] : &pod->apps[i - pod->spec->ninit];
            for (int s = 0; s < 2; s++)
                if (c->fd[s] >= 0)
                    fds[n++] = (struct pollfd){.fd = c->fd[s], .events = POLLIN};
            if (c->tty_sock >= 0) /* an attach asks for the pty (tty.c) */
                fds[n++] = (struct pollfd){.fd = c->tty_sock, .events = POLLIN};
        }
        n += shim_probe_fds(pod, fds + n);
        int timeout = -1;
        long long t = shim_pod_next_timer(pod);
        if (usage_at > 0 && (t < 0 || usage_at < t))
            t = usage_at;
        if (t >= 0) {
            long long d = t - sl_now_ms();
            timeout = d < 0 ? 0 : d > 60000 ? 60000 : (int)d;
        }
        int r = sl_report_poll(pod->report, fds, n, timeout);
        if (r < 0 && errno != EINTR) {
            sl_err("poll: %s", strerror(errno));
            sl_sleep_ms(10);
        }
        if (r > 0 && fds[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
                if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
                    shim_pod_terminate(pod, (int)si.ssi_signo);
                else if (si.ssi_signo == SIGUSR1)
                    shim_pod_stdin_attached(pod);
            }
        }
        /* output first, so a container's last lines are in its log before
         * its exit is recorded */
        for (nfds_t i = 1; r > 0 && i < n; i++)
            if (fds[i].revents)
                shim_pod_read(pod, fds[i].fd);
        shim_pod_reap(pod);
        shim_pod_timers(pod);
    }
    free(fds);
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"pod-dir", required_argument, 0, 'd'},
                                       {"spec", required_argument, 0, 's'},
                                       {"help", no_argument, 0, 'h'},
                                       {"version", no_argument, 0, 'V'},
                                       {0, 0, 0, 0}};
    if (argc > 1 && !strcmp(argv[1], "exec"))
        return shim_exec_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "attach"))
        return shim_attach_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "mpi-serve"))
        return shim_mpi_serve_main(argc - 1, argv + 1);
    const char *dir = NULL, *spec_path = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "d:s:hV", lo, NULL)) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 's': spec_path = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("slurmlink-shim %s\n", SLURMLINK_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!dir || optind < argc) {
        usage(stderr);
        return 2;
    }
    sl_log_init("slurmlink-shim", SL_LOG_INFO);
    /* the identity variables a login would set (ch-run refuses to start
     * without USER); a job submitted with a bare environment lacks them */
    struct passwd *pw = getpwuid(getuid());
    if (pw) {
        setenv("USER", pw->pw_name, 0);
        setenv("LOGNAME", pw->pw_name, 0);
        if (pw->pw_dir)
            setenv("HOME", pw->pw_dir, 0);
    }

    /* Signals arrive as data on a signalfd; children get a clean mask back. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGUSR1);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0) {
        sl_err("signalfd: %s", strerror(errno));
        return EXIT_SHIM_ERROR;
    }

    char *default_spec = sl_xasprintf("%s/shim.json", dir);
    sl_error_t err = SL_ERROR_INIT;
    sl_shim_spec_t *spec = sl_shim_spec_load(spec_path ? spec_path : default_spec, &err);
    free(default_spec);
    if (!spec) {
        sl_err("%s", err.text);
        write_error_status(dir, err.text);
        return EXIT_SHIM_ERROR;
    }
    if (write_pid(dir, &err) < 0) {
        sl_err("%s", err.text);
        sl_shim_spec_destroy(spec);
        return EXIT_SHIM_ERROR;
    }
    shim_pod_t pod;
    if (shim_pod_init(&pod, spec, dir, &err) < 0) {
        sl_err("%s", err.text);
        write_error_status(dir, err.text);
        shim_pod_fini(&pod);
        sl_shim_spec_destroy(spec);
        return EXIT_SHIM_ERROR;
    }
    sl_info("pod %s/%s (%s): %zu init container(s), %zu container(s), restartPolicy %s",
            spec->pod_namespace, spec->pod_name, spec->pod_uid, spec->ninit, spec->ncontainers,
            sl_restart_policy_name(spec->restart_policy));

    shim_pod_start(&pod);
    run(&pod, sfd);
    shim_status_flush(&pod); /* the finished state */
    shim_pod_cleanup(&pod);

    sl_report_drain(pod.report, DRAIN_BUDGET_MS);
    sl_report_stats_t st = sl_report_stats(pod.report);
    if (pod.report)
        sl_info("pushes: %lu sent, %lu failed, %lu dropped, %lu unsent", st.sent, st.failed,
                st.dropped, st.queued - st.sent - st.failed - st.dropped);
    int code = pod.exit_code;
    sl_info("pod finished: exit code %d", code);
    shim_pod_fini(&pod);
    sl_shim_spec_destroy(spec);
    close(sfd);
    return code;
}
